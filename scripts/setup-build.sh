#!/usr/bin/env bash
# Installs what building the page needs, and nothing the tests alone need (scripts/setup.sh adds
# those): Rust's wasm32 target, a clang that compiles C for wasm32 (SQLite is built from C),
# wasm-bindgen-cli at the version pinned in Cargo.toml, and the npm packages the build copies or
# runs (binaryen's wasm-opt, chart.js, marked). Idempotent: a second run only checks.
#   scripts/setup-build.sh [--guide]     --guide: mdBook too, to build the user guide
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130
MDBOOK_VERSION=0.5.4

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
missing_tool() { echo "setup: $1" >&2; exit 1; }

command -v cargo >/dev/null && command -v rustup >/dev/null \
  || missing_tool "Rust is not installed: install it with rustup (https://rustup.rs), then run this again."
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown

# Apple's clang and some distributions' have no wasm32 backend: ask clang itself.
if ! echo 'int f(void){return 0;}' | clang --target=wasm32-unknown-unknown -c -x c -o /dev/null - 2>/dev/null; then
  if command -v apt-get >/dev/null; then
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends clang llvm
  else
    case "$(uname -s)" in
      Darwin) how='brew install llvm, then put "$(brew --prefix llvm)/bin" first in PATH' ;;
      MINGW* | MSYS* | CYGWIN*) how='winget install LLVM.LLVM, then put its bin folder in PATH' ;;
      *) how="install LLVM's clang (with the WebAssembly target) from your distribution's packages" ;;
    esac
    missing_tool "no clang that compiles C for wasm32 (SQLite is compiled from C for the page): $how."
  fi
fi

if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  # No --locked: its lockfile pins a webpki-roots version the registry no longer serves.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

if [ "${1:-}" = "--guide" ] && [ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
  # Only the search feature: the guide is built, never served or watched, and the rest would
  # double the build.
  cargo install mdbook --version "$MDBOOK_VERSION" --locked --no-default-features --features search
fi

command -v npm >/dev/null || missing_tool "Node.js is not installed: install Node.js 20 or later (https://nodejs.org), then run this again."
# The build's packages are package.json's dependencies; the tests' are its devDependencies.
if [ ! -d node_modules/binaryen ] || [ ! -d node_modules/chart.js ] || [ ! -d node_modules/marked ]; then
  npm ci --omit=dev --no-audit --no-fund
fi
