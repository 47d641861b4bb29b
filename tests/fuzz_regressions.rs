//! Every input a fuzz target found failing (fixtures/fuzz/<target>/) replayed through the whole
//! analysis, as the file of the target's kind in a folder root and in a zip root (the zip
//! targets' inputs are the root themselves). The run must end normally or with a clear error,
//! never a panic, and the file must be accounted for in report.json.

mod common;

use std::fs;
use std::io::Write;
use std::path::Path;

use common::{fixture, read, run};

/// Where a target's input goes in a `.copilot` tree; `None` for inputs that are zips.
fn placed_at(target: &str) -> Option<&'static str> {
    match target {
        "event_lines" => Some(".copilot/session-state/fuzz/events.jsonl"),
        "chat_session_log" => Some(".config/Code/User/workspaceStorage/fuzz/chatSessions/fuzz.jsonl"),
        "workspace_yaml" => Some(".copilot/session-state/fuzz/workspace.yaml"),
        "settings_jsonc" => Some(".copilot/settings.json"),
        "customization_files" => Some(".copilot/mcp-config.json"),
        "wal_replay" => Some(".copilot/session-store.db-wal"),
        "database_image" => Some(".copilot/session-store.db"),
        "zip_reading" | "analysis_from_zip" => None,
        other => panic!("fixtures/fuzz/{other}: no fuzz target of that name"),
    }
}

fn zip_of(path: &str, bytes: &[u8], to: &Path) {
    let mut writer = zip::ZipWriter::new(fs::File::create(to).unwrap());
    writer.start_file(path, zip::write::SimpleFileOptions::default()).unwrap();
    writer.write_all(bytes).unwrap();
    writer.finish().unwrap();
}

/// Analyses `root` in `dir`; returns report.json when the run succeeded.
fn analyse(dir: &Path, root: &str, case: &str) -> Option<String> {
    let output = run(dir, &["analyze", root, "--out", "out"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{case}: {stderr}");
    match output.status.code() {
        Some(0) => Some(read(&dir.join("out/report.json"))),
        Some(2) => None,
        other => panic!("{case}: exit status {other:?}: {stderr}"),
    }
}

#[test]
fn inputs_the_fuzzers_found_are_analysed_without_a_panic() {
    let mut replayed = 0;
    for target in fs::read_dir(fixture("fuzz")).unwrap() {
        let target = target.unwrap();
        let target_name = target.file_name().into_string().unwrap();
        for input in fs::read_dir(target.path()).unwrap() {
            let input = input.unwrap().path();
            let bytes = fs::read(&input).unwrap();
            let case = format!("{target_name}/{}", input.file_name().unwrap().to_string_lossy());
            let scratch = tempfile::tempdir().unwrap();
            match placed_at(&target_name) {
                Some(path) => {
                    let in_folder = scratch.path().join("home").join(path);
                    fs::create_dir_all(in_folder.parent().unwrap()).unwrap();
                    fs::write(&in_folder, &bytes).unwrap();
                    zip_of(path, &bytes, &scratch.path().join("home.zip"));
                    for root in ["home", "home.zip"] {
                        let report = analyse(scratch.path(), root, &format!("{case} in {root}"))
                            .unwrap_or_else(|| panic!("{case} in {root}: the root itself was refused"));
                        assert!(
                            report.contains(&format!("\"{path}\"")),
                            "{case} in {root}: {path} missing from report.json"
                        );
                    }
                }
                None => {
                    fs::write(scratch.path().join("input.zip"), &bytes).unwrap();
                    analyse(scratch.path(), "input.zip", &case);
                }
            }
            replayed += 1;
        }
    }
    assert!(replayed > 0, "fixtures/fuzz holds no inputs");
}
