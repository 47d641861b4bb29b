#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets/) for SECONDS each (default 10; CI runs them
# briefly). cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP=1 lets the stable toolchain take
# them. A crash stops the run; its input is in fuzz/artifacts/<target>/ and belongs, once
# fixed, in fixtures/fuzz/<target>/ (tests/fuzz_regressions.rs replays those). chat_mutations'
# inputs are entries in `arbitrary`'s encoding: `cargo fuzz fmt chat_mutations <input>` shows
# them, and the log they make belongs in fixtures/fuzz/chat_session_log/.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-10}"
shift || true
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --version 0.13.2
export RUSTC_BOOTSTRAP=1
cd fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
cargo fuzz build -O
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target"
  # Seed the corpus with the project's own fixtures of the target's kind.
  case "$target" in
    event_lines) find ../fixtures -name events.jsonl -size -200k -exec cp -n {} "corpus/$target/" \; ;;
    chat_session_log) find ../fixtures -path '*chatSessions*' -size -200k -exec cp -n {} "corpus/$target/" \; ;;
    # Its inputs are `arbitrary`'s bytes, not logs: any bytes are a sequence of entries.
    chat_mutations) find ../fixtures/hostile/chat-push-past-end -name '*.jsonl' -exec cp -n {} "corpus/$target/" \; ;;
    workspace_yaml) find ../fixtures -name workspace.yaml -exec cp -n {} "corpus/$target/" \; ;;
    settings_jsonc) find ../fixtures -name settings.json -exec cp -n {} "corpus/$target/" \; ;;
    customization_files) find ../fixtures \( -name '*mcp*.json' -o -name '*.md' \) -size -100k -exec cp -n {} "corpus/$target/" \; ;;
    wal_replay) find ../fixtures -name '*.db-wal' -size -100k -exec cp -n {} "corpus/$target/" \; ;;
    database_image) find ../fixtures -name session-store.db -size -200k -exec cp -n {} "corpus/$target/" \; ;;
    bill_report) find ../fixtures/bills -name '*.csv' -exec cp -n {} "corpus/$target/" \; ;;
    zip_reading | analysis_from_zip) find ../fixtures -name '*.zip' -size -50k -exec cp -n {} "corpus/$target/" \; ;;
    # Real entries, made by the tool: of logs (the target's own among them), a store, usage scans.
    cache_entry)
      made=$(mktemp -d)
      for home in spec-sample real-cli-1.0.102; do
        cargo run --quiet --manifest-path ../Cargo.toml -- analyze "../fixtures/$home" --out "$made/out" --cache "$made/cache" 2>/dev/null
        cargo run --quiet --manifest-path ../Cargo.toml -- usage "../fixtures/$home" --cache "$made/cache" >/dev/null 2>&1
      done
      cp -n "$made"/cache/*.entry "corpus/$target/"
      rm -r "$made" ;;
  esac
  echo "== $target: ${seconds}s"
  cargo fuzz run -O "$target" "corpus/$target" -- -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=262144 2>&1 |
    grep -E "^(Done|#[0-9]+[[:space:]]+DONE)|ERROR|SUMMARY|panicked|Test unit written" || true
  if [ -n "$(find "artifacts/$target" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' \) 2>/dev/null)" ]; then
    echo "fuzz: $target found a failing input in fuzz/artifacts/$target/" >&2
    exit 1
  fi
done
