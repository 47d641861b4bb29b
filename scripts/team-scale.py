#!/usr/bin/env python3
"""A team's exports at scale read by DuckDB (issue 28): 500 people x 2 machines x 90 days.

    scripts/team-scale.py [--bin target/release/copilot-lens] [--people 500] [--days 90] [--keep DIR]

Makes one Parquet file per person and machine (`exports/dev-001@laptop.parquet`) directly as
export rows: the columns and types of a real `usage --export` (checked against one the binary
writes from fixtures/credits), four models and three projects a person, each day × model ×
project kept at random (three in four), figures drawn from a hash. Then times, on a fresh
connection, the queries of docs/src/team.md over the folder: credits per person by month, per
project, per model, and the team's month. Prints the files' size and each query's time.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parent.parent

ROWS = """
create table team as
with people as (select 'dev-' || lpad(p::varchar, 3, '0') as user from range(1, {people} + 1) t(p)),
     machines as (select * from (values ('laptop'), ('desktop')) m(machine)),
     days as (select (date '2026-12-01' - to_days(({days} - d)::integer))::date as day from range({days}) t(d)),
     models as (select * from (values ('claude-sonnet-4.5', 3.0), ('gpt-5.4', 2.5), ('claude-haiku-4.5', 1.0),
                                      ('gpt-5-mini', 0.25)) r(model, rate)),
     projects as (select p as project_index from range(3) t(p)),
     drawn as (
       select user, machine, day, model, rate, 'project-' || substr(md5(user || project_index::varchar), 1, 6) as project,
              hash(user, machine, day, model, project_index) as h
       from people, machines, days, models, projects)
select
  substr(md5(concat_ws(chr(31), user, machine, day::varchar, 'copilot-cli', model, project, 'counted')), 1, 16) as key,
  user, machine, day, 'copilot-cli' as agent, model, project, 'counted' as kind,
  (1 + h % 40)::bigint as requests,
  (h % 90000)::bigint as input,
  (h % 700000)::bigint as cache_read,
  (h % 30000)::bigint as cache_write,
  (h % 9000)::bigint as output,
  (h % 2000)::bigint as reasoning,
  (h % 90000 + h % 700000 + h % 30000 + h % 9000)::bigint as total,
  round((h % 90000 + h % 9000 * 5) * rate / 10000.0, 2) as credits,
  'recorded' as credits_from,
  ((h % 90000 + h % 9000 * 5) * rate * 100000)::bigint as recorded_nano_aiu,
  0.0::double as premium_requests,
  ((h % 90000 + h % 9000 * 5) * rate)::bigint as cost_usd_micros,
  '' as flags,
  '2026-12-02T09:30:00Z' as exported_at,
  '0.1.0' as tool_version
from drawn
where h % 4 != 0
"""

QUERIES = {
    "credits per person by month": """
        select user, date_trunc('month', day) as month, round(sum(credits), 2) as credits
        from '{folder}/*.parquet' group by all order by all""",
    "credits per project": """
        select project, round(sum(credits), 2) as credits, count(distinct user) as people
        from '{folder}/*.parquet' group by all order by credits desc""",
    "credits per model by month": """
        select date_trunc('month', day) as month, model, round(sum(credits), 2) as credits, sum(total) as tokens
        from '{folder}/*.parquet' group by all order by all""",
    "the team's month": """
        select round(sum(credits), 2), count(*), count(distinct user), count(distinct (user, machine))
        from '{folder}/*.parquet' where day >= date '2026-11-01'""",
}


def real_schema(bin_: str, scratch: Path) -> list[tuple[str, str]]:
    file = scratch / "real.parquet"
    done = subprocess.run([bin_, "usage", str(REPO / "fixtures" / "credits"), "--export", str(file)], capture_output=True)
    if done.returncode != 0:
        sys.exit(f"team-scale: the export failed: {done.stderr.decode()}")
    return duckdb.sql(f"describe select * from '{file}'").fetchall()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=str(REPO / "target" / "release" / "copilot-lens"))
    parser.add_argument("--people", type=int, default=500)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--keep", help="make the files in this folder and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="team-scale-") as scratch:
        scratch = Path(scratch)
        folder = Path(args.keep) if args.keep else scratch / "exports"
        folder.mkdir(parents=True, exist_ok=True)
        maker = duckdb.connect()
        started = time.perf_counter()
        maker.execute(ROWS.format(people=args.people, days=args.days))
        # One pass writes a file per person and machine (user=.../machine=.../), named then as
        # people name their exports.
        parts = scratch / "parts"
        maker.execute(f"copy (select * from team order by user, machine, key) to '{parts}' (format parquet, "
                      "compression snappy, partition_by (user, machine), write_partition_columns true)")
        for part in parts.glob("user=*/machine=*/*.parquet"):
            user, machine = part.parent.parent.name[len("user="):], part.parent.name[len("machine="):]
            part.rename(folder / f"{user}@{machine}.parquet")
        made = time.perf_counter() - started
        files = sorted(folder.glob("*.parquet"))
        size = sum(file.stat().st_size for file in files)
        rows = maker.execute("select count(*) from team").fetchall()[0][0]
        maker.close()
        made_schema = duckdb.sql(f"describe select * from '{files[0]}'").fetchall()
        real = real_schema(args.bin, scratch)
        assert [(c[0], c[1]) for c in made_schema] == [(c[0], c[1]) for c in real], f"{made_schema}\n{real}"
        print(f"team-scale: {len(files)} files ({args.people} people x 2 machines x {args.days} days), {rows} rows, "
              f"{size / 1e6:.1f} MB of Parquet, made in {made:.1f} s")

        db = duckdb.connect()
        total = 0.0
        for name, query in QUERIES.items():
            started = time.perf_counter()
            result = db.execute(query.format(folder=folder)).fetchall()
            seconds = time.perf_counter() - started
            total += seconds
            print(f"team-scale: {name}: {len(result)} rows in {seconds:.3f} s")
        print(f"team-scale: the four queries in {total:.2f} s")


if __name__ == "__main__":
    main()
