#!/usr/bin/env bash
# Usage-report benchmark: copilot-lens against ccusage 20.0.24 on the same generated ~/.copilot.
#   scripts/bench-usage.sh [SIZE]        SIZE of events.jsonl to generate, default 1GB (2GB works)
#
# Generates bench-corpus/SIZE once (scripts/gen-corpus.py, seed 1), installs ccusage into
# .tools/ccusage (npm, idempotent), warms the page cache (cat + one untimed run of each tool),
# then alternates the tools, 3 timed runs each:
#   copilot-lens usage <corpus> --json --by day
#   ccusage copilot daily --json -z UTC --offline      (COPILOT_HOME=<corpus>/.copilot)
# ccusage is timed as its native binary, which is what its npm `ccusage` command (a Node
# wrapper) spawns; the wrapper is timed too, as a third row, since that is how people run it.
# Wall time, CPU time (user+sys) and peak RSS come from os.wait4 on each child (ru_maxrss
# covers the child and the descendants it waited for). MB/s is of the events.jsonl bytes, the
# input both tools read; copilot-lens' own stderr line (which also counts the session store it
# reads) is shown for the last run.
set -euo pipefail
# Cold runs: the CLI reads and writes no cache (scripts/bench-cache.sh times the cache).
export COPILOT_LENS_CACHE=off
cd "$(dirname "$0")/.."

size="${1:-1GB}"
corpus="bench-corpus/$size"
source scripts/lib/ccusage.sh
tools="$CCUSAGE_TOOLS"
install_ccusage
if [ ! -d "$corpus/.copilot" ]; then
  scripts/gen-corpus.py "$corpus" --size "$size" --seed 1
fi
cargo build --release --quiet

work=$(mktemp -d /tmp/bench-usage.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"

echo "corpus: $corpus ($(du -sh "$corpus/.copilot" | cut -f1) on disk); $(nproc) cores; ccusage $CCUSAGE_VERSION"
find "$corpus/.copilot" -type f -exec cat {} + >/dev/null  # warm the page cache

python3 - "$(pwd)" "$corpus" "$tools" "$work" <<'PY'
import os, statistics, subprocess, sys, time

repo, corpus, tools, work = sys.argv[1:5]
home = os.path.join(repo, corpus, ".copilot")
state = os.path.join(home, "session-state")
events = [os.path.join(state, d, "events.jsonl") for d in os.listdir(state)
          if os.path.isfile(os.path.join(state, d, "events.jsonl"))]
input_bytes = sum(os.path.getsize(p) for p in events)

env_cc = {k: v for k, v in os.environ.items() if k != "COPILOT_OTEL_FILE_EXPORTER_PATH"}
env_cc.update(HOME=os.path.join(work, "home"), COPILOT_HOME=home, NO_COLOR="1")
cc_args = ["copilot", "daily", "--json", "-z", "UTC", "--offline"]
tools_abs = os.path.join(repo, tools, "node_modules")
TOOLS = [
    ("copilot-lens usage", [os.path.join(repo, "target/release/copilot-lens"), "usage", os.path.join(repo, corpus),
                            "--json", "--by", "day"], None, repo),
    ("ccusage copilot daily", [os.path.join(tools_abs, "@ccusage/ccusage-linux-x64/bin/ccusage")] + cc_args,
     env_cc, os.path.join(work, "home")),
    ("ccusage via npm wrapper", [os.path.join(tools_abs, ".bin/ccusage")] + cc_args, env_cc, os.path.join(work, "home")),
]

def run(argv, env, cwd):
    err_path = os.path.join(work, "stderr")
    with open(os.devnull, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"{argv[0]} failed ({child.returncode}): {open(err_path).read()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, open(err_path).read().strip()

for name, argv, env, cwd in TOOLS:  # warm-up, untimed
    run(argv, env, cwd)

results = {name: [] for name, *_ in TOOLS}
lens_line = ""
for i in range(3):
    for name, argv, env, cwd in TOOLS:
        wall, cpu, rss, err = run(argv, env, cwd)
        results[name].append((wall, cpu, rss))
        print(f"run {i + 1}  {name:<24} {wall:7.3f} s wall  {cpu:7.3f} s cpu  {rss:7.1f} MiB peak RSS")
        if name.startswith("copilot-lens"):
            lens_line = err.splitlines()[-1] if err else ""

mb = input_bytes / 1e6
print()
print(f"input: {len(events)} events.jsonl files, {mb:.1f} MB; copilot-lens' own line (last run): {lens_line}")
print()
hdr = (f"{'tool':<24} {'best s':>8} {'median s':>9} {'MB/s best':>10} {'MB/s med':>9} {'cpu s med':>10} "
       f"{'RSS MiB med':>12} {'RSS MiB max':>12}")
print(hdr)
print("-" * len(hdr))
for name, runs in results.items():
    walls = sorted(r[0] for r in runs)
    best, med = walls[0], statistics.median(walls)
    cpu = statistics.median(r[1] for r in runs)
    rss_med = statistics.median(r[2] for r in runs)
    rss_max = max(r[2] for r in runs)
    print(f"{name:<24} {best:8.3f} {med:9.3f} {mb / best:10.0f} {mb / med:9.0f} {cpu:10.3f} {rss_med:12.1f} {rss_max:12.1f}")
lens = sorted(r[0] for r in results["copilot-lens usage"])
for name in ("ccusage copilot daily", "ccusage via npm wrapper"):
    other = sorted(r[0] for r in results[name])
    print(f"ratio {name} / copilot-lens: best {other[0] / lens[0]:.2f}x, median "
          f"{statistics.median(other) / statistics.median(lens):.2f}x")
PY
