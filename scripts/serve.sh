#!/usr/bin/env bash
# Builds the page (the WebAssembly engine, the chart library, the demo data) and serves www/ on
# localhost, printing its address.
#   scripts/serve.sh [--dev] [--port N]      --dev: a quicker, larger, unoptimised build
set -euo pipefail
cd "$(dirname "$0")/.."

build_args=()
port="${PORT:-8000}"
while [ $# -gt 0 ]; do
  case "$1" in
    --dev) build_args+=(--dev) ;;
    --port) port="$2"; shift ;;
    *) echo "usage: scripts/serve.sh [--dev] [--port N]" >&2; exit 2 ;;
  esac
  shift
done

scripts/build-web.sh "${build_args[@]}"
exec node scripts/serve.mjs www --port "$port"
