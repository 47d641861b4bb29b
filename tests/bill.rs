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
            // GitHub's label "Claude Haiku 4.5" shown by its id, as the usage tables name models.
            serde_json::json!(["2026-10-09", "claude-haiku-4.5", 5.0, 0.0, null, 5.0, "billed_not_local"]),
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
    // --user in any case: GitHub's logins ignore it.
    let (_, shouted) = reconcile(&["--bill", "ai-credits.csv", "--user", "HUBOT"]);
    assert_eq!((shouted["user"].as_str(), &shouted["totals"]), (Some("hubot"), &hubot["totals"]));
}

#[test]
fn a_csv_that_is_not_a_report_exits_2_naming_what_it_lacks() {
    let output = common::run(&bills(), &["usage", "home", "--bill", "not-a-report.csv"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "not-a-report.csv is not a GitHub usage report: it lacks the columns date, username, model, quantity \
             (its first line: \"day,who,what\")"
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
        .find("2026-10-08 gpt-5.4-mini: billed 132.00 credits, here 120.00 credits, estimated (GitHub billed more)")
        .unwrap();
    let last = html
        .find("2026-10-07 claude-sonnet-4.5: billed 30.00 credits, here 27.81 credits, recorded (GitHub billed more)")
        .unwrap();
    assert!(first < last);
    assert!(
        html.contains("Billed against this machine, by day") && html.contains("Not on this machine (runs on GitHub)")
    );
}

/// `usage home --json --bill ...`: the reconciliation, and stderr.
fn bill_of(dir: &Path, args: &[&str]) -> (Value, String) {
    let output = common::run(dir, &[&["usage", "home", "--json"], args].concat());
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    (json["bill"].clone(), stderr)
}

fn notes(bill: &Value) -> Vec<&str> {
    bill["notes"].as_array().unwrap().iter().map(|note| note.as_str().unwrap()).collect()
}

/// The reconciliation of ai-credits.csv without what names its file or says of it.
fn figures(bill: &Value) -> Value {
    let mut bill = bill.clone();
    bill["file"] = Value::Null;
    bill["notes"] = Value::Null;
    bill
}

/// Runs the CLI, failing the test if it has not finished within `seconds`.
fn run_within(seconds: u64, dir: &Path, args: &[&str]) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_copilot-lens"))
        .current_dir(dir)
        .env("COPILOT_LENS_CACHE", "off")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed().as_secs() >= seconds {
            child.kill().unwrap();
            panic!("copilot-lens {args:?} still runs after {seconds} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[cfg(unix)]
#[test]
fn a_bill_that_is_not_a_regular_file_is_refused_at_once() {
    let scratch = tempfile::tempdir().unwrap();
    let pipe = scratch.path().join("report.csv");
    assert!(std::process::Command::new("mkfifo").arg(&pipe).status().unwrap().success());
    let folder = scratch.path().to_str().unwrap();
    for (path, kind) in [(pipe.to_str().unwrap(), "a named pipe"), ("/dev/zero", "a device"), (folder, "a folder")] {
        let output = run_within(20, &bills(), &["usage", "home", "--bill", path]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{path}: {stderr}");
        assert!(
            stderr.contains(&format!("{path} is {kind}, not a file: --bill reads GitHub's usage report (a CSV file)")),
            "{stderr}"
        );
    }
}

#[test]
fn implausible_figures_are_left_out_and_named_by_file_and_line() {
    let (bill, stderr) = bill_of(&bills(), &["--bill", "implausible.csv"]);
    // Only line 2 counts: 28.95 on 2026-10-06; no total is null (1e308 summed used to be).
    assert_eq!(bill["totals"]["billed_credits"], 28.95);
    let billed: Vec<Value> = rows(&bill).into_iter().filter(|row| row[2] != 0.0).collect();
    assert_eq!(
        billed,
        [serde_json::json!(["2026-10-06", "claude-sonnet-4.5", 28.95, 28.95, "recorded", 0.0, "matched"])]
    );
    assert_eq!(
        notes(&bill),
        [
            "implausible.csv line 3: the quantity \"-30\" is negative: left out",
            "implausible.csv line 4: the quantity \"1e308\" is above 10^9, beyond any use: left out",
            "implausible.csv line 5: the quantity \"NaN\" is not a finite number: left out",
            "implausible.csv line 6: the quantity \"inf\" is not a finite number: left out",
            "implausible.csv line 7: the quantity \"1e12\" is above 10^9, beyond any use: left out",
            "implausible.csv: 1 more row left out, for the same reasons",
        ]
    );
    // Said on stderr too; hubot's row (another login's) is not mona's to flag.
    assert!(stderr.contains("copilot-lens: implausible.csv line 3: the quantity \"-30\" is negative"), "{stderr}");
    assert!(!stderr.contains("line 9"), "{stderr}");
}

#[test]
fn a_timestamp_with_a_zone_is_on_its_utc_day() {
    let (bill, _) = bill_of(&bills(), &["--bill", "zoned.csv"]);
    // 01:00 at +02:00 on the 6th is 23:00 UTC on the 5th; 22:00 at -05:00 on the 7th is the 8th.
    let rows = rows(&bill);
    assert!(rows.contains(&serde_json::json!([
        "2026-10-05",
        "claude-sonnet-4.5",
        28.95,
        0.0,
        null,
        28.95,
        "billed_not_local"
    ])));
    assert!(rows.contains(&serde_json::json!([
        "2026-10-08",
        "gpt-5.4-mini",
        132.0,
        120.0,
        "estimated",
        12.0,
        "billed_more"
    ])));
    assert_eq!((bill["from"].as_str(), bill["to"].as_str()), (Some("2026-10-05"), Some("2026-10-08")));
}

#[test]
fn logins_ignore_case_and_json_keeps_credits_as_recorded() {
    let (bill, _) = bill_of(&bills(), &["--bill", "cased.csv"]);
    // Mona, mona and MONA are one login (named as first written); Hubot is another.
    assert_eq!((bill["user"].as_str(), bill["users"].clone()), (Some("Mona"), serde_json::json!(["Hubot", "Mona"])));
    let rows = rows(&bill);
    assert!(rows.contains(&serde_json::json!([
        "2026-10-06",
        "claude-sonnet-4.5",
        28.95,
        28.95,
        "recorded",
        0.0,
        "matched"
    ])));
    // 1.917 stays 1.917 in JSON (the table rounds it for people).
    assert!(rows.contains(&serde_json::json!([
        "2026-10-07",
        "claude-sonnet-4.5",
        1.917,
        27.81,
        "recorded",
        -25.893,
        "local_more"
    ])));
    let (table, _) = reconcile(&["--bill", "cased.csv"]);
    assert!(table.contains(" 1.92 ") && !table.contains("1.917"), "{table}");
}

#[test]
fn the_same_report_given_twice_is_counted_once_and_said() {
    let (once, _) = bill_of(&bills(), &["--bill", "ai-credits.csv"]);
    let (twice, stderr) = bill_of(&bills(), &["--bill", "ai-credits.csv", "--bill", "ai-credits.csv"]);
    assert_eq!(figures(&twice), figures(&once));
    assert_eq!(notes(&twice), ["ai-credits.csv is given twice: counted once"]);
    assert!(stderr.contains("copilot-lens: ai-credits.csv is given twice: counted once"), "{stderr}");
    // The same rows in another file (a spreadsheet's re-save; 2026-10-07's 30 credits in two
    // rows there, summed): counted once as well.
    let (resaved, _) = bill_of(&bills(), &["--bill", "ai-credits.csv", "--bill", "ai-credits-spreadsheet.csv"]);
    assert_eq!(figures(&resaved), figures(&once));
    assert_eq!(
        notes(&resaved),
        ["ai-credits-spreadsheet.csv repeats ai-credits.csv (all its 7 rows are in both): counted once"]
    );
    // A report that overlaps another by some rows: those counted once, the rest added.
    let (overlap, _) = bill_of(&bills(), &["--bill", "ai-credits.csv", "--bill", "zoned.csv"]);
    assert_eq!(
        notes(&overlap),
        [
            "zoned.csv: 1 of its 2 rows also in ai-credits.csv (the same day, login, model and SKU): counted once, as ai-credits.csv has them"
        ]
    );
    assert_eq!(overlap["totals"]["billed_credits"], 224.9, "195.95 and zoned.csv's 28.95 on 2026-10-05");
}

#[test]
fn reports_saved_by_other_tools_read_the_same() {
    let (native, _) = bill_of(&bills(), &["--bill", "ai-credits.csv"]);
    let scratch = tempfile::tempdir().unwrap();
    let text = common::read(&bills().join("ai-credits.csv"));
    // UTF-16 with its byte-order mark, as Windows tools save text.
    let utf16 = scratch.path().join("utf16.csv");
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    std::fs::write(&utf16, bytes).unwrap();
    // Padded with NUL bytes, as a download or copy cut short leaves a file.
    let padded = scratch.path().join("padded.csv");
    std::fs::write(&padded, [text.as_bytes(), &[0u8; 2048]].concat()).unwrap();
    let path = |path: &std::path::PathBuf| path.to_str().unwrap().to_string();
    for (file, said) in [
        (path(&utf16), None),
        (
            path(&padded),
            Some(
                "padded.csv is padded with NUL bytes from line 10 (as a copy or download cut short leaves a file): they are ignored",
            ),
        ),
        (
            "semicolon.csv".into(),
            Some(
                "semicolon.csv is separated by ';', not commas (as a spreadsheet saves it where the decimal mark is a comma): read so, with decimal commas",
            ),
        ),
        (
            "day-first.csv".into(),
            Some("day-first.csv writes its dates day first (06/10/2026 is 2026-10-06): read as day/month/year"),
        ),
    ] {
        let (bill, stderr) = bill_of(&bills(), &["--bill", &file]);
        assert_eq!(figures(&bill), figures(&native), "{file}");
        assert_eq!(notes(&bill), said.into_iter().collect::<Vec<_>>(), "{file}");
        assert!(stderr.len() < 2000, "{stderr}");
    }
}

#[test]
fn dates_that_read_both_ways_are_said() {
    let (bill, _) = bill_of(&bills(), &["--bill", "ambiguous-dates.csv"]);
    assert_eq!(
        notes(&bill),
        [
            "ambiguous-dates.csv writes its dates so that they read both ways (10/06/2026 can be month/day or day/month): \
          read as month/day/year, GitHub's order (10/06/2026 is 2026-10-06); if that is wrong, save the report with \
          dates as YYYY-MM-DD"
        ]
    );
    assert_eq!(bill["from"], "2026-10-06");
}

#[test]
fn a_report_of_another_month_is_said() {
    let (bill, _) = bill_of(&bills(), &["--bill", "other-month.csv"]);
    assert_eq!(
        notes(&bill),
        [
            "other-month.csv covers 2026-03-02 to 2026-03-02, and this machine's usage is from 2026-10-06 to 2026-10-10: \
          none of it is on the report's days (a report of another month?)"
        ]
    );
}

#[test]
fn a_report_with_no_rows_or_a_line_of_megabytes_gets_a_short_word() {
    let output = common::run(&bills(), &["usage", "home", "--bill", "header-only.csv"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr,
        "copilot-lens: header-only.csv: the columns of a usage report and no rows: nothing to compare\n"
    );
    let scratch = tempfile::tempdir().unwrap();
    // A first line of 10 MB with none of the columns.
    let long_header = scratch.path().join("long-header.csv");
    std::fs::write(&long_header, format!("{}\n2026-10-06,mona\n", "x,".repeat(5 << 20))).unwrap();
    let output = common::run(&bills(), &["usage", "home", "--bill", long_header.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr.contains("long-header.csv is not a GitHub usage report: its first line is longer than 64 KiB"),
        "{stderr}"
    );
    assert!(stderr.len() < 1000, "{} bytes on stderr", stderr.len());
    // A row of 10 MB: left out, named, and the rest read.
    let long_row = scratch.path().join("long-row.csv");
    let text = common::read(&bills().join("ai-credits.csv"));
    let (header, rows) = text.split_once('\n').unwrap();
    std::fs::write(&long_row, format!("{header}\n{}\n{rows}", "y".repeat(10 << 20))).unwrap();
    let (bill, stderr) = bill_of(&bills(), &["--bill", long_row.to_str().unwrap()]);
    assert_eq!(notes(&bill), ["long-row.csv line 2 is longer than 64 KiB: left out"]);
    assert_eq!(bill["totals"]["billed_credits"], 195.95);
    assert!(stderr.len() < 2000, "{} bytes on stderr", stderr.len());
}
