//! What a limit or a layout used to drop without need: a VS Code `state.vscdb` far over the
//! size read whole (real profiles hold every extension's state), and a home's zip inside a
//! dropped folder. Each is read, natively; the browser tests check the page against these.

mod common;

use std::fs;
use std::path::Path;

use common::{copy_tree, fixture, read, run, zip_tree};

const CHAT_ID: &str = "c0de0901-0000-4000-8000-000000000901";
/// Over the 64 MiB that files read whole may have.
const FILLER_BYTES: i64 = 100 << 20;

/// A VS Code home whose workspace `state.vscdb` holds the chat index and 100 MiB of other
/// extensions' state, with the chat beside it.
fn home_with_a_large_state_database(home: &Path) {
    let workspace = home.join(".config/Code/User/workspaceStorage/large");
    fs::create_dir_all(workspace.join("chatSessions")).unwrap();
    let log = format!(r#"{{"kind":0,"v":{{"sessionId":"{CHAT_ID}","requests":[{{"message":{{"text":"hello"}}}}]}}}}"#);
    fs::write(workspace.join(format!("chatSessions/{CHAT_ID}.jsonl")), log).unwrap();
    let database = rusqlite::Connection::open(workspace.join("state.vscdb")).unwrap();
    database.execute_batch("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)").unwrap();
    let index = format!(r#"{{"version":1,"entries":{{"{CHAT_ID}":{{"title":"Titled in a large profile"}}}}}}"#);
    database.execute("INSERT INTO ItemTable VALUES ('chat.ChatSessionStore.index', ?1)", [index]).unwrap();
    database.execute("INSERT INTO ItemTable VALUES ('some.extension.cache', zeroblob(?1))", [FILLER_BYTES]).unwrap();
}

fn chat_index_status(out: &Path) -> String {
    let report: serde_json::Value = serde_json::from_str(&read(&out.join("report.json"))).unwrap();
    let files = report["files"].as_array().unwrap();
    let index = files.iter().find(|file| file["kind"] == "chat_index").expect("the chat index is in the report");
    format!("{} {}", index["status"].as_str().unwrap(), index["size"])
}

#[test]
fn a_state_database_over_the_whole_file_limit_keeps_its_chat_titles() {
    let scratch = tempfile::tempdir().unwrap();
    home_with_a_large_state_database(&scratch.path().join("home"));
    let size =
        fs::metadata(scratch.path().join("home/.config/Code/User/workspaceStorage/large/state.vscdb")).unwrap().len();
    assert!(size > FILLER_BYTES as u64, "the database is {size} bytes");
    // As a folder (its pages read as SQLite asks for them) and as a zip (read whole).
    zip_tree(&scratch.path().join("home"), &scratch.path().join("home.zip"), "", "/");
    for root in ["home", "home.zip"] {
        let out = scratch.path().join(format!("out-{root}"));
        let output = run(scratch.path(), &["analyze", root, "--out", out.to_str().unwrap()]);
        assert!(output.status.success(), "{root}: {}", String::from_utf8_lossy(&output.stderr));
        let sessions = read(&out.join("sessions.jsonl"));
        assert!(sessions.contains(r#""name":"Titled in a large profile""#), "{root}: {sessions}");
        assert_eq!(chat_index_status(&out), format!("read {size}"), "{root}");
    }
}

/// A folder holding a zip of a home (with Copilot CLI and VS Code data in it) and nothing else
/// reads as that zip does, for `analyze` and `usage`; a zip beside a home is a second root,
/// while a zip inside the home's Copilot folders stays that home's file.
#[test]
fn zips_in_a_dropped_folder_are_read_as_roots() {
    let scratch = tempfile::tempdir().unwrap();
    let dropped = scratch.path().join("dropped");
    fs::create_dir_all(&dropped).unwrap();
    zip_tree(&fixture("vscode/beside-cli"), &dropped.join("laptop.zip"), "", "/");
    fs::write(dropped.join("notes.txt"), "not Copilot's").unwrap();

    let analyze = |root: &str, out: &str| {
        let output = run(scratch.path(), &["analyze", root, "--out", out]);
        assert!(output.status.success(), "{root}: {}", String::from_utf8_lossy(&output.stderr));
        let out = scratch.path().join(out);
        ["rows.jsonl", "sessions.jsonl", "usage.jsonl", "inventory.json"].map(|name| read(&out.join(name)))
    };
    let from_folder = analyze("dropped", "out-folder");
    let from_zip = analyze("dropped/laptop.zip", "out-zip");
    assert!(from_zip[0].lines().count() > 10 && from_zip[2].contains("copilot-vscode"), "{}", from_zip[2]);
    assert_eq!(from_folder, from_zip);

    let usage = |root: &str| {
        let output = run(scratch.path(), &["usage", root, "--json"]);
        assert!(output.status.success(), "{root}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let (folder_usage, zip_usage) = (usage("dropped"), usage("dropped/laptop.zip"));
    assert!(zip_usage.contains("copilot-cli") && zip_usage.contains("copilot-vscode"), "{zip_usage}");
    assert_eq!(folder_usage, zip_usage);

    // Beside a home: both are read, each as its own home; the session's artifact zip is not.
    let beside = scratch.path().join("beside");
    copy_tree(&fixture("spec-sample"), &beside.join("desktop"));
    let artifacts = fs::read_dir(beside.join("desktop/.copilot/session-state"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.is_dir())
        .unwrap()
        .join("files");
    fs::create_dir_all(&artifacts).unwrap();
    fs::copy(dropped.join("laptop.zip"), artifacts.join("bundle.zip")).unwrap();
    fs::copy(dropped.join("laptop.zip"), beside.join("laptop.zip")).unwrap();
    let output = run(scratch.path(), &["analyze", "beside", "--out", "out-beside"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&read(&scratch.path().join("out-beside/report.json"))).unwrap();
    let roots: Vec<&str> =
        report["roots"].as_array().unwrap().iter().map(|root| root["label"].as_str().unwrap()).collect();
    assert_eq!(roots, ["beside", "beside/laptop.zip"]);
    let sessions = read(&scratch.path().join("out-beside/sessions.jsonl"));
    let laptop_sessions = read(&scratch.path().join("out-folder/sessions.jsonl"));
    let spec_sessions = analyze_alone(&scratch.path().join("beside/desktop"));
    assert_eq!(sessions.lines().count(), laptop_sessions.lines().count() + spec_sessions, "{sessions}");
}

fn analyze_alone(home: &Path) -> usize {
    let out = home.parent().unwrap().parent().unwrap().join("out-desktop");
    let output = run(home.parent().unwrap(), &["analyze", home.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    read(&out.join("sessions.jsonl")).lines().count()
}

/// A zip of a folder that cannot be read is left out with a warning and the rest is read; a
/// folder of nothing but such zips is refused with every reason.
#[test]
fn a_folder_zip_that_cannot_be_read_is_left_out_with_a_warning() {
    let scratch = tempfile::tempdir().unwrap();
    for case in ["zips", "not-zips"] {
        copy_tree(&fixture(&format!("hostile/{case}")), &scratch.path().join(case));
    }
    let output = run(scratch.path(), &["analyze", "zips", "--out", "out"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let left_out: Vec<&str> = stderr.lines().filter(|line| line.starts_with("copilot-lens: warning: ")).collect();
    assert_eq!(left_out.len(), 3, "{stderr}");
    for name in ["truncated.zip: this zip archive is cut short", "tar-gz-in-zip.zip: ", "zip-in-zip-in-zip.zip: "] {
        assert!(
            left_out.iter().any(|line| line.contains(&format!("zips/{name}")) && line.ends_with("(left out)")),
            "{stderr}"
        );
    }
    let report: serde_json::Value = serde_json::from_str(&read(&scratch.path().join("out/report.json"))).unwrap();
    assert_eq!(report["roots"].as_array().unwrap().len(), 10, "the other zips are read: {}", report["roots"]);

    let output = run(scratch.path(), &["usage", "not-zips"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("not-zips/tar-gz.zip: this is a gzip-compressed tar archive") && stderr.contains("; "),
        "{stderr}"
    );
}
