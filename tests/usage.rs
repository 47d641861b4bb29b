//! Usage accounting against figures computed by hand from each fixture tree in
//! `fixtures/usage/` (the counting rules stated in src/usage/ledger.rs; rates from src/usage/default-rates.json,
//! USD per million tokens = micro-dollars per token).

mod common;

use std::path::Path;

use chrono::NaiveDate;

use copilot_lens::analysis::usage_only::Written;
use copilot_lens::analysis::{Options, Planned, UsageData, analyze, usage_only};
use copilot_lens::facts::diagnostics::DiagnosticKind;
use copilot_lens::input::memory::MemoryRoots;
use copilot_lens::model::OwnedRow;
use copilot_lens::usage::Kind;
use copilot_lens::usage::summary::{self, DayRange, GroupBy, UsageRow};

/// `(day, model, flags, [requests, input, cache_read, cache_write, output, reasoning, total], cost in µUSD)`
type Expected<'a> = (&'a str, &'a str, &'a [&'a str], [u64; 7], Option<u64>);

fn usage_only(name: &str) -> UsageData {
    let mut roots = MemoryRoots(vec![common::memory_root(name)]);
    let planned = Planned::new(roots.listings(), Options::default()).unwrap();
    usage_only::run(planned, &mut roots).usage
}

fn check(name: &str, expected: &[Expected<'_>]) -> UsageData {
    let usage = usage_only(name);
    let table = usage.table(GroupBy::Day, DayRange::default());
    let got: Vec<_> = table
        .rows
        .iter()
        .map(|row: &UsageRow| {
            let counts = row.tokens.values();
            (row.day.clone().unwrap(), row.model.clone(), row.flags.clone(), counts, row.cost_usd_micros)
        })
        .collect();
    let expected: Vec<_> = expected
        .iter()
        .map(|(day, model, flags, counts, cost)| (day.to_string(), model.to_string(), flags.to_vec(), *counts, *cost))
        .collect();
    assert_eq!(got, expected, "{name}");

    // The full analysis counts the same way as the usage-only reading.
    let mut roots = MemoryRoots(vec![common::memory_root(name)]);
    let mut rows: Vec<OwnedRow> = Vec::new();
    let outputs = analyze(roots.listings(), &mut roots, Options::default(), &mut rows).unwrap();
    assert_eq!(
        outputs.usage.table(GroupBy::Day, DayRange::default()).rows,
        table.rows,
        "{name}: full analysis differs"
    );
    usage
}

/// Today in UTC by the system clock, as the CLI takes it.
fn today_utc() -> NaiveDate {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    NaiveDate::default() + chrono::Days::new(since.as_secs() / 86_400)
}

fn flags(usage: &UsageData, session: &str) -> Vec<&'static str> {
    usage.ledgers[session].flags.iter().copied().collect()
}

#[test]
fn a_resumed_session_counts_each_increase_on_its_shutdown_day() {
    // Shutdown 1 (Oct 1): 2 requests, input 22000 of which 15000 cache reads, output 1200 (300 reasoning).
    //   fresh 7000; cost 7000*2.50 + 15000*0.25 + 1200*15 = 17500 + 3750 + 18000 = 39250.
    // Shutdown 2 (Oct 2) is cumulative: 3 / 52000 / 2200 / 35000 / 300; the increase is
    //   1 / 30000 / 1000 / 20000 / 0: fresh 10000; cost 25000 + 5000 + 15000 = 45000.
    let usage = check(
        "usage/resumed-two-days",
        &[
            ("2026-10-01", "gpt-5.4", &[], [2, 7000, 15000, 0, 1200, 300, 23200], Some(39250)),
            ("2026-10-02", "gpt-5.4", &[], [1, 10000, 20000, 0, 1000, 0, 31000], Some(45000)),
        ],
    );
    // Its per-call records sum exactly to each increase: nothing to flag.
    assert_eq!(flags(&usage, "aaaaaaaa-0000-4000-8000-000000000001"), Vec::<&str>::new());
}

#[test]
fn a_repeated_shutdown_line_adds_nothing() {
    // 4 requests, input 50000 = 40000 cache reads + 5000 cache writes + 5000 fresh, output 2000.
    // cost 5000*3.00 + 40000*0.30 + 5000*3.75 + 2000*15 = 15000 + 12000 + 18750 + 30000 = 75750.
    let usage = check(
        "usage/duplicated-shutdown",
        &[("2026-10-03", "claude-sonnet-4.5", &[], [4, 5000, 40000, 5000, 2000, 500, 52000], Some(75750))],
    );
    assert_eq!(flags(&usage, "bbbbbbbb-0000-4000-8000-000000000002"), ["repeated_checkpoint_not_counted"]);
}

#[test]
fn a_lower_second_total_adds_nothing_and_is_flagged() {
    // Only the first shutdown counts: 5 / 10000 / 1000; cost 10000*0.25 + 1000*2.00 = 4500.
    let usage = check(
        "usage/lower-second-total",
        &[("2026-10-04", "gpt-5-mini", &[], [5, 10000, 0, 0, 1000, 0, 11000], Some(4500))],
    );
    assert_eq!(flags(&usage, "cccccccc-0000-4000-8000-000000000003"), ["total_went_down"]);
}

#[test]
fn a_subagent_shutdown_is_already_inside_the_parent() {
    // Only the main shutdown: 3 requests, input 9000 = 3000 reads + 1000 writes + 5000 fresh, output 900.
    // cost 5000*1.00 + 3000*0.10 + 1000*1.25 + 900*5.00 = 5000 + 300 + 1250 + 4500 = 11050.
    let usage = check(
        "usage/subagent-shutdown",
        &[("2026-10-05", "claude-haiku-4.5", &[], [3, 5000, 3000, 1000, 900, 0, 9900], Some(11050))],
    );
    assert_eq!(flags(&usage, "dddddddd-0000-4000-8000-000000000004"), ["subagent_checkpoint_not_counted"]);
}

#[test]
fn no_shutdown_is_a_partial_lower_bound_or_unknown() {
    // Two per-call records and no shutdown: input 17000 with 11000 cache reads, output 700.
    // cost 6000*2.50 + 11000*0.25 + 700*15 = 15000 + 2750 + 10500 = 28250, marked partial.
    let usage = check(
        "usage/no-shutdown",
        &[("2026-10-06", "gpt-5.4", &["partial"], [2, 6000, 11000, 0, 700, 0, 17700], Some(28250))],
    );
    // The other session has neither: its usage is unknown, not zero.
    assert_eq!(usage.unknown, ["eeeeeeee-0000-4000-8000-000000000006"]);
    let table = usage.table(GroupBy::Day, DayRange::default());
    assert!(
        !table.totals.contains_key(&copilot_lens::usage::Kind::Counted),
        "partial figures are never in the default total"
    );
}

#[test]
fn two_models_in_one_session_are_two_rows() {
    // claude-opus-4.6: fresh 4000-2000-1000 = 1000; 1000*5 + 2000*0.50 + 1000*6.25 + 300*25 = 19750.
    // gpt-5.4: 1000*2.50 + 100*15 = 4000.
    check(
        "usage/two-models",
        &[
            ("2026-10-07", "claude-opus-4.6", &[], [2, 1000, 2000, 1000, 300, 50, 4300], Some(19750)),
            ("2026-10-07", "gpt-5.4", &[], [1, 1000, 0, 0, 100, 0, 1100], Some(4000)),
        ],
    );
}

#[test]
fn a_deleted_session_is_recovered_from_the_store_and_never_counted_twice() {
    // The kept session's log says 1000 in / 100 out (cost 250 + 200 = 450); its store rows are
    // not added again. The deleted session's two store rows: input 10000 with 4000 cache reads,
    // output 500; cost 6000*0.25 + 4000*0.025 + 500*2 = 1500 + 100 + 1000 = 2600, recovered.
    check(
        "usage/deleted-session",
        &[
            ("2026-10-08", "gpt-5-mini", &[], [1, 1000, 0, 0, 100, 0, 1100], Some(450)),
            ("2026-10-08", "gpt-5-mini", &["recovered"], [2, 6000, 4000, 0, 500, 0, 10500], Some(2600)),
        ],
    );
}

#[test]
fn a_deleted_session_is_recovered_beside_another_databases_log() {
    // The same store with its rows checkpointed into the main file, beside the -wal of another
    // database (1024-byte pages against the store's 4096): the log is ignored, the store read
    // without it, and the figures are those of the test above.
    check(
        "hostile/wal-foreign-page-size",
        &[
            ("2026-10-08", "gpt-5-mini", &[], [1, 1000, 0, 0, 100, 0, 1100], Some(450)),
            ("2026-10-08", "gpt-5-mini", &["recovered"], [2, 6000, 4000, 0, 500, 0, 10500], Some(2600)),
        ],
    );
}

#[test]
fn a_model_without_a_rate_has_no_cost_and_says_so() {
    check("usage/no-rate", &[("2026-10-09", "gpt-6.1-sol", &["no_rate"], [1, 1000, 0, 0, 10, 0, 1010], None)]);
}

#[test]
fn the_real_sample_reconciles_with_its_per_call_records() {
    // gpt-4.1: 3 calls, input 3006 with 300 cache reads, output 66 (15 reasoning). At the rates
    // (earlier table revision: 2.00 / 0.50 / - / 8.00) 2706*2 + 300*0.5 + 66*8 = 6090 micro-
    // dollars, but every call was made with the person's own key (isByok): GitHub bills nothing.
    let usage =
        check("real-cli-1.0.102", &[("2026-11-30", "gpt-4.1", &["byok"], [3, 2706, 300, 0, 66, 15, 3072], Some(0))]);
    assert_eq!(flags(&usage, "16389f9e-9896-4928-b559-7fadd9312083"), Vec::<&str>::new());
}

#[test]
fn days_follow_the_time_zone() {
    // 2026-10-01T23:30Z is already Oct 2 in Berlin (UTC+2 in October).
    let mut roots = MemoryRoots(vec![common::memory_root("usage/resumed-two-days")]);
    let options = Options { zone: copilot_lens::usage::Zone::parse("Europe/Berlin").unwrap(), ..Options::default() };
    let usage = usage_only::run(Planned::new(roots.listings(), options).unwrap(), &mut roots).usage;
    let table = usage.table(GroupBy::Day, DayRange::default());
    let days: Vec<_> = table.rows.iter().map(|row| (row.day.clone().unwrap(), row.tokens.requests)).collect();
    assert_eq!(days, [("2026-10-02".to_string(), 3)]);
}

#[test]
fn a_call_above_the_long_context_threshold_is_priced_at_the_higher_tier() {
    // GPT-5.4 above 272K input: 5.00 / 0.50 / - / 22.50. The 300000-token call (200000 cache
    // reads, 1000 out): 100000*5 + 200000*0.5 + 1000*22.5 = 622500; the 10000-token call at the
    // base tier: 10000*2.5 + 100*15 = 26500. Together 649000 (the shutdown's totals alone could
    // not tell which call was which).
    check(
        "usage/long-context",
        &[("2026-10-10", "gpt-5.4", &["long_context"], [2, 110000, 200000, 0, 1100, 0, 311100], Some(649000))],
    );
}

#[test]
fn fresh_input_is_clamped_per_record_not_per_day() {
    // One shutdown says input 100 with 150 cache reads: its fresh input is 0, not -50, and the
    // other session's 1000 stay whole. cost 1000*2.50 + 150*0.25 + 20*15 = 2837.5, rounded 2838.
    let usage =
        check("usage/cache-above-input", &[("2026-10-11", "gpt-5.4", &[], [2, 1000, 150, 0, 20, 0, 1170], Some(2838))]);
    assert_eq!(flags(&usage, "ca11ab0e-0000-4000-8000-000000000012"), ["cache_above_input"]);
}

#[test]
fn a_session_logged_twice_counts_its_most_complete_copy_once() {
    // ~/.copilot holds both shutdowns, the stale pre-XDG copy only the first: counted once, from
    // the complete copy, whatever order the copies are read in. Day 1: 1 / 1000 / 100 (cost
    // 250 + 200 = 450); day 2: 2 / 4000 / 200 (cost 1000 + 400 = 1400).
    let usage = check(
        "usage/two-copies",
        &[
            ("2026-10-12", "gpt-5-mini", &[], [1, 1000, 0, 0, 100, 0, 1100], Some(450)),
            ("2026-10-13", "gpt-5-mini", &[], [2, 4000, 0, 0, 200, 0, 4200], Some(1400)),
        ],
    );
    assert_eq!(flags(&usage, "c0b1e5c0-0000-4000-8000-000000000014"), ["several_logs_most_complete_counted"]);
}

#[test]
fn a_bad_counter_line_is_reported_with_its_file_and_line() {
    let id = "5e55a0a1-0000-4000-8000-00000000000b";
    let log = [
        r#"{"type":"session.start","timestamp":"2026-10-01T09:00:00.000Z","data":{}}"#,
        r#"{"type":"user.message","timestamp":"2026-10-01T09:00:01.000Z","data":{"content":"hi"}}"#,
        r#"{"type":"session.shutdown","timestamp":"2026-10-01T09:10:00.000Z","data":{"modelMetrics":"#,
        r#"{"type":"assistant.message","timestamp":"2026-10-01T09:10:01.000Z","data":{"content":"bye"}}"#,
    ]
    .join("\n");
    let mut root = copilot_lens::input::memory::MemoryRoot::new("home");
    let path = format!(".copilot/session-state/{id}/events.jsonl");
    root.insert(&path, log, None);
    let mut roots = MemoryRoots(vec![root]);
    let run = usage_only::run(Planned::new(roots.listings(), Options::default()).unwrap(), &mut roots);
    assert_eq!(run.stats.bad, 1);
    let problems: Vec<(String, Option<u64>, DiagnosticKind)> =
        run.problems.iter().map(|problem| (problem.file.clone(), problem.line, problem.kind)).collect();
    assert_eq!(problems, [(path, Some(3), DiagnosticKind::BadCounterLine)]);
}

/// A fixture's usage as both runs give it, against reviewed golden files
/// (`tests/golden/usage/`): `analyze`'s usage.csv, usage.jsonl, sessions.jsonl, the report's
/// diagnostics and, where timestamps matter, its rows; and the `usage` command's table, its JSON
/// and the problems it names on stderr. The library's usage-only run names the same problems
/// as the full analysis's report.
fn check_golden(name: &str, with_rows: bool) {
    let scratch = tempfile::tempdir().unwrap();
    common::copy_tree(&common::fixture(name), &scratch.path().join("home"));
    let analyzed = common::run(scratch.path(), &["analyze", "home", "--out", "out"]);
    assert!(analyzed.status.success(), "{}", String::from_utf8_lossy(&analyzed.stderr));
    let out = scratch.path().join("out");
    let report: serde_json::Value = serde_json::from_str(&common::read(&out.join("report.json"))).unwrap();
    let diagnostics = serde_json::to_string_pretty(&report["diagnostics"]).unwrap();
    let table = common::run(scratch.path(), &["usage", "home"]);
    let json = common::run(scratch.path(), &["usage", "home", "--json"]);
    assert!(table.status.success() && json.status.success());
    // Stderr names the problems, then a summary with timings and memory that differ run to run.
    let stderr = String::from_utf8(table.stderr).unwrap();
    let named: Vec<&str> = stderr.lines().filter(|line| !line.contains(" counter lines read, ")).collect();
    // `usage/<case>` goldens go to tests/golden/usage, `hostile/<case>` ones to tests/golden/hostile.
    let (folder, case) = name.split_once('/').unwrap();
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(folder);
    insta::with_settings!({ snapshot_path => snapshots, prepend_module_to_snapshot => false, omit_expression => true }, {
        for file in ["usage.csv", "usage.jsonl", "sessions.jsonl"] {
            insta::assert_snapshot!(format!("{case}__analyze__{file}"), common::read(&out.join(file)));
        }
        insta::assert_snapshot!(format!("{case}__analyze__diagnostics.json"), diagnostics);
        if with_rows {
            insta::assert_snapshot!(format!("{case}__analyze__rows.jsonl"), common::read(&out.join("rows.jsonl")));
        }
        insta::assert_snapshot!(format!("{case}__usage__table.txt"), String::from_utf8(table.stdout).unwrap());
        insta::assert_snapshot!(format!("{case}__usage__json.json"), String::from_utf8(json.stdout).unwrap());
        insta::assert_snapshot!(format!("{case}__usage__stderr.txt"), named.join("\n"));
    });

    // The CLI checks dates against its clock's today: so does this run. It makes no rows and
    // no sessions, so it names none of their times (`implausible_time`).
    let options = Options { today: Some(today_utc()), ..Options::default() };
    let mut roots = MemoryRoots(vec![common::memory_root(name)]);
    let run = usage_only::run(Planned::new(roots.listings(), options).unwrap(), &mut roots);
    let mut usage_problems = report["diagnostics"].clone();
    usage_problems.as_array_mut().unwrap().retain(|problem| problem["kind"] != "implausible_time");
    assert_eq!(
        serde_json::to_value(&run.problems).unwrap(),
        usage_problems,
        "{name}: the usage-only run names other problems than the report"
    );
}

#[test]
fn a_counter_that_cannot_be_a_token_count_is_left_out_and_flagged() {
    // Session 21, Oct 15: inputTokens 1e30 leaves out gpt-5.4's input and its cache parts;
    //   2 requests and output 500 (100 reasoning) count: 500*15 = 7500.
    // Oct 16: the next shutdown's totals (3 / 30000 with 20000 cache reads / 900) add what the
    //   first missed: 1 / fresh 10000 / 20000 / 400: 25000 + 5000 + 6000 = 36000, unflagged.
    // Session 22, one shutdown, Oct 15: claude-sonnet-4.5 input 2^64-1: output 200*15 = 3000;
    //   gpt-5-mini requests 12.5 and output -40: input 4000*0.25 = 1000; gpt-5.4-nano input
    //   "NaN" and cache reads 1e23: output 70*1.25 = 87.5, rounded 88.
    // Session 23, no shutdown: output -5 leaves out the first call's output, cache reads `true`
    //   the second's input: partial 2 / 2000 / 100: 5000 + 1500 = 6500.
    let flagged: &[&str] = &["implausible_counter"];
    let usage = check(
        "usage/implausible-counters",
        &[
            ("2026-10-15", "claude-sonnet-4.5", flagged, [1, 0, 0, 0, 200, 0, 200], Some(3000)),
            ("2026-10-15", "gpt-5-mini", flagged, [0, 4000, 0, 0, 0, 0, 4000], Some(1000)),
            ("2026-10-15", "gpt-5.4", flagged, [2, 0, 0, 0, 500, 100, 500], Some(7500)),
            ("2026-10-15", "gpt-5.4-nano", flagged, [1, 0, 0, 0, 70, 0, 70], Some(88)),
            ("2026-10-16", "gpt-5.4", &[], [1, 10000, 20000, 0, 400, 0, 30400], Some(36000)),
            ("2026-10-17", "gpt-5.4", &["partial", "implausible_counter"], [2, 2000, 0, 0, 100, 0, 2100], Some(6500)),
        ],
    );
    for session in ["21", "22", "23"] {
        assert_eq!(flags(&usage, &format!("1a1a1a1a-0000-4000-8000-0000000000{session}")), flagged);
    }
    let table = usage.table(GroupBy::Day, DayRange::default());
    assert_eq!(table.totals[&copilot_lens::usage::Kind::Counted].flags, flagged, "the total says so too");
    check_golden("usage/implausible-counters", false);
}

#[test]
fn a_shutdown_without_model_metrics_counts_nothing() {
    // Session 31 (no modelMetrics) and 32 (modelMetrics null) keep their per-call lower bounds:
    //   gpt-5.4 2 / fresh 3000 / 1000 / 300: 7500 + 250 + 4500 = 12250; gpt-5-mini 1 / 500 / 50:
    //   125 + 100 = 225. Session 33 has no per-call record: unknown.
    // Session 34's requests `true` and outputTokens `{..}` spoil those fields, not the line: its
    //   input 5000 with 1000 cache reads counts: 4000*2.5 + 1000*0.25 = 10250, flagged.
    let usage = check(
        "usage/shutdown-without-metrics",
        &[
            ("2026-10-18", "gpt-5-mini", &["partial"], [1, 500, 0, 0, 50, 0, 550], Some(225)),
            ("2026-10-18", "gpt-5.4", &["implausible_counter"], [0, 4000, 1000, 0, 0, 0, 5000], Some(10250)),
            ("2026-10-18", "gpt-5.4", &["partial"], [2, 3000, 1000, 0, 300, 0, 4300], Some(12250)),
        ],
    );
    assert_eq!(usage.unknown, ["5d5d5d5d-0000-4000-8000-000000000033"]);
    for session in ["31", "32", "33"] {
        assert_eq!(
            flags(&usage, &format!("5d5d5d5d-0000-4000-8000-0000000000{session}")),
            ["shutdown_without_counters"]
        );
    }
    assert_eq!(flags(&usage, "5d5d5d5d-0000-4000-8000-000000000034"), ["implausible_counter"]);
    let mut roots = MemoryRoots(vec![common::memory_root("usage/shutdown-without-metrics")]);
    let outputs = analyze(roots.listings(), &mut roots, Options::default(), &mut Vec::<OwnedRow>::new()).unwrap();
    assert_eq!(outputs.report.totals.bad_lines, 0, "a wrongly typed counter does not make its line bad");
    check_golden("usage/shutdown-without-metrics", false);
}

#[test]
fn epoch_millisecond_timestamps_are_dated_and_empty_ones_are_reported() {
    // Session 41 is stamped in epoch milliseconds (numbers and digit strings): its shutdown
    //   counts on Oct 19: 1000*2.5 + 100*15 = 4000.
    // Session 42: two calls with an empty and a null stamp have no day; its shutdown (null
    //   stamp) is not counted; the one dated call is a partial lower bound: 250 + 200 = 450.
    let usage = check(
        "usage/epoch-timestamps",
        &[
            ("2026-10-19", "gpt-5.4", &[], [1, 1000, 0, 0, 100, 0, 1100], Some(4000)),
            ("2026-10-20", "gpt-5-mini", &["partial"], [1, 1000, 0, 0, 100, 0, 1100], Some(450)),
        ],
    );
    assert_eq!(flags(&usage, "e0e0e0e0-0000-4000-8000-000000000041"), Vec::<&str>::new());
    assert_eq!(
        flags(&usage, "e0e0e0e0-0000-4000-8000-000000000042"),
        ["undated_call", "undated_checkpoint_not_counted"]
    );
    check_golden("usage/epoch-timestamps", true);
}

/// Input includes its cache parts: where a record's input cannot be a count, its cache reads and
/// writes are left out with it, in every reader of per-model or per-request totals (the CLI's
/// shutdown `modelMetrics` and call records, VS Code's `modelTotals` on the request or in its
/// result's metadata, in a log or a snapshot), by both runs.
#[test]
fn an_input_left_out_takes_its_cache_parts_with_it_in_every_reader() {
    use serde_json::json;
    let stamp = "2026-10-20T09:00:00.000Z";
    let cli = |line: serde_json::Value| format!("{line}\n").into_bytes();
    let shutdown = |input: serde_json::Value| {
        let usage = json!({"inputTokens": input, "cacheReadTokens": 1200, "cacheWriteTokens": 300, "outputTokens": 90});
        let data = json!({"modelMetrics": {"gpt-5.4": {"requests": {"count": 1}, "usage": usage}}});
        cli(json!({"type": "session.shutdown", "data": data, "id": "s", "timestamp": stamp}))
    };
    let record = |input: serde_json::Value| {
        let usage = json!({"model": "gpt-5.4", "inputTokens": input, "cacheReadTokens": 1200, "cacheWriteTokens": 300,
            "outputTokens": 90});
        cli(json!({"type": "session.usage_record", "data": {"usage": usage}, "id": "u", "timestamp": stamp}))
    };
    let totals = |input: serde_json::Value| json!([{"model": "copilot/gpt-5.4", "inputTokens": input, "cachedTokens": 1200, "outputTokens": 90}]);
    let chat = |input: serde_json::Value, in_metadata: bool| {
        let mut request = json!({"requestId": "r", "timestamp": 1792486800000u64, "modelId": "copilot/gpt-5.4"});
        match in_metadata {
            false => request["modelTotals"] = totals(input),
            true => request["result"] = json!({"metadata": {"modelTotals": totals(input)}}),
        }
        request
    };
    let log =
        |request: serde_json::Value| format!("{}\n", json!({"kind": 0, "v": {"requests": [request]}})).into_bytes();
    let snapshot = |request: serde_json::Value| serde_json::to_vec(&json!({"requests": [request]})).unwrap();
    let chats = ".config/Code/User/workspaceStorage/ab/chatSessions/c0de2207-0000-4000-8000-000000000007";
    let session = ".copilot/session-state/c0de2207-0000-4000-8000-000000000007/events.jsonl";
    for input in [json!(-5), json!(1e30), json!("1200"), json!(12.5)] {
        let readers: [(&str, String, Vec<u8>); 5] = [
            ("shutdown", session.to_string(), shutdown(input.clone())),
            ("usage record", session.to_string(), record(input.clone())),
            ("modelTotals", format!("{chats}.jsonl"), log(chat(input.clone(), false))),
            ("result.metadata.modelTotals", format!("{chats}.jsonl"), log(chat(input.clone(), true))),
            ("snapshot", format!("{chats}.json"), snapshot(chat(input.clone(), false))),
        ];
        for (reader, path, bytes) in readers {
            let mut root = copilot_lens::input::memory::MemoryRoot::new("home");
            root.insert(&path, bytes, Some(0));
            let mut roots = MemoryRoots(vec![root.clone()]);
            let scanned =
                usage_only::run(Planned::new(roots.listings(), Options::default()).unwrap(), &mut roots).usage;
            let mut roots = MemoryRoots(vec![root]);
            let analyzed =
                analyze(roots.listings(), &mut roots, Options::default(), &mut Vec::<OwnedRow>::new()).unwrap().usage;
            for usage in [scanned, analyzed] {
                let rows = usage.table(GroupBy::Day, DayRange::default()).rows;
                let got: Vec<_> = rows
                    .iter()
                    .map(|row| {
                        (
                            row.tokens.requests,
                            row.tokens.input,
                            row.tokens.cache_read,
                            row.tokens.cache_write,
                            row.tokens.output,
                        )
                    })
                    .collect();
                assert_eq!(got, [(1, 0, 0, 0, 90)], "{reader}, input {input}: {rows:?}");
                assert!(rows[0].flags.contains(&"implausible_counter"), "{reader}, input {input}: {rows:?}");
            }
        }
    }
}

/// A counter line that cannot be read in a UTF-16 log is named by its line, counted in the
/// decoded text as the scan read it.
#[test]
fn a_bad_counter_line_of_a_utf16_log_is_named_by_its_line() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("home/.copilot/session-state/0badf00d-0000-4000-8000-000000000099");
    std::fs::create_dir_all(&dir).unwrap();
    let text = "{\"type\":\"session.start\",\"data\":{},\"timestamp\":\"2026-10-01T09:00:00.000Z\"}\n\
                {\"type\":\"user.message\",\"data\":{\"content\":\"h\u{e9}llo \u{1F600}\"},\"timestamp\":\"2026-10-01T09:00:01.000Z\"}\n\
                {\"type\":\"session.shutdown\",\"data\":{\"modelMetrics\":\n";
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    std::fs::write(dir.join("events.jsonl"), bytes).unwrap();
    let output = common::run(scratch.path(), &["usage", "home"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("events.jsonl:3:"), "{stderr}");
}

/// Every usage figure a person reads, from `analyze`'s files and the `usage` command's JSON:
/// `(where, requests, output, reasoning)` of each row, total and session.
fn every_figure(name: &str) -> Vec<(String, u64, u64, u64)> {
    let scratch = tempfile::tempdir().unwrap();
    common::copy_tree(&common::fixture(name), &scratch.path().join("home"));
    assert!(common::run(scratch.path(), &["analyze", "home", "--out", "out"]).status.success());
    let json = common::run(scratch.path(), &["usage", "home", "--json", "--by", "session"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let out = scratch.path().join("out");
    let mut figures = Vec::new();
    let mut add = |place: String, value: &serde_json::Value| {
        let count = |key: &str| value[key].as_u64().unwrap_or_else(|| panic!("{place}: no {key} in {value}"));
        let counts = (count("requests"), count("output"), count("reasoning"));
        figures.push((place, counts.0, counts.1, counts.2));
    };
    for (at, line) in common::read(&out.join("usage.jsonl")).lines().enumerate() {
        add(format!("usage.jsonl:{}", at + 1), &serde_json::from_str(line).unwrap());
    }
    for line in common::read(&out.join("sessions.jsonl")).lines() {
        let session: serde_json::Value = serde_json::from_str(line).unwrap();
        add(format!("sessions.jsonl {}", session["session_id"]), &session["usage"]);
    }
    for (at, row) in json["rows"].as_array().unwrap().iter().enumerate() {
        add(format!("usage --json rows[{at}]"), row);
    }
    for (kind, total) in json["totals"].as_object().unwrap() {
        add(format!("usage --json totals.{kind}"), total);
    }
    let csv = common::read(&out.join("usage.csv"));
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let (requests, output, reasoning) = (column("requests"), column("output"), column("reasoning"));
    for (at, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        let count = |at: usize| cells[at].parse::<u64>().unwrap();
        figures.push((format!("usage.csv:{}", at + 2), count(requests), count(output), count(reasoning)));
    }
    figures
}

#[test]
fn reasoning_is_never_shown_above_output() {
    // Session 1 (gpt-5.4: 2.50 in / 15.00 out per million), one shutdown a day:
    //   Oct 20: 1 / 1000 in / 100 out with 400 reasoning: the record contradicts itself, so its
    //     output and reasoning add nothing: 1000*2.5 = 2500, flagged.
    //   Oct 21: 2 / 3000 / 700 with 450: adds what Oct 20 missed: 1 / 2000 / 700 / 450:
    //     5000 + 10500 = 15500.
    //   Oct 22: 3 / 4000 / 750 with 600: 150 more reasoning than the 50 more output, so its
    //     output adds nothing: 1 / 1000: 2500, flagged.
    //   Oct 23: 4 / 5000 / 1000 with 650: against Oct 21's totals, 1 / 1000 / 300 / 200:
    //     2500 + 4500 = 7000.
    // Session 2, no shutdown, Oct 20: a call of 500 in / 20 out with 80 reasoning keeps only its
    //   input; the next, 300 / 50 with 10, is whole: partial 2 / 800 / 50 / 10: 2000 + 750 = 2750.
    let flagged: &[&str] = &["implausible_counter"];
    let usage = check(
        "hostile/cli-reasoning-above-output",
        &[
            ("2026-10-20", "gpt-5.4", flagged, [1, 1000, 0, 0, 0, 0, 1000], Some(2500)),
            ("2026-10-20", "gpt-5.4", &["partial", "implausible_counter"], [2, 800, 0, 0, 50, 10, 850], Some(2750)),
            ("2026-10-21", "gpt-5.4", &[], [1, 2000, 0, 0, 700, 450, 2700], Some(15500)),
            ("2026-10-22", "gpt-5.4", flagged, [1, 1000, 0, 0, 0, 0, 1000], Some(2500)),
            ("2026-10-23", "gpt-5.4", &[], [1, 1000, 0, 0, 300, 200, 1300], Some(7000)),
        ],
    );
    assert_eq!(flags(&usage, "4ea50000-0000-4000-8000-000000000001"), flagged);
    check_golden("hostile/cli-reasoning-above-output", false);
    for fixture in ["hostile/cli-reasoning-above-output", "hostile/chat-model-totals-mixed"] {
        let figures = every_figure(fixture);
        assert!(figures.len() >= 8, "{fixture}: {figures:?}");
        for (place, _, output, reasoning) in figures {
            assert!(reasoning <= output, "{fixture} {place}: reasoning {reasoning} above output {output}");
        }
    }
}

#[test]
fn every_model_totals_request_counts_and_what_cannot_be_read_is_said() {
    // Eight requests of gpt-5.4 on 2026-10-20 (0.25 in / 2.00 out for gpt-5-mini):
    //   0: 1000 in with 200 cached / 100 out; 1: a model `5`, counted under gpt-5.4: 1000 / 100;
    //   2 and 3: an entry `7` and `"gpt-5.4"`: the request counts, no tokens; 4: a `null` entry
    //   beside gpt-5-mini's 400 / 40 (flagged); 5: a model object and input 1e30 with 1200
    //   cached: the input goes with its cache reads, 100 out stays; 6: 50 thinking tokens above
    //   30 out: the output goes with its reasoning, 1000 in stays; 7: promptTokens 2000 /
    //   completionTokens 100 with 20 thinking.
    // gpt-5.4: 7 requests, input 5000 of which 200 cached (fresh 4800), output 400 (20 reasoning):
    //   4800*2.5 + 200*0.25 + 400*15 = 18050. gpt-5-mini: 400*0.25 + 40*2 = 180.
    let flagged: &[&str] = &["implausible_counter"];
    let usage = check(
        "hostile/chat-model-totals-mixed",
        &[
            ("2026-10-20", "gpt-5-mini", flagged, [1, 400, 0, 0, 40, 0, 440], Some(180)),
            ("2026-10-20", "gpt-5.4", flagged, [7, 4800, 200, 0, 400, 20, 5400], Some(18050)),
        ],
    );
    let table = usage.table(GroupBy::Day, DayRange::default());
    assert_eq!(table.totals[&copilot_lens::usage::Kind::Counted].tokens.requests, 8, "every request counts");
    check_golden("hostile/chat-model-totals-mixed", false);
}

#[test]
fn chat_timestamps_in_every_form_are_dated() {
    // VS Code, Oct 21 from 09:00: an ISO string, 13 digits as a string, fractional
    // milliseconds, an ISO string with an offset (11:03+02:00 is 09:03Z): 4 requests of
    // 1000 in / 100 out in all (2500 + 1500 = 4000); "soon" is not a time (undated, reported).
    // The CLI's session: a shutdown at a number with a fraction (Oct 21: 1000 / 100 = 4000) and
    // one at 13 digits as a string (Oct 22: 2000 / 200 more = 8000).
    check(
        "hostile/chat-timestamps",
        &[
            ("2026-10-21", "gpt-5.4", &[], [5, 2000, 0, 0, 200, 0, 2200], Some(8000)),
            ("2026-10-22", "gpt-5.4", &[], [1, 2000, 0, 0, 200, 0, 2200], Some(8000)),
        ],
    );
    check_golden("hostile/chat-timestamps", true);
}

#[test]
fn usage_on_a_day_it_cannot_be_on_is_flagged_and_kept_out_of_the_month() {
    // One CLI session a day: 0001-01-01, 1969-12-31, 1970-01-01, 9999-12-31 and 2026-11-20
    // (1000*n in / 100 out each); a VS Code chat's request dated 0 (1970-01-01, 700 / 70) and one
    // on 2026-11-20 (800 / 80). Today is 2026-12-02.
    let today = NaiveDate::from_ymd_opt(2026, 12, 2).unwrap();
    let mut roots = MemoryRoots(vec![common::memory_root("hostile/implausible-dates")]);
    let options = Options { today: Some(today), ..Options::default() };
    let mut rows: Vec<OwnedRow> = Vec::new();
    let outputs = analyze(roots.listings(), &mut roots, options, &mut rows).unwrap();
    let table = outputs.usage.table(GroupBy::Day, DayRange::default());
    let days: Vec<(String, u64, bool)> = table
        .rows
        .iter()
        .map(|row| (row.day.clone().unwrap(), row.tokens.requests, row.flags.contains(&"implausible_date")))
        .collect();
    let expected = [("0001-01-01", 1, true), ("1969-12-31", 1, true), ("1970-01-01", 2, true)];
    let expected = expected.into_iter().chain([("2026-11-20", 2, false), ("9999-12-31", 1, true)]);
    assert_eq!(days, expected.map(|(day, requests, flagged)| (day.to_string(), requests, flagged)).collect::<Vec<_>>());
    assert!(table.totals[&copilot_lens::usage::Kind::Counted].flags.contains(&"implausible_date"), "the total says so");
    assert_eq!(table.totals[&copilot_lens::usage::Kind::Counted].tokens.requests, 2, "left out of the totals, flagged");
    // Each by its file and line: the usage by its first counter line of the day, the rows by
    // their first line, and the chat's creation (claimed by no dated line) by its file.
    let dated = |kind: DiagnosticKind| -> Vec<(&str, Option<u64>)> {
        let diagnostics = outputs.report.diagnostics.iter().filter(|d| d.kind == kind);
        diagnostics.map(|d| (d.file.rsplit('/').next().unwrap(), d.line)).collect()
    };
    let chat = "c0de2204-0000-4000-8000-000000000004.jsonl";
    let logs = ["events.jsonl"; 4].map(|log| (log, Some(3)));
    assert_eq!(dated(DiagnosticKind::ImplausibleDate), [[(chat, Some(1))].as_slice(), &logs].concat());
    let logs = ["events.jsonl"; 4].map(|log| (log, Some(1)));
    assert_eq!(dated(DiagnosticKind::ImplausibleTime), [[(chat, None), (chat, Some(1))].as_slice(), &logs].concat());
    // The month holds only Nov 20: 5000*2.5 + 100*15 = 14000 and 800*2.5 + 80*15 = 3200 µUSD,
    // 1.72 credits; the days before 2020 are in no month's count.
    let november = outputs.usage.month(NaiveDate::from_ymd_opt(2026, 11, 1).unwrap(), today, Some(100.0));
    assert!((november.used - 1.72).abs() < 1e-9, "{}", november.used);
    let epoch = outputs.usage.month(NaiveDate::from_ymd_opt(1970, 1, 1).unwrap(), today, Some(1.0));
    assert_eq!((epoch.used, epoch.runs_out_on), (0.0, None));
    // December, today's month, with 9999-12-31 never in it; no clock: only the earliest day is known.
    assert_eq!(outputs.usage.month(today, today, None).used, 0.0);
    let mut roots = MemoryRoots(vec![common::memory_root("hostile/implausible-dates")]);
    let without_clock = usage_only::run(Planned::new(roots.listings(), Options::default()).unwrap(), &mut roots);
    let flagged_days: Vec<String> = without_clock
        .usage
        .table(GroupBy::Day, DayRange::default())
        .rows
        .iter()
        .filter(|row| row.flags.contains(&"implausible_date"))
        .map(|row| row.day.clone().unwrap())
        .collect();
    assert_eq!(flagged_days, ["0001-01-01", "1969-12-31", "1970-01-01"]);
    check_golden("hostile/implausible-dates", false);
}

// Resumed sessions: how each CLI version's shutdowns count (docs/src/usage.md, "Resumed sessions").

#[test]
fn a_restarting_version_adds_each_process_whole() {
    // CLI 1.0.14: each shutdown holds only its own process's counters (claude-sonnet-4.5,
    // 3.00 in / 0.30 cache read / 15.00 out).
    // Sep 1, shutdown 1: 4 requests, input 10000 = 6000 cache reads + 4000 fresh, output 500.
    //   cost 4000*3 + 6000*0.30 + 500*15 = 12000 + 1800 + 7500 = 21300.
    // Sep 2, shutdowns 2 and 3 added whole: 3 + 13 = 16 requests, input 8000 + 30000 = 38000 of
    //   which 5000 + 20000 = 25000 cache reads (13000 fresh), output 300 + 1200 = 1500.
    //   cost 13000*3 + 25000*0.30 + 1500*15 = 39000 + 7500 + 22500 = 69000.
    // (Read as cumulative, shutdown 2 would add nothing and shutdown 3 only 9 requests: 13 of 20.)
    let usage = check(
        "usage/resume-restarting-1.0.14",
        &[
            ("2026-09-01", "claude-sonnet-4.5", &[], [4, 4000, 6000, 0, 500, 0, 10500], Some(21300)),
            ("2026-09-02", "claude-sonnet-4.5", &[], [16, 13000, 25000, 0, 1500, 0, 39500], Some(69000)),
        ],
    );
    assert_eq!(flags(&usage, "14141414-0000-4000-8000-000000000014"), Vec::<&str>::new());
}

#[test]
fn a_cumulative_version_adds_each_increase() {
    // CLI 1.0.102 (its resume has sessionLimits): shutdown 2 is cumulative (gpt-5.4, 2.50 in /
    // 0.25 cache read / 15.00 out).
    // Sep 3: 2 requests, input 5000 = 1000 cache reads + 4000 fresh, output 150.
    //   cost 4000*2.50 + 1000*0.25 + 150*15 = 10000 + 250 + 2250 = 12500.
    // Sep 4: 3 - 2 = 1 request, input 9000 - 5000 = 4000 with 3000 - 1000 = 2000 cache reads,
    //   output 350 - 150 = 200. cost 2000*2.50 + 2000*0.25 + 200*15 = 5000 + 500 + 3000 = 8500.
    // The per-call records (usage_record) sum to each increase: nothing to flag.
    let usage = check(
        "usage/resume-cumulative-1.0.102",
        &[
            ("2026-09-03", "gpt-5.4", &[], [2, 4000, 1000, 0, 150, 0, 5150], Some(12500)),
            ("2026-09-04", "gpt-5.4", &[], [1, 2000, 2000, 0, 200, 0, 4200], Some(8500)),
        ],
    );
    assert_eq!(flags(&usage, "10210210-0000-4000-8000-000000000102"), Vec::<&str>::new());
}

#[test]
fn work_after_a_zeroed_shutdown_is_a_partial_lower_bound() {
    // CLI 1.0.77: the only shutdown (Sep 5) has every counter at 0; two resumed processes
    // follow without a shutdown. The store's per-call rows after it (claude-sonnet-4.5,
    // 3.00 in / 0.30 cache read / 3.75 cache write / 15.00 out):
    // Sep 6: 2 calls, input 20000 + 40000 with 15000 + 30000 cache reads and 2000 + 5000 cache
    //   writes (8000 fresh), output 800 + 1500 = 2300.
    //   cost 8000*3 + 45000*0.30 + 7000*3.75 + 2300*15 = 24000 + 13500 + 26250 + 34500 = 98250;
    //   recorded 3,300,000,000 + 6,525,000,000 = 9,825,000,000 nano-AIU.
    // Sep 7: 1 call, input 30000 with 25000 cache reads (5000 fresh), output 1000.
    //   cost 5000*3 + 25000*0.30 + 1000*15 = 15000 + 7500 + 15000 = 37500.
    //   recorded: its 3,750,000,000 plus what the last usage checkpoint (Sep 7: 98,030,170,000
    //   and 2.31 premium requests) holds beyond the shutdown (0) and the calls (13,575,000,000):
    //   84,455,170,000; 88,205,170,000 in all, far above the estimate (3.75 credits): differs.
    let usage = check(
        "usage/resume-after-zeroed-shutdown-1.0.77",
        &[
            ("2026-09-06", "claude-sonnet-4.5", &["partial"], [2, 8000, 45000, 7000, 2300, 0, 62300], Some(98250)),
            (
                "2026-09-07",
                "claude-sonnet-4.5",
                &["partial", "differs"],
                [1, 5000, 25000, 0, 1000, 0, 31000],
                Some(37500),
            ),
        ],
    );
    let table = usage.table(GroupBy::Day, DayRange::default());
    let recorded: Vec<_> = table.rows.iter().map(|row| (row.recorded_nano_aiu, row.premium_requests)).collect();
    assert_eq!(recorded, [(Some(9_825_000_000), None), (Some(88_205_170_000), Some(2.31))]);
    let id = "a77a77a7-0000-4000-8000-000000000077";
    assert!(!usage.unknown.contains(&id.to_string()), "never missing from usage");
    assert_eq!(
        flags(&usage, id),
        ["calls_after_last_shutdown", "per_call_from_store", "recorded_from_usage_checkpoint"]
    );
}

#[test]
fn session_totals_above_the_per_model_sum_count_on_the_checkpoints_day() {
    // CLI 1.0.77: the first process ended without a shutdown after one turn, whose usage
    // checkpoint (Sep 8) says 1,033,992,000 nano-AIU and 1 premium request. The resumed
    // process's shutdown (Sep 9) has per-model totals 4,420,152,000 and 4, session-wide
    // 5,454,144,000 and 5: the gap (1,033,992,000 and 1) is that checkpoint's, counted on its
    // day and model with no tokens (estimate 0: differs).
    // Sep 9: 4 requests, input 54000 = 50000 cache reads + 2000 cache writes + 2000 fresh,
    //   output 1000. cost 2000*3 + 50000*0.30 + 2000*3.75 + 1000*15 = 6000 + 15000 + 7500 +
    //   15000 = 43500 (4.35 credits, within 5% of the 4.42 recorded).
    let usage = check(
        "usage/session-totals-above-models-1.0.77",
        &[
            (
                "2026-09-08",
                "claude-sonnet-4.5",
                &["session_total_above_models", "differs"],
                [0, 0, 0, 0, 0, 0, 0],
                Some(0),
            ),
            ("2026-09-09", "claude-sonnet-4.5", &[], [4, 2000, 50000, 2000, 1000, 0, 55000], Some(43500)),
        ],
    );
    let table = usage.table(GroupBy::Day, DayRange::default());
    let recorded: Vec<_> = table.rows.iter().map(|row| (row.recorded_nano_aiu, row.premium_requests)).collect();
    assert_eq!(recorded, [(Some(1_033_992_000), Some(1.0)), (Some(4_420_152_000), Some(4.0))]);
    assert_eq!(flags(&usage, "5e55107a-0000-4000-8000-000000000077"), ["session_total_above_models"]);
}

#[test]
fn an_unknown_version_counts_a_restart_it_sees_and_gives_both_readings_otherwise() {
    // No copilotVersion and no resume key that tells (gpt-5-mini, 0.25 in / 2.00 out).
    // Session a (Sep 10): 4 requests then 3: a total cannot go down, so they restarted:
    //   7 requests, input 8000 + 6000 = 14000, output 700. cost 14000*0.25 + 700*2 = 4900.
    // Session b (Sep 11): 2 requests then 5: either cumulative (5 in all, the counted lower
    //   reading: input 10000, output 500, cost 2500 + 1000 = 3500) or restarting (7: the upper
    //   reading adds 2 requests, input 4000, output 200, cost 1000 + 400 = 1400).
    let usage = check(
        "usage/resume-unknown-version",
        &[
            ("2026-09-10", "gpt-5-mini", &[], [7, 14000, 0, 0, 700, 0, 14700], Some(4900)),
            ("2026-09-11", "gpt-5-mini", &["ambiguous_resume"], [5, 10000, 0, 0, 500, 0, 10500], Some(3500)),
            ("2026-09-11", "gpt-5-mini", &["ambiguous_resume"], [2, 4000, 0, 0, 200, 0, 4200], Some(1400)),
        ],
    );
    assert_eq!(flags(&usage, "0000000a-0000-4000-8000-00000000000a"), ["counters_restarted_on_resume"]);
    assert_eq!(flags(&usage, "0000000b-0000-4000-8000-00000000000b"), ["ambiguous_resume"]);
    let table = usage.table(GroupBy::Day, DayRange::default());
    let totals: Vec<_> = table.totals.iter().map(|(kind, row)| (*kind, row.tokens.requests)).collect();
    assert_eq!(totals, [(Kind::Counted, 12), (Kind::AmbiguousResume, 2)], "lower 12, upper 14");
    let session = summary::session_usage(&usage.ledgers["0000000b-0000-4000-8000-00000000000b"], &usage.rates);
    let adds = session.ambiguous_resume_adds.expect("the upper reading's addition");
    assert_eq!(
        (session.source, session.tokens.requests, adds.requests, adds.input, adds.output),
        ("counted", 5, 2, 4000, 200)
    );
    let plain = summary::session_usage(&usage.ledgers["0000000a-0000-4000-8000-00000000000a"], &usage.rates);
    assert_eq!((plain.tokens.requests, plain.ambiguous_resume_adds), (7, None));
}

/// A session log of CLI `version`: two processes, each shutdown as that version writes it
/// (1.0.40 on: session-wide totalNanoAiu), the resume with `sessionLimits` where the version
/// always writes it (1.0.66 on), `extra` lines in the second process.
fn two_process_log(id: &str, version: &str, limits: bool, extra: &str, first: [u64; 3], second: [u64; 3]) -> String {
    let shutdown = |at: &str, name: &str, [requests, input, output]: [u64; 3]| {
        format!(
            r#"{{"type":"session.shutdown","data":{{"shutdownType":"routine","totalPremiumRequests":{requests},"codeChanges":{{"linesAdded":0,"linesRemoved":0,"filesModified":[]}},"modelMetrics":{{"gpt-5-mini":{{"requests":{{"count":{requests},"cost":{requests}}},"usage":{{"inputTokens":{input},"outputTokens":{output},"cacheReadTokens":0,"cacheWriteTokens":0}}}}}},"currentModel":"gpt-5-mini"}},"id":"{name}","timestamp":"2026-09-20T{at}.000Z","parentId":null}}"#
        )
    };
    let limits = if limits { r#","sessionLimits":null"# } else { "" };
    [
        format!(
            r#"{{"type":"session.start","data":{{"sessionId":"{id}","version":1,"producer":"copilot-agent","copilotVersion":"{version}","startTime":"2026-09-20T09:00:00.000Z","context":{{"cwd":"/work/demo"}}}},"id":"start","timestamp":"2026-09-20T09:00:00.000Z","parentId":null}}"#
        ),
        shutdown("10:00:00", "s1", first),
        format!(
            r#"{{"type":"session.resume","data":{{"resumeTime":"2026-09-20T11:00:00.000Z","eventCount":2{limits},"context":{{"cwd":"/work/demo"}}}},"id":"re1","timestamp":"2026-09-20T11:00:00.000Z","parentId":null}}"#
        ),
        extra.to_string(),
        shutdown("12:00:00", "s2", second),
    ]
    .into_iter()
    .filter(|line| !line.is_empty())
    .collect::<Vec<_>>()
    .join("\n")
}

#[test]
fn each_established_cli_version_counts_two_processes_right() {
    // Each process made 3 calls (input 3000, output 300). A restarting version's second
    // shutdown says 3 (its own), a cumulative one's 6: the session made 6 either way.
    // The versions whose code was read (npm @github/copilot and its platform packages) and
    // those of the real homes of issue 23.
    const RESTARTING: &[&str] = &[
        "0.0.365", "1.0.0", "1.0.5", "1.0.7", "1.0.10", "1.0.12", "1.0.14", "1.0.18", "1.0.20", "1.0.27", "1.0.30",
        "1.0.40", "1.0.50", "1.0.59", "1.0.60", "1.0.63", "1.0.64", "1.0.65", "1.0.66-2",
    ];
    const CUMULATIVE: &[&str] = &["1.0.66", "1.0.67", "1.0.69", "1.0.70", "1.0.73", "1.0.77", "1.0.92", "1.0.102"];
    let checkpoint = r#"{"type":"session.usage_checkpoint","data":{"totalNanoAiu":0},"id":"c1","timestamp":"2026-09-20T11:30:00.000Z","parentId":null}"#;
    // (version, resume has sessionLimits, extra line, what the second shutdown says)
    let mut cases: Vec<(String, bool, &str, [u64; 3])> = Vec::new();
    for version in RESTARTING {
        cases.push((version.to_string(), false, "", [3, 3000, 300]));
    }
    for version in CUMULATIVE {
        // As the version writes its resume, and as a version that might leave the key out.
        cases.push((version.to_string(), true, "", [6, 6000, 600]));
        cases.push((version.to_string(), false, "", [6, 6000, 600]));
    }
    // Started with a restarting version, resumed with a cumulative one (upgraded between):
    // its resume's sessionLimits, or its usage checkpoint, says so.
    cases.push(("1.0.60".to_string(), true, "", [6, 6000, 600]));
    cases.push(("1.0.60".to_string(), false, checkpoint, [6, 6000, 600]));
    let mut root = copilot_lens::input::memory::MemoryRoot::new("versions");
    let mut ids = Vec::new();
    for (index, (version, limits, extra, second)) in cases.iter().enumerate() {
        let id = format!("00000000-0000-4000-8000-{index:012}");
        let log = two_process_log(&id, version, *limits, extra, [3, 3000, 300], *second);
        root.insert(&format!(".copilot/session-state/{id}/events.jsonl"), log, Some(0));
        ids.push((id, version.clone(), *limits, !extra.is_empty()));
    }
    let mut roots = MemoryRoots(vec![root]);
    let planned = Planned::new(roots.listings(), Options::default()).unwrap();
    let usage = usage_only::run(planned, &mut roots).usage;
    let mut rows: Vec<OwnedRow> = Vec::new();
    let full = analyze(roots.listings(), &mut roots, Options::default(), &mut rows).unwrap().usage;
    for (id, version, limits, extra) in &ids {
        for (run, usage) in [("usage-only", &usage), ("full", &full)] {
            let ledger = &usage.ledgers[id];
            let counted: Vec<[u64; 3]> = ledger
                .entries
                .iter()
                .map(|(key, entry)| {
                    assert_eq!(key.kind, Kind::Counted, "{version}: {key:?}");
                    [entry.tokens.requests, entry.tokens.input, entry.tokens.output]
                })
                .collect();
            assert_eq!(counted, [[6, 6000, 600]], "{run}: {version} (sessionLimits {limits}, checkpoint {extra})");
            assert!(ledger.flags.is_empty(), "{run}: {version}: {:?}", ledger.flags);
        }
    }
}

#[test]
fn a_compaction_billed_beyond_the_usage_counters_is_counted_from_the_billed_tokens() {
    // CLI 1.0.78, the shapes of a real recording: one compaction between two turns. The
    // shutdown's `usage` leaves the compaction's call out (input 21940 with 9728 cache reads,
    // output 247 with 192 reasoning); its `tokenDetails` holds it (13430 fresh input, 20352 cache
    // reads, 1322 output), as does its 651,030,000 nano-AIU. gpt-5-mini (0.25 in / 0.025 cache
    // read / 2.00 out): 13430*0.25 + 20352*0.025 + 1322*2 = 3357.5 + 508.8 + 2644 = 6510.3, the
    // 0.65103 credits recorded to the last digit; the usage counters alone would estimate 0.38
    // (differs).
    let usage = check(
        "usage/compaction-1.0.78",
        &[("2026-08-05", "gpt-5-mini", &["compaction"], [2, 13430, 20352, 0, 1322, 192, 35104], Some(6510))],
    );
    let table = usage.table(GroupBy::Day, DayRange::default());
    assert_eq!(table.rows[0].recorded_nano_aiu, Some(651_030_000));
    assert_eq!(table.rows[0].credits, Some(0.65));
}

/// `--by client`: each program's rows add up to the sessions run from it, as `sessions.jsonl`
/// names their client (`workspace.yaml`'s `client_name`; none for a session that names none);
/// every row of `rows.jsonl` names its session's, scrubbed as the session's is.
#[test]
fn by_client_each_programs_rows_add_up_to_its_sessions() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    common::copy_tree(&common::fixture("inventory/home"), &home);
    // One of the CLI's sessions was run from the Copilot app instead; another names a secret.
    let sessions = home.join(".copilot/session-state");
    for (session, client) in
        [("a14e0001", "github/autopilot"), ("a14e0002", "ghp_96ipbNClShVP4wY4for9duMl7JRU7BT4dK4b")]
    {
        let workspace = sessions.join(format!("{session}-0000-4000-8000-00000000000{}/workspace.yaml", &session[7..]));
        let text = common::read(&workspace);
        assert!(text.contains("client_name: github/cli\n"));
        std::fs::write(&workspace, text.replace("client_name: github/cli\n", &format!("client_name: {client}\n")))
            .unwrap();
    }
    assert!(common::run(scratch.path(), &["analyze", "home", "--out", "out"]).status.success());
    let clients: std::collections::BTreeMap<String, String> = common::read(&scratch.path().join("out/sessions.jsonl"))
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .map(|session| {
            (session["session_id"].as_str().unwrap().into(), session["client_name"].as_str().unwrap().into())
        })
        .collect();
    let rows = common::read(&scratch.path().join("out/rows.jsonl"));
    assert!(!rows.contains("ghp_96ip"), "a client's secret is scrubbed in the rows");
    let mut rows_by_client: std::collections::BTreeMap<String, u64> = Default::default();
    for row in rows.lines().map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()) {
        let client = clients.get(row["session_id"].as_str().unwrap()).cloned().unwrap_or_default();
        assert_eq!(row["client_name"].as_str().unwrap(), client, "{row}");
        *rows_by_client.entry(client).or_default() += 1;
    }
    assert_eq!(rows_by_client.len(), 4, "rows of each client, and of none: {rows_by_client:?}");
    let usage = |by: &str| -> Vec<serde_json::Value> {
        let output = common::run(scratch.path(), &["usage", "home", "--json", "--by", by]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        json["rows"].as_array().unwrap().clone()
    };
    let mut expected: std::collections::BTreeMap<String, (u64, u64)> = Default::default();
    for row in usage("session") {
        let client = clients.get(row["session_id"].as_str().unwrap()).cloned().unwrap_or_default();
        let sums = expected.entry(client).or_default();
        (sums.0, sums.1) = (sums.0 + row["requests"].as_u64().unwrap(), sums.1 + row["total"].as_u64().unwrap());
    }
    let mut by_client: std::collections::BTreeMap<String, (u64, u64)> = Default::default();
    for row in usage("client") {
        let sums = by_client.entry(row["client"].as_str().unwrap().to_string()).or_default();
        (sums.0, sums.1) = (sums.0 + row["requests"].as_u64().unwrap(), sums.1 + row["total"].as_u64().unwrap());
    }
    assert_eq!(by_client, expected);
    assert!(by_client.contains_key("github/autopilot") && by_client.contains_key("[redacted]"), "{by_client:?}");
}

/// A watch's update (issue 54): a log that grew has its session counted again in the last run
/// (`LiveUsage::recount`), and every ledger is then what a whole run over the grown files gives.
/// Each log of each fixture is cut to its first half of lines for the run, then grown to three
/// quarters and to whole, its session counted again each time.
#[test]
fn a_recount_of_a_grown_log_gives_what_a_whole_run_gives() {
    let mut trees: Vec<String> = std::fs::read_dir(common::fixture("usage"))
        .unwrap()
        .map(|entry| format!("usage/{}", entry.unwrap().file_name().to_string_lossy()))
        .collect();
    trees.extend(
        ["vscode/17-debug-logs", "vscode/07-model-totals", "vscode/beside-cli", "real-cli-1.0.102"].map(String::from),
    );
    trees.sort();
    let (mut recounted, mut whole_runs_asked) = (0, 0);
    for tree in &trees {
        let whole = common::memory_root(tree);
        let expected = {
            let mut roots = MemoryRoots(vec![whole.clone()]);
            let planned = Planned::new(roots.listings(), Options::default()).unwrap();
            format!("{:?}", usage_only::run(planned, &mut roots).usage.ledgers)
        };
        let logs: Vec<String> = {
            let roots = MemoryRoots(vec![whole.clone()]);
            let planned = Planned::new(roots.listings(), Options::default()).unwrap();
            let run = planned.usage_only();
            run.log_tasks().into_iter().map(|task| task.listed_path).collect()
        };
        for log in logs {
            let (bytes, modified_ms) = whole.files[&log].clone();
            let lines: Vec<&[u8]> = bytes.split_inclusive(|byte| *byte == b'\n').collect();
            let mut cut = whole.clone();
            cut.insert(&log, lines[..lines.len() / 2].concat(), modified_ms);
            let mut roots = MemoryRoots(vec![cut]);
            let options = Options::default();
            let run = usage_only::read(Planned::new(roots.listings(), options.clone()).unwrap(), &mut roots);
            let mut live = run.finish_live(&mut roots);
            let Written::Log(session) = live.written(0, &log) else { panic!("{log}: not a log the run read") };
            let session = session.to_string();
            let grown = std::collections::BTreeSet::from([session]);
            // Grown twice: to three quarters of its lines, then whole.
            let mut three_quarters = whole.clone();
            three_quarters.insert(&log, lines[..lines.len() * 3 / 4].concat(), modified_ms);
            let mut counted = Ok(());
            for files in [three_quarters, whole.clone()] {
                roots.0[0] = files;
                counted = counted.and_then(|()| live.recount(&grown, |task| task.scan_usage(&mut roots, &options)));
            }
            match counted {
                Ok(()) => {
                    assert_eq!(format!("{:?}", live.usage().ledgers), expected, "{tree}: {log} grew");
                    recounted += 1;
                }
                // Its first calls: the stores were read without it.
                Err(_) => whole_runs_asked += 1,
            }
        }
    }
    assert!(recounted >= 30, "{recounted} logs recounted, {whole_runs_asked} asked for a whole run");
}

/// A watch reads on a store as Copilot writes a call's row to it (`LiveUsage::read_stores_on`):
/// a row of a session whose log counts its calls changes no count, so the run's ledgers stand,
/// and they are what a whole run over the grown store gives; a row of a session the store alone
/// counts (its log deleted) asks for a whole run, which counts the row. The row is written by
/// SQLite, into the store's write-ahead log, as Copilot writes it; the log is read on twice.
#[test]
fn a_store_read_on_finds_whose_calls_were_written_to_it() {
    use copilot_lens::analysis::AsTheyAre;
    let whole_run = |roots: &mut MemoryRoots| {
        let planned = Planned::new(roots.listings(), Options::default()).unwrap();
        usage_only::run(planned, roots).usage.ledgers
    };
    let with_a_log = "a2a2a2a2-0000-4000-8000-000000000010";
    for (session, counted_by_its_log) in [(with_a_log, true), ("77777777-0000-4000-8000-000000000008", false)] {
        let scratch = tempfile::tempdir().unwrap();
        common::copy_tree(&common::fixture("usage/deleted-session"), scratch.path());
        let disk = || MemoryRoots(vec![common::memory_root_of(scratch.path(), "home")]);
        let mut roots = disk();
        let mut run = Planned::new(roots.listings(), Options::default()).unwrap().usage_only();
        run.keep_stores();
        for task in run.log_tasks() {
            let scanned = task.scan_usage(&mut roots, run.options());
            run.add_scan(&task, scanned);
        }
        let mut jobs = run.store_jobs();
        jobs.iter_mut().for_each(|job| job.scan_wal_ahead(&mut roots));
        run.read_stores(&mut roots, jobs, &mut AsTheyAre);
        let mut live = run.finish_live(&mut roots);
        let before = live.usage().ledgers.clone();
        assert!(before.contains_key(session), "{session} is counted before");

        let store = rusqlite::Connection::open(scratch.path().join(".copilot/session-store.db")).unwrap();
        // Copilot keeps its connection open: the log is not checkpointed into the main file.
        store.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true).unwrap();
        let mut read_on = Vec::new();
        for call in 0..2 {
            store
                .execute(
                    "INSERT INTO assistant_usage_events (session_id, model, input_tokens, output_tokens, \
                     total_nano_aiu, created_at) VALUES (?1, 'gpt-5.4', 1000, 10, 2000000000, ?2)",
                    (session, format!("2026-10-07T10:0{call}:00.000Z")),
                )
                .unwrap();
            roots = disk();
            let Written::StoreLog(at) = live.written(0, ".copilot/session-store.db-wal") else {
                panic!("the store's log is not one the run read on")
            };
            assert_eq!(live.written(0, ".copilot/session-store.db-shm"), Written::Unread);
            read_on.push(live.read_stores_on(&std::collections::BTreeSet::from([at]), &mut roots));
        }
        let now = whole_run(&mut disk());
        if counted_by_its_log {
            assert_eq!(read_on, [Ok(()), Ok(())]);
            assert_eq!(format!("{:?}", live.usage().ledgers), format!("{now:?}"), "the ledgers stand");
        } else {
            assert!(read_on[0].as_ref().is_err_and(|why| why.contains(session)), "{read_on:?}");
            assert_ne!(format!("{before:?}"), format!("{now:?}"), "a whole run counts the row");
        }
    }
}
