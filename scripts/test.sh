#!/usr/bin/env bash
# Every test, on a fresh machine too: installs what is missing, then runs the native tests,
# the WebAssembly build and the core's tests under WebAssembly in Node.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

cargo test --all-targets
cargo build --lib --target wasm32-unknown-unknown --no-default-features
cargo test --target wasm32-unknown-unknown --no-default-features --test wasm
