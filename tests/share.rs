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

/// A session folder's `events.jsonl` of `lines`, each given an id and a time a second apart.
fn write_log(session: &Path, lines: &[Value]) {
    let log: String = lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let mut line = line.clone();
            line["id"] = Value::String(format!("e{index}"));
            line["timestamp"] = Value::String(format!("2026-11-10T09:00:0{index}.000Z"));
            line["parentId"] = Value::Null;
            format!("{line}\n")
        })
        .collect();
    fs::write(session.join("events.jsonl"), log).unwrap();
}

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
    write_log(&session, &lines);
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
    write_log(&session, &lines);
    let html = report(dir.path(), &["--session", id, "--short-project-names"]);
    assert!(html.contains("look at project-"), "the transcript is there");
    assert!(!html.contains("SecretProject"), "a spelling of the project path is in the report");
    let plain = report(dir.path(), &["--session", id]);
    assert!(plain.contains(r"C:\Users\mona\SecretProject\src\main.rs"), "without the option, paths stay");
}
