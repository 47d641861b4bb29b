#!/usr/bin/env bash
# The cache's benchmark (issue 26): `copilot-lens analyze` on a generated corpus, cold (no
# cache), then with a cache: the run that fills it, a run with nothing changed, and a run after
# 1% of the event logs grew (lines of their own appended with fresh ids). Prints each run's
# time and peak memory beside the cold run's, and compares the cached runs' outputs with cold
# runs' byte for byte; then the least any cached run does (examples/cache_floor.rs).
#
#   scripts/bench-cache.sh [SIZE]    (default 600MB; the corpus is $CORPUS_DIR/SIZE, default
#                                     bench-corpus/SIZE, made by scripts/bench.sh)
#
# The corpus itself is never changed: the runs read a copy made of hard links, and only the
# grown logs are copied for real before they are appended to. Needs the release build;
# COPILOT_LENS_CLI times another build's CLI (A/B).
set -euo pipefail
cd "$(dirname "$0")/.."
size="${1:-600MB}"
corpus="${CORPUS_DIR:-bench-corpus}/$size"
cli="${COPILOT_LENS_CLI:-$PWD/target/release/copilot-lens}"
[ -d "$corpus" ] || { echo "no corpus at $corpus (scripts/bench.sh $size makes it)" >&2; exit 2; }
[ -x "$cli" ] || { echo "build it first: cargo build --release" >&2; exit 2; }
cargo build --release --quiet --example cache_floor
floor="$PWD/target/release/examples/cache_floor"

# On the corpus's file system (hard links), never inside the corpus; removed at the end.
mkdir -p target
work="$(mktemp -d "${BENCH_TMP:-$PWD/target}/bench-cache.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp -al "$(realpath "$corpus")" "$work/home"
cache="$work/cache"

# run NAME ARGS...: times one analyze into $work/NAME, printing "seconds peak_kib cpu_seconds"
# (user + system: on a busy machine the wall time says more of the machine than of the run).
run() {
  local name="$1"
  shift
  # Every run starts with no dirty pages: else a run pays for the writeback of the runs before
  # it (a VM's disk may take ~320 MB/s once ~800 MB wait), and the cold run, first, would not.
  sync
  /usr/bin/time -f '%e %M %U %S' -o "$work/$name.time" "$cli" analyze "$work/home" --out "$work/$name" --threads 1 "$@" \
    2>"$work/$name.err" >/dev/null
  awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$work/$name.time"
}

same() {
  for file in rows.jsonl sessions.jsonl inventory.json report.json; do
    cmp -s "$work/$1/$file" "$work/$2/$file" || { echo "DIFFERENT: $1/$file and $2/$file"; return 1; }
  done
  echo "identical"
}

logs=$(find "$work/home" -name events.jsonl | sort)
count=$(echo "$logs" | wc -l)
echo "$(nproc) cores; corpus $corpus: $count event logs, $(du -shL "$corpus" | cut -f1); one thread"

# Every run reads the corpus from memory, the cold one too (else it pays the disk alone).
find "$work/home/" -type f -exec cat {} + > /dev/null
read -r cold_s cold_kib cold_cpu < <(run cold --no-cache)
read -r fill_s fill_kib fill_cpu < <(run fill --cache "$cache")
rm -rf "$work/fill"
read -r same_s same_kib same_cpu < <(run unchanged --cache "$cache")
grep -h "cache:" "$work/unchanged.err" | sed 's/^/  unchanged run: /'
same cold unchanged > "$work/unchanged.cmp" || true
output_bytes=$(cat "$work"/unchanged/* | wc -c)
# Outputs go once compared: each run then writes into memory the runs before it freed.
rm -rf "$work/cold" "$work/unchanged"
# What no cache takes away, on the unchanged home as the cached runs find it: listing (an
# unchanged log's check), the other files' reads, the entries' reads, the outputs' writes.
sync
"$floor" "$work/home" "$cache" "$output_bytes" "$work/floor.out" > "$work/floor.txt"

# 1% of the logs grow: each gets its own last 20 lines again, with fresh ids.
python3 - "$work/home" <<'EOF'
import pathlib, re, sys, uuid
logs = sorted(pathlib.Path(sys.argv[1]).rglob("events.jsonl"))
grown = logs[::100]
for log in grown:
    lines = log.read_bytes().splitlines(keepends=True)[-20:]
    fresh = [re.sub(rb'"id":"[^"]*"', lambda _: b'"id":"%s"' % str(uuid.uuid4()).encode(), line) for line in lines]
    data = log.read_bytes()
    log.unlink()  # a hard link to the corpus: the copy gets its own file
    log.write_bytes(data + (b"" if data.endswith(b"\n") else b"\n") + b"".join(fresh))
print(f"  grown: {len(grown)} logs of {len(logs)}", file=sys.stderr)
EOF
read -r grown_s grown_kib grown_cpu < <(run grown --cache "$cache")
grep -h "cache:" "$work/grown.err" | sed 's/^/  grown run: /'
run grown-cold --no-cache > /dev/null
same grown-cold grown > "$work/grown.cmp" || true
rm -rf "$work/grown" "$work/grown-cold"

python3 - "$cold_s $cold_kib $cold_cpu" "$fill_s $fill_kib $fill_cpu" "$same_s $same_kib $same_cpu" "$grown_s $grown_kib $grown_cpu" \
  "$(cat "$work/unchanged.cmp")" "$(cat "$work/grown.cmp")" <<'EOF'
import sys
a = sys.argv[1:]
(cold, _, cold_cpu), *_ = [[float(x) for x in run.split()] for run in a[:4]]
names = ["cold (no cache)", "first, filling the cache", "unchanged, cached", "1% of logs grown, cached"]
outputs = ["-", "-", a[4], a[5]]
print(f"{'run':<26} {'wall s':>7} {'of cold':>7} {'CPU s':>6} {'of cold':>7} {'peak MiB':>8}  outputs against a cold run")
for name, run, same in zip(names, a[:4], outputs):
    wall, kib, cpu = [float(x) for x in run.split()]
    print(f"{name:<26} {wall:>7.2f} {100 * wall / cold:>6.0f}% {cpu:>6.2f} {100 * cpu / cold_cpu:>6.0f}% {kib / 1024:>8.1f}  {same}")
EOF
echo "cache: $(du -sh "$cache" | cut -f1) in $(find "$cache" -name '*.entry' | wc -l) entries"
echo "the least a cached run does (examples/cache_floor.rs, on the unchanged home):"
awk -v cold="$cold_s" '{ printf "  %s (%.0f%% of cold)\n", $0, 100 * $1 / cold }' "$work/floor.txt"
