#!/usr/bin/env bash
# Builds the page: the core compiled to WebAssembly (cargo, wasm-bindgen at the pinned version,
# wasm-opt from npm binaryen 132), the vendored chart library and the demo data, into www/.
#   scripts/build-web.sh [--dev]     --dev skips wasm-opt and LTO for a faster build
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
[ -d node_modules/binaryen ] && [ -d node_modules/chart.js ] && [ -d node_modules/marked ] || npm install --no-audit --no-fund --silent

profile=web
if [ "${1:-}" = "--dev" ]; then profile=wasm-dev; fi
cargo build --lib --target wasm32-unknown-unknown --no-default-features --profile "$profile"
wasm="target/wasm32-unknown-unknown/$profile/copilot_lens.wasm"

mkdir -p www/pkg www/vendor
wasm-bindgen --target web --no-typescript --out-dir www/pkg "$wasm"
if [ "$profile" = web ]; then
  # Debian's binaryen 108 makes a module that fails at load; npm's 132 is the one that works.
  # -Oz: as fast in the page (tests/e2e/perf.mjs) and 1% smaller than -O3. --low-memory-unused
  # folds small constant offsets into loads, which only differs from the add it replaces when a
  # pointer is within 1 KB of 4 GB: no memory of this page gets there.
  node_modules/.bin/wasm-opt -Oz --converge --low-memory-unused www/pkg/copilot_lens_bg.wasm -o www/pkg/copilot_lens_bg.wasm
fi
cp node_modules/chart.js/dist/chart.umd.min.js www/vendor/chart.umd.min.js
cp node_modules/chart.js/LICENSE.md www/vendor/chart.js-LICENSE.md
cp node_modules/marked/lib/marked.umd.js www/vendor/marked.umd.js
cp node_modules/marked/LICENSE www/vendor/marked-LICENSE.md

demo=www/demo/copilot-demo.zip
if [ ! -f $demo ] || [ scripts/gen-corpus.py -nt $demo ] || [ scripts/make-demo.sh -nt $demo ] || [ scripts/lib/vscode_chat.py -nt $demo ]; then
  scripts/make-demo.sh
fi
echo "built www/ ($(du -h www/pkg/copilot_lens_bg.wasm | cut -f1) of WebAssembly)"
