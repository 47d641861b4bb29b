//! Credits (issue 13): what Copilot recorded beside the estimate, BYOK and Auto, and the
//! billing month, against the figures worked out by hand in fixtures/credits/EXPECTED.md.

mod common;

use copilot_lens::analysis::{Options, UsageData, analyze};
use copilot_lens::input::memory::MemoryRoots;
use copilot_lens::model::OwnedRow;
use copilot_lens::usage::summary::{DayRange, GroupBy};
use serde_json::Value;

fn usage(case: &str) -> UsageData {
    let mut roots = MemoryRoots(vec![common::memory_root(&format!("credits/{case}"))]);
    let mut rows: Vec<OwnedRow> = Vec::new();
    analyze(roots.listings(), &mut roots, Options::default(), &mut rows).unwrap().usage
}

/// The JSON rows (agent grain) by day as `(day, model, cost µUSD, recorded nano-AIU, premium,
/// credits, credits_from, flags)`.
fn rows(case: &str) -> Vec<Value> {
    let table = usage(case).table(GroupBy::Day, DayRange { agents_apart: true, ..DayRange::default() });
    table
        .rows
        .iter()
        .map(|row| {
            serde_json::json!([
                row.day,
                row.model,
                row.cost_usd_micros,
                row.recorded_nano_aiu,
                row.premium_requests,
                row.credits,
                row.credits_from,
                row.flags
            ])
        })
        .collect()
}

#[test]
fn a_billed_session_over_two_days_records_each_shutdowns_increase() {
    // Shutdown 1: 28.95 credits, 2 premium requests; shutdown 2 (cumulative): 56.76 and 3.
    // Estimates 28.95 and 27.00 credits (2.9% off the 27.81 recorded: not flagged).
    assert_eq!(
        rows("01-billed-two-days"),
        [
            serde_json::json!([
                "2026-10-06",
                "claude-sonnet-4.5",
                289_500,
                28_950_000_000u64,
                2.0,
                28.95,
                "recorded",
                []
            ]),
            serde_json::json!([
                "2026-10-07",
                "claude-sonnet-4.5",
                270_000,
                27_810_000_000u64,
                1.0,
                27.81,
                "recorded",
                []
            ]),
        ]
    );
}

#[test]
fn byok_calls_keep_their_tokens_and_cost_nothing() {
    // 01's first day's tokens, with the person's own key: no Copilot cost, 0 recorded.
    let rows = rows("04-byok");
    assert_eq!(rows, [serde_json::json!(["2026-10-12", "claude-sonnet-4.5", 0, 0, 0.0, 0.0, "recorded", ["byok"]])]);
    let table = usage("04-byok").table(GroupBy::Day, DayRange::default());
    assert_eq!(
        (table.rows[0].tokens.input, table.rows[0].tokens.cache_read, table.rows[0].tokens.output),
        (50_000, 140_000, 4_000)
    );
}

#[test]
fn auto_is_estimated_with_its_discount_and_agrees_with_the_record() {
    // 11.40 credits undiscounted, 10.26 with 10% off; 10.26 recorded: not `differs`.
    assert_eq!(
        rows("05-auto"),
        [serde_json::json!([
            "2026-10-14",
            "claude-haiku-4.5",
            102_600,
            10_260_000_000u64,
            0.594,
            10.26,
            "recorded",
            ["auto"]
        ])]
    );
}

#[test]
fn vs_code_records_copilot_credits_per_request() {
    // request_0: 11.25 credits estimated, 5.00 recorded: `differs`; request_1 (Auto): 0.70
    // undiscounted, 0.63 discounted and recorded. VS Code records no premium requests.
    assert_eq!(
        rows("06-vscode-credits"),
        [
            serde_json::json!([
                "2026-10-15",
                "claude-sonnet-4.5",
                112_500,
                5_000_000_000u64,
                null,
                5.0,
                "recorded",
                ["differs"]
            ]),
            serde_json::json!(["2026-10-15", "gpt-5-mini", 6_300, 630_000_000u64, null, 0.63, "recorded", ["auto"]]),
        ]
    );
}

#[test]
fn months_follow_the_billing_clock() {
    // 7.50 credits on 2026-10-31 and 5.25 on 2026-11-01 (UTC).
    let usage = usage("07-month-boundary");
    let months: Vec<(Option<String>, Option<f64>)> = usage
        .table(GroupBy::Month, DayRange::default())
        .rows
        .iter()
        .map(|row| (row.month.clone(), row.credits))
        .collect();
    assert_eq!(months, [(Some("2026-10".into()), Some(7.5)), (Some("2026-11".into()), Some(5.25))]);
    let day = |text: &str| text.parse().unwrap();
    let october = usage.month(day("2026-10-01"), day("2026-11-20"), None);
    assert_eq!((october.used, october.finished), (7.5, true));
}

#[test]
fn the_allowance_runs_out_at_the_pace_so_far() {
    // 150 credits a day on Nov 2-5: 600 by Nov 5, 120 a day over 5 days, 3,600 by Nov 30; an
    // allowance of 1,500 is reached on day 13 (13 x 120 = 1,560); 7,000 lasts the month.
    let usage = usage("08-allowance-runout");
    let day = |text: &str| text.parse().unwrap();
    let month = usage.month(day("2026-11-01"), day("2026-11-05"), Some(1500.0));
    let cumulative: Vec<f64> = month.days.iter().map(|d| d.cumulative).collect();
    assert_eq!(cumulative, [0.0, 150.0, 300.0, 450.0, 600.0]);
    assert_eq!((month.recorded, month.estimated, month.projected), (600.0, 0.0, Some(3600.0)));
    assert_eq!(month.runs_out_on.as_deref(), Some("2026-11-13"));
    assert_eq!(usage.month(day("2026-11-01"), day("2026-11-05"), Some(7000.0)).runs_out_on, None);
}

/// 03's (and 10's) one row: 5.25 credits estimated and recorded, 0.66 premium requests, partial.
fn crashed_session_row() -> Value {
    serde_json::json!(["2026-10-09", "gpt-5.4-mini", 52_500, 5_250_000_000u64, 0.66, 5.25, "recorded", ["partial"]])
}

#[test]
fn a_crashed_session_records_its_calls_as_a_partial_lower_bound() {
    // No shutdown: the two calls' copilotUsage (2.55 + 2.70 = 5.25 credits, 0.33 + 0.33
    // premium requests) are the partial figure, beside the 5.25 estimated.
    assert_eq!(rows("03-crashed-checkpoint"), [crashed_session_row()]);
}

#[test]
fn credits_go_to_their_projects() {
    // 06's two VS Code requests are in the workspace of /home/mona/code/shop: 5.00 + 0.63.
    let table = usage("06-vscode-credits").table(GroupBy::Project, DayRange::default());
    let projects: Vec<(Option<&str>, Option<f64>)> =
        table.rows.iter().map(|row| (row.project_path.as_deref(), row.credits)).collect();
    assert_eq!(projects, [(Some("/home/mona/code/shop"), Some(5.0)), (Some("/home/mona/code/shop"), Some(0.63))]);
    let output = common::run(&common::fixture("credits"), &["usage", "06-vscode-credits", "--by", "project", "--json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["rows"][0]["project_path"], "/home/mona/code/shop", "the CLI reads every file for projects");
}

#[test]
fn credits_split_between_the_main_agent_and_its_sub_agents() {
    // agentMetrics: main 14.40 credits (Sonnet), the `explore` sub-agent 2.25 (Haiku): 16.65.
    let table = usage("02-subagent-share").table(GroupBy::Subagent, DayRange::default());
    let shares: Vec<(Option<&str>, &str, Option<f64>)> =
        table.rows.iter().map(|row| (row.subagent.as_deref(), row.model.as_str(), row.credits)).collect();
    assert_eq!(
        shares,
        [(Some("explore"), "claude-haiku-4.5", Some(2.25)), (Some("main"), "claude-sonnet-4.5", Some(14.4))]
    );
    assert_eq!(table.totals[&copilot_lens::usage::Kind::Counted].credits, Some(16.65));
}

#[test]
fn the_cli_shows_the_month_against_a_plans_allowance() {
    // Pro: 1,500 credits a month (src/usage/plans.json). November 2026 is over by the clock.
    let dir = common::fixture("credits");
    let output =
        common::run(&dir, &["usage", "08-allowance-runout", "--plan", "pro", "--until", "2026-11-05", "--json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let month = &json["month"];
    assert_eq!(
        (month["month"].as_str(), month["allowance"].as_f64(), month["used"].as_f64()),
        (Some("2026-11"), Some(1500.0), Some(600.0))
    );
    assert_eq!((month["recorded"].as_f64(), month["finished"].as_bool()), (Some(600.0), Some(true)));
    let text = common::run(&dir, &["usage", "08-allowance-runout", "--allowance", "500", "--until", "2026-11-05"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("600.00 credits used of 500.00 (120%)") && text.contains("the allowance ran out on 2026-11-05"),
        "{text}"
    );
    let zone = common::run(&dir, &["usage", "08-allowance-runout", "--plan", "pro", "--timezone", "Europe/Berlin"]);
    assert_eq!(zone.status.code(), Some(2), "the billing month is UTC's");
}

#[test]
fn a_deleted_session_is_recovered_from_the_store_with_what_copilot_recorded() {
    // fixtures/sql/credits-recovered-store.sql: two calls of a session whose log is gone.
    // Estimate (Sonnet 4.5: 3.00 / 0.30 / 15.00): 40,000 fresh x 3 + 60,000 x 0.3 + 4,000 x 15
    // = 0.198 USD, and 10,000 x 3 + 40,000 x 0.3 + 2,000 x 15 = 0.072: 27.00 credits. Recorded
    // (total_nano_aiu) 14.4 + 5.0 = 19.40 credits, request_multiplier 1 + 1: 39% apart, `differs`.
    assert_eq!(
        rows("09-recovered-store"),
        [serde_json::json!([
            "2026-10-16",
            "claude-sonnet-4.5",
            270_000,
            19_400_000_000u64,
            2.0,
            19.4,
            "recorded",
            ["recovered", "differs"]
        ])]
    );
}

#[test]
fn a_usage_checkpoint_is_the_lower_bound_when_the_calls_record_nothing() {
    // 03 with the calls' copilotUsage taken out: the checkpoint's 5.25 credits (and 0.66 premium
    // requests, which the calls' own cost already gives) are the session's partial record.
    assert_eq!(rows("10-checkpoint-only"), [crashed_session_row()]);
    // The usage-only reading (counter lines only) counts the checkpoint line too.
    let output = common::run(&common::fixture("credits"), &["usage", "10-checkpoint-only", "--json"]);
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["rows"][0]["recorded_nano_aiu"], 5_250_000_000u64);
}

#[test]
fn billed_figures_that_cannot_be_amounts_are_left_out_and_the_rest_estimated() {
    // Five claude-sonnet-4.5 calls (3.00 USD per million input tokens), no shutdown: 200,000
    // tokens recorded at 60 credits; the others' totalNanoAiu are 1e30, a string, -5 and 2^64-1,
    // none an amount: their 1,300,000 tokens are estimated at 390 credits. 60 + 390 = 450
    // (`both`), not the 60 recorded alone, and the 60 agrees with its own calls' estimate.
    let rows = rows("11-implausible-credits");
    assert_eq!(
        rows[1],
        serde_json::json!([
            "2026-10-20",
            "claude-sonnet-4.5",
            4_500_000,
            60_000_000_000u64,
            null,
            450.0,
            "both",
            ["partial", "implausible_counter"]
        ])
    );
    let usage = usage("11-implausible-credits");
    let flags = |id: &str| usage.ledgers[id].flags.iter().copied().collect::<Vec<_>>();
    assert!(flags("c1000011-0000-4000-8000-000000000011").contains(&"implausible_counter"));
    // A usage checkpoint's running total that goes down (20 then 3 credits) keeps the 20.
    assert_eq!(
        rows[0],
        serde_json::json!(["2026-10-20", "", null, 20_000_000_000u64, null, 20.0, "recorded", ["no_rate", "partial"]])
    );
    assert!(flags("c1000012-0000-4000-8000-000000000012").contains(&"usage_checkpoint_went_down"));
    // Each line is named.
    let output = common::run(&common::fixture("credits"), &["usage", "11-implausible-credits"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    for line in [2, 4, 5, 6] {
        let named = format!("c1000011-0000-4000-8000-000000000011/events.jsonl:{line}");
        assert!(stderr.contains(&named), "{named} in {stderr}");
    }
    assert!(stderr.contains("c1000012-0000-4000-8000-000000000012/events.jsonl:3"), "{stderr}");
}

#[test]
fn usage_by_subagent_adds_up_to_plain_usage() {
    // 01 writes no agentMetrics, 02 does, 06 is a VS Code chat.
    for case in ["01-billed-two-days", "02-subagent-share", "06-vscode-credits", "03-crashed-checkpoint"] {
        let usage = usage(case);
        let plain = usage.table(GroupBy::Day, DayRange::default());
        let by_agent = usage.table(GroupBy::Subagent, DayRange::default());
        let total = |table: &copilot_lens::usage::summary::UsageTable| {
            table.totals.iter().map(|(kind, row)| (*kind, row.credits, row.tokens.total)).collect::<Vec<_>>()
        };
        assert_eq!(total(&by_agent), total(&plain), "{case}");
        assert!(!by_agent.rows.is_empty(), "{case}");
    }
}

#[test]
fn an_allowance_is_what_a_person_types_above_zero_up_to_a_billion() {
    let root = common::fixture("credits/01-billed-two-days");
    for bad in ["1e19", "5e2", "1e9", "0", "-5", "NaN", "inf", "ten", ""] {
        let output = common::run(&root, &["usage", ".", &format!("--allowance={bad}")]);
        assert_eq!(output.status.code(), Some(2), "--allowance {bad}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("{bad:?} is not an allowance: give a number of AI credits above 0")),
            "{stderr}"
        );
    }
    for (typed, credits) in [("1,000,000,000", 1e9), ("1,500", 1500.0), ("1500.5", 1500.5)] {
        let output = common::run(&root, &["usage", ".", "--json", "--allowance", typed, "--until", "2026-10-31"]);
        assert_eq!(output.status.code(), Some(0), "--allowance {typed}");
        let month: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(month["month"]["allowance"], credits, "--allowance {typed}");
    }
}
