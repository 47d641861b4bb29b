//! `usage --bill`: GitHub's usage report against what this machine recorded, for every report
//! variant under fixtures/bills/, against the reconciliations worked out by hand in
//! fixtures/bills/EXPECTED.md.

mod common;

use std::path::Path;

use serde_json::Value;

fn bills() -> std::path::PathBuf {
    common::fixture("bills")
}

/// The reconciliation's table (from its `bill` line on) and JSON `bill` for one report.
fn reconcile(args: &[&str]) -> (String, Value) {
    let table = common::run(&bills(), &[&["usage", "home"], args].concat());
    assert!(table.status.success(), "{}", String::from_utf8_lossy(&table.stderr));
    let json = common::run(&bills(), &[&["usage", "home", "--json"], args].concat());
    assert!(json.status.success(), "{}", String::from_utf8_lossy(&json.stderr));
    let text = String::from_utf8(table.stdout).unwrap();
    let from = text.find("\nbill ").expect("a bill section") + 1;
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    (text[from..].to_string(), json["bill"].clone())
}

fn golden(case: &str, (table, json): &(String, Value)) {
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/bill");
    insta::with_settings!({ snapshot_path => snapshots, prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(format!("{case}__table.txt"), table);
        insta::assert_snapshot!(format!("{case}__bill.json"), serde_json::to_string_pretty(json).unwrap());
    });
}

/// `(day, model, billed, local, local_from, difference, status)` of each row.
fn rows(bill: &Value) -> Vec<Value> {
    let rows = bill["rows"].as_array().unwrap();
    let field = |row: &Value, name: &str| row[name].clone();
    rows.iter()
        .map(|row| {
            Value::Array(
                ["day", "model", "billed_credits", "local_credits", "local_from", "difference", "status"]
                    .map(|name| field(row, name))
                    .to_vec(),
            )
        })
        .collect()
}

#[test]
fn the_ai_credit_report_is_reconciled_day_by_day_with_the_signed_in_login() {
    let reconciled = reconcile(&["--bill", "ai-credits.csv"]);
    let bill = &reconciled.1;
    // mona signed in (the process log); hubot's 99 credits are never mixed in.
    assert_eq!((bill["user"].as_str(), bill["users"].clone()), (Some("mona"), serde_json::json!(["hubot", "mona"])));
    assert_eq!(
        (bill["format"].as_str(), bill["from"].as_str(), bill["to"].as_str()),
        (Some("ai_credits"), Some("2026-10-06"), Some("2026-10-10"))
    );
    assert_eq!(
        rows(bill),
        [
            serde_json::json!(["2026-10-08", "gpt-5.4-mini", 132.0, 120.0, "estimated", 12.0, "billed_more"]),
            serde_json::json!(["2026-10-10", "gpt-5.4-mini", 0.0, 7.5, "estimated", -7.5, "local_not_billed"]),
            serde_json::json!(["2026-10-09", "Claude Haiku 4.5", 5.0, 0.0, null, 5.0, "billed_not_local"]),
            serde_json::json!(["2026-10-07", "claude-sonnet-4.5", 30.0, 27.81, "recorded", 2.19, "billed_more"]),
            serde_json::json!(["2026-10-06", "claude-sonnet-4.5", 28.95, 28.95, "recorded", 0.0, "matched"]),
        ]
    );
    assert_eq!(
        bill["not_local"],
        serde_json::json!([
            {"sku": "coding_agent_ai_credit", "model": "Coding Agent model", "credits": 40.0},
            {"sku": "copilot_ai_credit", "model": "Code Review model", "credits": 3.5}
        ])
    );
    // 28.95 + 30 + 132 + 5 + 0 billed; 28.95 + 27.81 + 120 + 7.5 here.
    assert_eq!(
        bill["totals"],
        serde_json::json!({"billed_credits": 195.95, "local_credits": 184.26, "difference": 11.69, "not_local_credits": 43.5})
    );
    assert_eq!(
        bill["estimate_ratio"],
        serde_json::json!([{"model": "gpt-5.4-mini", "billed_credits": 132.0, "estimated_credits": 120.0, "ratio": 1.1}])
    );
    golden("ai-credits", &reconciled);
}

#[test]
fn a_spreadsheet_resave_of_the_report_reconciles_the_same() {
    // BOM, CRLF, quoted fields, columns reordered, 10/6/26 dates, aic and token columns, and
    // one day's 30 credits in two rows (20 + 10).
    let (_, native) = reconcile(&["--bill", "ai-credits.csv"]);
    let (table, resaved) = reconcile(&["--bill", "ai-credits-spreadsheet.csv"]);
    assert_eq!(resaved["file"], "ai-credits-spreadsheet.csv");
    let without_file = |bill: &Value| {
        let mut bill = bill.clone();
        bill["file"] = Value::Null;
        bill
    };
    assert_eq!(without_file(&resaved), without_file(&native));
    assert!(table.starts_with("bill ai-credits-spreadsheet.csv (ai_credits), user mona"), "{table}");
}

#[test]
fn the_transition_report_compares_its_credits_and_marks_auto() {
    let reconciled = reconcile(&["--bill", "transition.csv"]);
    let bill = &reconciled.1;
    // Its days are 2026-10-06 and 07: the 120 credits of 2026-10-08 are not compared.
    assert_eq!((bill["format"].as_str(), bill["to"].as_str()), (Some("transition"), Some("2026-10-07")));
    assert_eq!(
        rows(bill),
        [
            serde_json::json!(["2026-10-07", "claude-sonnet-4.5", 28.31, 27.81, "recorded", 0.5, "billed_more"]),
            serde_json::json!(["2026-10-06", "claude-sonnet-4.5", 28.95, 28.95, "recorded", 0.0, "matched"]),
        ]
    );
    assert_eq!(bill["rows"][0]["auto"], true);
    golden("transition", &reconciled);
}

#[test]
fn a_premium_request_report_compares_requests_and_says_so() {
    let reconciled = reconcile(&["--bill", "premium-requests.csv"]);
    let bill = &reconciled.1;
    let requests: Vec<Value> = bill["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            serde_json::json!([
                row["day"],
                row["billed_requests"],
                row["local_requests"],
                row["difference"],
                row["status"]
            ])
        })
        .collect();
    assert_eq!(
        requests,
        [
            serde_json::json!(["2026-10-07", 3.0, 1.0, 2.0, "billed_more"]),
            serde_json::json!(["2026-10-06", 2.0, 2.0, 0.0, "matched"])
        ]
    );
    assert!(reconciled.0.contains("requests are compared, not credits"), "{}", reconciled.0);
    golden("premium-requests", &reconciled);
}

#[test]
fn whose_rows_another_login_or_none_known() {
    // --user picks another login: only hubot's 99 credits, nothing of them here.
    let (_, hubot) = reconcile(&["--bill", "ai-credits.csv", "--user", "hubot"]);
    assert_eq!(hubot["totals"]["billed_credits"], 99.0);
    // This machine's use is set against hubot's rows: 99 billed on 2026-10-06, nothing after.
    let hubot_rows = rows(&hubot);
    assert!(hubot_rows.contains(&serde_json::json!([
        "2026-10-06",
        "claude-sonnet-4.5",
        99.0,
        28.95,
        "recorded",
        70.05,
        "billed_more"
    ])));
    assert!(hubot_rows.contains(&serde_json::json!([
        "2026-10-08",
        "gpt-5.4-mini",
        0.0,
        120.0,
        "estimated",
        -120.0,
        "local_not_billed"
    ])));
    // A home with no sign-in, and a report of two users: exit 2, the users listed.
    let scratch = tempfile::tempdir().unwrap();
    common::copy_tree(&common::fixture("credits/01-billed-two-days"), &scratch.path().join("home"));
    let bill = bills().join("ai-credits.csv");
    let output = common::run(scratch.path(), &["usage", "home", "--bill", bill.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("several users (hubot, mona): pick one with --user"));
}

#[test]
fn a_csv_that_is_not_a_report_exits_2_naming_what_it_lacks() {
    let output = common::run(&bills(), &["usage", "home", "--bill", "not-a-report.csv"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "not-a-report.csv is not a GitHub usage report: it lacks the columns date, username, model, quantity"
        ),
        "{stderr}"
    );
}

#[test]
fn the_report_to_share_explains_the_difference_with_the_bill() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("report.html");
    let report = |extra: &[&str]| {
        let args = [&["report", "home", "--out", out.to_str().unwrap(), "--today", "2026-10-20"], extra].concat();
        let output = common::run(&bills(), &args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        common::read(&out)
    };
    // Without a bill: what is never in local files.
    let plain = report(&[]);
    assert!(
        plain.contains("Why this differs from your GitHub bill")
            && plain.contains("the coding agent, code review and Spark")
    );
    assert!(!plain.contains("data-figure=\"bill\""));
    // With one: the same figures as `usage --bill`, the discrepancies named, largest first.
    let html = report(&["--bill", "ai-credits.csv"]);
    assert!(html.contains("195.95 credits billed, 184.26 here, difference 11.69"), "the totals of usage --bill");
    let first = html
        .find("2026-10-08 gpt-5.4-mini: billed 132.00 credits, here 120.00 credits, estimated (billed_more)")
        .unwrap();
    let last = html
        .find("2026-10-07 claude-sonnet-4.5: billed 30.00 credits, here 27.81 credits, recorded (billed_more)")
        .unwrap();
    assert!(first < last);
    assert!(
        html.contains("Billed against this machine, by day") && html.contains("Not on this machine (runs on GitHub)")
    );
}
