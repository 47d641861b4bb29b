#!/usr/bin/env python3
"""The team exports read back by DuckDB (issue 28), as the guide's team chapter (docs/src/team.md) reads them.

    scripts/team-test.py [--bin target/debug/copilot-lens] [--people 4] [--sessions 12]

Generates several people, each with two machines (homes made by scripts/gen-corpus.py, each
with its own seed), exports every machine with `usage HOME --export` in the three formats
(--user for all but one, whose login comes from its process logs), and checks with DuckDB:
- per person, and per person and month, the sums of the exported rows equal that person's own
  `usage HOME1 HOME2 --json` figures (tokens and recorded credits exactly; credits and the cost
  estimate to the rounding of each row);
- the Parquet, CSV and JSONL folders give the same sums;
- a re-export replaces a person's rows (by key) and never doubles them;
- no prompt text and no project path is in any file unless --share-projects was given.
Needs Python's duckdb (scripts/setup.sh installs it).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parent.parent
GEN = REPO / "scripts" / "gen-corpus.py"
DETECTED_LOGIN = "mona"  # what gen-corpus.py's process logs sign in as
EXPORTED_AT = "2026-12-02T09:30:00Z"
COUNTS = ["requests", "input", "cache_read", "cache_write", "output", "reasoning", "total"]
# The export's columns and types (docs/src/team.md), given to the CSV and JSON readers: a column
# that is empty in every row of a file (recorded_nano_aiu where nothing was recorded) would be
# read as text otherwise.
COLUMNS = (
    "{'key': 'VARCHAR', 'user': 'VARCHAR', 'machine': 'VARCHAR', 'day': 'DATE', 'agent': 'VARCHAR', "
    "'model': 'VARCHAR', 'project': 'VARCHAR', 'kind': 'VARCHAR', 'requests': 'BIGINT', 'input': 'BIGINT', "
    "'cache_read': 'BIGINT', 'cache_write': 'BIGINT', 'output': 'BIGINT', 'reasoning': 'BIGINT', "
    "'total': 'BIGINT', 'credits': 'DOUBLE', 'credits_from': 'VARCHAR', 'recorded_nano_aiu': 'BIGINT', "
    "'premium_requests': 'DOUBLE', 'cost_usd_micros': 'BIGINT', 'flags': 'VARCHAR', 'exported_at': 'VARCHAR', "
    "'tool_version': 'VARCHAR'}"
)


def run(*args: str) -> str:
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"team-test: {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def people_homes(base: Path, people: int, sessions: int) -> dict[str, list[Path]]:
    """Two homes a person; the first person keeps the login of their logs."""
    homes: dict[str, list[Path]] = {}
    seed = 100
    for person in range(people):
        login = DETECTED_LOGIN if person == 0 else f"dev-{person:02d}"
        homes[login] = []
        for machine in ("laptop", "desktop"):
            home = base / "homes" / login / machine
            seed += 1
            run(sys.executable, str(GEN), str(home), "--sessions", str(sessions), "--seed", str(seed))
            homes[login].append(home)
    return homes


def export_all(bin_: str, homes: dict[str, list[Path]], out: Path, fmt: str, *more: str) -> None:
    (out / fmt).mkdir(parents=True, exist_ok=True)
    for login, machines in homes.items():
        for home in machines:
            user = [] if login == DETECTED_LOGIN else ["--user", login]
            file = out / fmt / f"{login}@{home.name}.{fmt}"
            run(bin_, "usage", str(home), "--export", str(file), "--exported-at", EXPORTED_AT, *user, *more)


def own_figures(bin_: str, machines: list[Path]) -> tuple[dict, dict]:
    """A person's `usage --json` over both machines: all kinds added, in total and by month."""
    total: dict = defaultdict(float)
    by_month: dict = defaultdict(lambda: defaultdict(float))
    totals = json.loads(run(bin_, "usage", *map(str, machines), "--json"))["totals"]
    for row in totals.values():
        add(total, row)
    total["rows"] = len(totals)
    for row in json.loads(run(bin_, "usage", *map(str, machines), "--json", "--by", "month"))["rows"]:
        add(by_month[row["month"]], row)
        by_month[row["month"]]["rows"] += 1
    return total, by_month


def add(into: dict, row: dict) -> None:
    for name in COUNTS + ["credits", "cost_usd_micros", "recorded_nano_aiu"]:
        into[name] += row[name] or 0


def check_sums(label: str, exported: dict, own: dict, exported_rows: int) -> None:
    for name in COUNTS + ["recorded_nano_aiu"]:
        assert exported[name] == own[name], f"{label} {name}: export {exported[name]} != usage {own[name]}"
    # Each row's credits are rounded to the hundredth and its cost to the micro-dollar, as in
    # usage.jsonl: sums of finer rows may differ by that much a row.
    rows = exported_rows + own["rows"]
    assert abs(exported["credits"] - own["credits"]) <= 0.005 * rows + 1e-6, f"{label} credits: {exported} / {own}"
    assert abs(exported["cost_usd_micros"] - own["cost_usd_micros"]) <= rows, f"{label} cost: {exported} / {own}"


def sums(db, files: str, *group: str) -> dict:
    """Sums by the group's expressions: keyed by the one value, or a tuple of several."""
    columns = ", ".join(f"sum({name})" for name in COUNTS + ["credits", "cost_usd_micros", "recorded_nano_aiu"])
    query = f"select {', '.join(group)}, {columns}, count(*) from {files} group by all order by all"
    result = {}
    width = len(group)
    for record in db.sql(query).fetchall():
        key, values = record[:width], record[width:]
        figures = dict(zip(COUNTS + ["credits", "cost_usd_micros", "recorded_nano_aiu", "rows"], values))
        result[key if width > 1 else key[0]] = {name: value or 0 for name, value in figures.items()}
    return result


def same_sums(a: dict, b: dict) -> bool:
    """Equal, the credits (doubles, added in any order) to a millionth."""
    def rounded(figures: dict) -> dict:
        return {name: round(value, 6) if name == "credits" else value for name, value in figures.items()}
    return {key: rounded(f) for key, f in a.items()} == {key: rounded(f) for key, f in b.items()}


def reader(fmt: str, folder: Path) -> str:
    pattern = f"'{folder / fmt}/*.{fmt}'"
    return {
        "parquet": f"read_parquet({pattern})",
        "csv": f"read_csv({pattern}, header=true, columns={COLUMNS})",
        "jsonl": f"read_json({pattern}, format='newline_delimited', columns={COLUMNS})",
    }[fmt]


def private_texts(bin_: str, home: Path, scratch: Path) -> tuple[set[str], set[str]]:
    """Prompts, replies and tool output of a home, and the projects it used tokens in."""
    out = scratch / ("analysis-" + home.parent.name + "-" + home.name)
    run(bin_, "analyze", str(home), "--out", str(out))
    texts = set()
    with open(out / "rows.jsonl", encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            if row["turn_type"] in ("user", "assistant", "tool_result") and len(row["text"]) >= 16:
                texts.add(row["text"][:200])
    projects = set()
    with open(out / "sessions.jsonl", encoding="utf-8") as sessions:
        for line in sessions:
            session = json.loads(line)
            if session["project_path"] and (session.get("usage") or {}).get("total"):
                projects.add(session["project_path"])
    return texts, projects


def all_text(db, files: str) -> str:
    return "\n".join("\t".join(map(str, record)) for record in db.sql(f"select * from {files}").fetchall())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=str(REPO / "target" / "debug" / "copilot-lens"))
    parser.add_argument("--people", type=int, default=4)
    parser.add_argument("--sessions", type=int, default=12)
    args = parser.parse_args()
    db = duckdb.connect()
    with tempfile.TemporaryDirectory(prefix="team-test-") as scratch:
        base = Path(scratch)
        homes = people_homes(base, args.people, args.sessions)
        exports = base / "exports"
        for fmt in ("parquet", "csv", "jsonl"):
            export_all(args.bin, homes, exports, fmt)

        by_user = {fmt: sums(db, reader(fmt, exports), "user") for fmt in ("parquet", "csv", "jsonl")}
        for fmt in ("csv", "jsonl"):
            assert same_sums(by_user[fmt], by_user["parquet"]), f"{fmt} and parquet: {by_user[fmt]} {by_user['parquet']}"
        assert sorted(by_user["parquet"]) == sorted(homes), f"one user each, the first by its logs: {by_user}"
        month = "strftime(day, '%Y-%m')"
        by_month = sums(db, reader("parquet", exports), "user", month)
        machines = db.sql(f"select count(distinct (user, machine)) from {reader('parquet', exports)}").fetchall()[0][0]
        assert machines == 2 * len(homes), f"two machines a person: {machines}"
        months = 0
        for login, machines_of in homes.items():
            total, own_by_month = own_figures(args.bin, machines_of)
            exported = by_user["parquet"][login]
            check_sums(login, exported, total, exported["rows"])
            assert exported["credits"] > 0, f"{login} used credits"
            exported_months = {m: figures for (user, m), figures in by_month.items() if user == login}
            assert sorted(exported_months) == sorted(own_by_month), f"{login}: months {exported_months.keys()}"
            for m, figures in exported_months.items():
                check_sums(f"{login} {m}", figures, own_by_month[m], figures["rows"])
                months += 1

        # A re-export replaces a person's rows by key: the table's sums stay the same.
        table = reader("parquet", exports)
        db.sql(f"create table usage as select * from {table}")
        again = base / "again.parquet"
        login, machines_of = list(homes.items())[1]
        run(args.bin, "usage", str(machines_of[0]), "--export", str(again), "--user", login,
            "--exported-at", "2026-12-03T08:00:00Z")
        db.sql(f"delete from usage where user = '{login}' and machine = '{machines_of[0].name}'")
        db.sql(f"insert into usage select * from read_parquet('{again}')")
        after = sums(db, "usage", "user")
        assert same_sums(after, by_user["parquet"]), "a re-export replaces, never doubles"
        duplicate_keys = db.sql("select count(*) - count(distinct key) from usage").fetchall()[0][0]
        assert duplicate_keys == 0

        # Nothing private: no prompt, reply or tool output; project paths only when shared.
        texts, projects = set(), set()
        for machines_of in homes.values():
            for home in machines_of:
                home_texts, home_projects = private_texts(args.bin, home, base)
                texts |= home_texts
                projects |= home_projects
        assert len(texts) > 20 and len(projects) > 1, f"the homes have prompts and projects: {projects}"
        for fmt in ("parquet", "csv", "jsonl"):
            text = all_text(db, reader(fmt, exports))
            if fmt != "parquet":
                text += "".join(path.read_text(encoding="utf-8") for path in (exports / fmt).iterdir())
            leaked = [t for t in texts if t in text] + [p for p in projects if p in text]
            assert not leaked, f"{fmt}: private text exported: {leaked[:3]}"
        shared = base / "shared"
        export_all(args.bin, homes, shared, "parquet", "--share-projects")
        shared_text = all_text(db, reader("parquet", shared))
        assert all(p in shared_text for p in projects), "--share-projects names the projects"
        assert not any(t in shared_text for t in texts), "and still no prompt or reply"

        rows = sum(figures["rows"] for figures in by_user["parquet"].values())
        print(f"team-test: {len(homes)} people x 2 machines, {rows} rows in each format; sums per person and per "
              f"month ({months}) equal their usage --json figures; a re-export replaces; nothing private")


if __name__ == "__main__":
    main()
