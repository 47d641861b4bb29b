#!/usr/bin/env python3
"""Cross-checks copilot-lens's usage of a generated home's VS Code part against the generator's sidecar.

    scripts/check-vscode-usage.py HOME [--lens target/release/copilot-lens]

HOME was made by `scripts/gen-corpus.py HOME --vscode SIZE` (HOME/vscode-expected.json). Runs
`copilot-lens usage HOME --json` and compares its `copilot-vscode` rows (per UTC day and model,
counted, and partial when flagged so) with the sidecar's by_day_model rows, every column but
cost. Exit 0 when they agree, 1 when they differ or the tool gives no VS Code row at all.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

COLUMNS = ("requests", "input", "cache_read", "cache_write", "output", "reasoning", "total")
AGENT = "copilot-vscode"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("home")
    ap.add_argument("--lens", default=str(Path(__file__).resolve().parent.parent / "target" / "release" / "copilot-lens"))
    args = ap.parse_args()
    expected = json.loads((Path(args.home) / "vscode-expected.json").read_text())
    run = subprocess.run([args.lens, "usage", args.home, "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"check-vscode-usage: copilot-lens usage ended with {run.returncode}: {run.stderr.strip()}")
        return 1
    usage = json.loads(run.stdout)
    got: dict[tuple[str, str, str], list[int]] = {}
    for row in usage["rows"]:
        if row.get("agent") != AGENT:
            continue
        kind = "partial" if "partial" in row.get("flags", []) else "counted"
        cell = got.setdefault((kind, row["day"], row["model"]), [0] * len(COLUMNS))
        for j, column in enumerate(COLUMNS):
            cell[j] += row[column]
    want = {(kind, r["day"], r["model"]): [r[c] for c in COLUMNS]
            for kind in ("counted", "partial") for r in expected["usage"][kind]["by_day_model"]}
    if not got:
        print(f"check-vscode-usage: no {AGENT} usage row from {args.lens} (it does not read VS Code's files yet?); "
              f"expected {len(want)} rows, counted {expected['usage']['counted']['totals']['total']} tokens")
        return 1
    differ = [(k, want.get(k), got.get(k)) for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)]
    for kind in ("counted", "partial"):
        w = expected["usage"][kind]["totals"]
        g = [sum(v[j] for k, v in got.items() if k[0] == kind) for j in range(len(COLUMNS))]
        print(f"check-vscode-usage: {kind}: expected " + ", ".join(f"{c} {w[c]}" for c in COLUMNS)
              + "; copilot-lens " + ", ".join(f"{c} {v}" for c, v in zip(COLUMNS, g)))
    for key, w, g in differ[:20]:
        print(f"check-vscode-usage: DIFFERS {key[0]} {key[1]} {key[2]}: expected {w}, copilot-lens {g} ({', '.join(COLUMNS)})")
    if differ:
        print(f"check-vscode-usage: {len(differ)} of {len(set(want) | set(got))} day/model rows differ")
        return 1
    print(f"check-vscode-usage: all {len(want)} day/model rows agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
