#!/usr/bin/env bash
# Every test: Rust (native), wasm-bindgen-test in Node and in headless Chromium, then the Node
# tests of the npm package and its zarrita adapter. Run scripts/setup.sh once first.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "cargo fmt, clippy"
cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
cargo clippy --target wasm32-unknown-unknown --all-targets -- -D warnings
# The three wasm modules the package ships: the core (no zfp), zfp, and packing.
cargo clippy --target wasm32-unknown-unknown --lib --no-default-features -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --features zfp-module -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features packing-module -- -D warnings

step "cargo test (native)"
cargo test

step "wasm-bindgen-test in Node"
wasm-pack test --node

step "wasm-bindgen-test in headless Chromium"
CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}" WASM_BINDGEN_USE_BROWSER=1 \
  wasm-pack test --headless --chrome

step "npm package build (TypeScript strict)"
npm run build

step "Node tests"
node --test tests/node/
