#!/usr/bin/env bash
# Every test: Rust (native), wasm-bindgen-test in Node and in headless Chromium, then the Node
# tests of the npm package and its zarrita adapter. Run scripts/setup.sh once first.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's heading gives the seconds since the start, so a log shows where the time goes.
step() { printf '\n== %s (at %ss)\n' "$*" "$SECONDS"; }

step "cargo fmt, clippy"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# The library as wasm (its fixture tests run there too), then each wasm module the package
# ships, each with the library features it builds with.
cargo clippy --target wasm32-unknown-unknown --all-targets -- -D warnings
for crate in crates/*/Cargo.toml; do
  cargo clippy --target wasm32-unknown-unknown --manifest-path "$crate" --all-targets -- -D warnings
done

step "cargo test (native)"
cargo test --workspace

# The library's fixture tests as wasm, then the core module's boundary, run by
# wasm-bindgen-cli's own test runner (no wasm-pack): in Node, then in headless Chromium.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
wasm_tests() { cargo test --target wasm32-unknown-unknown --lib --tests "$@"; }
step "wasm-bindgen-test in Node"
WASM_BINDGEN_TEST_ONLY_NODE=1 wasm_tests
WASM_BINDGEN_TEST_ONLY_NODE=1 wasm_tests --manifest-path crates/core/Cargo.toml

step "wasm-bindgen-test in headless Chromium"
for manifest in Cargo.toml crates/core/Cargo.toml; do
  CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}" WASM_BINDGEN_USE_BROWSER=1 \
    wasm_tests --manifest-path "$manifest"
done

step "npm package build (TypeScript strict)"
npm run build

step "Node tests"
# Two test files at a time (Node's default on two cores is one): most of them wait on Chromium,
# a child process or the network, and two at once take 376 s where one at a time took 457 s.
node --test --test-concurrency=2 tests/node/*/*.test.mjs
printf '\n== done (at %ss)\n' "$SECONDS"
