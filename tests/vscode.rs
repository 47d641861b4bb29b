//! VS Code Copilot Chat (agent `copilot-vscode`) against outcomes computed by hand from the
//! fixtures in `fixtures/vscode/`, one per rule of the source's design (its files, the replay of
//! the mutation log, the row texts, the session facts and the VS Code usage rules), plus one home
//! holding both the CLI's `.copilot` and VS Code's `User/` folder, whose whole outputs are
//! reviewed golden files in `tests/golden/vscode/`.
//!
//! Every expected figure below was written from the fixture and the design, not by running the
//! tool; each case's comment says how. Usage tuples are
//! `[requests, input, cache_read, cache_write, output, reasoning, total]`, where `input` is fresh
//! input (input less cache reads: `modelTotals`' `inputTokens` includes `cachedTokens`) and
//! `total` = input + cache_read + cache_write + output (reasoning is part of output).
//! Request times are epoch milliseconds in the fixtures; case N is dated 2026-10-(10+N), its
//! requests at 09:00, 09:01, ... UTC.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use copilot_lens::analysis::{Options, analyze};
use copilot_lens::input::memory::MemoryRoots;
use copilot_lens::model::{Row, RowMark, RowSink};
use serde_json::Value;

use common::{copy_tree, fixture, read, run, zip_tree};

const AGENT: &str = "copilot-vscode";
/// `workspaceStorage/<hash>` of `file:///home/ana/src/shop` (the hash is any folder name to the
/// reader; these are the MD5 of the folder's URI, as VS Code names them).
const SHOP: &str = "31a48cab78dd5c79eec300bddf13c4c1";
const BAD: &str = "parser: unparseable line (";

fn snapshot(name: &str, value: &str) {
    insta::with_settings!({ snapshot_path => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/vscode"), prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, value);
    });
}

fn session_id(n: u32) -> String {
    format!("c0de{n:04}-0000-4000-8000-{n:012}")
}

/// The home-relative path of a chat session file in a workspace folder of `.config/Code/User`.
fn in_workspace(hash: &str, n: u32, ext: &str) -> String {
    format!(".config/Code/User/workspaceStorage/{hash}/chatSessions/{}.{ext}", session_id(n))
}

/// One analysis's outputs, read back.
struct Out {
    scratch: tempfile::TempDir,
    dir: PathBuf,
    rows: Vec<Value>,
    sessions: Vec<Value>,
    usage: Vec<Value>,
    report: Value,
}

fn jsonl(path: &Path) -> Vec<Value> {
    read(path).lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// Copies `fixtures/vscode/<case>` to a scratch `home` and runs `analyze home`.
fn analyze_case(case: &str, extra: &[&str]) -> Out {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture(&format!("vscode/{case}")), &scratch.path().join("home"));
    analyze_root(scratch, "home", extra)
}

fn analyze_root(scratch: tempfile::TempDir, root: &str, extra: &[&str]) -> Out {
    let mut args = vec!["analyze", "--out", "out", root];
    args.extend_from_slice(extra);
    let output = run(scratch.path(), &args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let dir = scratch.path().join("out");
    Out {
        rows: jsonl(&dir.join("rows.jsonl")),
        sessions: jsonl(&dir.join("sessions.jsonl")),
        usage: jsonl(&dir.join("usage.jsonl")),
        report: serde_json::from_str(&read(&dir.join("report.json"))).unwrap(),
        dir,
        scratch,
    }
}

impl Out {
    /// `copilot-lens usage <root> --json <extra>` on the same scratch folder: its rows.
    fn usage_json(&self, root: &str, extra: &[&str]) -> Vec<Value> {
        let mut args = vec!["usage", root, "--json"];
        args.extend_from_slice(extra);
        let output = run(self.scratch.path(), &args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        value["rows"].as_array().unwrap().clone()
    }

    fn diagnostics(&self) -> Vec<Value> {
        self.report["diagnostics"].as_array().unwrap().clone()
    }

    fn file(&self, path: &str) -> &Value {
        let files = self.report["files"].as_array().unwrap();
        files.iter().find(|file| file["path"] == path).unwrap_or_else(|| panic!("{path} not in the report: {files:#?}"))
    }
}

/// A row of a request: `(turn_type, tool_name, tool_use_id, text)`.
type Part<'a> = (&'a str, &'a str, &'a str, &'a str);

fn user(text: &str) -> Part<'_> {
    ("user", "", "", text)
}

fn assistant(text: &str) -> Part<'_> {
    ("assistant", "", "", text)
}

fn system(text: &str) -> Part<'_> {
    ("system", "", "", text)
}

fn thinking(text: &str) -> Part<'_> {
    ("thinking", "", "", text)
}

fn call<'a>(tool: &'a str, id: &'a str, text: &'a str) -> Part<'a> {
    ("tool_use", tool, id, text)
}

fn result<'a>(tool: &'a str, id: &'a str, text: &'a str) -> Part<'a> {
    ("tool_result", tool, id, text)
}

/// A request's rows: `(timestamp_utc, model, source_line, rows)`; every row of a request has
/// its time, model and line.
type Request<'a> = (&'a str, &'a str, u64, &'a [Part<'a>]);

fn str_of(value: &Value) -> String {
    value.as_str().unwrap_or_else(|| panic!("not a string: {value}")).to_string()
}

/// The session's rows in output order (bad-line rows, whose place the design does not fix, left
/// out), each checked for the agent, branch and source every row of the file carries, and for
/// the session's project.
fn check_rows(out: &Out, session: &str, source: &str, project: &str, expected: &[Request<'_>]) {
    check_rows_with_projects(out, session, source, &vec![project; expected.len()], expected);
}

/// As `check_rows`, with each request's project (`projects[i]` for `expected[i]`).
fn check_rows_with_projects(out: &Out, session: &str, source: &str, projects: &[&str], expected: &[Request<'_>]) {
    let rows: Vec<&Value> =
        out.rows.iter().filter(|row| row["session_id"] == session && !str_of(&row["text"]).starts_with(BAD)).collect();
    for row in &rows {
        assert_eq!(row["agent"], AGENT, "{row}");
        assert_eq!(row["git_branch"], "", "{row}");
        assert_eq!(row["source"], source, "{row}");
    }
    let fields =
        ["timestamp_utc", "model", "source_line", "project_path", "turn_type", "tool_name", "tool_use_id", "text"];
    let got: Vec<String> = rows.iter().map(|row| fields.map(|field| row[field].to_string()).join(" | ")).collect();
    let expected: Vec<String> = expected
        .iter()
        .zip(projects)
        .flat_map(|((time, model, line, parts), project)| {
            parts.iter().map(move |(turn, tool, id, text)| {
                [*time, *model, &line.to_string(), project, turn, tool, id, text]
                    .into_iter()
                    .enumerate()
                    .map(|(i, value)| if i == 2 { value.to_string() } else { Value::from(value).to_string() })
                    .collect::<Vec<_>>()
                    .join(" | ")
            })
        })
        .collect();
    assert_eq!(got, expected, "rows of {session}");
}

/// The session's one record: name, project, last event, models (any order); its first event is
/// checked by `a_session_starts_at_its_first_request`.
fn check_session(out: &Out, session: &str, name: &str, project: &str, last: &str, models: &[&str]) {
    let records: Vec<&Value> = out.sessions.iter().filter(|record| record["session_id"] == session).collect();
    assert_eq!(records.len(), 1, "one record for {session}: {records:#?}");
    let record = records[0];
    assert_eq!(record["agent"], AGENT, "{record}");
    assert_eq!(record["name"], name, "{record}");
    assert_eq!(record["project_path"], project, "{record}");
    assert_eq!(record["last_event"], last, "{record}");
    let mut got: Vec<String> = record["models"].as_array().unwrap().iter().map(str_of).collect();
    got.sort();
    let mut want: Vec<String> = models.iter().map(|model| model.to_string()).collect();
    want.sort();
    assert_eq!(got, want, "models of {session}");
    assert_eq!(record["found_in"], serde_json::json!(["chatSessions"]), "{record}");
}

/// `(day, agent, model, partial, [requests, input, cache_read, cache_write, output, reasoning, total])`;
/// an agent of `""` is not compared (the `usage` table adds agents up).
type ExpectedUsage<'a> = (&'a str, &'a str, &'a str, bool, [u64; 7]);

fn check_usage(what: &str, rows: &[Value], expected: &[ExpectedUsage<'_>]) {
    let key = |day: &str, model: &str, partial: bool| (day.to_string(), model.to_string(), partial);
    let mut got: Vec<_> = rows
        .iter()
        .map(|row| {
            // A missing rate is the rate table's business, Auto's discount and BYOK the credits'.
            let flags: Vec<String> = row["flags"]
                .as_array()
                .unwrap()
                .iter()
                .map(str_of)
                .filter(|flag| !["no_rate", "auto", "byok"].contains(&flag.as_str()))
                .collect();
            let partial = flags == ["partial"];
            assert!(flags.is_empty() || partial, "{what}: unexpected flags {flags:?} in {row}");
            let counts = ["requests", "input", "cache_read", "cache_write", "output", "reasoning", "total"]
                .map(|field| row[field].as_u64().unwrap_or_else(|| panic!("{what}: {field} in {row}")));
            (key(&str_of(&row["day"]), &str_of(&row["model"]), partial), str_of(&row["agent"]), counts)
        })
        .collect();
    let mut want: Vec<_> = expected
        .iter()
        .map(|(day, agent, model, partial, counts)| (key(day, model, *partial), agent.to_string(), *counts))
        .collect();
    if expected.iter().all(|(_, agent, ..)| agent.is_empty()) {
        got.iter_mut().for_each(|(_, agent, _)| agent.clear());
    }
    got.sort();
    want.sort();
    assert_eq!(got, want, "{what}");
}

/// Both the analysis's usage.jsonl and the usage-only run (`usage --json`) give `expected`.
fn check_both_usages(out: &Out, expected: &[ExpectedUsage<'_>]) {
    check_usage("usage.jsonl", &out.usage, expected);
    check_usage("usage --json", &out.usage_json("home", &[]), expected);
}

/// The rows of the case as the core makes them, with their marks (never written out).
#[derive(Default)]
struct Marked(Vec<(String, String, RowMark)>);

impl RowSink for Marked {
    fn push(&mut self, row: &Row<'_>) {
        self.0.push((row.turn_type.as_str().to_string(), row.text.to_string(), row.mark));
    }
}

fn marks(case: &str) -> Vec<(String, String, RowMark)> {
    let mut roots = MemoryRoots(vec![common::memory_root(&format!("vscode/{case}"))]);
    let mut sink = Marked::default();
    analyze(roots.listings(), &mut roots, Options::default(), &mut sink).unwrap();
    sink.0
}

fn mark_of(marks: &[(String, String, RowMark)], turn: &str, text: &str) -> RowMark {
    let found: Vec<_> = marks.iter().filter(|(t, x, _)| t == turn && x == text).collect();
    assert_eq!(found.len(), 1, "one {turn} row {text:?}: {marks:#?}");
    found[0].2
}

fn assert_no_diagnostics(out: &Out) {
    assert_eq!(out.diagnostics(), Vec::<Value>::new());
}

/// Case 1: a `.json` snapshot only (version 3, an older build), legacy single-round tokens,
/// markdown parts in both forms, a tool call with `resultDetails`.
#[test]
fn case_01_json_only() {
    let out = analyze_case("01-json-only", &[]);
    let (id, source) = (session_id(1), in_workspace(SHOP, 1, "json"));
    // A `.json` is one state: every request's `source_line` is 1. Request 0's two `{value}` parts
    // are joined with no separator; request 1's tool call has `resultDetails`: its input string is
    // the call's text, its two output values joined by "\n" the result; its reply is a
    // `markdownContent` part's `content.value`.
    check_rows(
        &out,
        &id,
        &source,
        "/home/ana/src/shop",
        &[
            (
                "2026-10-11T09:00:00.000Z",
                "gpt-4.1",
                1,
                &[user("why is the cart total off by one?"), assistant("The loop starts at 1; start it at 0.")],
            ),
            (
                "2026-10-11T09:01:00.000Z",
                "gpt-4.1",
                1,
                &[
                    user("add a test for it"),
                    call("copilot_readFile", "call_read_1", r#"{"filePath":"/home/ana/src/shop/cart.js"}"#),
                    result("copilot_readFile", "call_read_1", "function total(items) {\n  let sum = 0;"),
                    assistant("Added cart.test.js."),
                ],
            ),
        ],
    );
    // Name: customTitle. Project: workspace.json's folder. Last event: the last request's time.
    check_session(&out, &id, "Fix the cart total", "/home/ana/src/shop", "2026-10-11T09:01:00.000Z", &["gpt-4.1"]);
    // Both requests are legacy records with one tool-call round: counted.
    // 1000 + 2000 = 3000 input, 100 + 200 = 300 output; total 3300.
    check_both_usages(&out, &[("2026-10-11", AGENT, "gpt-4.1", false, [2, 3000, 0, 0, 300, 0, 3300])]);
    assert_no_diagnostics(&out);
}

/// Case 2: a `.jsonl` only: requests pushed, their responses pushed and results set later; a
/// terminal call, a thinking part, the title set by a Set line, a percent-encoded folder.
#[test]
fn case_02_jsonl_only() {
    let out = analyze_case("02-jsonl-only", &[]);
    let id = session_id(2);
    let source = format!(".config/Code/User/workspaceStorage/9b9dc408b071639254936fcd69ea2e44/chatSessions/{id}.jsonl");
    // Request 0 is pushed on line 2, request 1 on line 7. The terminal call's text is
    // `commandLine.original`; it has no resultDetails, so its result is `pastTenseMessage`
    // (a markdown `{value}`). The thinking part gives no row without --include-thinking.
    let (request_0, request_1) = (
        [
            user("rename the app folder to my-app"),
            call("run_in_terminal", "call_term_1", "git mv app my-app"),
            result("run_in_terminal", "call_term_1", "Ran `git mv app my-app`"),
            assistant("Renamed app/ to my-app/."),
        ],
        [user("show the new tree"), assistant("my-app/\n  index.js")],
    );
    let at_0900 = "2026-10-12T09:00:00.000Z";
    let at_0901 = "2026-10-12T09:01:00.000Z";
    let rows = [(at_0900, "claude-sonnet-4.5", 2, &request_0[..]), (at_0901, "claude-sonnet-4.5", 7, &request_1[..])];
    // `file:///home/ana/src/my%20app` → `/home/ana/src/my app`.
    let project = "/home/ana/src/my app";
    check_rows(&out, &id, &source, project, &rows);
    // customTitle was set on line 6.
    check_session(&out, &id, "Rename the app", project, "2026-10-12T09:01:00.000Z", &["claude-sonnet-4.5"]);
    // Request 0: result.metadata.modelTotals (one entry, 4000 input of which 0 cached, 150
    // output), reasoning 20 from round 0's thinking.tokens; two rounds do not matter since
    // modelTotals are whole-turn figures. Request 1: legacy, one round, 1000 / 50.
    // 4000 + 1000 = 5000 input, 150 + 50 = 200 output, reasoning 20; total 5200.
    check_both_usages(&out, &[("2026-10-12", AGENT, "claude-sonnet-4.5", false, [2, 5000, 0, 0, 200, 20, 5200])]);
    assert_no_diagnostics(&out);

    // With --include-thinking the thinking part is a row, in its place among the parts (first).
    let out_thinking = analyze_case("02-jsonl-only", &["--include-thinking"]);
    let mut request_0_thinking = request_0.to_vec();
    request_0_thinking.insert(1, thinking("The user wants the folder renamed; git mv keeps its history."));
    let with_thinking = [(at_0900, "claude-sonnet-4.5", 2, &request_0_thinking[..]), rows[1]];
    check_rows(&out_thinking, &id, &source, project, &with_thinking);

    // A `User/` folder given as the root, or the user-data folder holding it, reads as that
    // folder of a home: the same rows, with the same sources.
    let home_rows = read(&out.dir.join("rows.jsonl"));
    for root in ["home/.config/Code/User", "home/.config/Code"] {
        let scratch = tempfile::tempdir().unwrap();
        copy_tree(&fixture("vscode/02-jsonl-only"), &scratch.path().join("home"));
        let alone = analyze_root(scratch, root, &[]);
        assert_eq!(read(&alone.dir.join("rows.jsonl")), home_rows, "{root}");
    }
}

/// Case 3: `<id>.json` and `<id>.jsonl` in one folder: only the `.jsonl` is read; the session
/// counts once.
#[test]
fn case_03_json_and_jsonl() {
    let out = analyze_case("03-json-and-jsonl", &[]);
    let id = session_id(3);
    let (json, jsonl) = (in_workspace(SHOP, 3, "json"), in_workspace(SHOP, 3, "jsonl"));
    // The `.jsonl` holds request 0 in its initial state (line 1) and pushes request 1 on line 2;
    // the `.json` (request 0 only, title "Old title") gives nothing.
    check_rows(
        &out,
        &id,
        &jsonl,
        "/home/ana/src/shop",
        &[
            ("2026-10-13T09:00:00.000Z", "gpt-5-mini", 1, &[user("first question"), assistant("First answer.")]),
            ("2026-10-13T09:01:00.000Z", "gpt-5-mini", 2, &[user("second question"), assistant("Second answer.")]),
        ],
    );
    assert!(out.rows.iter().all(|row| row["source"] != json.as_str()), "the .json gave rows");
    check_session(&out, &id, "Two questions", "/home/ana/src/shop", "2026-10-13T09:01:00.000Z", &["gpt-5-mini"]);
    // The `.jsonl` only: 1000 + 2000 = 3000 input, 100 + 200 = 300 output (both files would
    // give 3 requests, 4000 / 400).
    check_both_usages(&out, &[("2026-10-13", AGENT, "gpt-5-mini", false, [2, 3000, 0, 0, 300, 0, 3300])]);
    // The `.json` is not read, and the report says why.
    let entry = out.file(&json);
    assert_ne!(entry["status"], "read", "{entry}");
    assert_eq!(entry["rows"], 0, "{entry}");
    let notes: Vec<String> = std::iter::once(entry.to_string())
        .chain(out.diagnostics().iter().filter(|d| d["file"] == json.as_str()).map(|d| d.to_string()))
        .collect();
    assert!(notes.iter().any(|note| note.contains("superseded")), "{notes:#?}");
    assert!(out.diagnostics().iter().all(|d| d["file"] == json.as_str()), "{:#?}", out.diagnostics());
    assert_eq!(out.file(&jsonl)["status"], "read");
}

/// Case 4: a Push with `i`: the retried request replaces the one at index 1, which gives no row
/// and no tokens.
#[test]
fn case_04_push_truncate() {
    let out = analyze_case("04-push-truncate", &[]);
    let id = session_id(4);
    // Line 2 pushes "write the changelog" (response "Draft one...", 5000 / 500 on lines 3-4);
    // line 5 cuts `requests` to length 1 and pushes "write the changelog, shorter", whose
    // response and result come on lines 6-7 at index 1.
    check_rows(
        &out,
        &id,
        &in_workspace(SHOP, 4, "jsonl"),
        "/home/ana/src/shop",
        &[
            (
                "2026-10-14T09:00:00.000Z",
                "gpt-5.4",
                1,
                &[user("summarise the README"), assistant("It is a shop demo.")],
            ),
            (
                "2026-10-14T09:02:00.000Z",
                "gpt-5.4",
                5,
                &[user("write the changelog, shorter"), assistant("Shorter changelog.")],
            ),
        ],
    );
    check_session(&out, &id, "Changelog", "/home/ana/src/shop", "2026-10-14T09:02:00.000Z", &["gpt-5.4"]);
    // 1000 + 3000 = 4000 input, 100 + 300 = 400 output (ignoring `i`: 3 requests, 9000 / 900).
    check_both_usages(&out, &[("2026-10-14", AGENT, "gpt-5.4", false, [2, 4000, 0, 0, 400, 0, 4400])]);
    assert_no_diagnostics(&out);
}

/// Case 5: a Delete (kind 3) of a request's `result`: its error and its modelTotals go with it.
#[test]
fn case_05_delete() {
    let out = analyze_case("05-delete", &[]);
    let id = session_id(5);
    // Line 5 sets request 1's result (errorDetails "Request failed: rate limited", modelTotals
    // 9000 / 900), lines 6-7 set its request-level promptTokens 700 / completionTokens 70, line
    // 8 deletes the result: no `error:` row.
    check_rows(
        &out,
        &id,
        &in_workspace(SHOP, 5, "jsonl"),
        "/home/ana/src/shop",
        &[
            (
                "2026-10-15T09:00:00.000Z",
                "gpt-4.1",
                2,
                &[user("explain the build error"), assistant("The linker cannot find libssl.")],
            ),
            (
                "2026-10-15T09:01:00.000Z",
                "gpt-4.1",
                3,
                &[user("try again with the new flags"), assistant("Retrying with --release.")],
            ),
        ],
    );
    check_session(&out, &id, "", "/home/ana/src/shop", "2026-10-15T09:01:00.000Z", &["gpt-4.1"]);
    // Request 0: legacy one round, 1200 / 120. Request 1: no modelTotals left, so its
    // request-level 700 / 70. 1900 input, 190 output (ignoring the delete: 10200 / 1020).
    check_both_usages(&out, &[("2026-10-15", AGENT, "gpt-4.1", false, [2, 1900, 0, 0, 190, 0, 2090])]);
    assert_no_diagnostics(&out);
}

/// Case 6: tokens only in Set lines (request-level `promptTokens` / `completionTokens`, as VS Code
/// 1.134 writes them); a slash command.
#[test]
fn case_06_set_tokens() {
    let out = analyze_case("06-set-tokens", &[]);
    let id = session_id(6);
    check_rows(
        &out,
        &id,
        &in_workspace(SHOP, 6, "jsonl"),
        "/home/ana/src/shop",
        &[
            (
                "2026-10-16T09:00:00.000Z",
                "claude-sonnet-4.5",
                1,
                &[
                    user("/explain the routes file"),
                    system("slash command: /explain"),
                    assistant("It maps GET / and GET /cart."),
                ],
            ),
            (
                "2026-10-16T09:01:00.000Z",
                "claude-sonnet-4.5",
                4,
                &[user("add a /health route"), assistant("Added GET /health.")],
            ),
        ],
    );
    check_session(&out, &id, "", "/home/ana/src/shop", "2026-10-16T09:01:00.000Z", &["claude-sonnet-4.5"]);
    // Lines 2-3: 12000 / 400; lines 7-8: 18561 / 439. 30561 input, 839 output; total 31400.
    check_both_usages(&out, &[("2026-10-16", AGENT, "claude-sonnet-4.5", false, [2, 30561, 0, 0, 839, 0, 31400])]);
    assert_no_diagnostics(&out);
}

/// Case 7: modelTotals with a cached split, in result.metadata (two models: the sub-agent ran on
/// gpt-5-mini) and on the request itself (`copilot/`-prefixed); a sub-agent part; a failed tool.
#[test]
fn case_07_model_totals() {
    let out = analyze_case("07-model-totals", &[]);
    let id = session_id(7);
    // The sub-agent's call text is its prompt and its result the sub-agent's `result` (before
    // pastTenseMessage "Found checkout code"); the edit's text is resultDetails.input, its result
    // the output value (isError: a failed tool result).
    check_rows(
        &out,
        &id,
        &in_workspace(SHOP, 7, "jsonl"),
        "/home/ana/src/shop",
        &[
            (
                "2026-10-17T09:00:00.000Z",
                "claude-opus-4.6",
                2,
                &[
                    user("refactor the checkout totals"),
                    call("runSubagent", "call_sub_1", "find where checkout totals are computed"),
                    result("runSubagent", "call_sub_1", "computeTotal() in src/checkout.js"),
                    call(
                        "copilot_replaceString",
                        "call_edit_1",
                        r#"{"filePath":"src/checkout.js","oldString":"total =","newString":"total +="}"#,
                    ),
                    result("copilot_replaceString", "call_edit_1", "String not found in file"),
                    assistant("Moved the sum into computeTotal()."),
                ],
            ),
            (
                "2026-10-17T09:01:00.000Z",
                "claude-opus-4.6",
                6,
                &[user("now run the tests"), assistant("All 12 tests pass.")],
            ),
        ],
    );
    let marks = marks("07-model-totals");
    assert_eq!(mark_of(&marks, "tool_result", "String not found in file"), RowMark::FailedToolResult);
    assert_eq!(mark_of(&marks, "tool_result", "computeTotal() in src/checkout.js"), RowMark::Plain);
    // The session's models are the requests' models; gpt-5-mini is only in a modelTotals entry.
    check_session(&out, &id, "", "/home/ana/src/shop", "2026-10-17T09:01:00.000Z", &["claude-opus-4.6"]);
    // Request 0, result.metadata.modelTotals (beating its legacy 31000 / 900 and its 3 rounds):
    //   claude-opus-4.6 50000 in, 40000 cached → fresh 10000, output 2000;
    //   gpt-5-mini 8000 in, 6000 cached → fresh 2000, output 300.
    // Request 1, the request's own modelTotals, `copilot/claude-opus-4.6`:
    //   20000 in, 15000 cached → fresh 5000, output 500.
    // claude-opus-4.6: 2 entries, 15000 fresh, 55000 cache read, 2500 output; total 72500.
    // gpt-5-mini: 1 entry, 2000, 6000, 300; total 8300.
    check_both_usages(
        &out,
        &[
            ("2026-10-17", AGENT, "claude-opus-4.6", false, [2, 15000, 55000, 0, 2500, 0, 72500]),
            ("2026-10-17", AGENT, "gpt-5-mini", false, [1, 2000, 6000, 0, 300, 0, 8300]),
        ],
    );
    assert_no_diagnostics(&out);
}

/// Case 8: legacy records: three tool-call rounds (partial, never multiplied) beside one round
/// (counted). A `.json`.
#[test]
fn case_08_legacy_rounds() {
    let out = analyze_case("08-legacy-rounds", &[]);
    let id = session_id(8);
    // The search has no resultDetails: its text is invocationMessage's value, its result the
    // (string) pastTenseMessage. The read has only an invocationMessage string: no result row.
    check_rows(
        &out,
        &id,
        &in_workspace(SHOP, 8, "json"),
        "/home/ana/src/shop",
        &[
            (
                "2026-10-18T09:00:00.000Z",
                "gpt-4.1",
                1,
                &[
                    user("find the slow query"),
                    call("copilot_findTextInFiles", "call_grep_1", "Searching text for `SELECT`"),
                    result("copilot_findTextInFiles", "call_grep_1", "Searched text for `SELECT`, 3 results"),
                    call("copilot_readFile", "call_read_2", "Reading db/orders.sql"),
                    assistant("The orders query scans the whole table."),
                ],
            ),
            (
                "2026-10-18T09:01:00.000Z",
                "gpt-4.1",
                1,
                &[user("add an index"), assistant("Added an index on orders(customer_id).")],
            ),
        ],
    );
    check_session(&out, &id, "Slow query", "/home/ana/src/shop", "2026-10-18T09:01:00.000Z", &["gpt-4.1"]);
    // Request 0: 3 rounds → partial: its last call, 7000 / 300, reasoning 40 (round 1's
    // thinking.tokens). Request 1: 1 round → counted, 2000 / 100. Never one row.
    check_both_usages(
        &out,
        &[
            ("2026-10-18", AGENT, "gpt-4.1", false, [1, 2000, 0, 0, 100, 0, 2100]),
            ("2026-10-18", AGENT, "gpt-4.1", true, [1, 7000, 0, 0, 300, 40, 7300]),
        ],
    );
    assert_no_diagnostics(&out);
}

/// Case 9: Auto: `modelId: "copilot/auto"` and `result.metadata.resolvedModel`.
#[test]
fn case_09_auto_model() {
    let out = analyze_case("09-auto-model", &[]);
    let id = session_id(9);
    // Each request's rows carry the resolved model; a `model:` row when it differs from the
    // modelId (not for request 2, gpt-5.4 resolved as gpt-5.4).
    check_rows(
        &out,
        &id,
        &in_workspace(SHOP, 9, "jsonl"),
        "/home/ana/src/shop",
        &[
            (
                "2026-10-19T09:00:00.000Z",
                "gpt-5.4",
                1,
                &[user("tidy the imports"), system("model: auto -> gpt-5.4"), assistant("Imports sorted.")],
            ),
            (
                "2026-10-19T09:01:00.000Z",
                "claude-sonnet-4.5",
                2,
                &[
                    user("explain the sort order"),
                    system("model: auto -> claude-sonnet-4.5"),
                    assistant("Standard library first, then packages."),
                ],
            ),
            ("2026-10-19T09:02:00.000Z", "gpt-5.4", 3, &[user("thanks, commit it"), assistant("Committed.")]),
        ],
    );
    let marks = marks("09-auto-model");
    assert_eq!(mark_of(&marks, "system", "model: auto -> gpt-5.4"), RowMark::ModelChange);
    check_session(&out, &id, "", "/home/ana/src/shop", "2026-10-19T09:02:00.000Z", &["claude-sonnet-4.5", "gpt-5.4"]);
    // Legacy one-round records under the resolved model: gpt-5.4 3000 / 150 + 500 / 20;
    // claude-sonnet-4.5 1000 / 50. Nothing under "auto".
    check_both_usages(
        &out,
        &[
            ("2026-10-19", AGENT, "claude-sonnet-4.5", false, [1, 1000, 0, 0, 50, 0, 1050]),
            ("2026-10-19", AGENT, "gpt-5.4", false, [2, 3500, 0, 0, 170, 0, 3670]),
        ],
    );
    assert_no_diagnostics(&out);
}

/// Case 16: a chat as "Export Chat" writes it (no `sessionId`, `creationDate` or `version`),
/// under Auto: the export keeps no `resolvedModel`, only `result.details`, "Grok Code Fast 1 •
/// 1x" (the picked model's name, then its multiplier).
#[test]
fn case_16_chat_export() {
    let out = analyze_case("16-chat-export", &[]);
    let id = session_id(16);
    check_rows(
        &out,
        &id,
        &in_workspace(SHOP, 16, "json"),
        "/home/ana/src/shop",
        &[(
            "2026-10-26T09:00:00.000Z",
            "grok-code-fast-1",
            1,
            &[
                user("rename total to cartTotal"),
                system("model: auto -> grok-code-fast-1"),
                assistant("Renamed in cart.js."),
            ],
        )],
    );
    check_session(&out, &id, "", "/home/ana/src/shop", "2026-10-26T09:00:00.000Z", &["grok-code-fast-1"]);
    // No creationDate: the session was created at its first request.
    let record = out.sessions.iter().find(|record| record["session_id"] == id.as_str()).unwrap();
    assert_eq!(record["created_at"], "2026-10-26T09:00:00.000Z", "{record}");
    // The legacy one-round record (1200 / 80) under the picked model, not "auto".
    check_both_usages(&out, &[("2026-10-26", AGENT, "grok-code-fast-1", false, [1, 1200, 0, 0, 80, 0, 1280])]);
    assert_no_diagnostics(&out);
}

/// Case 10: a multi-root workspace (`"workspace": "...code-workspace"`): no project. A cancelled
/// request.
#[test]
fn case_10_multi_root() {
    let out = analyze_case("10-multi-root", &[]);
    let id = session_id(10);
    let source = format!(".config/Code/User/workspaceStorage/e5357bdb4b320373550ead32e7af0277/chatSessions/{id}.jsonl");
    // Request 1 was cancelled (modelState.value 2, line 5) after its first words.
    check_rows(
        &out,
        &id,
        &source,
        "",
        &[
            (
                "2026-10-20T09:00:00.000Z",
                "gpt-5.4",
                1,
                &[user("compare the two packages"), assistant("api/ uses express, web/ uses vite.")],
            ),
            (
                "2026-10-20T09:01:00.000Z",
                "gpt-5.4",
                2,
                &[user("and their test setups?"), assistant("Both use"), system("request cancelled")],
            ),
        ],
    );
    check_session(&out, &id, "", "", "2026-10-20T09:01:00.000Z", &["gpt-5.4"]);
    // Request 0 only (legacy, one round): 1000 / 100. The cancelled one has no tokens.
    check_both_usages(&out, &[("2026-10-20", AGENT, "gpt-5.4", false, [1, 1000, 0, 0, 100, 0, 1100])]);
    assert_no_diagnostics(&out);
}

/// Case 11: an empty-window chat (`globalStorage/emptyWindowChatSessions/`): its project is the
/// last request's `workingDirectory`.
#[test]
fn case_11_empty_window() {
    let out = analyze_case("11-empty-window", &[]);
    let id = session_id(11);
    let source = format!(".config/Code/User/globalStorage/emptyWindowChatSessions/{id}.jsonl");
    // Request 0 has no workingDirectory, request 1 (the last) "/home/ana/scratch": the session's
    // project. A row carries the project known at its request, as the CLI's rows carry the
    // working directory tracked so far: none yet for request 0.
    check_rows_with_projects(
        &out,
        &id,
        &source,
        &["", "/home/ana/scratch"],
        &[
            (
                "2026-10-21T09:00:00.000Z",
                "gpt-5-mini",
                1,
                &[user("what does ENOSPC mean?"), assistant("No space left on device.")],
            ),
            (
                "2026-10-21T09:01:00.000Z",
                "gpt-5-mini",
                2,
                &[user("clean the tmp folder"), assistant("Run `rm -rf tmp/*`.")],
            ),
        ],
    );
    check_session(&out, &id, "", "/home/ana/scratch", "2026-10-21T09:01:00.000Z", &["gpt-5-mini"]);
    // Request-level promptTokens / completionTokens in the records themselves: 600 / 60 and
    // 400 / 40 → 1000 / 100.
    check_both_usages(&out, &[("2026-10-21", AGENT, "gpt-5-mini", false, [2, 1000, 0, 0, 100, 0, 1100])]);
    assert_no_diagnostics(&out);
}

/// Case 12: Insiders (`.config/Code - Insiders/User`); an error (`result.errorDetails.message`).
#[test]
fn case_12_insiders() {
    let out = analyze_case("12-insiders", &[]);
    let id = session_id(12);
    let source = format!(
        ".config/Code - Insiders/User/workspaceStorage/70a46fe603e85588e28d96f4e7907ae7/chatSessions/{id}.jsonl"
    );
    check_rows(
        &out,
        &id,
        &source,
        "/home/ana/src/api",
        &[
            (
                "2026-10-22T09:00:00.000Z",
                "gpt-5.4",
                2,
                &[
                    user("why does the deploy fail?"),
                    assistant("Checking the logs."),
                    system("error: Request Failed: 500 Internal Server Error"),
                ],
            ),
            ("2026-10-22T09:01:00.000Z", "gpt-5.4", 6, &[user("try again"), assistant("The deploy key expired.")]),
        ],
    );
    check_session(&out, &id, "", "/home/ana/src/api", "2026-10-22T09:01:00.000Z", &["gpt-5.4"]);
    // The failed request has no tokens; the retry is legacy, one round: 2500 / 250.
    check_both_usages(&out, &[("2026-10-22", AGENT, "gpt-5.4", false, [1, 2500, 0, 0, 250, 0, 2750])]);
    assert_no_diagnostics(&out);
}

/// Case 13: a zip of a Windows home (`ana\AppData\Roaming\Code\User\...`, backslash names).
#[test]
fn case_13_windows_zip() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("vscode/13-windows-zip"), &scratch.path().join("tree"));
    zip_tree(&scratch.path().join("tree"), &scratch.path().join("ana.zip"), "", "\\");
    let bytes = fs::read(scratch.path().join("ana.zip")).unwrap();
    assert!(bytes.windows(20).any(|w| w == b"ana\\AppData\\Roaming\\"), "the zip keeps its backslashes");
    let out = analyze_root(scratch, "ana.zip", &[]);
    let id = session_id(13);
    // Sources are home-relative with forward slashes; `file:///c%3A/Users/ana/src/shop` →
    // `c:/Users/ana/src/shop`.
    let source =
        format!("AppData/Roaming/Code/User/workspaceStorage/37a3c7f17cf6e2bc8bf987eb9dccc14a/chatSessions/{id}.jsonl");
    check_rows(
        &out,
        &id,
        &source,
        "c:/Users/ana/src/shop",
        &[(
            "2026-10-23T09:00:00.000Z",
            "claude-sonnet-4.5",
            1,
            &[user("übersetze die Fehlermeldung"), assistant("Die Datei wurde nicht gefunden.")],
        )],
    );
    check_session(&out, &id, "", "c:/Users/ana/src/shop", "2026-10-23T09:00:00.000Z", &["claude-sonnet-4.5"]);
    // Legacy, one round: 4000 / 400.
    let expected = [("2026-10-23", AGENT, "claude-sonnet-4.5", false, [1, 4000, 0, 0, 400, 0, 4400])];
    check_usage("usage.jsonl", &out.usage, &expected);
    check_usage("usage --json", &out.usage_json("ana.zip", &[]), &expected);
    assert_no_diagnostics(&out);
}

/// Case 14: bad lines in the middle of a log (line 3 is cut short, line 6 sets a path that does
/// not exist): each is a bad-line row, and the replay goes on.
#[test]
fn case_14_bad_line() {
    let out = analyze_case("14-bad-line", &[]);
    let id = session_id(14);
    let source = in_workspace(SHOP, 14, "jsonl");
    // Lines 4, 5 and 7 (after the bad ones) still apply to request 1.
    check_rows(
        &out,
        &id,
        &source,
        "/home/ana/src/shop",
        &[
            ("2026-10-24T09:00:00.000Z", "gpt-4.1", 1, &[user("first, list the files"), assistant("a.txt b.txt")]),
            ("2026-10-24T09:01:00.000Z", "gpt-4.1", 2, &[user("then count them"), assistant("There are 2 files.")]),
        ],
    );
    // `parser: unparseable line (<why>): <the line>` (both lines are under 200 characters).
    let bad: Vec<(u64, String)> = out
        .rows
        .iter()
        .filter(|row| str_of(&row["text"]).starts_with(BAD))
        .map(|row| {
            assert_eq!(row["agent"], AGENT, "{row}");
            assert_eq!(row["session_id"], id.as_str(), "{row}");
            assert_eq!(row["source"], source.as_str(), "{row}");
            assert_eq!(row["turn_type"], "system", "{row}");
            (row["source_line"].as_u64().unwrap(), str_of(&row["text"]))
        })
        .collect();
    assert_eq!(bad.len(), 2, "{bad:#?}");
    assert_eq!(bad[0].0, 3);
    assert!(bad[0].1.ends_with(r#"): {"kind":2,"k":["requests",1,"respo"#), "{}", bad[0].1);
    assert_eq!(bad[1].0, 6);
    assert!(bad[1].1.ends_with(r#"): {"kind":1,"k":["requests",5,"modelState"],"v":{"value":1}}"#), "{}", bad[1].1);
    let marks = marks("14-bad-line");
    for (_, text) in &bad {
        assert_eq!(mark_of(&marks, "system", text), RowMark::BadLine);
    }
    // The report accounts for the 7 lines, 2 of them bad, and names each in a diagnostic (its
    // file and line) besides its row.
    let lines = &out.file(&source)["lines"];
    assert_eq!((lines["lines"].as_u64(), lines["bad_lines"].as_u64()), (Some(7), Some(2)), "{lines}");
    let diagnostics: Vec<(String, Option<u64>)> =
        out.diagnostics().iter().map(|d| (str_of(&d["file"]), d["line"].as_u64())).collect();
    assert_eq!(diagnostics, [(source.clone(), Some(3)), (source.clone(), Some(6))], "{:#?}", out.diagnostics());
    check_session(&out, &id, "", "/home/ana/src/shop", "2026-10-24T09:01:00.000Z", &["gpt-4.1"]);
    // Both legacy, one round: 1000 / 10 + 1100 / 11 = 2100 / 21.
    check_both_usages(&out, &[("2026-10-24", AGENT, "gpt-4.1", false, [2, 2100, 0, 0, 21, 0, 2121])]);
}

/// Case 15: no initial entry: a log with none (2 lines, both bad), an empty log, a log whose
/// first line comes before its initial entry.
#[test]
fn case_15_no_initial() {
    let out = analyze_case("15-no-initial", &[]);
    let (none, empty, late) =
        (in_workspace(SHOP, 15, "jsonl"), in_workspace(SHOP, 16, "jsonl"), in_workspace(SHOP, 17, "jsonl"));
    // The lines before any kind-0 line are bad lines, counted in the report (file 15: lines 1
    // and 2; file 17: line 1), and reported as diagnostics rather than rows (unlike a bad line
    // after it, case 14): one diagnostic for each run of them, at its first line and saying how
    // many lines it covers. The empty file is a diagnostic of the file (no line).
    let mut got: Vec<(String, Option<u64>)> =
        out.diagnostics().iter().map(|d| (str_of(&d["file"]), d["line"].as_u64())).collect();
    got.sort();
    let mut want = vec![(none.clone(), Some(1)), (empty.clone(), None), (late.clone(), Some(1))];
    want.sort();
    assert_eq!(got, want, "{:#?}", out.diagnostics());
    for diagnostic in out.diagnostics() {
        assert_eq!(diagnostic["home"], 0, "{diagnostic}");
        let message = str_of(&diagnostic["message"]);
        if diagnostic["file"] == none.as_str() {
            assert!(message.contains("2 line"), "{diagnostic}");
        } else if diagnostic["file"] == late.as_str() {
            assert!(message.contains("1 line"), "{diagnostic}");
        } else {
            assert!(!message.is_empty(), "{diagnostic}");
        }
    }
    assert!(out.rows.iter().all(|row| !str_of(&row["text"]).starts_with(BAD)), "no bad-line rows");
    assert_eq!(out.file(&none)["lines"]["bad_lines"], 2);
    assert_eq!(out.file(&late)["lines"]["bad_lines"], 1);
    // Nothing of file 15's request is replayed: no row, no tokens (it held 9000 / 900).
    assert!(out.rows.iter().all(|row| row["text"] != "orphan question"), "file 15 replayed");
    // File 17 replays from its initial entry on line 2; the title set before it is lost.
    let id = session_id(17);
    check_rows(
        &out,
        &id,
        &late,
        "/home/ana/src/shop",
        &[(
            "2026-10-25T09:00:00.000Z",
            "gpt-5-mini",
            2,
            &[user("question after the reset"), assistant("Answer after the reset.")],
        )],
    );
    check_session(&out, &id, "", "/home/ana/src/shop", "2026-10-25T09:00:00.000Z", &["gpt-5-mini"]);
    // File 17's one legacy one-round request: 100 / 10.
    check_both_usages(&out, &[("2026-10-25", AGENT, "gpt-5-mini", false, [1, 100, 0, 0, 10, 0, 110])]);
}

/// A session's first event is its first request's time, as its last is its last request's; the
/// session's `creationDate` only stands in when it has no request. Every fixture's creationDate
/// is a minute before its first request, so this is where the two readings part.
#[test]
fn a_session_starts_at_its_first_request() {
    let cases: [(&str, &[(u32, &str)]); 16] = [
        ("01-json-only", &[(1, "2026-10-11T09:00:00.000Z")]),
        ("02-jsonl-only", &[(2, "2026-10-12T09:00:00.000Z")]),
        ("03-json-and-jsonl", &[(3, "2026-10-13T09:00:00.000Z")]),
        ("04-push-truncate", &[(4, "2026-10-14T09:00:00.000Z")]),
        ("05-delete", &[(5, "2026-10-15T09:00:00.000Z")]),
        ("06-set-tokens", &[(6, "2026-10-16T09:00:00.000Z")]),
        ("07-model-totals", &[(7, "2026-10-17T09:00:00.000Z")]),
        ("08-legacy-rounds", &[(8, "2026-10-18T09:00:00.000Z")]),
        ("09-auto-model", &[(9, "2026-10-19T09:00:00.000Z")]),
        ("10-multi-root", &[(10, "2026-10-20T09:00:00.000Z")]),
        ("11-empty-window", &[(11, "2026-10-21T09:00:00.000Z")]),
        ("12-insiders", &[(12, "2026-10-22T09:00:00.000Z")]),
        ("13-windows-zip", &[(13, "2026-10-23T09:00:00.000Z")]),
        ("14-bad-line", &[(14, "2026-10-24T09:00:00.000Z")]),
        // File 17's creationDate is 08:59, its one request at 09:00.
        ("15-no-initial", &[(17, "2026-10-25T09:00:00.000Z")]),
        ("beside-cli", &[(100, "2026-10-07T11:00:00.000Z"), (101, "2026-10-08T08:30:00.000Z")]),
    ];
    let mut wrong = Vec::new();
    for (case, sessions) in cases {
        let out = analyze_case(case, &[]);
        for (n, first) in sessions {
            let id = session_id(*n);
            let record = out.sessions.iter().find(|record| record["session_id"] == id.as_str()).unwrap();
            if record["first_event"] != *first {
                wrong.push(format!("{case} {id}: first_event {} (expected {first})", record["first_event"]));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The usage table adds the agents up per day and model (the CLI and the editor in one
/// figure); `--by agent` splits them.
#[test]
fn the_usage_table_adds_agents_up() {
    let out = analyze_case("beside-cli", &[]);
    // The per-agent figures are those of `beside_a_cli_home`'s usage.jsonl, added up:
    //   2026-10-07 claude-opus-4.6: CLI 2 requests, 1000 fresh, 2000 cache read, 1000 cache
    //     write, 300 output, 50 reasoning (total 4300) + VS Code 1, 6000, 0, 0, 400, 30 (6400)
    //     = 3, 7000, 2000, 1000, 700, 80; total 10700.
    //   2026-10-07 gpt-5.4: CLI 1, 1000, 0, 0, 100, 0 (1100) + VS Code 1, 2000, 1000, 0, 200, 0
    //     (3200) = 2, 3000, 1000, 0, 300, 0; total 4300.
    //   2026-10-08 gpt-5.4: VS Code alone, 1, 500, 0, 0, 50, 0; total 550.
    // The table people read adds the agents up; JSON rows keep the agent grain.
    let table = run(out.scratch.path(), &["usage", "home"]);
    let table = String::from_utf8(table.stdout).unwrap();
    let numbers = |line: &str| line.split_whitespace().skip(2).take(7).map(|n| n.replace(',', "")).collect::<Vec<_>>();
    let lines: Vec<Vec<String>> = table.lines().filter(|line| line.starts_with("2026-")).map(numbers).collect();
    let expected =
        [[3, 7000, 2000, 1000, 700, 80, 10700], [2, 3000, 1000, 0, 300, 0, 4300], [1, 500, 0, 0, 50, 0, 550]];
    let expected: Vec<Vec<String>> = expected.iter().map(|row| row.iter().map(u64::to_string).collect()).collect();
    assert_eq!(lines, expected, "{table}");
    check_usage(
        "usage --json",
        &out.usage_json("home", &[]),
        &[
            ("2026-10-07", "copilot-cli", "claude-opus-4.6", false, [2, 1000, 2000, 1000, 300, 50, 4300]),
            ("2026-10-07", "copilot-cli", "gpt-5.4", false, [1, 1000, 0, 0, 100, 0, 1100]),
            ("2026-10-07", "copilot-vscode", "claude-opus-4.6", false, [1, 6000, 0, 0, 400, 30, 6400]),
            ("2026-10-07", "copilot-vscode", "gpt-5.4", false, [1, 2000, 1000, 0, 200, 0, 3200]),
            ("2026-10-08", "copilot-vscode", "gpt-5.4", false, [1, 500, 0, 0, 50, 0, 550]),
        ],
    );
    let by_agent = run(out.scratch.path(), &["usage", "home", "--by", "agent", "--json"]);
    assert!(by_agent.status.success(), "{}", String::from_utf8_lossy(&by_agent.stderr));
    let value: Value = serde_json::from_slice(&by_agent.stdout).unwrap();
    let mut agents: Vec<String> = value["rows"].as_array().unwrap().iter().map(|row| str_of(&row["agent"])).collect();
    agents.sort();
    agents.dedup();
    assert_eq!(agents, ["copilot-cli", "copilot-vscode"]);
}

/// A whole user-data folder beside a CLI home: `.copilot` holds the CLI's two-models session
/// (fixtures/usage/two-models, shut down 2026-10-07), `.config/Code/User` a workspace chat on the
/// same day with the same models and an empty-window `.json` chat the next day.
#[test]
fn beside_a_cli_home() {
    let out = analyze_case("beside-cli", &[]);
    let (chat, empty) = (session_id(100), session_id(101));
    // The whole outputs, reviewed line by line (first, so that they are written whatever
    // assertion below fails).
    snapshot("beside-cli__rows.jsonl", &read(&out.dir.join("rows.jsonl")));
    snapshot("beside-cli__sessions.jsonl", &read(&out.dir.join("sessions.jsonl")));
    snapshot("beside-cli__usage.jsonl", &read(&out.dir.join("usage.jsonl")));
    snapshot("beside-cli__report.json", &read(&out.dir.join("report.json")));
    let table = run(out.scratch.path(), &["usage", "home"]);
    assert!(table.status.success(), "{}", String::from_utf8_lossy(&table.stderr));
    snapshot("beside-cli__usage.txt", &String::from_utf8(table.stdout).unwrap());
    check_rows(
        &out,
        &chat,
        &in_workspace(SHOP, 100, "jsonl"),
        "/home/ana/src/shop",
        &[
            (
                "2026-10-07T11:00:00.000Z",
                "gpt-5.4",
                2,
                &[
                    user("plan the cart refactor"),
                    call("copilot_findFiles", "call_find_1", r#"{"query":"**/cart*.js"}"#),
                    result("copilot_findFiles", "call_find_1", "src/cart.js\nsrc/cart.test.js"),
                    assistant("Two files hold the cart: src/cart.js and its test."),
                ],
            ),
            (
                "2026-10-07T11:05:00.000Z",
                "claude-opus-4.6",
                6,
                &[user("/tests for the cart"), system("slash command: /tests"), assistant("Wrote three tests.")],
            ),
        ],
    );
    check_rows(
        &out,
        &empty,
        &format!(".config/Code/User/globalStorage/emptyWindowChatSessions/{empty}.json"),
        "",
        &[(
            "2026-10-08T08:30:00.000Z",
            "gpt-5.4",
            1,
            &[user("what is a monorepo?"), assistant("One repository holding several projects.")],
        )],
    );
    check_session(
        &out,
        &chat,
        "Cart refactor",
        "/home/ana/src/shop",
        "2026-10-07T11:05:00.000Z",
        &["claude-opus-4.6", "gpt-5.4"],
    );
    check_session(&out, &empty, "", "", "2026-10-08T08:30:00.000Z", &["gpt-5.4"]);
    // The CLI session is still read, as the CLI's.
    let cli: Vec<&Value> =
        out.rows.iter().filter(|row| row["session_id"] == "ffffffff-0000-4000-8000-000000000007").collect();
    assert_eq!(cli.len(), 2);
    assert!(cli.iter().all(|row| row["agent"] == "copilot-cli"));

    // CLI (its shutdown, fixtures/usage/two-models): gpt-5.4 1 request, 1000 in, 100 out;
    //   claude-opus-4.6 2 requests, 4000 in of which 2000 cache read and 1000 cache write →
    //   1000 fresh, 300 out, 50 reasoning; total 1000 + 2000 + 1000 + 300 = 4300.
    // VS Code, 2026-10-07: request 0's own modelTotals (set on line 4), gpt-5.4 3000 in of
    //   which 1000 cached → 2000 fresh, 200 out; total 3200. Request 1 legacy, one round,
    //   claude-opus-4.6 6000 / 400, reasoning 30 (its round's thinking.tokens); total 6400.
    // VS Code, 2026-10-08: the `.json`, legacy one round, gpt-5.4 500 / 50; total 550.
    check_usage(
        "usage.jsonl",
        &out.usage,
        &[
            ("2026-10-07", "copilot-cli", "claude-opus-4.6", false, [2, 1000, 2000, 1000, 300, 50, 4300]),
            ("2026-10-07", "copilot-cli", "gpt-5.4", false, [1, 1000, 0, 0, 100, 0, 1100]),
            ("2026-10-07", AGENT, "claude-opus-4.6", false, [1, 6000, 0, 0, 400, 30, 6400]),
            ("2026-10-07", AGENT, "gpt-5.4", false, [1, 2000, 1000, 0, 200, 0, 3200]),
            ("2026-10-08", AGENT, "gpt-5.4", false, [1, 500, 0, 0, 50, 0, 550]),
        ],
    );
    assert_no_diagnostics(&out);
}

/// The chat index of a `state.vscdb` names a chat VS Code titled itself; a workspace's
/// `state.vscdb` with no chat beside it is not read (it holds every extension's state).
#[test]
fn the_chat_index_names_chats_and_is_read_only_beside_them() {
    let scratch = tempfile::tempdir().unwrap();
    let user = scratch.path().join("home/.config/Code/User/workspaceStorage");
    let id = session_id(900);
    let log = format!(r#"{{"kind":0,"v":{{"sessionId":"{id}","requests":[{{"message":{{"text":"hello"}}}}]}}}}"#);
    for (folder, with_chat) in [("chats", true), ("nochats", false)] {
        fs::create_dir_all(user.join(folder).join("chatSessions")).unwrap();
        let database = rusqlite::Connection::open(user.join(folder).join("state.vscdb")).unwrap();
        database.execute_batch("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)").unwrap();
        let index = format!(r#"{{"version":1,"entries":{{"{id}":{{"title":"Titled by VS Code in {folder}"}}}}}}"#);
        database.execute("INSERT INTO ItemTable VALUES ('chat.ChatSessionStore.index', ?1)", [index]).unwrap();
        if with_chat {
            fs::write(user.join(folder).join(format!("chatSessions/{id}.jsonl")), &log).unwrap();
        }
    }
    let output = run(scratch.path(), &["analyze", "home", "--out", "out"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let sessions = read(&scratch.path().join("out/sessions.jsonl"));
    assert!(sessions.contains(r#""name":"Titled by VS Code in chats""#), "{sessions}");
    let report: Value = serde_json::from_str(&read(&scratch.path().join("out/report.json"))).unwrap();
    let statuses: Vec<(String, String)> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|file| file["kind"] == "chat_index")
        .map(|file| (str_of(&file["path"]), str_of(&file["status"])))
        .collect();
    let path = |folder: &str| format!(".config/Code/User/workspaceStorage/{folder}/state.vscdb");
    assert_eq!(statuses, [(path("chats"), "read".into()), (path("nochats"), "not_needed".into())]);
}

/// Case 17: Copilot Chat's Agent Debug logs beside the chats (`fixtures/vscode/17-debug-logs`,
/// made by hand), with the CLI's two-models session of 2026-10-07 in `.copilot`:
/// - session 170 (2026-10-20): its chat's turn 0 (Auto, `responseId` resp-a0, modelTotals 5000
///   in, 2000 cached, 300 out) is in its `main.jsonl` as two calls (2000/1000/100 at 1.5
///   credits, and resp-a0's 3000/1000/200 at 2 credits, a line given twice), with a failed call
///   (1500 in, 0 credits), a line not JSON, a line of an unknown type and a last line cut; its
///   sub-agent's call in `runSubagent-explorer-sub1.jsonl` (claude-haiku-4.5, 800/0/50, 0.33
///   credits) and the title's in `title-t1.jsonl` (gpt-4o-mini, 200/0/10, 0 credits). Turn 1
///   (claude-sonnet-4.5, 1000 in, 100 out) is in no debug log: it counts from the chat.
/// - session 171: its chat is gone; its log's call on 2026-10-07 (claude-opus-4.6, 12000 in
///   with 8000 cached, 600 out, 4 credits) still counts, and the session is listed under its
///   title log's reply; so does the call Copilot made for itself before it
///   (`summarizeVirtualTools`, 500 in, 40 out, 0.1 credits), which `--by purpose` sets apart, as
///   it does the title's (gpt-4o-mini, 150 in, 8 out, 0 credits). Its texts are rows (a prompt,
///   two tool calls, one failed, and a reply in OpenTelemetry's message shape); session 170's
///   are its chat's, not repeated.
/// - session 172: the older flat layout of an older build (gpt-4.1, 900 in, 60 out, no credits:
///   estimated) on 2026-10-21.
#[test]
fn case_17_debug_logs() {
    let out = analyze_case("17-debug-logs", &[]);
    snapshot("17-debug-logs__sessions.jsonl", &read(&out.dir.join("sessions.jsonl")));
    snapshot("17-debug-logs__usage.jsonl", &read(&out.dir.join("usage.jsonl")));
    snapshot("17-debug-logs__report.json", &read(&out.dir.join("report.json")));
    let by_subagent = run(out.scratch.path(), &["usage", "home", "--by", "subagent"]);
    assert!(by_subagent.status.success(), "{}", String::from_utf8_lossy(&by_subagent.stderr));
    snapshot("17-debug-logs__usage-by-subagent.txt", &String::from_utf8(by_subagent.stdout).unwrap());
    let by_purpose = run(out.scratch.path(), &["usage", "home", "--by", "purpose", "--json"]);
    assert!(by_purpose.status.success(), "{}", String::from_utf8_lossy(&by_purpose.stderr));
    let by_purpose: Value = serde_json::from_slice(&by_purpose.stdout).unwrap();
    let purposes: Vec<_> = by_purpose["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["purpose"] != "request")
        .map(|row| {
            (
                str_of(&row["purpose"]),
                str_of(&row["model"]),
                row["requests"].as_u64().unwrap(),
                row["credits"].as_f64().unwrap(),
            )
        })
        .collect();
    let purpose = |name: &str, model: &str, requests, credits| (name.to_string(), model.to_string(), requests, credits);
    assert_eq!(
        purposes,
        [purpose("summarizeVirtualTools", "claude-opus-4.6", 1, 0.1), purpose("title", "gpt-4o-mini", 2, 0.0)],
        "--by purpose sets apart the calls Copilot made for itself"
    );
    let total = |table: &Value| table["grand_total"]["credits"].as_f64().unwrap();
    let by_day: Value = serde_json::from_slice(&run(out.scratch.path(), &["usage", "home", "--json"]).stdout).unwrap();
    assert_eq!(total(&by_purpose), total(&by_day), "the same total, whatever the grouping");
    // `(day, agent, model, [requests, input, cache_read, cache_write, output, reasoning, total], credits, from)`.
    let figures = |rows: &[Value]| -> Vec<(String, String, String, Vec<u64>, f64, String)> {
        rows.iter()
            .map(|row| {
                let counts = ["requests", "input", "cache_read", "cache_write", "output", "reasoning", "total"]
                    .iter()
                    .map(|field| row[field].as_u64().unwrap())
                    .collect();
                let text = |field: &str| str_of(&row[field]);
                (
                    text("day"),
                    text("agent"),
                    text("model"),
                    counts,
                    row["credits"].as_f64().unwrap(),
                    text("credits_from"),
                )
            })
            .collect()
    };
    let row = |day: &str, agent: &str, model: &str, counts: [u64; 7], credits: f64, from: &str| {
        (day.to_string(), agent.to_string(), model.to_string(), counts.to_vec(), credits, from.to_string())
    };
    let (cli, vscode) = ("copilot-cli", AGENT);
    let expected = vec![
        row("2026-10-07", cli, "claude-opus-4.6", [2, 1000, 2000, 1000, 300, 50, 4300], 1.98, "estimated"),
        row("2026-10-07", cli, "gpt-5.4", [1, 1000, 0, 0, 100, 0, 1100], 0.4, "estimated"),
        row("2026-10-07", vscode, "claude-opus-4.6", [2, 4500, 8000, 0, 640, 0, 13140], 4.1, "recorded"),
        row("2026-10-07", vscode, "gpt-4o-mini", [1, 150, 0, 0, 8, 0, 158], 0.0, "recorded"),
        row("2026-10-20", vscode, "claude-haiku-4.5", [1, 800, 0, 0, 50, 0, 850], 0.33, "recorded"),
        row("2026-10-20", vscode, "claude-sonnet-4.5", [1, 1000, 0, 0, 100, 0, 1100], 0.45, "estimated"),
        row("2026-10-20", vscode, "gpt-4o-mini", [1, 200, 0, 0, 10, 0, 210], 0.0, "recorded"),
        // Turn 0 once, as its calls: 2000 + 3000 + 1500 in (2000 cached), 300 out, 1.5 + 2 + 0.
        row("2026-10-20", vscode, "gpt-5.4", [3, 4500, 2000, 0, 300, 0, 6800], 3.5, "recorded"),
        row("2026-10-21", vscode, "gpt-4.1", [1, 900, 0, 0, 60, 0, 960], 0.23, "estimated"),
    ];
    assert_eq!(figures(&out.usage), expected, "usage.jsonl");
    let usage_only = run(out.scratch.path(), &["usage", "home", "--json"]);
    assert!(usage_only.status.success(), "{}", String::from_utf8_lossy(&usage_only.stderr));
    let value: Value = serde_json::from_slice(&usage_only.stdout).unwrap();
    let mut only: Vec<_> = figures(value["rows"].as_array().unwrap()).into_iter().collect();
    only.sort_by(|a, b| (&a.0, &a.1, &a.2).cmp(&(&b.0, &b.1, &b.2)));
    assert_eq!(only, expected, "usage --json");
    // The deleted chat's session is listed, in its workspace's project.
    let deleted = out.sessions.iter().find(|session| session["session_id"] == session_id(171)).expect("listed");
    assert_eq!(str_of(&deleted["project_path"]), "/home/ana/src/shop");
    assert_eq!(str_of(&deleted["name"]), "Billing refactor plan");
    // Its texts are rows; those of session 170, whose chat is given, are the chat's alone.
    let rows = read(&out.dir.join("rows.jsonl"));
    let rows: Vec<Value> = rows.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let of = |id: u32| -> Vec<(String, String, String)> {
        rows.iter()
            .filter(|row| row["session_id"] == session_id(id))
            .map(|row| (str_of(&row["turn_type"]), str_of(&row["tool_name"]), str_of(&row["text"])))
            .collect()
    };
    let texts = |rows: &[(&str, &str, &str)]| -> Vec<(String, String, String)> {
        rows.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect()
    };
    assert_eq!(
        of(171),
        texts(&[
            ("user", "", "plan the refactor of the billing module\nkeep the API"),
            ("tool_use", "read_file", r#"{"filePath": "/home/mona/octo-world/billing.ts"}"#),
            ("tool_result", "read_file", "export function bill() {}"),
            ("tool_use", "run_in_terminal", r#"{"command": "npm test"}"#),
            ("tool_result", "run_in_terminal", "exit code 1"),
            ("assistant", "", "Split bill() into three steps; the API stays."),
        ])
    );
    let chat_170: Vec<_> = of(170).into_iter().filter(|(kind, _, _)| kind == "user").collect();
    assert_eq!(chat_170.len(), 2, "the chat's two prompts, once each: {chat_170:?}");
    let kinds: Vec<(u64, String)> =
        out.diagnostics().iter().map(|d| (d["line"].as_u64().unwrap_or(0), str_of(&d["kind"]))).collect();
    let kinds: Vec<(u64, &str)> = kinds.iter().map(|(line, kind)| (*line, kind.as_str())).collect();
    // The two logs of session 170 with texts say they leave them to the chat (line 0: the file's).
    let held = [(0, "duplicate")];
    let main = [(7, "duplicate"), (10, "failed_request"), (11, "unparsable"), (13, "unparsable")];
    assert_eq!(kinds, [&held[..], &main, &held].concat());
}
