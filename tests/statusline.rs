//! `copilot-lens statusline` (issue 54) as Copilot CLI runs it: a real process of the binary,
//! the payload on stdin, the line on stdout; its fallback line whatever goes wrong; the
//! settings.json lines of --print-config; and `usage`'s budgets' exit status.

mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const SESSION: &str = "aaaaaaaa-0000-4000-8000-000000000001";

/// A scratch home copied from the fixture whose one session used 3.93 credits on Oct 1 and 4.50
/// on Oct 2 (tests/usage.rs works them out), with a cache folder beside it.
fn home() -> (tempfile::TempDir, PathBuf) {
    let scratch = tempfile::tempdir().unwrap();
    common::copy_tree(&common::fixture("usage/resumed-two-days"), &scratch.path().join("home"));
    let home = scratch.path().join("home/.copilot");
    (scratch, home)
}

/// The status line's process: `payload` on stdin, the cache in the scratch folder, the config
/// file a missing one unless `env` says otherwise.
fn statusline(scratch: &Path, payload: &[u8], args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_copilot-lens"));
    command
        .current_dir(scratch)
        .env("COPILOT_LENS_CACHE", scratch.join("cache"))
        .env("COPILOT_LENS_CONFIG", scratch.join("no-config.json"))
        .env_remove("NO_COLOR")
        .env_remove("COPILOT_HOME")
        .arg("statusline")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(payload).unwrap();
    child.wait_with_output().unwrap()
}

/// Makes the home's month snapshot, as a status line's background refresh does, and waits for it.
fn warm(scratch: &Path, home: &Path, today: &str) {
    let args = ["--refresh-snapshot", "--home", home.to_str().unwrap(), "--today", today];
    let output = statusline(scratch, b"", &args, &[]);
    assert_eq!((output.status.code(), output.stdout.as_slice()), (Some(0), &b""[..]));
}

/// Copilot CLI 1.0.102's payload (its fields as the package writes them), for the session.
fn payload(home: &Path) -> Vec<u8> {
    let state = home.join("session-state").join(SESSION);
    serde_json::json!({
        "cwd": "/work/demo",
        "session_id": SESSION,
        "session_name": null,
        "transcript_path": state,
        "model": {"id": "gpt-5.4", "display_name": "GPT-5.4", "auto_tier": null, "pending_auto_tier": null},
        "workspace": {"current_dir": "/work/demo"},
        "username": "octocat",
        "remote": {"connected": false},
        "version": "1.0.102",
        "cost": {"total_api_duration_ms": 1200, "total_lines_added": 0, "total_lines_removed": 0,
                 "total_duration_ms": 5000, "total_premium_requests": 3},
        "context_window": {"total_input_tokens": 52000, "total_output_tokens": 2200},
        "ai_used": {"total_nano_aiu": 0, "formatted": "0"},
        "allow_all_enabled": false
    })
    .to_string()
    .into_bytes()
}

/// A whole output as a golden file under tests/golden/statusline/.
fn golden(name: &str, text: &str) {
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/statusline");
    insta::with_settings!({ snapshot_path => snapshots, prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, text);
    });
}

fn line(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn the_line_shows_the_session_the_day_and_the_month_from_the_payload() {
    let (scratch, home) = home();
    warm(scratch.path(), &home, "2026-10-02");
    let args = ["--today", "2026-10-02", "--allowance", "10", "--color", "never"];
    let shown = line(&statusline(scratch.path(), &payload(&home), &args, &[]));
    golden("plain", &shown);
    // Colours on a pipe by default (Copilot shows them): the month at 84% of 10 is yellow, the
    // day at 100% of its budget of 4.5 red.
    let coloured = statusline(
        scratch.path(),
        &payload(&home),
        &["--today", "2026-10-02", "--allowance", "10", "--budget-day", "4.5"],
        &[],
    );
    golden("coloured", &line(&coloured).replace('\x1b', "<ESC>"));
    // NO_COLOR turns them off; --color always turns them on again.
    let asked = ["--today", "2026-10-02", "--allowance", "10"];
    let plain = line(&statusline(scratch.path(), &payload(&home), &asked, &[("NO_COLOR", "1")]));
    assert!(!plain.contains('\x1b'), "{plain}");
    let forced = statusline(
        scratch.path(),
        &payload(&home),
        &[&asked[..], &["--color", "always"]].concat(),
        &[("NO_COLOR", "1")],
    );
    assert!(line(&forced).contains("\x1b[33m"));
}

#[test]
fn the_home_is_the_payloads_and_the_budgets_come_from_the_config_file_too() {
    let (scratch, home) = home();
    warm(scratch.path(), &home, "2026-10-02");
    // A transcript path to the log itself (as older builds may give it) names the same home.
    let mut payload: serde_json::Value = serde_json::from_slice(&payload(&home)).unwrap();
    payload["transcript_path"] = home.join("session-state").join(SESSION).join("events.jsonl").to_string_lossy().into();
    let config = scratch.path().join("config.json");
    fs::write(&config, r#"{"budget_day": 100, "budget_month": 9}"#).unwrap();
    let env = [("COPILOT_LENS_CONFIG", config.to_str().unwrap())];
    let args = ["--today", "2026-10-02", "--color", "never"];
    let shown = line(&statusline(scratch.path(), payload.to_string().as_bytes(), &args, &env));
    assert_eq!(shown, "8.43 cr session · 4.50 / 100 today · Oct 8 / 9 (93%) · runs out Oct 3\n");
    // Without a payload (a person trying it), the home is $COPILOT_HOME's and no session is shown.
    let env = [("COPILOT_HOME", home.to_str().unwrap())];
    let shown = line(&statusline(scratch.path(), b"", &args, &env));
    assert_eq!(shown, "4.50 today · Oct 8\n");
}

#[test]
fn a_growing_log_is_read_on_and_its_new_credits_shown() {
    let (scratch, home) = home();
    let log = home.join("session-state").join(SESSION).join("events.jsonl");
    let whole = fs::read_to_string(&log).unwrap();
    // Up to the first shutdown: Oct 1's 3.93 credits.
    let first: String = whole.split_inclusive('\n').take(5).collect();
    fs::write(&log, &first).unwrap();
    warm(scratch.path(), &home, "2026-10-02");
    let args = ["--today", "2026-10-02", "--color", "never"];
    assert_eq!(
        line(&statusline(scratch.path(), &payload(&home), &args, &[])),
        "3.93 cr session · 0.00 today · Oct 4\n"
    );
    // The resumed process's lines are appended: within the snapshot's minute, the session's own
    // log is read again, and the day and month count its new credits.
    fs::OpenOptions::new().append(true).open(&log).unwrap().write_all(&whole.as_bytes()[first.len()..]).unwrap();
    // A second session with the same credits, begun meanwhile: the month's snapshot is a minute
    // old at most, so it is not counted yet, while the shown session's new lines are.
    let other = home.join("session-state/bbbbbbbb-0000-4000-8000-000000000002");
    fs::create_dir_all(&other).unwrap();
    fs::write(other.join("events.jsonl"), whole.replace(SESSION, "bbbbbbbb-0000-4000-8000-000000000002")).unwrap();
    let shown = line(&statusline(scratch.path(), &payload(&home), &args, &[]));
    assert_eq!(shown, "8.43 cr session · 4.50 today · Oct 8\n");
    // Once the snapshot is made again, both are.
    warm(scratch.path(), &home, "2026-10-02");
    let shown = line(&statusline(scratch.path(), &payload(&home), &args, &[]));
    assert_eq!(shown, "8.43 cr session · 9.00 today · Oct 17\n");
}

/// A payload, the arguments, the environment, and the line expected.
type FallbackCase<'a> = (&'a [u8], Vec<&'a str>, Vec<(&'a str, &'a str)>, &'a str);

#[test]
fn whatever_goes_wrong_it_prints_a_short_line_and_exits_0() {
    let (scratch, home) = home();
    let today = ["--today", "2026-10-02", "--color", "never"];
    let cases: [FallbackCase<'_>; 5] = [
        (b"{\"session_id\": ", today.to_vec(), vec![], "copilot-lens: unreadable payload\n"),
        (b"\xff\xfe binary", today.to_vec(), vec![], "copilot-lens: unreadable payload\n"),
        (&payload(&home), [&today[..], &["--no-cache"]].concat(), vec![], "copilot-lens: no cache\n"),
        (b"", today.to_vec(), vec![("COPILOT_HOME", "/nonexistent/.copilot")], "copilot-lens: no Copilot home\n"),
        (&payload(&home), today.to_vec(), vec![("COPILOT_LENS_CONFIG", "/")], "copilot-lens: unreadable config file\n"),
    ];
    for (payload, args, env, expected) in cases {
        let output = statusline(scratch.path(), payload, &args, &env);
        assert_eq!(line(&output), expected, "{args:?} {env:?}");
    }
    // A damaged log (bytes that are no JSON) and a session id that would leave the home: the
    // figures of what can be read.
    let log = home.join("session-state").join(SESSION).join("events.jsonl");
    fs::write(&log, b"\x00\x01garbage\n{not json\n").unwrap();
    warm(scratch.path(), &home, "2026-10-02");
    assert_eq!(
        line(&statusline(scratch.path(), &payload(&home), &today, &[])),
        "0.00 cr session · 0.00 today · Oct 0\n"
    );
    let escaping = serde_json::json!({"session_id": "../../..", "transcript_path": home.join("session-state/x")});
    let shown = line(&statusline(scratch.path(), escaping.to_string().as_bytes(), &today, &[]));
    assert_eq!(shown, "0.00 today · Oct 0\n");
}

#[test]
fn the_first_run_says_it_is_counting_and_counts_in_the_background() {
    let (scratch, home) = home();
    let args = ["--today", "2026-10-02", "--color", "never"];
    let first = line(&statusline(scratch.path(), &payload(&home), &args, &[]));
    assert_eq!(first, "copilot-lens: counting this month's credits (shown from the next run)\n");
    // The refresh it started makes the snapshot without it; then the figures are shown, and the
    // refresh's lock is gone.
    let started = std::time::Instant::now();
    let mut shown = first.clone();
    while shown == first && started.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(100));
        shown = line(&statusline(scratch.path(), &payload(&home), &args, &[]));
    }
    assert_eq!(shown, "8.43 cr session · 4.50 today · Oct 8\n");
    let locks = fs::read_dir(scratch.path().join("cache")).unwrap();
    let locks: Vec<_> = locks.filter(|entry| entry.as_ref().unwrap().path().extension().unwrap() == "lock").collect();
    assert!(locks.is_empty(), "{locks:?}");
}

#[test]
fn print_config_prints_the_settings_lines_and_writes_nothing() {
    let scratch = tempfile::tempdir().unwrap();
    let output = statusline(scratch.path(), b"", &["--print-config"], &[]);
    let printed = line(&output);
    golden("print-config", &printed);
    let settings: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(settings["statusLine"]["type"], "command");
    assert_eq!(settings["footer"]["showCustom"], true);
    assert_eq!(fs::read_dir(scratch.path()).unwrap().count(), 0, "--print-config wrote a file");
}

/// `usage` with budgets: a line on stderr and exit status 3 when one is crossed, 0 when none is.
#[test]
fn usage_exits_3_when_a_budget_is_crossed() {
    let (scratch, home) = home();
    let usage = |args: &[&str], env: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_copilot-lens"));
        command.env("COPILOT_LENS_CACHE", "off").env("COPILOT_LENS_CONFIG", scratch.path().join("none.json"));
        command.envs(env.iter().copied()).arg("usage").arg(&home).args(["--today", "2026-10-02"]).args(args);
        command.output().unwrap()
    };
    let under = usage(&["--budget-day", "5", "--budget-month", "9"], &[]);
    assert_eq!(under.status.code(), Some(0), "{}", String::from_utf8_lossy(&under.stderr));
    let over = usage(&["--budget-day", "4.5", "--budget-month", "8"], &[]);
    assert_eq!(over.status.code(), Some(3));
    let said = String::from_utf8(over.stderr).unwrap();
    assert!(said.contains("budget crossed: 4.50 credits today, over the daily budget of 4.50\n"), "{said}");
    assert!(said.contains("budget crossed: 8.43 credits this month, over the monthly budget of 8.00\n"), "{said}");
    // The table is printed all the same.
    assert!(String::from_utf8(over.stdout).unwrap().contains("2026-10-02"));
    // From the config file; the command line's budget wins over it.
    let config = scratch.path().join("config.json");
    fs::write(&config, r#"{"budget_month": 8}"#).unwrap();
    let env = [("COPILOT_LENS_CONFIG", config.to_str().unwrap())];
    assert_eq!(usage(&[], &env).status.code(), Some(3));
    assert_eq!(usage(&["--budget-month", "100"], &env).status.code(), Some(0));
    // A malformed config file is an error of its own (2), not a budget crossed.
    fs::write(&config, r#"{"budget_month": "lots"}"#).unwrap();
    let bad = usage(&[], &env);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8(bad.stderr).unwrap().contains("config.json"));
    // Budgets count UTC days: another zone is refused.
    assert_eq!(usage(&["--budget-day", "1", "--timezone", "+02:00"], &[]).status.code(), Some(2));
}
