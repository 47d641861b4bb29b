#!/usr/bin/env bash
# The speed benchmark: this build against another, in alternating pairs, every run cold (no
# cache; the page cache warm), with ccusage's `copilot daily` beside `usage`.
#   scripts/bench.sh [SIZE] [--vs BUILD] [--pairs N] [--page] [--debug-logs SIZE]
#     SIZE      events.jsonl to generate (scripts/gen-corpus.py, seed 1), default 600MB; the
#               corpus is $CORPUS_DIR/SIZE (default bench-corpus/SIZE), made once
#     --vs      the other build: a copilot-lens binary, or a git revision (built once with
#               `cargo build --release` in a worktree under target/bench-builds/)
#     --pairs   alternating pairs per command, default 5
#     --page    also the page on the corpus as a folder (tests/e2e/perf.mjs; with --vs REV the
#               other build's www/ is built too)
#     --debug-logs  also `usage` with VS Code's Agent Debug logs of SIZE beside the corpus, and on
#               them alone (scripts/gen-debug-logs.py, seed 1, into $CORPUS_DIR/debug-SIZE, made once)
# Prints, per command, each build's median wall and CPU time and peak memory, and the ratio;
# beside each `usage`, its floor (examples/usage_floor.rs: the home's logs and store read and
# searched, nothing parsed), which no design that reads the files can go under. Each pair runs
# every command once, so that the machine's drift falls on each alike.
set -euo pipefail
# Cold runs: the CLI reads and writes no cache (scripts/bench-cache.sh times the cache).
export COPILOT_LENS_CACHE=off
cd "$(dirname "$0")/.."

size=600MB vs="" pairs=5 page="" debug_size=""
while [ $# -gt 0 ]; do
  case "$1" in
    --vs) vs="$2"; shift ;;
    --pairs) pairs="$2"; shift ;;
    --page) page=1 ;;
    --debug-logs) debug_size="$2"; shift ;;
    -*) echo "usage: scripts/bench.sh [SIZE] [--vs BUILD] [--pairs N] [--page] [--debug-logs SIZE]" >&2; exit 2 ;;
    *) size="$1" ;;
  esac
  shift
done

corpus="${CORPUS_DIR:-bench-corpus}/$size"
if [ ! -d "$corpus/.copilot" ]; then
  scripts/gen-corpus.py "$corpus" --size "$size" --seed 1
fi
debug_logs=""
if [ -n "$debug_size" ]; then
  debug_logs="${CORPUS_DIR:-bench-corpus}/debug-$debug_size"
  [ -d "$debug_logs" ] || scripts/gen-debug-logs.py "$debug_logs" --size "$debug_size"
fi
source scripts/lib/ccusage.sh
install_ccusage
cargo build --release --quiet
cargo build --release --quiet --example usage_floor
this=target/release/copilot-lens

other="" other_www=""
if [ -n "$vs" ]; then
  if [ -x "$vs" ] && [ -f "$vs" ]; then
    other="$vs"
  else
    revision=$(git rev-parse --short "$vs^{commit}")
    tree="target/bench-builds/$revision"
    if [ ! -x "$tree/target/release/copilot-lens" ]; then
      [ -d "$tree" ] || git worktree add --detach "$tree" "$revision" >&2
      (cd "$tree" && cargo build --release --quiet)
    fi
    other="$tree/target/release/copilot-lens"
    if [ -n "$page" ] && [ ! -f "$tree/www/pkg/copilot_lens_bg.wasm" ]; then
      (cd "$tree" && scripts/build-web.sh >&2)
    fi
    other_www="$tree/www"
  fi
fi

find "$corpus" $debug_logs -type f -exec cat {} + >/dev/null # warm the page cache
echo "corpus: $corpus ($(du -sh "$corpus" | cut -f1) on disk); $(nproc) cores; $pairs alternating pairs; this build: $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes'); other: ${vs:-none}"

python3 - "$corpus" "$this" "$other" "$pairs" "$CCUSAGE_BIN" "$debug_logs" target/release/examples/usage_floor <<'PY'
import os, shutil, statistics, subprocess, sys, tempfile, time

corpus, this, other, pairs, ccusage, debug_logs, floor = sys.argv[1:8]
pairs = int(pairs)
work = tempfile.mkdtemp(prefix="bench.")
cores = str(os.cpu_count())
cc_env = dict(os.environ, HOME=os.path.join(work, "home"), COPILOT_HOME=os.path.join(corpus, ".copilot"), NO_COLOR="1")
os.makedirs(cc_env["HOME"])

def commands(binary):
    out = os.path.join(work, "out")
    named = {
        f"analyze, {cores} threads": [binary, "analyze", corpus, "--out", out, "--threads", cores],
        "analyze, 1 thread": [binary, "analyze", corpus, "--out", out, "--threads", "1"],
        "usage": [binary, "usage", corpus, "--json"],
    }
    if debug_logs:
        named["usage, + debug logs"] = [binary, "usage", corpus, debug_logs, "--json"]
        named["usage, debug logs"] = [binary, "usage", debug_logs, "--json"]
    return named

def run(argv, env=None):
    with open(os.devnull, "wb") as sink, open(os.path.join(work, "stderr"), "wb") as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=sink, stderr=err, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(argv)} failed: {open(os.path.join(work, 'stderr')).read()}")
    shutil.rmtree(os.path.join(work, "out"), ignore_errors=True)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_stime, usage.ru_maxrss / 1024

builds = [("this", this)] + ([("other", other)] if other else [])
# Beside each usage run, the least any reading of the same files costs.
floors = {"usage": [corpus], "usage, + debug logs": [corpus, debug_logs], "usage, debug logs": [debug_logs]}
rows = []
for name in commands(this):
    runs = {build: [] for build, _ in builds}
    if name == "usage":
        runs["ccusage"] = []
    if name in floors:
        runs["floor"] = []
    rows.append((name, runs))
def one_pair(pair, name, runs):
    # Alternate which goes first, so neither always follows the other.
    order = builds if pair % 2 == 0 else builds[::-1]
    for build, binary in order:
        runs[build].append(run(commands(binary)[name]))
    if name == "usage":
        runs["ccusage"].append(run([ccusage, "copilot", "daily", "--json", "-z", "UTC", "--offline"], cc_env))
    if name in floors:
        runs["floor"].append(run([floor] + floors[name]))

# The analyses first, each in its pairs; their output, gigabytes written and deleted, is flushed
# before the usage runs. Those run each once a pair, so that the machine's drift falls on each
# alike (the debug logs' cost is a ratio of two of them).
for name, runs in rows:
    if name not in floors:
        for pair in range(pairs):
            one_pair(pair, name, runs)
os.sync()
for pair in range(pairs):
    for name, runs in rows:
        if name in floors:
            one_pair(pair, name, runs)

print()
print(f"{'command':<22} {'build':<8} {'wall s (median)':>16} {'min-max':>14} {'CPU s':>7} {'kernel s':>9} {'peak MiB':>9} {'vs this':>8}")
for name, runs in rows:
    base = statistics.median(r[0] for r in runs["this"])
    for build, results in runs.items():
        walls = [r[0] for r in results]
        wall = statistics.median(walls)
        cpu = statistics.median(r[1] for r in results)
        kernel = statistics.median(r[2] for r in results)
        peak = max(r[3] for r in results)
        print(f"{name:<22} {build:<8} {wall:16.3f} {min(walls):6.3f}-{max(walls):<7.3f} {cpu:7.2f} {kernel:9.2f} {peak:9.0f} {wall / base:7.2f}x")
if debug_logs:
    named = dict(rows)
    def added(build):
        alone, both = named["usage"][build], named["usage, + debug logs"][build]
        pairwise = statistics.median(b[0] / a[0] - 1 for a, b in zip(alone, both))
        return statistics.median(b[0] for b in both) / statistics.median(a[0] for a in alone) - 1, pairwise
    for build in ["this", "floor"]:
        medians, pairwise = added(build)
        print(f"the debug logs add to usage ({build}): {medians:+.1%} (medians), {pairwise:+.1%} (median of each pair's)")
shutil.rmtree(work)
PY

if [ -n "$page" ]; then
  echo
  echo "the page, the corpus as a folder (tests/e2e/perf.mjs):"
  if [ -n "$other_www" ]; then
    COPILOT_LENS_CLI="$other" COPILOT_LENS_WWW="$other_www" node tests/e2e/perf.mjs "$corpus" --native-runs 1 | sed 's/^/  other: /'
  fi
  node tests/e2e/perf.mjs "$corpus" --native-runs 1 | sed 's/^/  this:  /'
fi
