//! The report to share (`copilot-lens report`): the usage figures the `usage` command gives,
//! no conversation unless asked, and no secret in a chosen transcript.

mod common;

use std::fs;
use std::path::Path;

use common::{copy_tree, fixture, read, run};
use serde_json::Value;

/// The `data-figure="id"` element's text in a report.
fn figure(html: &str, id: &str) -> String {
    let marker = format!("data-figure=\"{id}\">");
    let start = html.find(&marker).unwrap_or_else(|| panic!("no figure {id}")) + marker.len();
    html[start..].split('<').next().unwrap().to_string()
}

fn report(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["report", "home", "--out", "report.html", "--today", "2026-11-20"];
    all.extend_from_slice(args);
    let output = run(dir, &all);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    read(&dir.join("report.html"))
}

#[test]
fn a_report_holds_the_usage_commands_figures_and_no_conversation() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("credits/08-allowance-runout"), &dir.path().join("home"));
    let html = report(dir.path(), &["--allowance", "300"]);
    let usage = run(dir.path(), &["usage", "home", "--json"]);
    let usage: Value = serde_json::from_slice(&usage.stdout).unwrap();
    let counted = &usage["totals"]["counted"];
    assert_eq!(figure(&html, "tokens"), "4,088,000");
    assert_eq!(counted["total"], 4_088_000);
    // The one money figure: credits used, dollars beside.
    assert_eq!(figure(&html, "credits"), "600.00");
    assert_eq!(usage["credits_used"]["credits"], 600.0);
    assert_eq!(figure(&html, "cost_usd"), "6.00");
    assert_eq!(usage["credits_used"]["usd"], 6.0);
    let month = run(dir.path(), &["usage", "home", "--json", "--allowance", "300", "--until", "2026-11-20"]);
    let month: Value = serde_json::from_slice(&month.stdout).unwrap();
    assert_eq!(figure(&html, "month_runs_out"), month["month"]["runs_out_on"].as_str().unwrap());
    assert!(html.contains("<svg") && !html.contains("<script"), "charts are inline SVG, and nothing runs");
    // No prompt, reply or tool output of any session is in it.
    run(dir.path(), &["analyze", "home", "--out", "out"]);
    for line in read(&dir.path().join("out/rows.jsonl")).lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        let text = row["text"].as_str().unwrap();
        if ["user", "assistant", "tool_use", "tool_result"].contains(&row["turn_type"].as_str().unwrap())
            && text.len() > 8
        {
            assert!(!html.contains(&text[..text.len().min(40)]), "{text} is in the report");
        }
    }
    assert_eq!(figure(&html, "scrubbed"), "No transcript included.");
}

/// Secrets of every kind the scrubber knows, each in a field of the session's log.
const SECRETS: [&str; 8] = [
    "ghp_R2D2C3POr2d2c3poR2D2C3POr2d2c3poR2D2",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtb25hIn0.c2lnbmF0dXJl",
    "AKIAZ7Q3X5W2EXAMPLE9",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
    "MIIEowIBAAKCAQEA7yq0v8hPRIVATEKEYMATERIAL",
    "s3cr3t-deploy-t0ken",
    "hunter2-Pa55word",
];

fn planted_home(home: &Path, id: &str) {
    let session = home.join(".copilot/session-state").join(id);
    fs::create_dir_all(&session).unwrap();
    let [ghp, pat, bearer, aws_id, aws_secret, key, token, password] = SECRETS;
    let lines = [
        serde_json::json!({"type": "session.start", "data": {"sessionId": id, "copilotVersion": "1.0.102", "context": {"cwd": "/home/mona/secret-project"}}}),
        serde_json::json!({"type": "user.message", "data": {"content": format!("deploy with {ghp} and curl -H 'Authorization: Bearer {bearer}'")}}),
        serde_json::json!({"type": "assistant.message", "data": {"content": format!("Set AWS_ACCESS_KEY_ID={aws_id} and aws_secret_access_key={aws_secret}"), "toolRequests": [
            {"toolCallId": "c1", "name": "bash", "arguments": {"command": format!("DEPLOY_TOKEN={token} ./deploy https://mona:{password}@git.example.com/repo.git")}}
        ]}}),
        serde_json::json!({"type": "tool.execution_complete", "data": {"toolCallId": "c1", "success": false,
            "result": {"content": format!("-----BEGIN RSA PRIVATE KEY-----\n{key}\n-----END RSA PRIVATE KEY-----\nalso {pat}")},
            "error": {"message": format!("token {ghp} rejected")}}}),
    ];
    common::write_events_log(&session, &lines);
    fs::write(
        session.join("workspace.yaml"),
        format!("id: {id}\ncwd: /home/mona/secret-project\nname: rotate {ghp}\n"),
    )
    .unwrap();
}

#[test]
fn a_chosen_transcript_is_in_the_report_with_every_secret_scrubbed() {
    let dir = tempfile::tempdir().unwrap();
    let id = "5e55a0a1-0000-4000-8000-00000000face";
    planted_home(&dir.path().join("home"), id);
    let html = report(dir.path(), &["--session", id, "--short-project-names"]);
    for secret in SECRETS {
        assert!(!html.contains(secret), "{secret} reached the report");
    }
    assert!(html.contains("deploy with [redacted]"), "the transcript is there, scrubbed");
    assert!(html.contains("Bearer [redacted]") && html.contains("https://mona:[redacted]@git.example.com"));
    // The name's token (in the heading and in workspace.yaml's `session name` row), the
    // prompt's two, the reply's two, the command's two, the key block, the result's PAT and
    // the error's token.
    assert_eq!(figure(&html, "scrubbed"), "Secrets scrubbed from the transcripts: 11.");
    assert!(!html.contains("secret-project"), "project paths are short names when asked");
    let unknown = run(dir.path(), &["report", "home", "--out", "r.html", "--session", "nope"]);
    assert_eq!(unknown.status.code(), Some(2), "an unknown session is said, not skipped");
}

#[test]
fn the_inventory_fixtures_secrets_never_reach_a_report_even_with_every_transcript() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("inventory/home"), &dir.path().join("home"));
    run(dir.path(), &["analyze", "home", "--out", "out"]);
    let sessions: Vec<String> = read(&dir.path().join("out/sessions.jsonl"))
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["session_id"].as_str().unwrap().to_string())
        .collect();
    let mut args: Vec<&str> = Vec::new();
    for id in &sessions {
        args.extend(["--session", id.as_str()]);
    }
    let html = report(dir.path(), &args);
    let secrets = read(&fixture("inventory/SECRETS.txt"));
    for secret in secrets.lines().filter(|line| !line.trim().is_empty() && !line.starts_with('#')) {
        assert!(!html.contains(secret.trim()), "{secret} reached the report");
    }
}

#[test]
fn a_session_the_person_named_is_listed_by_that_name_and_no_other_by_its_title() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("inventory/home"), &dir.path().join("home"));
    let html = report(dir.path(), &["--month", "2026-10"]);
    // a14e0002 was renamed (`user_named: true`); a14e0001's title was made for the person.
    assert!(html.contains("<td>Release octo-app 1.4.0 (octo-app, 2026-10-06, a14e0002)</td>"));
    assert!(html.contains("<td>shop, 2026-10-05, a14e0001</td>"));
    assert!(!html.contains("Deploy the shop to staging"), "a title made for the person quotes no prompt here");
}

#[test]
fn short_project_names_replace_a_windows_project_in_every_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let id = "5e55a0a1-0000-4000-8000-0000000000c1";
    let session = dir.path().join("home/.copilot/session-state").join(id);
    fs::create_dir_all(&session).unwrap();
    let spellings = [
        r"C:\Users\mona\SecretProject\src\main.rs",
        "c:/Users/mona/SecretProject/README.md",
        r#"{"path":"c:\\Users\\mona\\SecretProject\\Cargo.toml"}"#,
        "file:///c%3A/Users/mona/SecretProject/lib.rs",
        "vscode://file/C%3A%5CUsers%5Cmona%5CSecretProject%5Capp.rs",
    ];
    let lines = [
        serde_json::json!({"type": "session.start", "data": {"sessionId": id, "copilotVersion": "1.0.102", "context": {"cwd": r"c:\Users\mona\SecretProject"}}}),
        serde_json::json!({"type": "user.message", "data": {"content": format!("look at {}", spellings.join(" and "))}}),
    ];
    common::write_events_log(&session, &lines);
    let html = report(dir.path(), &["--session", id, "--short-project-names"]);
    assert!(html.contains("look at project-"), "the transcript is there");
    assert!(!html.contains("SecretProject"), "a spelling of the project path is in the report");
    let plain = report(dir.path(), &["--session", id]);
    assert!(plain.contains(r"C:\Users\mona\SecretProject\src\main.rs"), "without the option, paths stay");
}

/// Three homes: fixture 03's partial session on 2026-10-09, fixture 07's calls on 2026-10-31 and
/// 2026-11-01, and fixture 08's on 2026-11-02 to 2026-11-05.
fn three_homes(dir: &Path) -> [&'static str; 3] {
    for (fixture_name, home) in
        [("03-crashed-checkpoint", "home03"), ("07-month-boundary", "home07"), ("08-allowance-runout", "home08")]
    {
        copy_tree(&fixture(&format!("credits/{fixture_name}")), &dir.join(home));
    }
    ["home03", "home07", "home08"]
}

fn report_of(dir: &Path, homes: &[&str], args: &[&str]) -> String {
    let mut all = vec!["report"];
    all.extend_from_slice(homes);
    all.extend_from_slice(&["--out", "report.html", "--today", "2026-12-02"]);
    all.extend_from_slice(args);
    let output = run(dir, &all);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    read(&dir.join("report.html"))
}

/// The first and last days of the `usage --by day` rows of a month, as the usage command gives them.
fn usage_days(dir: &Path, homes: &[&str], month: &str) -> (String, String) {
    let mut args = vec!["usage"];
    args.extend_from_slice(homes);
    args.extend_from_slice(&["--json", "--by", "day"]);
    let usage: Value = serde_json::from_slice(&run(dir, &args).stdout).unwrap();
    let mut days: Vec<&str> = (usage["rows"].as_array().unwrap().iter())
        .map(|row| row["day"].as_str().unwrap())
        .filter(|day| day.starts_with(month))
        .collect();
    days.sort_unstable();
    (days[0].to_string(), days[days.len() - 1].to_string())
}

#[test]
fn the_period_is_the_datas_first_and_last_day_of_the_latest_month_or_the_month_asked() {
    let dir = tempfile::tempdir().unwrap();
    let homes = three_homes(dir.path());
    // By default the latest month with usage, though today (2026-12-02) is in the next one.
    let latest = report_of(dir.path(), &homes, &[]);
    let (first, last) = usage_days(dir.path(), &homes, "2026-11");
    assert_eq!(figure(&latest, "period"), format!("{first} to {last} (UTC days)"));
    assert_eq!((first.as_str(), last.as_str()), ("2026-11-01", "2026-11-05"), "EXPECTED.md's days");
    assert!(latest.contains("<h1>Copilot usage report: November 2026</h1>"));
    // October: a partial row (2026-10-09) comes after the counted one (2026-10-31) in the
    // table; the period is still the first day to the last.
    let october = report_of(dir.path(), &homes, &["--month", "2026-10"]);
    assert_eq!(usage_days(dir.path(), &homes, "2026-10"), ("2026-10-09".into(), "2026-10-31".into()));
    assert_eq!(figure(&october, "period"), "2026-10-09 to 2026-10-31 (UTC days)");
    assert!(october.contains("Billing month 2026-10 (UTC)") && !october.contains("Billing month 2026-11"));
    // 5.25 credits (partial) + 7.50 on 2026-10-31 (EXPECTED.md): the month's and the summary's figure.
    assert_eq!(figure(&october, "month_used"), "12.75");
    assert!(figure(&october, "summary").starts_with("October 2026: 12.75 credits (≈ $0.13)"));
    // Made on 2026-10-20, 2026-10-31's usage is on a day it cannot be on: left out of every figure.
    let early = run(
        dir.path(),
        &["report", "home03", "home07", "home08", "--out", "early.html", "--month", "2026-10", "--today", "2026-10-20"],
    );
    assert!(early.status.success());
    let early = read(&dir.path().join("early.html"));
    assert_eq!(figure(&early, "period"), "2026-10-09 to 2026-10-09 (UTC days)");
    assert!(
        figure(&early, "summary").starts_with(
            "October 2026: 5.25 credits (≈ $0.05); top project /home/mona/code/shop; top model gpt-5.4-mini"
        )
    );
    // Days across two months: no billing month, and the data's days within the bounds.
    let days = report_of(dir.path(), &homes, &["--since", "2026-10-20", "--until", "2026-11-03"]);
    assert_eq!(figure(&days, "period"), "2026-10-31 to 2026-11-03 (UTC days)");
    assert!(!days.contains("Billing month"));
    assert!(figure(&days, "summary").starts_with("2026-10-20 to 2026-11-03: "));
}

#[test]
fn a_folder_given_to_out_gets_the_report_named_by_its_period() {
    let dir = tempfile::tempdir().unwrap();
    let homes = three_homes(dir.path());
    fs::create_dir(dir.path().join("reports")).unwrap();
    for (args, name) in [
        (&[][..], "copilot-report-2026-11.html"),
        (&["--month", "2026-10"][..], "copilot-report-2026-10.html"),
        (&["--since", "2026-10-20", "--until", "2026-11-03"][..], "copilot-report-2026-10-20-to-2026-11-03.html"),
    ] {
        let mut all = vec!["report"];
        all.extend_from_slice(&homes);
        all.extend_from_slice(&["--out", "reports", "--today", "2026-12-02"]);
        all.extend_from_slice(args);
        assert!(run(dir.path(), &all).status.success());
        let html = read(&dir.path().join("reports").join(name));
        assert!(html.contains(&format!("<meta name=\"file-name\" content=\"{name}\">")), "the page names it so too");
    }
    assert_eq!(fs::read_dir(dir.path().join("reports")).unwrap().count(), 3);
}

#[test]
fn the_report_opens_with_a_summary_then_the_top_tables_and_a_legend_of_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let homes = three_homes(dir.path());
    let html = report_of(dir.path(), &homes, &["--allowance", "300"]);
    let usage = |by: &str| -> Value {
        let mut args = vec!["usage"];
        args.extend_from_slice(&homes);
        args.extend_from_slice(&["--json", "--by", by, "--since", "2026-11-01", "--until", "2026-11-30"]);
        serde_json::from_slice(&run(dir.path(), &args).stdout).unwrap()
    };
    // The top of each grouping by the usage command's credits.
    let top = |by: &str, key: &str| -> String {
        let rows = usage(by)["rows"].as_array().unwrap().clone();
        let best = rows.iter().max_by(|a, b| a["credits"].as_f64().partial_cmp(&b["credits"].as_f64()).unwrap());
        best.unwrap()[key].as_str().unwrap().to_string()
    };
    let used = usage("model")["credits_used"].clone();
    // 7.50 on 2026-10-31 is October's; 5.25 on 2026-11-01 and 4 × 150 are November's.
    assert_eq!(used["credits"], 605.25);
    let (model, project) = (top("model", "model"), top("project", "project_path"));
    assert_eq!(
        figure(&html, "summary"),
        format!(
            "November 2026: 605.25 credits (≈ $6.05), 202% of a 300-credit allowance; top project {}; top model {}",
            project, model
        )
    );
    for caption in ["Top 5 sessions by credits", "Top 5 projects by credits", "Top 5 models by credits"] {
        assert!(html.contains(&format!("<caption>{caption}</caption>")), "{caption}");
    }
    // The top session is named by its project's folder, the day it began and its id's start (its
    // title would quote its first prompt).
    let session = top("session", "session_id");
    let mut analyze = vec!["analyze"];
    analyze.extend_from_slice(&homes);
    analyze.extend_from_slice(&["--out", "analysed"]);
    assert!(run(dir.path(), &analyze).status.success());
    let listed = read(&dir.path().join("analysed/sessions.jsonl"));
    let records: Vec<Value> = listed.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let record = records.iter().find(|record| record["session_id"] == session.as_str()).unwrap();
    let folder = record["project_path"].as_str().unwrap().rsplit('/').next().unwrap();
    let began = &record["first_event"].as_str().unwrap()[..10];
    let label = format!("<td>{}, {began}, {}</td>", html_escaped(folder), &session[..8]);
    assert!(html.contains(&label), "{label}");
    assert!(!html.contains(&format!("<td>{session}</td>")), "no session by its whole id");
    let opening = html.find("data-figure=\"summary\"").unwrap();
    assert!(opening < html.find("Top 5 sessions").unwrap() && opening < html.find("<h2>Overview").unwrap());
    for flag in ["byok", "auto", "differs", "partial", "recovered", "no_rate"] {
        let words = copilot_lens::usage::flags::words(flag);
        assert_ne!(words, flag, "{flag} has words of its own");
        assert!(
            html.contains(&format!("<dt>{}</dt>", html_escaped(words))),
            "the legend says what {flag} means, in words"
        );
    }
    assert!(figure(&html, "whose").ends_with("machines: home03, home07, home08"));
    // November is over on 2026-12-02: the month says when the allowance ran out only while it goes on.
    assert!(!html.contains("data-figure=\"month_runs_out\""));
    // Still no script and no request of any kind.
    assert!(html.contains("default-src 'none'"));
    for request in ["<script", " src=", " href=", "url(", "@import", "<link", "<iframe", "<object"] {
        assert!(!html.contains(request), "{request} in the report");
    }
}

#[test]
fn a_model_is_one_row_with_its_counted_and_partial_parts_in_columns() {
    let dir = tempfile::tempdir().unwrap();
    let homes = three_homes(dir.path());
    // October 2026: fixture 07's counted 7.50 of gpt-5-mini, fixture 03's partial 5.25 of gpt-5.4-mini.
    let html = report_of(dir.path(), &homes, &["--month", "2026-10"]);
    let by_model = html.split("<caption>By model</caption>").nth(1).unwrap().split("</table>").next().unwrap();
    assert!(
        by_model.contains("<th scope=\"col\">from session totals</th><th scope=\"col\">from unfinished sessions (at least)</th><th scope=\"col\">credits</th>")
    );
    assert!(by_model.contains("<td>gpt-5.4-mini</td><td class=\"n\">2</td>"));
    assert!(by_model.contains("<td class=\"n\"></td><td class=\"n\">5.25</td><td class=\"n\">5.25</td>"));
    assert_eq!(by_model.matches("<td>gpt-5.4-mini</td>").count(), 1);
    let total = by_model.split("<td>total</td>").nth(1).unwrap();
    assert!(total.contains("<td class=\"n\">7.50</td><td class=\"n\">5.25</td><td class=\"n\">12.75</td>"));
}

#[test]
fn a_transcript_leaves_out_the_system_prompt_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let id = "5e55a0a1-0000-4000-8000-0000000000d1";
    let session = dir.path().join("home/.copilot/session-state").join(id);
    fs::create_dir_all(&session).unwrap();
    let lines = [
        serde_json::json!({"type": "session.start", "data": {"sessionId": id, "copilotVersion": "1.0.102", "context": {"cwd": "/home/mona/p"}}}),
        serde_json::json!({"type": "system.message", "data": {"role": "system", "content": "You are the GitHub Copilot CLI."}}),
        serde_json::json!({"type": "user.message", "data": {"content": "please touch a file"}}),
    ];
    common::write_events_log(&session, &lines);
    let html = report(dir.path(), &["--session", id]);
    assert!(html.contains("please touch a file") && !html.contains("You are the GitHub Copilot CLI."));
    let with = report(dir.path(), &["--session", id, "--with-system-prompt"]);
    assert!(with.contains("system prompt: You are the GitHub Copilot CLI."));
}

#[test]
fn the_report_of_fixture_08_is_the_golden_one() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("credits/08-allowance-runout"), &dir.path().join("home"));
    let html = report(dir.path(), &["--allowance", "1500"]);
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/share");
    // A line per element, so that a change reads line by line.
    let lines = html.replace("><", ">\n<");
    insta::with_settings!({ snapshot_path => snapshots, prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("08-allowance-runout__report.html", lines);
    });
}

/// Text as the report writes it into HTML.
fn html_escaped(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}
