//! `usage --export`: the team export of fixture homes, in its three formats, with who and which
//! machine, and nothing private (no prompt or reply text, no project path unless shared).

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use copilot_lens::team_export::COLUMNS;
use serde_json::Value;

const EXPORTED_AT: &str = "2026-12-02T09:30:00Z";

/// Runs `usage ROOTS --export FILE` and more (at `EXPORTED_AT` unless they say), in `dir`;
/// returns stderr.
fn export(dir: &Path, roots: &[&Path], file: &str, more: &[&str]) -> String {
    let mut args: Vec<&str> = vec!["usage"];
    args.extend(roots.iter().map(|root| root.to_str().unwrap()));
    args.extend(["--export", file]);
    if !more.contains(&"--exported-at") {
        args.extend(["--exported-at", EXPORTED_AT]);
    }
    args.extend(more);
    let output = common::run(dir, &args);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "usage {args:?}: {stderr}");
    stderr
}

/// The CSV's records, header included.
fn csv_records(path: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).from_path(path).unwrap();
    reader.records().map(|record| record.unwrap().iter().map(str::to_string).collect()).collect()
}

/// A JSON value as the CSV writes it.
fn as_csv_field(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn jsonl_records(path: &Path) -> Vec<Vec<String>> {
    let text = common::read(path);
    let rows = text.lines().map(|line| {
        let row: serde_json::Map<String, Value> = serde_json::from_str(line).unwrap();
        COLUMNS.iter().map(|name| as_csv_field(&row[*name])).collect()
    });
    std::iter::once(COLUMNS.iter().map(|name| name.to_string()).collect()).chain(rows).collect()
}

#[cfg(feature = "parquet")]
fn parquet_records(path: &Path) -> Vec<Vec<String>> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap();
    let rows = reader.get_row_iter(None).unwrap().map(|row| {
        let row = row.unwrap();
        let fields = row.get_column_iter().map(|(_, field)| match field {
            Field::Null => String::new(),
            Field::Str(text) => text.clone(),
            Field::Long(count) => count.to_string(),
            Field::Double(number) => serde_json::Number::from_f64(*number).unwrap().to_string(),
            Field::Date(days) => (epoch + chrono::Days::new(*days as u64)).to_string(),
            other => panic!("a column of unexpected type: {other:?}"),
        });
        fields.collect()
    });
    std::iter::once(COLUMNS.iter().map(|name| name.to_string()).collect()).chain(rows).collect()
}

#[test]
fn the_credit_fixtures_export_one_row_per_day_agent_model_project_machine_and_kind() {
    // Ten homes of billed credits (partial, recovered, BYOK, Auto, VS Code), one home signed in
    // as mona, and a resumed session of an unknown CLI version (its ambiguous_resume part).
    let roots = [
        common::fixture("credits"),
        common::fixture("inventory/home"),
        common::fixture("usage/resume-unknown-version"),
    ];
    let roots: Vec<&Path> = roots.iter().map(|root| root.as_path()).collect();
    let dir = tempfile::tempdir().unwrap();
    let stderr = export(dir.path(), &roots, "team.csv", &[]);
    assert!(stderr.contains("24 rows exported to team.csv"), "{stderr}");
    assert!(stderr.contains("no login is known for 01-billed-two-days, 02-subagent-share,"), "{stderr}");
    let csv = common::read(&dir.path().join("team.csv"));
    insta::with_settings!({ snapshot_path => "golden/team", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("credits-inventory-resume__team.csv", csv);
    });

    // The same rows in every format.
    let records = csv_records(&dir.path().join("team.csv"));
    export(dir.path(), &roots, "team.jsonl", &[]);
    assert_eq!(jsonl_records(&dir.path().join("team.jsonl")), records);
    #[cfg(feature = "parquet")]
    {
        export(dir.path(), &roots, "team.parquet", &[]);
        assert_eq!(parquet_records(&dir.path().join("team.parquet")), records);
    }

    // The key is unique, and the same in an export made later.
    let keys: BTreeSet<&str> = records[1..].iter().map(|record| record[0].as_str()).collect();
    assert_eq!(keys.len(), records.len() - 1, "one row per key");
    export(dir.path(), &roots, "later.csv", &["--exported-at", "2026-12-03T00:00:00+01:00"]);
    let later = csv_records(&dir.path().join("later.csv"));
    let exported_at = COLUMNS.iter().position(|name| *name == "exported_at").unwrap();
    assert!(later[1..].iter().all(|record| record[exported_at] == "2026-12-02T23:00:00Z"), "in UTC");
    let later_keys: BTreeSet<&str> = later[1..].iter().map(|record| record[0].as_str()).collect();
    assert_eq!(later_keys, keys);
}

/// The texts that must never be in an export: every prompt, reply and tool output of the root,
/// and the paths of the projects it used tokens in.
fn private_texts(dir: &Path, root: &Path) -> (Vec<String>, Vec<String>) {
    let out = dir.join("analysis");
    let output = common::run(dir, &["analyze", root.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(output.status.success());
    let texts = common::read(&out.join("rows.jsonl"))
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|row| ["user", "assistant", "tool_result"].contains(&row["turn_type"].as_str().unwrap_or_default()))
        .filter_map(|row| row["text"].as_str().map(str::to_string))
        .filter(|text| text.len() >= 12)
        .collect();
    let projects: BTreeSet<String> = common::read(&out.join("sessions.jsonl"))
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|session| session["usage"]["total"].as_u64().is_some_and(|total| total > 0))
        .filter_map(|session| session["project_path"].as_str().map(str::to_string))
        .filter(|path| !path.is_empty())
        .collect();
    (texts, projects.into_iter().collect())
}

#[test]
fn no_prompt_or_reply_is_exported_and_project_paths_only_when_shared() {
    let dir = tempfile::tempdir().unwrap();
    let home = common::fixture("inventory/home");
    let (texts, projects) = private_texts(dir.path(), &home);
    assert!(texts.len() >= 3 && projects.len() >= 2, "the fixture has prompts, replies and projects: {projects:?}");
    for (file, more) in [("team.csv", &[][..]), ("team.jsonl", &[][..]), ("shared.csv", &["--share-projects"][..])] {
        export(dir.path(), &[&home], file, more);
        let export = common::read(&dir.path().join(file));
        assert!(export.lines().count() > 1, "{file} has rows");
        for text in &texts {
            assert!(!export.contains(text.as_str()), "{file} holds a prompt or reply: {text}");
        }
        for path in &projects {
            assert_eq!(export.contains(path.as_str()), !more.is_empty(), "{file} and {path}");
        }
    }
}

#[test]
fn user_and_machine_given_name_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let roots = [common::fixture("credits")];
    let stderr = export(dir.path(), &[&roots[0]], "team.csv", &["--user", "octo-cat", "--machine", "build-box"]);
    assert!(!stderr.contains("no login"), "{stderr}");
    let records = csv_records(&dir.path().join("team.csv"));
    assert!(records[1..].iter().all(|record| record[1] == "octo-cat" && record[2] == "build-box"));
    // The ten homes are one machine now: a day, model and kind used in two of them is one row.
    let keys: BTreeSet<&str> = records[1..].iter().map(|record| record[0].as_str()).collect();
    assert_eq!(keys.len(), records.len() - 1);
    // --since and --agent keep some days of one agent.
    export(dir.path(), &[&roots[0]], "november.csv", &["--since", "2026-11-01", "--agent", "copilot-cli"]);
    let november = csv_records(&dir.path().join("november.csv"));
    let days: BTreeSet<&str> = november[1..].iter().map(|record| record[3].as_str()).collect();
    assert_eq!(days, BTreeSet::from(["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05"]));
    assert!(november[1..].iter().all(|record| record[4] == "copilot-cli"));
}

#[test]
fn an_export_that_cannot_be_made_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let root = common::fixture("inventory/home");
    let root = root.to_str().unwrap();
    let inside = format!("{root}/team.csv");
    for (args, said) in [
        (vec!["usage", root, "--export", "team.xlsx"], "name a .parquet, .csv or .jsonl file"),
        (vec!["usage", root, "--export", "team.csv", "--timezone", "Europe/Berlin"], "counts UTC days"),
        (vec!["usage", root, "--export", "team.csv", "--exported-at", "yesterday"], "is not a time"),
        (vec!["usage", root, "--export", &inside], "never writes into the data it reads"),
        (vec!["usage", root, "--machine", "box"], "--export"),
    ] {
        let output = common::run(dir.path(), &args);
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
    }
    assert!(!Path::new(&inside).exists());
}
