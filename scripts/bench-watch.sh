#!/usr/bin/env bash
# Watch benchmark: `copilot-lens watch` on a generated home while a session's log grows.
#   scripts/bench-watch.sh [CORPUS] [UPDATES] [GAP_MS] [--log-only]
#     CORPUS      a folder holding .copilot (default bench-corpus/2GB, generated once with
#                 scripts/gen-corpus.py --size 2G --seed 1)
#     UPDATES     model calls appended, one at a time (default 300)
#     GAP_MS      the pause after each call's view before the next call (default 200)
#     --log-only  write each call to the log alone, not also to the session store
#
# The goals (issue 54): the view shows a call within a second of Copilot writing it, each update
# costs what was written (the cache), and memory stays flat over the updates.
#
# With a cache folder of its own, filled by one `usage` run, it starts `watch` on the home and
# appends UPDATES session.usage_record lines to the largest log, one at a time, each waiting for
# the view that shows it; as Copilot CLI does, each call is also a row SQLite writes to the
# session store (its write-ahead log), unless --log-only. Printed: the time from the append to that view (its median, 95th
# percentile and most), the update's own time the view says ("updated in N ms"), and the
# process's resident memory after 10 updates and at the end, with its peak. The log is cut back
# to its size afterwards, and the store's files are put back as they were.
set -euo pipefail
cd "$(dirname "$0")/.."

corpus="${1:-bench-corpus/2GB}"
updates="${2:-300}"
gap_ms="${3:-200}"
mode="${4:-with-store}"
source scripts/lib/bench-home.sh
prepare_bench_home "$corpus"

work=$(mktemp -d /tmp/bench-watch.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 - "$(pwd)" "$corpus" "$updates" "$gap_ms" "$work" "$mode" <<'PY'
import datetime, json, os, queue, re, shutil, sqlite3, statistics, subprocess, sys, threading, time

repo, corpus, updates, gap_ms, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
with_store = sys.argv[6] != "--log-only"
binary = os.path.join(repo, "target/release/copilot-lens")
home = os.path.abspath(os.path.join(corpus, ".copilot"))
state = os.path.join(home, "session-state")
env = dict(os.environ, COPILOT_LENS_CACHE=os.path.join(work, "cache"), COPILOT_LENS_CONFIG=os.path.join(work, "none.json"))

logs = []
for name in os.listdir(state):
    path = os.path.join(state, name, "events.jsonl")
    if os.path.isfile(path):
        logs.append((os.path.getsize(path), name))
size, session = max(logs)
log = os.path.join(state, session, "events.jsonl")
print(f"corpus: {corpus} ({len(logs)} logs); the growing log: {session} ({size / 1e6:.1f} MB); {os.cpu_count()} cores")
store = os.path.join(home, "session-store.db")
with_store = with_store and os.path.isfile(store + "-wal")
print("each call written to the log and to the session store" if with_store else "each call written to the log alone")
store_files = [store, store + "-wal"]
if with_store:
    for path in store_files:
        shutil.copy2(path, os.path.join(work, os.path.basename(path)))
subprocess.run(["sh", "-c", f"find '{home}' -type f -exec cat {{}} + >/dev/null"], check=True)  # page cache
started = time.perf_counter()
subprocess.run([binary, "usage", home], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(f"usage run filling the cache: {(time.perf_counter() - started) * 1000:.0f} ms")

def memory(pid):
    fields = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status"))
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024

connection = None
if with_store:
    # As Copilot keeps it: one connection, open before the watch (its shared memory made),
    # autocommit, the log never checkpointed meanwhile.
    connection = sqlite3.connect(store, isolation_level=None)
    connection.execute("PRAGMA wal_autocheckpoint=0")
    connection.execute("SELECT count(*) FROM sqlite_master").fetchall()

child = subprocess.Popen([binary, "watch", home, "--color", "never"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
views = queue.Queue()
def read_views():
    view = []
    for line in child.stdout:
        line = line.rstrip("\n")
        if line == "" and any(l.startswith("Calls as they arrive") for l in view):
            views.put((time.perf_counter(), "\n".join(view)))
            view = []
        else:
            view.append(line)
threading.Thread(target=read_views, daemon=True).start()

def next_view(timeout=30):
    try:
        return views.get(timeout=timeout)
    except queue.Empty:
        child.kill()
        sys.exit(f"no view within {timeout} s: {child.stderr.read()}")

def update_ms(view):
    found = re.search(r"updated in (\d+) ms", view)
    return int(found.group(1)) if found else None

original_size = size
latencies, update_times, early = [], [], None
try:
    started = time.perf_counter()
    at, view = next_view(120)
    print(f"first view: {(at - started) * 1000:.0f} ms after the start (updated in {update_ms(view)} ms)")
    for i in range(updates):
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        # Each call's credits its own (0.01 more than the last), to know the view that shows it.
        nano_aiu = 10_000_000 * (i + 1)
        line = json.dumps({"type": "session.usage_record", "data": {"usage": {"model": "gpt-5.4", "inputTokens": 1000 + i,
                "outputTokens": 10, "copilotUsage": {"totalNanoAiu": nano_aiu}}}, "id": f"bench-call-{i}", "timestamp": now})
        written = time.perf_counter()
        with open(log, "a") as grown:
            grown.write(line + "\n")
        if connection:
            connection.execute("INSERT INTO assistant_usage_events (session_id, model, input_tokens, output_tokens, "
                               "total_nano_aiu, created_at) VALUES (?, 'gpt-5.4', ?, 10, ?, ?)", (session, 1000 + i, nano_aiu, now))
        # The view that shows this call (views in between may show none).
        while True:
            at, view = next_view()
            if f"gpt-5.4  1 call  +{(i + 1) / 100:.2f} cr" in view.split("Calls as they arrive")[1].split("\n")[1]:
                break
        latencies.append((at - written) * 1000)
        update_times.append(update_ms(view))
        if i == 9:
            early = memory(child.pid)
        time.sleep(gap_ms / 1000)
    late = memory(child.pid)
finally:
    child.kill()
    os.truncate(log, original_size)
    if with_store:
        if connection:
            connection.close()
        for path in store_files:
            shutil.copy2(os.path.join(work, os.path.basename(path)), path)
        if os.path.exists(store + "-shm"):
            os.remove(store + "-shm")

latencies.sort()
update_times.sort()
p95 = lambda values: values[int(0.95 * (len(values) - 1))]
print(f"{updates} calls appended, one every {gap_ms} ms after the last one's view:")
print(f"  from the append to the view showing it: median {statistics.median(latencies):.0f} ms, "
      f"p95 {p95(latencies):.0f} ms, most {latencies[-1]:.0f} ms")
print(f"  the update's own time (its view says): median {statistics.median(update_times):.0f} ms, p95 {p95(update_times):.0f} ms")
print(f"  resident memory: {early[0]:.1f} MiB after 10 updates, {late[0]:.1f} MiB after {updates}; peak {late[1]:.1f} MiB")
within = p95(latencies) <= 1000
flat = late[0] <= early[0] * 1.10 + 1
print(f"goals: shown within a second (p95): {'met' if within else 'NOT met'}; memory flat (within 10%): {'met' if flat else 'NOT met'}")
PY
