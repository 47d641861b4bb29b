//! The core compiled to WebAssembly and run in Node: the format specification's fixture gives
//! exactly the rows of the native run (the golden file the native tests check), and the
//! browser's `Engine`, driven step by step as the page drives it, gives the rows `analyze` gives.
//!
//! `cargo test --target wasm32-unknown-unknown --no-default-features --test wasm`

#![cfg(target_arch = "wasm32")]

use copilot_lens::analysis::{Options, Outputs, analyze};
use copilot_lens::input::memory::{MemoryRoot, MemoryRoots};
use copilot_lens::model::JsonlRowWriter;
use copilot_lens::page::wasm::Engine;
use js_sys::{Function, JSON, Uint8Array};
use serde_json::{Value, json};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

/// The modification time the native golden run gives every file (2026-10-01T09:05:00Z).
const FIXED_MTIME_MS: i64 = 1_790_845_500_000;

macro_rules! fixture_files {
    ($($path:literal),* $(,)?) => {
        [$(($path, include_bytes!(concat!("../fixtures/spec-sample/", $path)).as_slice())),*]
    };
}

/// The golden file's content without insta's header.
fn golden(snapshot: &str) -> &str {
    let body = snapshot.strip_prefix("---\n").expect("an insta snapshot");
    &body[body.find("---\n").unwrap() + 4..]
}

/// The files of the specification's fixture, by their paths in the home.
fn spec_fixture() -> Vec<(&'static str, &'static [u8])> {
    fixture_files![
        ".copilot/command-history-state.json",
        ".copilot/config.json",
        ".copilot/logs/process-1790845199000-4242.log",
        ".copilot/permissions-config.json",
        ".copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/checkpoints/index.md",
        ".copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/events.jsonl",
        ".copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/rewind-file-snapshots/index.json",
        ".copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/rewind-file-snapshots/tracking.json",
        ".copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/workspace.yaml",
        ".copilot/session-store.db",
        ".copilot/session-store.db-wal",
        ".copilot/settings.json",
        ".copilot/sidebar-sessions-state/6b9af143446a411aefa3edb76e4693799bd7513e7ed8d919962d6713d3d3b972.json",
    ]
    .to_vec()
}

/// The rows (JSONL) of `analyze` over one in-memory root holding `files`, and its outputs.
fn analyze_files(files: &[(&str, &[u8])]) -> (String, Outputs) {
    let mut root = MemoryRoot::new("home");
    for &(path, bytes) in files {
        root.insert(path, bytes, Some(FIXED_MTIME_MS));
    }
    let mut roots = MemoryRoots(vec![root]);
    let mut rows = JsonlRowWriter::new(Vec::new());
    let outputs =
        analyze(roots.listings(), &mut roots, Options { include_thinking: true, ..Options::default() }, &mut rows)
            .unwrap();
    (String::from_utf8(rows.finish().unwrap()).unwrap(), outputs)
}

fn analyzed_rows(files: &[(&str, &[u8])]) -> String {
    analyze_files(files).0
}

fn js(value: JsValue) -> Value {
    serde_json::from_str(&String::from(JSON::stringify(&value).unwrap())).unwrap()
}

fn fails(error: wasm_bindgen::JsError) -> String {
    format!("{:?}", JsValue::from(error))
}

/// The engine's answer to a request (`protocol::Request`), as the page asks.
fn ask(engine: &Engine, request: Value) -> Result<Value, String> {
    let answer = js(engine.ask(JSON::parse(&request.to_string()).unwrap()).map_err(fails)?);
    let asked = request.as_str().or_else(|| request.as_object()?.keys().next().map(String::as_str)).unwrap();
    // The page types each request's answer by its name (`AnswerTo` in www/messages.d.ts).
    assert_eq!(answer["answer"], asked, "an answer named as its request");
    Ok(answer["value"].clone())
}

fn export(engine: &Engine, what: &str) -> Result<String, String> {
    ask(engine, json!({"export": {"what": what, "session_id": ""}})).map(|text| text.as_str().unwrap().to_string())
}

fn need(engine: &Engine) -> Value {
    js(engine.need().map_err(fails).unwrap())
}

/// The rows (JSONL) of the browser's `Engine` over a folder of `files`, handed over the way
/// the page hands them: the files read as bytes, the logs one by one to `parse_log`, last
/// first (the page hands a zip's over in the archive's order; the rows keep the logs' order).
fn engine_rows(files: &[(&str, &[u8])]) -> String {
    export(&engine_run(files), "rows.jsonl").unwrap()
}

/// The `Engine` after `finish` and after the files it did not read were handed over as Blobs,
/// as the page hands them once the analysis is done; each step is the one the engine needs.
fn engine_run(files: &[(&str, &[u8])]) -> Engine {
    engine_run_listed(files, Listed::PathsOnly)
}

/// What a root's listing gives: its paths alone (a picked folder's), or each file's size and
/// time too (a remembered folder's), or those of the files an analysis opens alone (a
/// remembered folder's walk gets the others' Files after the analysis).
#[derive(PartialEq)]
enum Listed {
    PathsOnly,
    WithStats,
    WithStatsOfOpened,
}

fn engine_run_listed(files: &[(&str, &[u8])], listed: Listed) -> Engine {
    let bytes_of = |path: &str| Uint8Array::from(files.iter().find(|(at, _)| *at == path).unwrap().1);
    let options = js_sys::Object::new();
    js_sys::Reflect::set(&options, &"include_thinking".into(), &true.into()).unwrap();
    let mut engine = Engine::new(options.into()).map_err(fails).unwrap();
    assert_eq!(need(&engine), json!({"need": "roots"}));
    let paths: Vec<String> = files.iter().map(|(path, _)| path.to_string()).collect();
    let never_opened: Vec<&str> = match listed {
        Listed::WithStatsOfOpened => {
            copilot_lens::page::wasm::never_opened(paths.clone()).into_iter().map(|at| files[at as usize].0).collect()
        }
        _ => Vec::new(),
    };
    let stat = |path: &str, known: f64| if never_opened.contains(&path) { f64::NAN } else { known };
    let (sizes, times) = match listed {
        Listed::PathsOnly => (None, None),
        Listed::WithStats | Listed::WithStatsOfOpened => (
            Some(files.iter().map(|(path, bytes)| stat(path, bytes.len() as f64)).collect()),
            Some(files.iter().map(|(path, _)| stat(path, FIXED_MTIME_MS as f64)).collect()),
        ),
    };
    engine.add_listing("home".into(), paths, sizes, times).unwrap();
    let plan = js(engine.begin(Function::new_no_args("")).map_err(fails).unwrap());
    // The hand-over's steps: the files besides the logs (those read in parts as Files, or as
    // bytes while small; then the others as bytes), the logs beside the times and the files
    // read after the logs (both named by `read_metadata`), and once the analysis is done the times of the logs the cache made
    // entries for (none here: no cache), then the rest.
    let steps = plan["steps"].as_array().unwrap();
    let hows: Vec<(bool, Vec<&str>)> = (steps.iter())
        .map(|step| {
            let parts = step["parts"].as_array().unwrap();
            (step["after_done"] == true, parts.iter().map(|part| part["how"].as_str().unwrap()).collect())
        })
        .collect();
    let now = |hows: &[&'static str]| (false, hows.to_vec());
    assert_eq!(
        hows,
        [
            now(&["files", "bytes_up_to"]),
            now(&["bytes"]),
            now(&["logs", "times", "late_metadata"]),
            (true, vec!["files_after_done"])
        ]
    );
    assert_eq!(steps[0]["parts"][1]["max_bytes"], 1 << 20);
    // The files not read come after done for their sizes only where the listing did not give them.
    let sizes_from = if listed == Listed::PathsOnly { json!([0]) } else { json!([]) };
    assert_eq!(steps[3]["parts"][0]["sizes_from"], sizes_from);
    let sized_later: Vec<Value> = never_opened.iter().map(|path| json!({"root": 0, "path": path})).collect();
    assert_eq!(steps[3]["parts"][0]["files"], json!(sized_later));
    let (pages, lines, small, logs) = (
        &steps[0]["parts"][0]["files"],
        &steps[0]["parts"][1]["files"],
        &steps[1]["parts"][0]["files"],
        &steps[2]["parts"][0]["logs"],
    );
    // The metadata is read once the first two steps are given.
    assert_eq!(need(&engine), json!({"need": "files", "given": 2}));
    let mut handed: Vec<&str> = (pages.as_array().unwrap().iter())
        .chain(lines.as_array().unwrap())
        .chain(small.as_array().unwrap())
        .map(|file| file["path"].as_str().unwrap())
        .collect();
    for path in &handed {
        engine.give_bytes(0, path.to_string(), bytes_of(path)).map_err(fails).unwrap();
    }
    let asked = js(engine.read_metadata().map_err(fails).unwrap());
    if listed != Listed::PathsOnly {
        assert_eq!(asked["times"], json!([]), "the listing gave every file's time");
    }
    for file in asked["times"].as_array().unwrap() {
        engine.give_time(0, file["path"].as_str().unwrap(), FIXED_MTIME_MS as f64).map_err(fails).unwrap();
    }
    let late: Vec<&str> =
        (asked["late"].as_array().unwrap().iter()).map(|file| file["path"].as_str().unwrap()).collect();
    let give_late = |engine: &mut Engine| {
        for path in &late {
            engine.give_bytes(0, path.to_string(), bytes_of(path)).map_err(fails).unwrap();
        }
    };
    for (index, log) in logs.as_array().unwrap().iter().enumerate().rev() {
        assert_eq!(need(&engine), json!({"need": "logs", "left": index + 1}));
        assert_eq!(log["index"], index);
        let path = log["path"].as_str().unwrap();
        engine.parse_log(index, bytes_of(path).into(), None).map_err(fails).unwrap();
        handed.push(path);
        // The files read after the logs come while the logs are parsed.
        if index + 1 == logs.as_array().unwrap().len() {
            give_late(&mut engine);
        }
    }
    if logs.as_array().unwrap().is_empty() {
        give_late(&mut engine);
    }
    handed.extend(&late);
    assert_eq!(need(&engine), json!({"need": "last_files", "given": 3}));
    let summary = js(engine.finish().map_err(fails).unwrap());
    assert_eq!(need(&engine), json!({"need": "done", "given": 4}));
    assert_eq!(ask(&engine, json!("summary")).unwrap(), summary);
    let (blobs, paths) = (js_sys::Array::new(), js_sys::Array::new());
    let logs: Vec<&str> = logs.as_array().unwrap().iter().map(|log| log["path"].as_str().unwrap()).collect();
    let after_done = |path: &&str| match listed {
        Listed::PathsOnly => !handed.contains(path) || logs.contains(path),
        Listed::WithStats | Listed::WithStatsOfOpened => logs.contains(path) || never_opened.contains(path),
    };
    for (path, bytes) in files.iter().filter(|(path, _)| after_done(path)) {
        let parts = js_sys::Array::of1(&Uint8Array::from(*bytes));
        blobs.push(&web_sys::Blob::new_with_u8_array_sequence(&parts).unwrap());
        paths.push(&JsValue::from_str(path));
    }
    let paths = paths.iter().map(|path| path.as_string().unwrap()).collect();
    engine.give_files(0, blobs, paths).map_err(fails).unwrap();
    engine
}

#[wasm_bindgen_test]
fn the_spec_fixture_gives_the_native_rows() {
    let (rows, outputs) = analyze_files(&spec_fixture());
    assert_eq!(rows, golden(include_str!("golden/spec-sample__rows.jsonl.snap")));
    assert_eq!(outputs.report.totals.secondary_rows_deduplicated, 6);
}

#[wasm_bindgen_test]
fn the_engine_gives_the_rows_analyze_gives() {
    let spec = spec_fixture();
    assert_eq!(engine_rows(&spec), analyzed_rows(&spec));
}

/// The sizes of the files the engine never read (handed over after `finish`) complete its
/// report: files of the home not wanted, an excluded tree, files outside `.copilot`.
#[wasm_bindgen_test]
fn sizes_given_after_finish_complete_the_report() {
    let mut files = spec_fixture();
    files.push((".copilot/pkg/linux-x64/1.0.102/cli-main.js", b"console.log('the CLI itself');\n"));
    files.push(("Documents/notes.txt", b"not Copilot's"));
    let engine_report: Value = serde_json::from_str(&export(&engine_run(&files), "report.json").unwrap()).unwrap();
    let native_report = serde_json::to_value(&analyze_files(&files).1.report).unwrap();
    assert_eq!(engine_report, native_report);
    let sizes: Vec<u64> =
        engine_report["files"].as_array().unwrap().iter().map(|file| file["size"].as_u64().unwrap()).collect();
    assert!(sizes.iter().all(|&size| size > 0), "{sizes:?}");
    assert!(engine_report["excluded_trees"][0]["bytes"].as_u64().unwrap() > 0);
    assert_eq!(engine_report["roots"][0]["outside_bytes"], 13);
}

/// A listing that gives each file's size and time (a remembered folder's) makes the report and
/// the rows a picked folder's does, with only the logs handed over after `finish`.
#[wasm_bindgen_test]
fn a_listing_with_sizes_and_times_needs_only_the_logs_after_finish() {
    let mut files = spec_fixture();
    files.push((".copilot/pkg/linux-x64/1.0.102/cli-main.js", b"console.log('the CLI itself');\n"));
    files.push(("Documents/notes.txt", b"not Copilot's"));
    let engine = engine_run_listed(&files, Listed::WithStats);
    let native = analyze_files(&files).1;
    let report: Value = serde_json::from_str(&export(&engine, "report.json").unwrap()).unwrap();
    assert_eq!(report, serde_json::to_value(&native.report).unwrap());
    assert_eq!(export(&engine, "rows.jsonl").unwrap(), analyzed_rows(&files));
    assert_eq!(report["roots"][0]["outside_bytes"], 13, "counted once, from the listing");
}

/// A remembered folder's walk gets no File for the files no analysis opens (a File costs a
/// round trip to the browser): their sizes come after `finish` and the report is the same.
#[wasm_bindgen_test]
fn a_listing_without_the_never_opened_files_stats_learns_their_sizes_after_finish() {
    let mut files = spec_fixture();
    files.push((".copilot/pkg/linux-x64/1.0.102/cli-main.js", b"console.log('the CLI itself');\n"));
    files.push(("Documents/notes.txt", b"not Copilot's"));
    let paths = files.iter().map(|(path, _)| path.to_string()).collect();
    let later = copilot_lens::page::wasm::never_opened(paths);
    assert!(later.len() >= 3, "the excluded tree, a secret and a file not wanted at least: {later:?}");
    let engine = engine_run_listed(&files, Listed::WithStatsOfOpened);
    let native = analyze_files(&files).1;
    let report: Value = serde_json::from_str(&export(&engine, "report.json").unwrap()).unwrap();
    assert_eq!(report, serde_json::to_value(&native.report).unwrap());
    assert_eq!(export(&engine, "rows.jsonl").unwrap(), analyzed_rows(&files));
    assert!(report["excluded_trees"][0]["bytes"].as_u64().unwrap() > 0);
}

/// A log whose first lines come before any working directory: its rows take the project from
/// workspace.yaml, which the engine reads before the logs.
#[wasm_bindgen_test]
fn rows_before_a_logs_first_directory_take_the_workspace_project() {
    let session = ".copilot/session-state/0b0e0000-0000-4000-8000-000000000001";
    let workspace = format!("{session}/workspace.yaml");
    let log = format!("{session}/events.jsonl");
    let files: Vec<(&str, &[u8])> = vec![
        (&workspace, b"id: 0b0e0000-0000-4000-8000-000000000001\ncwd: /from/workspace\n"),
        (
            &log,
            br#"{"id":"u1","timestamp":"2026-10-01T09:00:00.000Z","type":"user.message","data":{"content":"hello"}}
{"id":"a1","timestamp":"2026-10-01T09:00:01.000Z","type":"assistant.message","data":{"content":"hi"}}
"#,
        ),
    ];
    let rows = engine_rows(&files);
    assert_eq!(rows, analyzed_rows(&files));
    let from_log: Vec<&str> = rows.lines().filter(|row| row.contains("events.jsonl")).collect();
    assert_eq!(from_log.len(), 2);
    assert!(from_log.iter().all(|row| row.contains(r#""project_path":"/from/workspace""#)), "{rows}");
}

/// Logs handed over last first (as a zip's come, in the archive's order) give the rows in the
/// logs' order, with the facts of each session, as `analyze` gives them.
#[wasm_bindgen_test]
fn logs_handed_over_in_any_order_give_the_rows_in_the_logs_order() {
    let logs: Vec<(String, String)> = (1..=3)
        .map(|n| {
            let id = format!("0b0e0000-0000-4000-8000-00000000000{n}");
            let log = format!(
                r#"{{"id":"s{n}","timestamp":"2026-10-0{n}T09:00:00.000Z","type":"session.start","data":{{"sessionId":"{id}","context":{{"cwd":"/p{n}"}}}}}}
{{"id":"u{n}","timestamp":"2026-10-0{n}T09:00:01.000Z","type":"user.message","data":{{"content":"prompt {n}"}}}}
"#
            );
            (format!(".copilot/session-state/{id}/events.jsonl"), log)
        })
        .collect();
    let files: Vec<(&str, &[u8])> = logs.iter().map(|(path, log)| (path.as_str(), log.as_bytes())).collect();
    let rows = engine_rows(&files);
    assert_eq!(rows, analyzed_rows(&files));
    let prompts: Vec<&str> = rows.lines().filter(|row| row.contains("prompt ")).collect();
    assert!(prompts[0].contains("prompt 1") && prompts[2].contains("prompt 3"), "{rows}");
}

/// VS Code chat sessions (a replayed `.jsonl`, its leftover `.json` beside it, a `.json` alone,
/// the workspace's folder) give in the engine the rows `analyze` gives.
#[wasm_bindgen_test]
fn vs_code_chat_sessions_give_the_rows_analyze_gives() {
    let storage = ".config/Code/User/workspaceStorage/ab12";
    let request = |text: &str| {
        format!(
            r#"{{"requestId":"{text}","timestamp":1790000000000,"modelId":"copilot/gpt-5","message":{{"text":"{text}"}},"response":[{{"value":"re: {text}"}}]}}"#
        )
    };
    let log = format!(
        "{}\n{}\n",
        format!(r#"{{"kind":0,"v":{{"requests":[{},{}]}}}}"#, request("first"), request("replaced")),
        format!(r#"{{"kind":2,"k":["requests"],"v":[{}],"i":1}}"#, request("retried")),
    );
    let leftover = format!(r#"{{"requests":[{}]}}"#, request("leftover"));
    let alone = format!(r#"{{"version":3,"requests":[{}]}}"#, request("older build"));
    let paths = [
        format!("{storage}/workspace.json"),
        format!("{storage}/chatSessions/a.jsonl"),
        format!("{storage}/chatSessions/a.json"),
        format!("{storage}/chatSessions/b.json"),
    ];
    let contents = [r#"{"folder":"file:///home/mona/app"}"#.to_string(), log, leftover, alone];
    let files: Vec<(&str, &[u8])> =
        paths.iter().map(String::as_str).zip(contents.iter().map(String::as_bytes)).collect();
    let rows = engine_rows(&files);
    assert_eq!(rows, analyzed_rows(&files));
    let users: Vec<Value> = rows
        .lines()
        .map(|row| serde_json::from_str::<Value>(row).unwrap())
        .filter(|row| row["turn_type"] == "user")
        .collect();
    let texts: Vec<&str> = users.iter().map(|row| row["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["first", "retried", "older build"]);
    assert!(users.iter().all(|row| row["agent"] == "copilot-vscode" && row["project_path"] == "/home/mona/app"));
}

/// A session's log in two homes, handed over later copy first: the later copy waits for the
/// first, and the rows are those `analyze` gives, each once.
#[wasm_bindgen_test]
fn a_later_copy_handed_over_first_waits_for_the_first() {
    let id = "0b0e0000-0000-4000-8000-000000000009";
    let whole = format!(
        r#"{{"id":"s","timestamp":"2026-10-01T09:00:00.000Z","type":"session.start","data":{{"sessionId":"{id}"}}}}
{{"id":"u1","timestamp":"2026-10-01T09:00:01.000Z","type":"user.message","data":{{"content":"prompt 1"}}}}
{{"id":"u2","timestamp":"2026-10-01T09:00:02.000Z","type":"user.message","data":{{"content":"prompt 2"}}}}
"#
    );
    let cut: String = whole.split_inclusive('\n').take(2).collect();
    let (first, later) = (
        format!("machineA/.copilot/session-state/{id}/events.jsonl"),
        format!("machineB/.copilot/session-state/{id}/events.jsonl"),
    );
    let files: Vec<(&str, &[u8])> = vec![(first.as_str(), cut.as_bytes()), (later.as_str(), whole.as_bytes())];
    let rows = engine_rows(&files);
    assert_eq!(rows, analyzed_rows(&files));
    assert_eq!(rows.lines().filter(|row| row.contains("prompt ")).count(), 2, "{rows}");
}

/// Rows reach the page with their meaning (`mark`), and a long text that cannot be read again
/// whole says why instead of passing as whole.
#[wasm_bindgen_test]
fn rows_carry_their_mark_and_a_text_not_read_again_says_why() {
    let shown = |engine: &Engine| {
        ask(engine, json!({"rows": {"filter": {}, "offset": 0, "limit": 1000, "text_limit": 0}})).unwrap()
    };
    let spec = shown(&engine_run(&spec_fixture()));
    let marks: Vec<&str> = spec["rows"].as_array().unwrap().iter().map(|row| row["mark"].as_str().unwrap()).collect();
    for mark in ["bad_line", "permission_request", "permission_granted", "permission_setting", "plain"] {
        assert!(marks.contains(&mark), "{mark} in {marks:?}");
    }

    // A log that cannot be opened again: here the test runner's (Node's), where a Blob cannot be
    // read (no FileReaderSync). The long text stays cut and says why; an export refuses it.
    let log = ".copilot/session-state/0b0e0000-0000-4000-8000-000000000002/events.jsonl";
    let first =
        r#"{"id":"u1","timestamp":"2026-10-01T09:00:00.000Z","type":"user.message","data":{"content":"hello"}}"#;
    let second = format!(
        r#"{{"id":"a1","timestamp":"2026-10-01T09:00:01.000Z","type":"assistant.message","data":{{"content":"{}"}}}}"#,
        "x".repeat(2000)
    );
    let lines = format!("{first}\n{second}\n");
    let engine = engine_run(&[(log, lines.as_bytes())]);
    let row = &shown(&engine)["rows"][1];
    assert_eq!((row["text_cut"].as_bool(), row["text"].as_str().map(str::len)), (Some(true), Some(512)));
    assert!(row["text_error"].as_str().unwrap().starts_with(&format!("{log}: cannot open it again")), "{row}");
    assert!(export(&engine, "rows.jsonl").unwrap_err().contains("could not be read again whole"));
}

/// The page's usage view carries the `implausible_counter` flag on the rows and totals whose
/// figures left a counter out, names the sessions, and lists the lines to check, as the native
/// outputs do.
#[wasm_bindgen_test]
fn the_usage_view_flags_counters_left_out() {
    macro_rules! implausible_fixture {
        ($($session:literal),*) => {
            [$((
                concat!(".copilot/session-state/", $session, "/events.jsonl"),
                include_bytes!(concat!("../fixtures/usage/implausible-counters/.copilot/session-state/", $session, "/events.jsonl")).as_slice(),
            )),*]
        };
    }
    let files = implausible_fixture![
        "1a1a1a1a-0000-4000-8000-000000000021",
        "1a1a1a1a-0000-4000-8000-000000000022",
        "1a1a1a1a-0000-4000-8000-000000000023"
    ];
    let usage = |engine: &Engine, by: &str, agent: &str| {
        ask(engine, json!({"usage": {"by": by, "since": "", "until": "", "agent": agent}}))
    };
    let view = usage(&engine_run(&files), "day", "").unwrap();
    let flagged: Vec<(&str, &str)> = view["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["flags"].as_array().unwrap().iter().any(|flag| flag == "implausible_counter"))
        .map(|row| (row["day"].as_str().unwrap(), row["model"].as_str().unwrap()))
        .collect();
    assert_eq!(
        flagged,
        [
            ("2026-10-15", "claude-sonnet-4.5"),
            ("2026-10-15", "gpt-5-mini"),
            ("2026-10-15", "gpt-5.4"),
            ("2026-10-15", "gpt-5.4-nano"),
            ("2026-10-17", "gpt-5.4")
        ]
    );
    assert_eq!(view["totals"]["counted"]["flags"], serde_json::json!(["implausible_counter"]));
    assert_eq!(view["implausible_counter_sessions"].as_array().unwrap().len(), 3);
    // The lines to check, as the report names them: (session id's end, line, kind).
    let lines: Vec<(&str, u64, &str)> = view["counter_problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|problem| {
            let file = problem["file"].as_str().unwrap();
            let session = file.trim_end_matches("/events.jsonl");
            (&session[session.len() - 2..], problem["line"].as_u64().unwrap(), problem["kind"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        lines,
        [
            ("21", 3, "implausible_counter"),
            ("22", 2, "implausible_counter"),
            ("22", 2, "implausible_counter"),
            ("22", 2, "implausible_counter"),
            ("23", 2, "implausible_counter"),
            ("23", 3, "implausible_counter")
        ]
    );
    // No row carries a saturated count.
    assert!(view["rows"].as_array().unwrap().iter().all(|row| row["input"].as_u64().unwrap() < 1_000_000_000_000));

    // Split by agent, and of one agent: the same totals; an agent no source has is an error.
    let engine = engine_run(&files);
    let by_agent = usage(&engine, "agent", "").unwrap();
    assert!(
        by_agent["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|row| row["agent"] == "copilot-cli" && row.get("day").is_none())
    );
    let of_cli = usage(&engine, "day", "copilot-cli").unwrap();
    assert_eq!((&by_agent["totals"], &of_cli["totals"]), (&view["totals"], &view["totals"]));
    assert_eq!(of_cli["rows"], view["rows"]);
    let unknown = usage(&engine, "day", "nobody").unwrap_err();
    assert!(unknown.contains("unknown agent \"nobody\""), "{unknown}");
}

/// The Month view's allowance is read in the core, as the CLI's `--allowance` is: what a person
/// types (`1,500`), nothing for a blank field, and the rest refused in the same words.
#[wasm_bindgen_test]
fn the_month_takes_an_allowance_as_typed_and_refuses_the_rest_as_the_cli_does() {
    let engine = engine_run(&spec_fixture());
    let month = |allowance: Value| {
        ask(&engine, json!({"month": {"month": "2026-10-01", "today": "2026-10-20", "allowance": allowance}}))
    };
    assert_eq!(month(json!("1,500")).unwrap()["allowance"], 1500.0);
    assert_eq!(month(json!(" ")).unwrap()["allowance"], Value::Null);
    for typed in ["5e2", "0", "-3", "inf"] {
        let refused = month(json!(typed)).unwrap_err();
        assert!(refused.contains(&format!("{typed:?} is not an allowance: give a number of AI credits")), "{refused}");
    }
}
