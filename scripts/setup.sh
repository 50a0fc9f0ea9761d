#!/usr/bin/env bash
# Sets up a fresh machine that has the Rust toolchain, Node.js and npm, builds the package and
# runs the main job, the demo. Everything else it needs it installs: the wasm32 target,
# wasm-bindgen-cli at the exact version in Cargo.lock (its wasm-bindgen-test-runner runs the
# wasm tests, in Node and in Chromium), Chromium and ChromeDriver and clang (Debian packages),
# and the npm dependencies.
#
# At a terminal the demo is served until Ctrl-C; without one (CI, pipes) it is checked in
# headless Chromium instead and the script exits.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

step() { printf '\n== %s\n' "$*"; }

step "Rust target wasm32-unknown-unknown"
rustup target add wasm32-unknown-unknown

want=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  step "wasm-bindgen-cli $want (built from source; about 3 minutes)"
  # Not --locked: one of its locked transitive versions is yanked. No default features: they are
  # TLS (rustls and ring) for a WebDriver reached over https, and the tests' ChromeDriver is on
  # loopback (196 s to build without them, 232 s with).
  cargo install wasm-bindgen-cli --version "$want" --no-default-features
fi

# clang compiles the C zstd library (zstd-sys) for wasm32 in the compress module.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! command -v clang >/dev/null; then
  step "Chromium, ChromeDriver and clang"
  $SUDO apt-get update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver clang
fi

step "npm dependencies"
npm ci --no-audit --no-fund

step "build"
npm run build

step "main job: the demo"
if [ -t 1 ] && [ -z "${CI:-}" ]; then
  npm run demo
else
  npm run demo -- --check
fi
