#!/usr/bin/env bash
# Builds the page: the core compiled to WebAssembly (cargo, wasm-bindgen at the pinned version,
# wasm-opt from npm binaryen 132), the vendored chart library and the demo data, into www/.
# With nothing changed it takes seconds: wasm-opt's output is kept by its input's hash.
#   scripts/build-web.sh [--dev]     --dev skips wasm-opt and LTO for a faster build
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup-build.sh

# Two modules of the one engine: the first the page loads, and the full one (with the `extras`
# feature: the report to share, team exports, the bill's reconciliation), which the page loads
# when one of those is first asked for (www/engine.js). They share one wasm-bindgen glue.
profile=web full_profile=web-full
if [ "${1:-}" = "--dev" ]; then profile=wasm-dev full_profile=wasm-dev-full; fi
cargo build --lib --target wasm32-unknown-unknown --no-default-features --profile "$profile"
cargo build --lib --target wasm32-unknown-unknown --no-default-features --features extras --profile "$full_profile"

mkdir -p www/pkg www/vendor
glue=$(mktemp -d)
trap 'rm -rf "$glue"' EXIT
wasm-bindgen --target web --no-typescript --out-dir www/pkg "target/wasm32-unknown-unknown/$profile/copilot_lens.wasm"
wasm-bindgen --target web --no-typescript --out-dir "$glue" "target/wasm32-unknown-unknown/$full_profile/copilot_lens.wasm"
if ! cmp -s www/pkg/copilot_lens.js "$glue/copilot_lens.js"; then
  echo "build-web: the full module's wasm-bindgen glue differs from the first module's; they must import and export the same (src/page/wasm.rs):" >&2
  diff www/pkg/copilot_lens.js "$glue/copilot_lens.js" | head -20 >&2
  exit 1
fi
mv "$glue/copilot_lens_bg.wasm" www/pkg/copilot_lens_full_bg.wasm
# The glue repeats src/page/wasm.rs's doc comments as JSDoc: a quarter of its download (2.2 kB of
# 8.5 kB gzipped), which no visitor reads and tsc does not either (it reads the hand-written
# www/pkg/copilot_lens.d.ts). They are read in src/page/wasm.rs.
node -e '
  const fs = require("fs"), file = process.argv[1];
  fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(/^[ \t]*\/\*\*[^]*?\*\/[ \t]*\n/gm, ""));
' www/pkg/copilot_lens.js
node --check www/pkg/copilot_lens.js
if [ "$profile" = web ]; then
  # Debian's binaryen 108 makes a module that fails at load; npm's 132 is the one that works.
  # -Oz: as fast in the page (tests/e2e/perf.mjs) and 1% smaller than -O3. --low-memory-unused
  # folds small constant offsets into loads, which only differs from the add it replaces when a
  # pointer is within 1 KB of 4 GB: no memory of this page gets there. The producers and
  # target-features sections say how the module was made; a browser reads neither.
  flags=(-Oz --converge --low-memory-unused --strip-producers --strip-target-features)
  kept_dir=target/wasm-opt
  mkdir -p "$kept_dir"
  kept_now=()
  for module in copilot_lens_bg copilot_lens_full_bg; do
    key=$({ sha256sum <"www/pkg/$module.wasm"; echo "${flags[*]}"; node_modules/.bin/wasm-opt --version; } | sha256sum | cut -c1-32)
    kept="$kept_dir/$key.wasm"
    if [ ! -f "$kept" ]; then
      node_modules/.bin/wasm-opt "${flags[@]}" "www/pkg/$module.wasm" -o "$kept.partial"
      mv "$kept.partial" "$kept"
    fi
    cp "$kept" "www/pkg/$module.wasm"
    kept_now+=("$kept")
  done
  # Only this build's outputs are kept.
  for old in "$kept_dir"/*; do
    case " ${kept_now[*]} " in *" $old "*) ;; *) rm -f "$old" ;; esac
  done
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
