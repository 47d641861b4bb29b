#!/usr/bin/env bash
# The single-file build: dist/copilot-lens.html, the whole page (modules, worker, styles, chart
# library, WebAssembly engine and demo data) in one HTML file that works opened from disk with
# no server and no network.
#   scripts/build-single.sh [--no-build]     --no-build: use www/ as it is (after build-web.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--no-build" ]; then
  scripts/build-web.sh
fi
node scripts/build-single.mjs dist/copilot-lens.html
