#!/usr/bin/env bash
# Cross-check of `copilot-lens usage` against ccusage 20.0.24 (`ccusage copilot daily`) on a
# generated ~/.copilot:
#   scripts/compare-ccusage.sh [SIZE]        SIZE of events.jsonl to generate, default 200MB
#
# Installs ccusage into .tools/ccusage (npm, idempotent), generates bench-corpus/SIZE once
# (scripts/gen-corpus.py, seed 1), runs both tools on the same files and compares the token
# columns per day and model. Differences that ccusage's rules explain are computed from the
# corpus itself (see "ccusage's rules" below) and must account for every token of difference;
# anything else fails the run. Exit status: 0 the columns agree (or differ only as explained),
# 1 an unexplained difference, 2 the comparison could not run.
#
# ccusage's rules, from its source (rust/adapters/copilot/src/{parser,loader}.rs in
# github.com/ccusage/ccusage; the npm package ships only a native binary), checked on this
# version with hand-made logs:
# - It reads `$COPILOT_HOME/session-state/*/events.jsonl` (default ~/.copilot), plus OTel files
#   under `$COPILOT_HOME/otel/` and `$COPILOT_OTEL_FILE_EXPORTER_PATH` (none here: unset).
# - Only `session.shutdown` `data.modelMetrics` counts; the session is the directory name.
# - inputTokens = inputTokens - cacheReadTokens - cacheWriteTokens (saturating, per snapshot):
#   the same "fresh input" as copilot-lens' `input`. cacheCreationTokens = cacheWriteTokens,
#   cacheReadTokens = cacheReadTokens, outputTokens = outputTokens (reasoning is inside it and
#   is not printed anywhere), totalTokens = input + output + cacheCreation + cacheRead (the same
#   as copilot-lens' `total`), messageCount = the increases of requests.count (copilot-lens'
#   `requests`). Model ids lose a `-1m` / `-1m-internal` suffix.
# - Snapshots of one (session, model) are deduplicated by event id (the latest timestamp wins),
#   sorted by timestamp, and each is diffed against the previous one field by field with
#   saturation. It has no notion of agentId: a sub-agent's stamped shutdown is one more
#   snapshot of the session. Because the generator's sub-agent snapshot carries only the
#   sub-agent's share, ccusage books that share on the stamped shutdown's day and the rest of the
#   session on the main shutdown's day: same totals, possibly another day. (Had a main shutdown
#   come before the stamped one, as in a resumed session, ccusage would count the difference
#   twice.) copilot-lens skips stamped snapshots (a sub-agent's share is already in its parent's).
set -euo pipefail
cd "$(dirname "$0")/.."

size="${1:-200MB}"
corpus="bench-corpus/$size"
source scripts/lib/ccusage.sh
tools="$CCUSAGE_TOOLS"
install_ccusage
if [ ! -d "$corpus/.copilot" ]; then
  scripts/gen-corpus.py "$corpus" --size "$size" --seed 1 >&2
fi
cargo build --release --quiet

work=$(mktemp -d /tmp/compare-ccusage.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
home_abs="$(pwd)/$corpus/.copilot"
ccusage="$(pwd)/$tools/node_modules/.bin/ccusage"

# ccusage: pointed at the corpus by COPILOT_HOME; HOME and the working directory are an empty
# folder so that no user config (~/.config/ccusage, ./.ccusage) or real ~/.copilot leaks in.
run_ccusage() {  # VIEW OUT
  (cd "$work/home" && env -u COPILOT_OTEL_FILE_EXPORTER_PATH HOME="$work/home" COPILOT_HOME="$home_abs" NO_COLOR=1 \
    "$ccusage" copilot "$1" --json -z UTC --offline) >"$2" 2>"$work/ccusage.err" \
    || { cat "$work/ccusage.err" >&2; echo "ccusage failed" >&2; exit 2; }
}
run_lens() {  # BY OUT
  ./target/release/copilot-lens usage "$corpus" --json --by "$1" >"$2" 2>"$work/lens.err" \
    || { cat "$work/lens.err" >&2; echo "copilot-lens failed" >&2; exit 2; }
}
run_ccusage daily "$work/ccusage.json"
run_lens day "$work/lens.json"
# The session views too: per-session costs show where the two rate tables part ways.
run_ccusage session "$work/ccusage-sessions.json"
run_lens session "$work/lens-sessions.json"

python3 - "$corpus" "$work/ccusage.json" "$work/lens.json" "$CCUSAGE_VERSION" \
  "$work/ccusage-sessions.json" "$work/lens-sessions.json" <<'PY'
import json, os, re, sys
from collections import defaultdict
from datetime import datetime, timezone

corpus, cc_path, lens_path, cc_version, cc_sessions_path, lens_sessions_path = sys.argv[1:7]
home = os.path.join(corpus, ".copilot")
COLS = ("input", "output", "cache_read", "cache_write")          # compared with ccusage
LENS_ONLY = ("reasoning", "requests")                             # checked against the rules
UUID = re.compile(r"^[0-9a-f-]{36}$")

def normalize(model):  # ccusage's normalize_copilot_model
    model = model.strip()
    for suffix in ("-1m-internal", "-1m"):
        if model.endswith(suffix):
            return model[: -len(suffix)]
    return model

def millis(text, naive_is_utc):
    if not isinstance(text, str) or not text:
        return None
    try:
        t = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return None
    if t.tzinfo is None:
        if not naive_is_utc:
            return None  # ccusage drops a timestamp without a zone
        t = t.replace(tzinfo=timezone.utc)
    return int(t.timestamp() * 1000)

def day(ms):
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%d")

def u64_strict(v):   # ccusage's lenient_u64 as observed: non-negative integers, else 0
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0

def u64_lens(v):     # copilot-lens' Count: truncates fractions, clamps negatives, parses text
    if isinstance(v, bool) or v is None:
        return 0
    if isinstance(v, str):
        try:
            v = float(v.strip())
        except ValueError:
            return 0
    if isinstance(v, (int, float)) and v == v and v > 0:
        return int(min(v, 2**64 - 1))
    return 0

def unique_keys(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise ValueError("duplicate key")
    return obj

# ---- one pass over the corpus: every session.shutdown line of every session log ----------------
sessions = []   # (session dir name, [snapshot dict in file order])
skipped_dirs = []
state = os.path.join(home, "session-state")
for sid in sorted(os.listdir(state)):
    path = os.path.join(state, sid, "events.jsonl")
    if not os.path.isfile(path):
        continue
    if not UUID.match(sid):
        skipped_dirs.append(sid)  # ccusage reads it, copilot-lens does not take it for a session
    snaps = []
    with open(path, "rb") as f:
        for line in f:
            if b"session.shutdown" not in line:
                continue
            try:
                ev = json.loads(line, object_pairs_hook=unique_keys)
            except ValueError:
                continue  # both tools skip a line that is not JSON or repeats a key
            if not isinstance(ev, dict) or ev.get("type") != "session.shutdown":
                continue
            data = ev.get("data") if isinstance(ev.get("data"), dict) else {}
            metrics = data.get("modelMetrics") if isinstance(data.get("modelMetrics"), dict) else {}
            snaps.append({"id": ev.get("id") if isinstance(ev.get("id"), str) else "",
                          "ts": ev.get("timestamp"), "agent": ev.get("agentId") or "",
                          "metrics": metrics})
    sessions.append((sid, snaps))

def counters(metric, conv):
    usage = metric.get("usage") if isinstance(metric.get("usage"), dict) else None
    req = metric.get("requests") if isinstance(metric.get("requests"), dict) else {}
    u = usage or {}
    return usage is not None, {
        "requests": conv(req.get("count")), "raw_input": conv(u.get("inputTokens")),
        "output": conv(u.get("outputTokens")), "cache_read": conv(u.get("cacheReadTokens")),
        "cache_write": conv(u.get("cacheWriteTokens")), "reasoning": conv(u.get("reasoningTokens"))}

def ccusage_model(sessions, with_stamped):
    """ccusage's loader: dedup by event id, sort by time, saturating diff per (session, model)."""
    out = defaultdict(lambda: defaultdict(int))   # (day, model) -> column -> value
    origin = defaultdict(list)                     # (day, model) -> [(session, snapshot ts, agent)]
    for sid, snaps in sessions:
        entries = []
        for snap in snaps:
            if snap["agent"] and not with_stamped:
                continue
            ms = millis(snap["ts"], naive_is_utc=False)
            if ms is None:
                continue
            for raw_model in sorted(snap["metrics"]):
                metric = snap["metrics"][raw_model]
                if not isinstance(metric, dict):
                    continue
                model = normalize(raw_model)
                has_usage, c = counters(metric, u64_strict)
                if not has_usage or not model or all(v == 0 for v in c.values()):
                    continue
                fresh = max(c["raw_input"] - c["cache_read"] - c["cache_write"], 0)
                vals = {"input": fresh, "output": c["output"], "cache_read": c["cache_read"],
                        "cache_write": c["cache_write"], "reasoning": c["reasoning"], "requests": c["requests"]}
                key = (snap["id"], model) if snap["id"] else (snap["ts"], model, tuple(sorted(c.items())))
                entries.append({"key": key, "ms": ms, "model": model, "vals": vals, "agent": snap["agent"]})
        kept = {}
        for i, e in enumerate(entries):
            if e["key"] not in kept or entries[kept[e["key"]]]["ms"] <= e["ms"]:
                kept[e["key"]] = i
        by_model = defaultdict(list)
        for i in sorted(kept.values()):
            by_model[entries[i]["model"]].append(i)
        for model, idx in by_model.items():
            idx.sort(key=lambda i: (entries[i]["ms"], i))
            prev = None
            for i in idx:
                e = entries[i]
                inc = {k: v - (prev[k] if prev else 0) for k, v in e["vals"].items()}
                inc = {k: max(v, 0) for k, v in inc.items()}
                prev = e["vals"]
                if any(inc.values()):
                    cell = out[(day(e["ms"]), model)]
                    for k, v in inc.items():
                        cell[k] += v
                    origin[(day(e["ms"]), model)].append((sid, e["ms"], e["agent"]))
    return out, origin

def seed_rules(sessions):
    """The counting rules as copilot-lens states them (src/usage/ledger.rs): file order, a repeated event id or a
    lower total adds nothing, stamped (agentId) snapshots add nothing, the shutdown's UTC day."""
    out = defaultdict(lambda: defaultdict(int))
    for sid, snaps in sessions:
        if not UUID.match(sid):
            continue
        last, seen = {}, set()
        for snap in snaps:
            if snap["agent"]:
                continue
            if snap["id"]:
                if snap["id"] in seen:
                    continue
                seen.add(snap["id"])
            ms = millis(snap["ts"], naive_is_utc=True)
            if ms is None:
                continue
            for model in sorted(snap["metrics"]):
                metric = snap["metrics"][model]
                _, c = counters(metric if isinstance(metric, dict) else {}, u64_lens)
                prev = last.get(model, dict.fromkeys(c, 0))
                last[model] = c
                if any(c[k] < prev[k] for k in c):
                    continue
                inc = {k: c[k] - prev[k] for k in c}
                if not any(inc.values()):
                    continue
                cell = out[(day(ms), normalize(model))]
                cell["input"] += max(inc["raw_input"] - inc["cache_read"] - inc["cache_write"], 0)
                for k in ("output", "cache_read", "cache_write", "reasoning", "requests"):
                    cell[k] += inc[k]
    return out

# ---- the two tools' outputs --------------------------------------------------------------------
cc_doc = json.load(open(cc_path))
lens_doc = json.load(open(lens_path))
cc, cc_day, cc_unknown = {}, {}, []
for d in cc_doc.get("daily", []):
    cc_day[d["date"]] = d
    for m in d.get("modelBreakdowns", []):
        vals = {"input": m["inputTokens"], "output": m["outputTokens"], "cache_read": m["cacheReadTokens"],
                "cache_write": m["cacheCreationTokens"], "cost": m.get("cost") or 0.0}
        if m["modelName"] == "unknown" and not any(vals[c] for c in COLS):
            cc_unknown.append((d["date"], vals["cost"]))  # unattributed credits: cost only, no tokens
            continue
        cc[(d["date"], m["modelName"])] = vals
lens, lens_other, renamed = defaultdict(lambda: defaultdict(float)), defaultdict(lambda: defaultdict(int)), set()
for r in lens_doc["rows"]:
    key = (r["day"], normalize(r["model"]))
    if key[1] != r["model"]:
        renamed.add(r["model"])
    if "partial" in r["flags"] or "recovered" in r["flags"]:
        kind = "partial" if "partial" in r["flags"] else "recovered"
        for k in COLS + LENS_ONLY + ("total",):
            lens_other[kind][k] += r[k]
        continue
    for k in COLS + LENS_ONLY + ("total",):
        lens[key][k] += r[k]
    lens[key]["cost"] += (r["cost_usd_micros"] or 0) / 1e6
    lens[key]["no_rate"] = lens[key]["no_rate"] or ("no_rate" in r["flags"])

emu_all, origin_all = ccusage_model(sessions, with_stamped=True)
emu_plain, _ = ccusage_model(sessions, with_stamped=False)
rules = seed_rules(sessions)

def total(v):
    return sum(v.get(c, 0) for c in COLS)

def vec(m, key, cols=COLS):
    v = m.get(key, {})
    return [int(v.get(c, 0)) for c in cols]

keys = sorted(set(cc) | set(lens) | set(emu_all) | set(emu_plain))
days = sorted({k[0] for k in keys})

# ---- stamped snapshots in the corpus -----------------------------------------------------------
stamped = []
for sid, snaps in sessions:
    mains = [millis(s["ts"], True) for s in snaps if not s["agent"]]
    for s in snaps:
        if s["agent"]:
            ms = millis(s["ts"], True)
            share = defaultdict(int)
            for m in s["metrics"].values():
                _, c = counters(m if isinstance(m, dict) else {}, u64_lens)
                share["total"] += max(c["raw_input"] - c["cache_read"] - c["cache_write"], 0) \
                    + c["output"] + c["cache_read"] + c["cache_write"]
            later = [t for t in mains if t is not None and ms is not None and t >= ms]
            earlier = [t for t in mains if t is not None and ms is not None and t < ms]
            stamped.append({"sid": sid, "ms": ms, "tokens": share["total"],
                            "main_day": day(min(later)) if later else None,
                            "after_main": bool(earlier)})

# ---- comparison ---------------------------------------------------------------------------------
failures = []
explained_rows = []
residual_rows = []
for key in keys:
    a, b = vec(cc, key), vec(lens, key)
    expected = [x - y for x, y in zip(vec(emu_all, key), vec(emu_plain, key))]
    actual = [x - y for x, y in zip(a, b)]
    residual = [x - y for x, y in zip(actual, expected)]
    if any(residual):
        residual_rows.append((key, a, b, expected, residual))
    elif any(actual):
        explained_rows.append((key, a, b, expected))

emu_mismatch = [k for k in keys if vec(cc, k) != vec(emu_all, k)]
rule_cols = COLS + LENS_ONLY
rule_mismatch = [k for k in sorted(set(lens) | set(rules)) if vec(lens, k, rule_cols) != vec(rules, k, rule_cols)]
# messageCount exists per day only
req_rows = []
for d in days:
    cc_req = int(cc_day.get(d, {}).get("messageCount", 0))
    lens_req = sum(int(v["requests"]) for k, v in lens.items() if k[0] == d)
    exp = sum(emu_all[k]["requests"] - emu_plain[k]["requests"] for k in keys if k[0] == d)
    req_rows.append((d, cc_req, lens_req, exp))
req_residual = [r for r in req_rows if r[1] - r[2] != r[3]]
total_mismatch = [d for d in days if int(cc_day.get(d, {}).get("totalTokens", 0))
                  != sum(total(cc[k]) for k in cc if k[0] == d)]

# ---- report -------------------------------------------------------------------------------------
def fmt(n):
    return f"{n:,}"

n_logs = len(sessions)
n_bytes = sum(os.path.getsize(os.path.join(state, s, "events.jsonl")) for s, _ in sessions)
print(f"== copilot-lens usage vs ccusage {cc_version} `copilot daily`, {corpus} ==")
print(f"corpus: {n_logs} session logs, {n_bytes / 1e6:.1f} MB of events.jsonl, "
      f"{sum(len(s) for _, s in sessions)} session.shutdown lines ({len(stamped)} stamped with agentId)")
print("ccusage:      COPILOT_HOME=<corpus>/.copilot HOME=<empty dir> ccusage copilot daily --json -z UTC --offline")
print("copilot-lens: copilot-lens usage <corpus> --json --by day   (counted rows; partial/recovered rows have no ccusage counterpart)")
print()
print("columns:  ccusage inputTokens = inputTokens-cacheRead-cacheWrite  <->  lens input (fresh input)")
print("          ccusage outputTokens (reasoning inside)                 <->  lens output")
print("          ccusage cacheReadTokens                                 <->  lens cache_read")
print("          ccusage cacheCreationTokens (= cacheWriteTokens)        <->  lens cache_write")
print("          ccusage totalTokens = input+output+cacheCreation+cacheRead <-> lens total (per day)")
print("          ccusage messageCount = increases of requests.count      <->  lens requests (per day)")
print("          reasoning: ccusage prints none -> lens checked against the seed's rules recomputed from the corpus")
print()
hdr = f"{'day':<10} {'models':>6} {'ccusage total':>15} {'lens total':>15} {'diff':>11} {'stamped':>11} {'resid':>6} {'req cc/lens':>13} {'cost cc $':>10} {'lens $':>9}  status"
print(hdr)
print("-" * len(hdr))
for d, cc_req, lens_req, exp_req in req_rows:
    ks = [k for k in keys if k[0] == d]
    ct = int(sum(total(cc.get(k, {})) for k in ks))
    lt = int(sum(total(lens.get(k, {})) for k in ks))
    et = sum(total(emu_all.get(k, {})) - total(emu_plain.get(k, {})) for k in ks)
    equal = sum(1 for k in ks if vec(cc, k) == vec(lens, k))
    bad = any(k == r[0] for r in residual_rows for k in ks) or cc_req - lens_req != exp_req
    status = "MISMATCH" if bad else ("ok" if equal == len(ks) and cc_req == lens_req else "explained (stamped)")
    cost_cc = float(cc_day.get(d, {}).get("totalCost", 0.0))
    cost_l = sum(lens[k]["cost"] for k in ks if k in lens)
    print(f"{d:<10} {equal:>3}/{len(ks):<2} {fmt(ct):>15} {fmt(lt):>15} {ct - lt:>+11,} {et:>+11,} {ct - lt - et:>+6} "
          f"{f'{cc_req}/{lens_req}':>13} {cost_cc:>10.2f} {cost_l:>9.2f}  {status}")
print()
print("per model, whole period (tokens; cost in USD at each tool's own rates):")
models = sorted({k[1] for k in keys})
print(f"{'model':<20} {'column':<12} {'ccusage':>15} {'copilot-lens':>15} {'diff':>10}")
for m in models:
    ks = [k for k in keys if k[1] == m]
    for c in COLS + ("total",):
        a = sum(total(cc.get(k, {})) if c == "total" else cc.get(k, {}).get(c, 0) for k in ks)
        b = sum(total(lens.get(k, {})) if c == "total" else lens.get(k, {}).get(c, 0) for k in ks)
        print(f"{m if c == 'input' else '':<20} {c:<12} {fmt(int(a)):>15} {fmt(int(b)):>15} {int(a - b):>+10,}")
    ca = sum(cc.get(k, {}).get("cost", 0) for k in ks)
    cb = sum(lens.get(k, {}).get("cost", 0) for k in ks)
    nr = any(lens.get(k, {}).get("no_rate") for k in ks)
    print(f"{'':<20} {'cost USD':<12} {ca:>15.2f} {cb:>15.2f} {'(lens: no rate)' if nr else ''}")
gt = {c: (sum(v.get(c, 0) for v in cc.values()), sum(v.get(c, 0) for v in lens.values())) for c in COLS + ("cost",)}
print(f"{'ALL':<20} {'total':<12} {fmt(sum(gt[c][0] for c in COLS)):>15} {fmt(int(sum(gt[c][1] for c in COLS))):>15}")
print(f"{'':<20} {'cost USD':<12} {gt['cost'][0]:>15.2f} {gt['cost'][1]:>15.2f}   "
      "(ccusage: its offline LiteLLM table; copilot-lens: GitHub's published rates; see cost below)")
if lens_other:
    print()
    for kind, v in sorted(lens_other.items()):
        print(f"copilot-lens {kind} rows (not compared; ccusage has no such figure): total {fmt(int(v['total']))} tokens, "
              f"{int(v['requests'])} requests")
if cc_unknown:
    print(f"ccusage 'unknown' cost-only rows (unattributed credits): {len(cc_unknown)}, ${sum(c for _, c in cc_unknown):.2f}")
if renamed:
    print(f"note: copilot-lens model ids merged under ccusage's -1m normalisation: {', '.join(sorted(renamed))}")
if skipped_dirs:
    print(f"note: {len(skipped_dirs)} session-state dirs are not session ids; ccusage reads them, copilot-lens does not")

print()
print(f"agentId-stamped shutdown snapshots: {len(stamped)} in {len({s['sid'] for s in stamped})} sessions, "
      f"{fmt(sum(s['tokens'] for s in stamped))} tokens in them")
print("  copilot-lens skips them (seed rule 6). ccusage has no agentId rule: a stamped snapshot is one more")
print("  cumulative snapshot of its (session, model), so it books the sub-agent's share on the stamped")
print("  shutdown's day and diffs the main shutdown against it: same session totals, the share may move")
print("  to another day. Expected per-cell difference = ccusage's rules with minus without stamped snapshots.")
cross = [s for s in stamped if s["main_day"] and s["main_day"] != day(s["ms"])]
after = [s for s in stamped if s["after_main"]]
print(f"  stamped snapshots on another UTC day than their main shutdown: {len(cross)}"
      + "".join(f"\n    session {s['sid']}: stamped {day(s['ms'])}, main {s['main_day']}, {fmt(s['tokens'])} tokens moved"
                for s in cross))
print(f"  stamped snapshots after a main shutdown of their session (ccusage would double count): {len(after)}")
print(f"  day/model cells that differ and are fully explained by them: {len(explained_rows)}")
for key, a, b, exp in explained_rows:
    print(f"    {key[0]} {key[1]:<18} ccusage {a}  lens {b}  expected diff {exp}  (in, out, cache_read, cache_write)")

def diagnose(sid, snaps):
    """What in one session's snapshots makes ccusage's rules and the seed's rules part ways."""
    found = []
    ms = [millis(x["ts"], True) for x in snaps if not x["agent"]]
    if any(a is not None and b is not None and b < a for a, b in zip(ms, ms[1:])):
        found.append("shutdown timestamps out of file order (ccusage sorts by time; the rules take log order)")
    ids = defaultdict(list)
    for x in snaps:
        if x["id"] and not x["agent"]:
            ids[x["id"]].append(x)
    if any(len({(y["ts"], json.dumps(y["metrics"], sort_keys=True)) for y in v}) > 1 for v in ids.values()):
        found.append("an event id repeated with another timestamp or totals (ccusage keeps the latest "
                     "timestamp, the rules the first line)")
    if any(millis(x["ts"], False) is None and millis(x["ts"], True) is not None for x in snaps):
        found.append("a timestamp without a zone (ccusage drops the snapshot, copilot-lens reads it as UTC)")
    last = {}
    for x in snaps:
        if x["agent"]:
            continue
        for model, metric in x["metrics"].items():
            _, c = counters(metric if isinstance(metric, dict) else {}, u64_lens)
            _, strict = counters(metric if isinstance(metric, dict) else {}, u64_strict)
            if c != strict:
                found.append(f"{model}: a count that is not a non-negative integer (ccusage reads 0, "
                             "copilot-lens truncates/parses it)")
            if c["raw_input"] < c["cache_read"] + c["cache_write"]:
                found.append(f"{model}: inputTokens below cacheRead+cacheWrite (fresh input clamps at 0 per "
                             "snapshot in ccusage; copilot-lens subtracts after summing a day's rows)")
            prev = last.get(model)
            if prev and any(c[k] < prev[k] for k in c) and any(c[k] > prev[k] for k in c):
                found.append(f"{model}: some counters went down and others up (the rules add nothing, "
                             "ccusage adds each increase)")
            last[model] = c
            if normalize(model) != model:
                found.append(f"{model}: a -1m id (ccusage merges it into {normalize(model)})")
    return sorted(set(found)) or ["no known rule difference: look at this session by hand"]

if residual_rows or req_residual:
    print()
    print("sessions behind the unexplained cells (ccusage's rules without stamped snapshots vs the seed's rules):")
    for sid, snaps in sessions:
        one = [(sid, snaps)]
        a, _ = ccusage_model(one, with_stamped=False)
        b = seed_rules(one)
        cells = sorted(k for k in set(a) | set(b)
                       if vec(a, k, COLS + ("requests",)) != vec(b, k, COLS + ("requests",)))
        if cells:
            print(f"  session {sid}: cells {', '.join(f'{d} {m}' for d, m in cells)}")
            for reason in diagnose(sid, snaps):
                print(f"    - {reason}")

if rule_mismatch:
    print()
    print("sessions in the cells where copilot-lens departs from the seed's rules:")
    for sid, snaps in sessions:
        cells = sorted(set(seed_rules([(sid, snaps)])) & set(rule_mismatch))
        if cells:
            print(f"  session {sid}: cells {', '.join(f'{d} {m}' for d, m in cells)}")
            for reason in diagnose(sid, snaps):
                print(f"    - {reason}")

# ---- the session views: tokens per (session, model), and where the costs part ways --------------
cc_s = {}
for sess in json.load(open(cc_sessions_path)).get("sessions", []):
    for m in sess.get("modelBreakdowns", []):
        vals = {"input": m["inputTokens"], "output": m["outputTokens"], "cache_read": m["cacheReadTokens"],
                "cache_write": m["cacheCreationTokens"], "cost": m.get("cost") or 0.0}
        if m["modelName"] == "unknown" and not any(vals[c] for c in COLS):
            continue
        cc_s[(sess["sessionId"], m["modelName"])] = vals
lens_s = defaultdict(lambda: defaultdict(float))
for r in json.load(open(lens_sessions_path))["rows"]:
    if "partial" in r["flags"] or "recovered" in r["flags"]:
        continue
    cell = lens_s[(r["session_id"], normalize(r["model"]))]
    for c in COLS:
        cell[c] += r[c]
    cell["cost"] += (r["cost_usd_micros"] or 0) / 1e6
    cell["long"] = cell["long"] or ("long_context" in r["flags"])
stamped_sids = {s["sid"] for s in stamped}
session_residual = []
for sid, snaps in sessions:
    exp = defaultdict(lambda: [0] * len(COLS))
    if sid in stamped_sids:
        a, _ = ccusage_model([(sid, snaps)], with_stamped=True)
        b, _ = ccusage_model([(sid, snaps)], with_stamped=False)
        for (d, m) in set(a) | set(b):
            for i, c in enumerate(COLS):
                exp[m][i] += a.get((d, m), {}).get(c, 0) - b.get((d, m), {}).get(c, 0)
    models_here = {k[1] for k in cc_s if k[0] == sid} | {k[1] for k in lens_s if k[0] == sid}
    for m in models_here:
        diff = [int(x - y) for x, y in zip(vec(cc_s, (sid, m)), vec(lens_s, (sid, m)))]
        if diff != exp[m]:
            session_residual.append((sid, m, vec(cc_s, (sid, m)), vec(lens_s, (sid, m)), exp[m]))

THRESHOLD = 200_000  # the lowest long-context threshold in ccusage's (LiteLLM) table for these models
small, big = [], []
for key, v in cc_s.items():
    if key not in lens_s:
        continue
    all_input = v["input"] + v["cache_read"] + v["cache_write"]
    (small if all_input <= THRESHOLD else big).append((key, v["cost"], lens_s[key]["cost"], lens_s[key]["long"]))
small_equal = [x for x in small if abs(x[1] - x[2]) <= 1e-6 + 1e-6 * x[2]]
print()
print("cost, per (session, model) from both session views:")
print(f"  {len(small_equal)}/{len(small)} pairs with at most {THRESHOLD:,} tokens of input (fresh + cache) cost the same "
      "to the micro-dollar:")
print("  for these models the two tables hold the same base prices.")
if big:
    by_model = defaultdict(list)
    for (sid, m), c, l, _ in big:
        by_model[m].append(c / l if l else float("inf"))
    print(f"  {len(big)} pairs above it: ccusage/copilot-lens cost ratio per model (min .. max):")
    for m, ratios in sorted(by_model.items()):
        print(f"    {m:<20} {len(ratios):>5} pairs  {min(ratios):.3f} .. {max(ratios):.3f}")
    print("  ccusage prices each shutdown snapshot (a whole session's increase) as if it were one request, so a")
    print("  session whose summed input passes a long-context threshold gets long-context rates: measured on this")
    print("  version, GPT-5.4 above 272k and Gemini 3.1 Pro above 200k price every token at the higher rate, Claude")
    print("  Sonnet 4.5 the tokens above 200k; Claude Opus 4.6, GPT-4.1 and GPT-5 mini have no tier. The tier is")
    print("  about one request's prompt length: copilot-lens applies it per call from the usage records "
          f"({sum(1 for x in big + small if x[3])} pairs here had such a call).")

print()
print("checks:")
ok = True
def check(cond, text, detail=()):
    global ok
    print(f"  [{'ok' if cond else 'FAIL'}] {text}")
    for line in list(detail)[:20]:
        print(f"         {line}")
    ok &= cond
check(not residual_rows,
      f"ccusage - copilot-lens == expected stamped-snapshot difference, every day/model and column ({len(keys)} cells)",
      [f"{k[0]} {k[1]}: ccusage {a} lens {b} expected diff {e} residual {r}" for k, a, b, e, r in residual_rows])
check(not req_residual, f"messageCount vs requests per day, after the stamped difference ({len(days)} days)",
      [f"{d}: ccusage {a} lens {b} expected diff {e}" for d, a, b, e in req_residual])
check(not total_mismatch, "ccusage totalTokens == input+output+cacheCreation+cacheRead every day", total_mismatch)
check(not rule_mismatch, "copilot-lens == seed rules recomputed from the corpus, incl. reasoning and requests "
      f"({len(set(lens) | set(rules))} cells)",
      [f"{k}: lens {vec(lens, k, rule_cols)} rules {vec(rules, k, rule_cols)} {rule_cols}" for k in rule_mismatch])
check(not session_residual, f"ccusage session view - copilot-lens --by session == expected stamped difference "
      f"({len(cc_s)} session/model pairs)",
      [f"{sid} {m}: ccusage {a} lens {b} expected diff {e}" for sid, m, a, b, e in session_residual])
check(not emu_mismatch, "ccusage == its own rules recomputed from the corpus (so the expected difference is its own)",
      [f"{k}: ccusage {vec(cc, k)} rules {vec(emu_all, k)}" for k in emu_mismatch])
print()
if not ok:
    print("RESULT: UNEXPLAINED DIFFERENCES (see FAIL above)")
elif explained_rows or any(r[1] != r[2] for r in req_rows):
    print("RESULT: the token columns agree; every difference comes from the stamped-snapshot rule")
else:
    print("RESULT: the token columns agree exactly, every day and model")
sys.exit(0 if ok else 1)
PY
