//! `copilot-lens watch` (issue 54): the view printed once, and a real process of the binary that
//! updates its view when a line is appended to a session's log, as Copilot writes one.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The fixture's one session: 28.95 credits on Oct 6 and 27.81 on Oct 7, its last call at
/// 2026-10-07T09:00:10Z (tests/credits.rs works them out).
const FIXTURE: &str = "credits/01-billed-two-days";

fn scratch_home() -> (tempfile::TempDir, PathBuf) {
    let scratch = tempfile::tempdir().unwrap();
    common::copy_tree(&common::fixture(FIXTURE), &scratch.path().join("home"));
    let home = scratch.path().join("home");
    (scratch, home)
}

fn watch(scratch: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_copilot-lens"));
    command
        .current_dir(scratch)
        .env("COPILOT_LENS_CACHE", scratch.join("cache"))
        .env("COPILOT_LENS_CONFIG", scratch.join("no-config.json"))
        .env_remove("COPILOT_HOME")
        .arg("watch")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

fn golden(name: &str, text: &str) {
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/watch");
    insta::with_settings!({ snapshot_path => snapshots, prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn once_prints_the_day_and_month_against_their_budgets_and_the_sessions_active_in_the_last_hour() {
    let (scratch, home) = scratch_home();
    let home = home.to_str().unwrap();
    let at = |now: &str| {
        let args = ["--once", home, "--now", now, "--budget-day", "30", "--allowance", "1000", "--color", "always"];
        let output = watch(scratch.path(), &args).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap().replace(home, "<home>").replace('\x1b', "<ESC>")
    };
    // Half an hour after the session's last call: active, 27.81 of a 30 budget (yellow).
    golden("once-active", &at("2026-10-07T09:30:00Z"));
    // Two hours after: no longer active, the same figures.
    let later = at("2026-10-07T11:00:00Z");
    assert!(later.contains("no session made a model call in the last hour"), "{later}");
    assert!(later.contains("27.81 / 30 today"), "{later}");
}

/// The watch's stdout, a line at a time, read on a thread so that a wait can give up.
struct Lines {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Lines {
    fn spawn(mut command: Command) -> Lines {
        let mut child = command.spawn().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Lines { child, lines }
    }

    /// The next whole view (its lines up to the blank line after it); panics when none comes
    /// within a minute, with what came.
    fn next_view(&self) -> String {
        let mut view = String::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(60)) {
                Ok(line) if line.is_empty() && view.contains("Calls as they arrive") => return view,
                Ok(line) => {
                    view.push_str(&line);
                    view.push('\n');
                }
                Err(_) => panic!("no whole view within a minute; so far:\n{view}"),
            }
        }
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_call_appended_to_a_log_arrives_in_the_view_and_adds_to_the_day() {
    let (scratch, home) = scratch_home();
    let log = common::files_below(&home).into_iter().find(|path| path.ends_with("events.jsonl")).unwrap();
    // Written ten minutes ago: the first update keeps its scan in memory for the next ones
    // (a log written within the minute is scanned again anyway), which must still see the call.
    let ten_minutes_ago = std::time::SystemTime::now() - Duration::from_secs(600);
    std::fs::File::options().append(true).open(&log).unwrap().set_modified(ten_minutes_ago).unwrap();
    let watching = Lines::spawn(watch(scratch.path(), &[home.to_str().unwrap(), "--color", "never"]));
    let first = watching.next_view();
    assert!(first.contains("none since the watch began"), "{first}");

    // A call made now, as Copilot CLI 1.0.102 records one, appended in two writes.
    let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
    let line = serde_json::json!({
        "type": "session.usage_record",
        "data": {"usage": {"model": "gpt-5.4", "inputTokens": 1000, "outputTokens": 10, "copilotUsage": {"totalNanoAiu": 2_500_000_000u64}}},
        "id": "c1000001-0100-4000-8000-000000000100",
        "timestamp": now,
    })
    .to_string();
    let (head, tail) = line.split_at(40);
    let append = |text: &str| {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        file.write_all(text.as_bytes()).unwrap();
    };
    append(head);
    append(&format!("{tail}\n"));
    // The view the change brings (a timer's update in between would show no arrival yet).
    let view = (0..3)
        .map(|_| watching.next_view())
        .find(|view| !view.contains("none since the watch began"))
        .expect("a view with the call");
    assert!(view.contains("2.50 today"), "the day's credits are the call's:\n{view}");
    assert!(view.contains("c1000001  gpt-5.4  1 call  +2.50 cr"), "the call arrived:\n{view}");
    assert!(view.contains("c1000001       59.26 cr  gpt-5.4"), "the session is active, with all its credits:\n{view}");
    assert!(view.contains("updated in "), "a live view says what its update took:\n{view}");

    // A new session's log (a folder made, then written): not a log of the last run, so the
    // update is a whole run, which finds it; then a call appended to it counts that session again.
    let record = |id: &str, nano_aiu: u64| {
        let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
        let usage = serde_json::json!({"model": "claude-sonnet-4.5", "inputTokens": 500, "outputTokens": 5, "copilotUsage": {"totalNanoAiu": nano_aiu}});
        format!(
            "{}\n",
            serde_json::json!({"type": "session.usage_record", "data": {"usage": usage}, "id": id, "timestamp": now})
        )
    };
    let folder = log.parent().unwrap().with_file_name("c2000002-0200-4000-8000-000000000200");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("events.jsonl"), record("c2000002-0200-4000-8000-000000000201", 1_500_000_000)).unwrap();
    let next_with = |wanted: &str| (0..4).map(|_| watching.next_view()).find(|view| view.contains(wanted));
    let view = next_with("+1.50 cr").expect("a view with the new session's call");
    assert!(view.contains("4.00 today"), "the new session's call adds to the day:\n{view}");
    assert!(view.contains("c2000002  claude-sonnet-4.5  1 call  +1.50 cr"), "{view}");
    let mut file = std::fs::OpenOptions::new().append(true).open(folder.join("events.jsonl")).unwrap();
    std::io::Write::write_all(&mut file, record("c2000002-0200-4000-8000-000000000202", 750_000_000).as_bytes())
        .unwrap();
    let view = next_with("+0.75 cr").expect("a view with the appended call");
    assert!(view.contains("4.75 today"), "{view}");
    assert!(view.contains("c2000002        2.25 cr  claude-sonnet-4.5"), "the session has both calls:\n{view}");
}

/// Copilot CLI writes each call to its log and, as a row, to the session store (SQLite, into its
/// write-ahead log). A call written both ways counts once; a call of a session whose log was
/// deleted is in the store alone, and counts too.
#[test]
fn a_call_written_to_the_session_store_counts_once_and_a_store_alone_call_counts() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    common::copy_tree(&common::fixture("usage/deleted-session"), &home);
    let (with_a_log, store_alone) = ("a2a2a2a2-0000-4000-8000-000000000010", "77777777-0000-4000-8000-000000000008");
    let watching = Lines::spawn(watch(scratch.path(), &[home.to_str().unwrap(), "--color", "never"]));
    assert!(watching.next_view().contains("none since the watch began"));

    let store = rusqlite::Connection::open(home.join(".copilot/session-store.db")).unwrap();
    // Copilot keeps its connection open: the log is not checkpointed into the main file.
    store.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true).unwrap();
    let now = || chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
    let add_row = |session: &str, nano_aiu: u64| {
        let sql = "INSERT INTO assistant_usage_events (session_id, model, input_tokens, output_tokens, \
                   total_nano_aiu, created_at) VALUES (?1, 'gpt-5.4', 1000, 10, ?2, ?3)";
        store.execute(sql, (session, nano_aiu as i64, now())).unwrap();
    };
    let next_with = |wanted: &str| (0..4).map(|_| watching.next_view()).find(|view| view.contains(wanted));

    let usage = serde_json::json!({"model": "gpt-5.4", "inputTokens": 1000, "outputTokens": 10, "copilotUsage": {"totalNanoAiu": 2_000_000_000u64}});
    let record =
        serde_json::json!({"type": "session.usage_record", "data": {"usage": usage}, "id": "r2", "timestamp": now()});
    let log = home.join(format!(".copilot/session-state/{with_a_log}/events.jsonl"));
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(&mut file, format!("{record}\n").as_bytes()).unwrap();
    add_row(with_a_log, 2_000_000_000);
    let view = next_with("+2.00 cr").expect("a view with the call");
    assert!(view.contains("a2a2a2a2  gpt-5.4  1 call  +2.00 cr"), "{view}");
    assert!(view.contains("2.00 today"), "the call counts once:\n{view}");

    add_row(store_alone, 3_000_000_000);
    let view = next_with("+3.00 cr").expect("a view with the store's call");
    assert!(view.contains("77777777  gpt-5.4  1 call  +3.00 cr"), "{view}");
    assert!(view.contains("5.00 today"), "{view}");
}
