#!/usr/bin/env bash
# Full-analysis benchmark: generates a corpus (once) and times `copilot-lens analyze` on it.
#   scripts/bench.sh [SIZE]        SIZE of events.jsonl to generate, default 1GB
# Prints the tool's own summary (MB/s of input and peak memory) for each of three runs.
set -euo pipefail
cd "$(dirname "$0")/.."

size="${1:-1GB}"
corpus="bench-corpus/$size"
if [ ! -d "$corpus/.copilot" ]; then
  scripts/gen-corpus.py "$corpus" --size "$size" --seed 1
fi
cargo build --release --quiet
echo "corpus: $corpus ($(du -sh "$corpus/.copilot" | cut -f1) on disk); $(nproc) cores"
cat "$corpus"/.copilot/session-state/*/events.jsonl >/dev/null  # warm the page cache
for run in 1 2 3; do
  echo "run $run:"
  ./target/release/copilot-lens analyze "$corpus" --out "bench-corpus/out-$size" 2>&1 | sed 's/^/  /'
done
