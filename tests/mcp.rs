//! `copilot-lens mcp` end to end: the built binary started as a child and driven over its stdio
//! by the official SDK's client (rmcp), each tool's answer checked against what the commands
//! print for the same home (`usage --json`, `analyze`'s files, `search --json`), and no planted
//! secret in any answer.

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{copy_tree, fixture, pieces, planted_secrets, read, run};
use copilot_lens::model::OwnedRow;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

/// A day after the fixture's (October 2026), in its billing month.
const TODAY: &str = "2026-10-20";

type Client = RunningService<RoleClient, ()>;

/// The server on `home`, started with `args` besides, hermetic: no cache, no config file.
async fn serve(home: &Path, args: &[&str]) -> Client {
    let mut command = server();
    command.arg(home).args(["--today", TODAY]).args(args);
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
    ().serve(transport).await.unwrap()
}

/// `copilot-lens mcp`, with no cache and no config file.
fn server() -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_copilot-lens"));
    command.arg("mcp").env("COPILOT_LENS_CACHE", "off").env("COPILOT_LENS_CONFIG", "");
    command
}

async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
    client.call_tool(params).await.unwrap_or_else(|error| panic!("{tool}: {error}"))
}

/// The texts of an answer that is not an error.
fn texts(tool: &str, answer: &CallToolResult) -> Vec<String> {
    assert_ne!(answer.is_error, Some(true), "{tool}: {answer:?}");
    answer.content.iter().map(|block| block.as_text().expect("a text block").text.clone()).collect()
}

/// A tool's JSON answer.
async fn json_answer(client: &Client, tool: &str, arguments: Value) -> Value {
    let answer = call(client, tool, arguments).await;
    let texts = texts(tool, &answer);
    assert_eq!(texts.len(), 1, "{tool}: one JSON text");
    serde_json::from_str(&texts[0]).unwrap_or_else(|error| panic!("{tool}: {error}: {}", texts[0]))
}

/// A paged text answer read whole, page after page of `limit` characters.
async fn whole_text(client: &Client, tool: &str, arguments: Value, limit: usize) -> String {
    let mut whole = String::new();
    let mut offset = 0;
    loop {
        let mut asked = arguments.clone();
        asked["offset"] = offset.into();
        asked["limit"] = limit.into();
        let answer = call(client, tool, asked).await;
        let texts = texts(tool, &answer);
        assert!(texts[0].chars().count() <= limit, "{tool}: a page holds at most its limit");
        whole.push_str(&texts[0]);
        match texts.get(1) {
            Some(more) => {
                offset = serde_json::from_str::<Value>(more).unwrap()["next_offset"].as_u64().unwrap() as usize
            }
            None => return whole,
        }
    }
}

/// The inventory fixture's home, copied with fixed times, as `scratch/home`.
fn home(scratch: &Path) -> PathBuf {
    let home = scratch.join("home");
    copy_tree(&fixture("inventory/home"), &home);
    home
}

/// What a command printed on stdout, successfully.
fn stdout_of(dir: &Path, args: &[&str]) -> String {
    let output = run(dir, args);
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn analyze(home: &Path, out: &Path) {
    stdout_of(home, &["analyze", home.to_str().unwrap(), "--out", out.to_str().unwrap()]);
}

/// A JSON document without the paging's fields.
fn unpaged(mut document: Value) -> Value {
    let fields = document.as_object_mut().unwrap();
    fields.remove("total");
    fields.remove("next_offset");
    document
}

fn lines_of(jsonl: &str) -> Vec<Value> {
    jsonl.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[tokio::test]
async fn every_tool_is_listed_with_its_schema() {
    let scratch = tempfile::tempdir().unwrap();
    let client = serve(&home(scratch.path()), &[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    names.sort();
    assert_eq!(names, ["inventory", "month", "search", "sessions", "transcript", "usage"]);
    let schema =
        |name: &str| Value::Object((*tools.iter().find(|tool| tool.name == name).unwrap().input_schema).clone());
    let by = &schema("usage")["properties"]["by"];
    assert_eq!(
        by["enum"],
        json!(["day", "month", "session", "model", "home", "project", "subagent", "agent", "client", "purpose"])
    );
    assert_eq!(schema("transcript")["required"], json!(["session_id"]));
    assert_eq!(schema("search")["required"], json!(["words"]));
    for tool in &tools {
        assert!(tool.description.as_deref().is_some_and(|text| text.len() > 40), "{} is described", tool.name);
        let properties = schema(&tool.name)["properties"].clone();
        if tool.name != "month" {
            assert!(properties.get("offset").is_some() && properties.get("limit").is_some(), "{} is paged", tool.name);
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn usage_answers_what_usage_json_prints() {
    let scratch = tempfile::tempdir().unwrap();
    let home = home(scratch.path());
    let client = serve(&home, &[]).await;
    for by in ["day", "model", "project", "session", "agent", "subagent"] {
        let answer = json_answer(&client, "usage", json!({"by": by, "limit": 1000})).await;
        let printed: Value = serde_json::from_str(&stdout_of(&home, &["usage", ".", "--json", "--by", by])).unwrap();
        assert_eq!(answer["total"], json!(printed["rows"].as_array().unwrap().len()), "--by {by}");
        assert!(answer.get("next_offset").is_none());
        assert_eq!(unpaged(answer), printed, "--by {by}");
    }
    let answer = json_answer(&client, "usage", json!({"since": "2026-10-06", "until": "2026-10-06"})).await;
    let printed: Value = serde_json::from_str(&stdout_of(
        &home,
        &["usage", ".", "--json", "--since", "2026-10-06", "--until", "2026-10-06"],
    ))
    .unwrap();
    assert_eq!(unpaged(answer.clone()), printed);
    assert!(answer["credits_used"]["credits"].as_f64().unwrap() > 0.0, "the day has credits: {answer}");
    // Paged: one row, and where the next starts.
    let whole: Value = serde_json::from_str(&stdout_of(&home, &["usage", ".", "--json", "--by", "model"])).unwrap();
    let first = json_answer(&client, "usage", json!({"by": "model", "limit": 1})).await;
    assert_eq!(first["rows"], json!([whole["rows"][0]]));
    let rows = whole["rows"].as_array().unwrap().len();
    assert!(rows > 2, "{whole}");
    assert_eq!((first["next_offset"].clone(), first["total"].clone()), (json!(1), json!(rows)));
    let second = json_answer(&client, "usage", json!({"by": "model", "offset": 1, "limit": 1})).await;
    assert_eq!(second["rows"], json!([whole["rows"][1]]));
    assert_eq!(second["next_offset"], 2);
    let last = json_answer(&client, "usage", json!({"by": "model", "offset": rows - 1})).await;
    assert_eq!(last["rows"], json!([whole["rows"][rows - 1]]));
    assert!(last.get("next_offset").is_none());
    // A wrong argument is an error the agent reads, not a failed server.
    let wrong = call(&client, "usage", json!({"agent": "nobody"})).await;
    assert_eq!(wrong.is_error, Some(true));
    assert!(wrong.content[0].as_text().unwrap().text.contains("unknown agent"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn answers_through_the_cache_are_the_same() {
    let scratch = tempfile::tempdir().unwrap();
    let home = home(scratch.path());
    let cache = scratch.path().join("cache");
    let client = serve(&home, &["--cache", cache.to_str().unwrap()]).await;
    for by in ["day", "project"] {
        let printed: Value = serde_json::from_str(&stdout_of(&home, &["usage", ".", "--json", "--by", by])).unwrap();
        // The first call fills the cache, the second reads from it.
        for _ in 0..2 {
            assert_eq!(unpaged(json_answer(&client, "usage", json!({"by": by})).await), printed, "--by {by}");
        }
    }
    assert!(common::files_below(&cache).len() > 1, "the cache holds entries");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn with_no_root_it_reads_the_home_folder_and_copilot_home() {
    let scratch = tempfile::tempdir().unwrap();
    let home = home(scratch.path());
    let elsewhere = scratch.path().join("elsewhere");
    copy_tree(&fixture("usage/two-models/.copilot"), &elsewhere);
    let expected = |roots: &[&Path]| -> Value {
        let mut args = vec!["usage", "--json", "--by", "session"];
        args.extend(roots.iter().map(|root| root.to_str().unwrap()));
        serde_json::from_str(&stdout_of(scratch.path(), &args)).unwrap()
    };
    // $HOME alone (its .copilot is Copilot CLI's home), then $COPILOT_HOME elsewhere too.
    for (copilot_home, roots) in [(None, vec![home.as_path()]), (Some(&elsewhere), vec![home.as_path(), &elsewhere])] {
        let mut command = server();
        command.env("HOME", &home).env_remove("COPILOT_HOME");
        if let Some(copilot_home) = copilot_home {
            command.env("COPILOT_HOME", copilot_home);
        }
        let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
        let client = ().serve(transport).await.unwrap();
        let answer = json_answer(&client, "usage", json!({"by": "session"})).await;
        assert_eq!(unpaged(answer), expected(&roots), "{copilot_home:?}");
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn month_answers_usage_month_and_the_budgets() {
    let scratch = tempfile::tempdir().unwrap();
    let home = home(scratch.path());
    let client = serve(&home, &["--budget-day", "5", "--budget-month", "10"]).await;
    let answer = json_answer(&client, "month", json!({"allowance": 300})).await;
    let printed: Value =
        serde_json::from_str(&stdout_of(&home, &["usage", ".", "--json", "--allowance", "300", "--today", TODAY]))
            .unwrap();
    assert_eq!(answer["month"], printed["month"]);
    assert_eq!(answer["month"]["month"], "2026-10");
    // The month's 13.97 credits cross the monthly budget, and the day's (none) not the daily one,
    // in the words `usage` says it.
    let output = run(&home, &["usage", ".", "--budget-day", "5", "--budget-month", "10", "--today", TODAY]);
    assert_eq!(output.status.code(), Some(3));
    let said: Vec<String> = String::from_utf8(output.stderr)
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("copilot-lens: "))
        .filter(|line| line.contains("budget"))
        .map(str::to_string)
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!(answer["budgets"]["crossed"], json!(said));
    assert_eq!((answer["budgets"]["day"].clone(), answer["budgets"]["month"].clone()), (json!(5.0), json!(10.0)));
    // A plan's allowance, and another month.
    let pro = json_answer(&client, "month", json!({"plan": "pro", "month": "2026-09"})).await;
    let printed: Value = serde_json::from_str(&stdout_of(
        &home,
        &["usage", ".", "--json", "--plan", "pro", "--until", "2026-09-30", "--today", TODAY],
    ))
    .unwrap();
    assert_eq!(pro["month"], printed["month"]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn sessions_answer_what_sessions_jsonl_holds() {
    let scratch = tempfile::tempdir().unwrap();
    let home = home(scratch.path());
    let out = scratch.path().join("out");
    analyze(&home, &out);
    let records: Vec<Value> = lines_of(&read(&out.join("sessions.jsonl")))
        .into_iter()
        .map(|mut record| {
            record.as_object_mut().unwrap().remove("plan");
            record
        })
        .collect();
    assert!(records.len() > 3);
    let client = serve(&home, &[]).await;
    let sessions = |answer: Value| -> Vec<Value> {
        let listed = answer["sessions"].as_array().unwrap().clone();
        listed
            .into_iter()
            .map(|mut session| {
                let fields = session.as_object_mut().unwrap();
                let title = fields.remove("title").unwrap();
                assert!(title.as_str().is_some_and(|title| !title.is_empty()));
                fields.remove("credits").unwrap();
                session
            })
            .collect()
    };
    let all = json_answer(&client, "sessions", json!({})).await;
    assert_eq!(all["total"], json!(records.len()));
    assert_eq!(sessions(all), records);
    let octo = json_answer(&client, "sessions", json!({"project": "OCTO-app"})).await;
    let expected: Vec<Value> =
        records.iter().filter(|record| record["project_path"] == "/home/mona/src/octo-app").cloned().collect();
    assert!(!expected.is_empty());
    assert_eq!(sessions(octo), expected);
    // By day: the sessions active on 2026-10-06 (UTC), by their first and last events.
    let on_the_6th = json_answer(&client, "sessions", json!({"since": "2026-10-06", "until": "2026-10-06"})).await;
    let expected: Vec<Value> = records
        .iter()
        .filter(|record| {
            let day = |field: &str| record[field].as_str().unwrap().get(..10).unwrap_or_default().to_string();
            day("first_event").as_str() <= "2026-10-06" && day("last_event").as_str() >= "2026-10-06"
        })
        .cloned()
        .collect();
    assert!(!expected.is_empty() && expected.len() < records.len());
    // Each session's credits are those of `usage --by session` in the days asked.
    let credits_of = |answer: &Value| -> Vec<(String, Value)> {
        let listed = answer["sessions"].as_array().unwrap();
        listed
            .iter()
            .map(|session| (session["session_id"].as_str().unwrap().to_string(), session["credits"].clone()))
            .collect()
    };
    let usage: Value = serde_json::from_str(&stdout_of(
        &home,
        &["usage", ".", "--json", "--by", "session", "--since", "2026-10-06", "--until", "2026-10-06"],
    ))
    .unwrap();
    let rows = usage["rows"].as_array().unwrap();
    for (id, credits) in credits_of(&on_the_6th) {
        let used: Vec<f64> = rows
            .iter()
            .filter(|row| row["session_id"] == id.as_str())
            .map(|row| row["credits"].as_f64().unwrap())
            .collect();
        match credits.as_f64() {
            Some(credits) => {
                assert!((credits - used.iter().sum::<f64>()).abs() < 0.005, "{id}: {credits} against {used:?}")
            }
            None => assert!(used.is_empty(), "{id}: no credits, but usage has {used:?}"),
        }
    }
    assert!(credits_of(&on_the_6th).iter().any(|(_, credits)| credits.as_f64().is_some_and(|credits| credits > 0.0)));
    assert_eq!(sessions(on_the_6th), expected);
    // By words of the name, any case.
    let named = records[0]["name"].as_str().unwrap();
    let word = named.split_whitespace().last().unwrap().to_uppercase();
    let by_word = sessions(json_answer(&client, "sessions", json!({"words": word})).await);
    assert!(by_word.contains(&records[0]), "{word} finds {named}");
    assert_eq!(sessions(json_answer(&client, "sessions", json!({"words": "zqxjvbnmw"})).await), Vec::<Value>::new());
    // Paged.
    let page = json_answer(&client, "sessions", json!({"offset": 1, "limit": 2})).await;
    assert_eq!(page["next_offset"], 3);
    assert_eq!(sessions(page), records[1..3]);
    client.cancel().await.unwrap();
}

/// The page's session.md of a session, made from analyze's rows.jsonl: its rows in the table's
/// order (by time, undated last).
fn session_md_from_rows(rows_jsonl: &str, session_id: &str, name: &str) -> String {
    let mut rows: Vec<OwnedRow> = rows_jsonl
        .lines()
        .map(|line| serde_json::from_str::<OwnedRow>(line).unwrap())
        .filter(|row| row.session_id == session_id)
        .collect();
    rows.sort_by_key(|row| {
        let millis = copilot_lens::time::parse_millis(&row.timestamp_utc);
        (millis.is_none(), millis)
    });
    copilot_lens::export::session_markdown(name, session_id, &rows)
}

#[tokio::test]
async fn a_transcript_is_the_session_md_export() {
    let scratch = tempfile::tempdir().unwrap();
    let home = home(scratch.path());
    let out = scratch.path().join("out");
    analyze(&home, &out);
    let rows = read(&out.join("rows.jsonl"));
    let client = serve(&home, &[]).await;
    for record in lines_of(&read(&out.join("sessions.jsonl"))) {
        let id = record["session_id"].as_str().unwrap();
        let expected = session_md_from_rows(&rows, id, record["name"].as_str().unwrap());
        let whole = whole_text(&client, "transcript", json!({"session_id": id}), 1_000_000).await;
        assert_eq!(whole, expected, "{id}");
        // Read in pages of 300 characters, it is the same text.
        assert_eq!(whole_text(&client, "transcript", json!({"session_id": id}), 300).await, expected, "{id}");
    }
    let unknown = call(&client, "transcript", json!({"session_id": "no-such-session"})).await;
    assert_eq!(unknown.is_error, Some(true));
    client.cancel().await.unwrap();
    // As the page's export begins (tests/e2e/run.mjs).
    let spec = scratch.path().join("spec");
    copy_tree(&fixture("spec-sample"), &spec);
    let client = serve(&spec, &[]).await;
    let id = "5e55a0a1-0000-4000-8000-000000000001";
    let markdown = whole_text(&client, "transcript", json!({"session_id": id}), 1_000_000).await;
    assert!(markdown.starts_with(&format!("# Fix failing test\n\nSession `{id}`")), "{markdown}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn search_answers_what_search_json_prints() {
    let scratch = tempfile::tempdir().unwrap();
    let home = home(scratch.path());
    let client = serve(&home, &[]).await;
    for words in ["TOKEN", "[redacted]", "zqxjvbnmw"] {
        let printed = lines_of(&stdout_of(&home, &["search", words, ".", "--json"]));
        let answer = json_answer(&client, "search", json!({"words": words, "limit": 1000})).await;
        assert_eq!(answer["total"], json!(printed.len()), "{words}");
        assert_eq!(answer["rows"], json!(printed), "{words}");
    }
    let printed = lines_of(&stdout_of(&home, &["search", "token", ".", "--json"]));
    assert!(printed.len() > 2);
    let page = json_answer(&client, "search", json!({"words": "token", "offset": 1, "limit": 1})).await;
    assert_eq!(page["rows"], json!([printed[1]]));
    assert_eq!(page["next_offset"], 2);
    let empty = call(&client, "search", json!({"words": ""})).await;
    assert_eq!(empty.is_error, Some(true));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_inventory_is_inventory_json() {
    let scratch = tempfile::tempdir().unwrap();
    let home = home(scratch.path());
    let out = scratch.path().join("out");
    analyze(&home, &out);
    let client = serve(&home, &[]).await;
    let whole = whole_text(&client, "inventory", json!({}), 2_000).await;
    let expected: Value = serde_json::from_str(&read(&out.join("inventory.json"))).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&whole).unwrap(), expected);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn no_planted_secret_reaches_any_answer() {
    let scratch = tempfile::tempdir().unwrap();
    let home = home(scratch.path());
    let client = serve(&home, &[]).await;
    let mut answers: Vec<(String, String)> = Vec::new();
    let mut keep =
        |name: String, answer: CallToolResult| answers.push((name.clone(), texts(&name, &answer).join("\n")));
    for by in ["day", "session", "project", "model"] {
        keep(format!("usage by {by}"), call(&client, "usage", json!({"by": by, "limit": 1000})).await);
    }
    keep("month".into(), call(&client, "month", json!({"allowance": 300})).await);
    let sessions = call(&client, "sessions", json!({"limit": 1000})).await;
    let listed: Value = serde_json::from_str(&texts("sessions", &sessions)[0]).unwrap();
    keep("sessions".into(), sessions);
    for session in listed["sessions"].as_array().unwrap() {
        let id = session["session_id"].as_str().unwrap();
        let transcript = call(&client, "transcript", json!({"session_id": id, "limit": 10_000_000})).await;
        keep(format!("transcript {id}"), transcript);
    }
    for words in ["token", "key", "bearer", "password", "secret", "[redacted]", "ghp_", "npm_"] {
        keep(format!("search {words}"), call(&client, "search", json!({"words": words, "limit": 1000})).await);
    }
    keep("inventory".into(), call(&client, "inventory", json!({"limit": 10_000_000})).await);
    client.cancel().await.unwrap();
    // What the secrets sit beside is answered: the scan looks at real answers.
    let all: String = answers.iter().map(|(_, text)| text.as_str()).collect();
    for shown in ["MYAPP_GITHUB_TOKEN=[redacted]", "Rotate the vault keys [redacted]", "mcp.sentry.dev"] {
        assert!(all.contains(shown), "no answer holds {shown}");
    }
    for secret in planted_secrets() {
        for piece in pieces(&secret) {
            for (name, text) in &answers {
                assert!(!text.contains(&piece), "{name} holds {piece:?}, a piece of the planted {secret:?}");
            }
        }
    }
}

#[test]
fn print_config_prints_the_cli_and_vs_code_entries() {
    let printed = stdout_of(Path::new("."), &["mcp", "--print-config"]);
    insta::with_settings!({ snapshot_path => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/mcp"), prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("print-config", printed);
    });
    // Each entry is JSON of its file's shape.
    let blocks: Vec<Value> =
        printed.split("\n\n").map(|block| serde_json::from_str(&block[block.find('{').unwrap()..]).unwrap()).collect();
    assert_eq!(blocks[0]["mcpServers"]["copilot-lens"]["type"], "local");
    assert_eq!(blocks[0]["mcpServers"]["copilot-lens"]["args"], json!(["mcp"]));
    assert_eq!(blocks[1]["servers"]["copilot-lens"]["type"], "stdio");
    assert_eq!(blocks[1]["servers"]["copilot-lens"]["command"], "copilot-lens");
}
