#!/usr/bin/env bash
# Installs what the build and the tests need, idempotently: the wasm32 target, clang (SQLite is
# compiled from C for wasm32), Debian's Chromium for the browser tests, wasm-bindgen-cli at the
# version pinned in Cargo.toml, mdBook for the user guide, the npm packages of package.json
# (binaryen's wasm-opt, chart.js, marked, playwright-core, axe-core for the accessibility checks,
# TypeScript to check the page's JavaScript),
# and Python's duckdb.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

rustup target add wasm32-unknown-unknown >/dev/null

missing=()
command -v clang >/dev/null || missing+=(clang llvm)
# The browser tests drive Debian's Chromium (playwright-core cannot download its own here);
# SKIP_CHROMIUM=1 for a build without the tests (the Pages workflow).
[ -n "${SKIP_CHROMIUM:-}" ] || [ -x /usr/bin/chromium ] || missing+=(chromium chromium-driver)
if [ ${#missing[@]} -gt 0 ]; then
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# DuckDB's Python package reads the team exports back (scripts/team-test.py, scripts/team-scale.py).
DUCKDB_VERSION=2.0.1
if [ "$(python3 -c 'import duckdb; print(duckdb.__version__)' 2>/dev/null)" != "$DUCKDB_VERSION" ]; then
  # A Python whose packages the system manages (PEP 668) refuses --user alone.
  python3 -m pip install --user --quiet "duckdb==$DUCKDB_VERSION" \
    || python3 -m pip install --user --quiet --break-system-packages "duckdb==$DUCKDB_VERSION"
fi

if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  # No --locked: its lockfile pins a webpki-roots version the registry no longer serves.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# mdBook builds the user guide (docs/, scripts/build-docs.sh). Only the search feature: the guide
# is built, never served or watched, and the rest would double the build.
MDBOOK_VERSION=0.5.4
if [ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
  cargo install mdbook --version "$MDBOOK_VERSION" --locked --no-default-features --features search
fi

if [ ! -d node_modules/binaryen ] || [ ! -d node_modules/chart.js ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ] || [ ! -d node_modules/marked ] || [ ! -d node_modules/typescript ]; then
  npm ci --no-audit --no-fund
fi
