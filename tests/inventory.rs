//! Issue 14: what Copilot can do on a machine and what it used (MCP servers, skills, custom
//! agents, instructions, plugins; a session's plan, artifacts and checkpoints), against the
//! figures worked out by hand in fixtures/inventory/EXPECTED.md, and the secrets planted in that
//! home (fixtures/inventory/SECRETS.txt) kept out of every output.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use common::{copy_tree, fixture, pieces, planted_secrets, read, run, zip_tree};
use serde_json::{Value, json};

const SESSION_A: &str = "a14e0001-0000-4000-8000-000000000001";
const SESSION_B: &str = "a14e0002-0000-4000-8000-000000000002";
const SESSION_C: &str = "a14e0003-0000-4000-8000-000000000003";
const SESSION_D: &str = "a14e0004-0000-4000-8000-000000000004";
const CHAT_SESSION: &str = "c0de1400-0000-4000-8000-000000000014";
/// Every session of the home: the report to share is made with each one's transcript.
const SESSIONS: [&str; 5] = [SESSION_A, SESSION_B, SESSION_C, SESSION_D, CHAT_SESSION];

/// The files whose modification time the inventory shows, each its own (EXPECTED.md, "Modification
/// times"); whole even seconds, which a zip's 2-second clock keeps.
const MODIFIED: [(&str, &str); 11] = [
    (".copilot/copilot-instructions.md", "2026-09-01T07:00:00Z"),
    (".copilot/instructions/python.instructions.md", "2026-09-02T07:00:00Z"),
    (".copilot/instructions/web/react.instructions.md", "2026-09-03T07:00:00Z"),
    (".copilot/installed-plugins/awesome/octo-tools/skills/release/SKILL.md", "2026-09-10T08:00:00Z"),
    (".copilot/installed-plugins/awesome/octo-tools/agents/octo-reviewer.agent.md", "2026-09-10T08:00:02Z"),
    (".copilot/installed-plugins/awesome/octo-tools/plugin.json", "2026-09-10T08:00:04Z"),
    (".copilot/installed-plugins/lint-kit/plugin.json", "2026-09-12T16:00:00Z"),
    (".copilot/skills/deploy/SKILL.md", "2026-09-20T10:00:00Z"),
    (".agents/skills/changelog-writer/SKILL.md", "2026-09-21T11:30:00Z"),
    (".copilot/agents/security-auditor.agent.md", "2026-09-22T12:00:00Z"),
    (".copilot/agents/docs-writer.md", "2026-09-23T13:00:00Z"),
];

/// Every file `analyze` writes.
const OUTPUT_FILES: [&str; 6] =
    ["rows.jsonl", "sessions.jsonl", "inventory.json", "report.json", "usage.jsonl", "usage.csv"];

/// Copies the fixture home to `to` with the modification times of EXPECTED.md.
fn copy_home(to: &Path) {
    copy_tree(&fixture("inventory/home"), to);
    for (path, modified) in MODIFIED {
        let modified: SystemTime = chrono::DateTime::parse_from_rfc3339(modified).unwrap().into();
        let file = fs::File::options().write(true).open(to.join(path)).unwrap();
        file.set_modified(modified).unwrap();
    }
}

/// What one run of the tool on a root gave: the output files, the stdout of `usage --json`, and
/// the report to share with every session's transcript.
struct Run {
    out: PathBuf,
    stderr: String,
    usage_json: String,
    shared_report: String,
}

/// Runs `analyze ROOT --out out`, `usage ROOT --json` and `report ROOT --session ...` (every
/// session) in `dir`.
fn run_on(dir: &Path, root: &str) -> Run {
    let analyzed = run(dir, &["analyze", root, "--out", "out"]);
    assert!(analyzed.status.success(), "{}", String::from_utf8_lossy(&analyzed.stderr));
    let usage = run(dir, &["usage", root, "--json"]);
    assert!(usage.status.success(), "{}", String::from_utf8_lossy(&usage.stderr));
    let mut report_args = vec!["report", root, "--out", "report.html", "--today", "2026-10-31"];
    report_args.extend(SESSIONS.iter().flat_map(|id| ["--session", id]));
    let reported = run(dir, &report_args);
    assert!(reported.status.success(), "{}", String::from_utf8_lossy(&reported.stderr));
    let stderr =
        [&analyzed.stderr, &usage.stderr, &reported.stderr].map(|bytes| String::from_utf8_lossy(bytes).into_owned());
    Run {
        out: dir.join("out"),
        stderr: stderr.concat(),
        usage_json: String::from_utf8(usage.stdout).unwrap(),
        shared_report: read(&dir.join("report.html")),
    }
}

/// The fixture home copied into a scratch folder as `home`, and the tool's run on it.
fn run_on_home() -> (tempfile::TempDir, Run) {
    let scratch = tempfile::tempdir().unwrap();
    copy_home(&scratch.path().join("home"));
    let run = run_on(scratch.path(), "home");
    (scratch, run)
}

fn json_of(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn the_inventory_is_the_one_worked_out_by_hand() {
    let (_scratch, run) = run_on_home();
    insta::with_settings!({ snapshot_path => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/inventory"), prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("inventory.json", read(&run.out.join("inventory.json")));
    });
}

/// Issue 27: the CLI's own server is built in, a server that only failed to start says so
/// (configured or not), and servers and skills carry their last call's time (EXPECTED.md).
#[test]
fn servers_are_built_in_or_failed_to_start_and_servers_and_skills_say_when_last_used() {
    let (_scratch, run) = run_on_home();
    let inventory = json_of(&run.out.join("inventory.json"));
    let cli = &inventory["homes"][0]["agents"][0];
    assert_eq!(cli["agent"], "copilot-cli");
    let by_name = |list: &str, name: &str| -> Value {
        let items = cli[list].as_array().unwrap();
        items.iter().find(|item| item["name"] == name).cloned().unwrap_or_else(|| panic!("no {list} {name}"))
    };
    let server = |name: &str| {
        let server = by_name("mcp_servers", name);
        (
            server["verdict"].clone(),
            server["connected"].clone(),
            server["failed_to_start"].clone(),
            server["last_used"].clone(),
        )
    };
    assert_eq!(server("github-mcp-server"), (json!("built_in"), json!(1), json!(0), json!("")));
    assert_eq!(server("playwright"), (json!("failed_to_start"), json!(0), json!(1), json!("")));
    assert_eq!(server("aws-kb"), (json!("failed_to_start"), json!(0), json!(1), json!("")));
    // A:20 requests the call and A:21 starts it, 100 ms later: the later line's time.
    assert_eq!(server("github"), (json!("configured_and_used"), json!(1), json!(0), json!("2026-10-05T09:01:04.100Z")));
    assert_eq!(server("sentry").3, json!("2026-10-06T14:00:30.000Z"), "B:11, the later of its two calls");
    assert_eq!(by_name("skills", "deploy")["last_used"], "2026-10-05T09:01:02.000Z", "A:19, the later invocation");
    assert_eq!(by_name("skills", "vault")["last_used"], "", "never invoked");
    let vscode = &inventory["homes"][0]["agents"][1];
    let filesystem = &vscode["mcp_servers"].as_array().unwrap().iter().find(|s| s["name"] == "filesystem").unwrap();
    assert_eq!(filesystem["last_used"], "2026-10-08T10:01:00.000Z", "V's request timestamp");
}

#[test]
fn sessions_carry_their_plan_artifacts_checkpoints_and_whether_they_were_precreated() {
    let (scratch, run) = run_on_home();
    let sessions: BTreeMap<String, Value> = read(&run.out.join("sessions.jsonl"))
        .lines()
        .map(|line| {
            let record: Value = serde_json::from_str(line).unwrap();
            (record["session_id"].as_str().unwrap().to_string(), record)
        })
        .collect();
    let plan = read(&scratch.path().join(format!("home/.copilot/session-state/{SESSION_A}/plan.md")));
    assert!(plan.starts_with("# Plan: deploy the shop to staging\n"));
    let expected = [
        (
            SESSION_A,
            json!({
                "plan": plan,
                "artifacts": ["notes.md", "out/report.csv"],
                "checkpoint_titles": ["Find why the staging deploy fails", "Deploy to staging and file the missing key"],
                "precreated_unused": false
            }),
        ),
        (SESSION_B, json!({"plan": null, "artifacts": [], "checkpoint_titles": [], "precreated_unused": false})),
        (SESSION_C, json!({"plan": null, "artifacts": [], "checkpoint_titles": [], "precreated_unused": true})),
        (
            // Its texts are all secrets, scrubbed.
            SESSION_D,
            json!({
                "name": "Rotate the vault keys [redacted]",
                "plan": "# Plan: rotate the vault keys\n\n1. Revoke [redacted]\n2. Revoke [redacted]\n3. Revoke [redacted]\n\
                         4. Revoke aws_access_key_id=[redacted] aws_secret_access_key=[redacted]\n5. Revoke [redacted]\n",
                "artifacts": [],
                "checkpoint_titles": ["Revoke [redacted]"],
                "precreated_unused": false
            }),
        ),
        (CHAT_SESSION, json!({"plan": null, "artifacts": [], "checkpoint_titles": [], "precreated_unused": false})),
    ];
    assert_eq!(sessions.len(), expected.len(), "{:?}", sessions.keys());
    for (id, fields) in expected {
        let record = &sessions[id];
        let found: serde_json::Map<String, Value> =
            fields.as_object().unwrap().keys().map(|key| (key.clone(), record[key].clone())).collect();
        assert_eq!(Value::Object(found), fields, "session {id}");
    }
}

#[test]
fn the_report_names_every_skipped_key_and_the_secret_files_stay_unread() {
    let (_scratch, run) = run_on_home();
    let report = json_of(&run.out.join("report.json"));
    // The home by its index in `homes`, as every other list of the report names it.
    let skipped = |file: &str, key: &str, values: u64| json!({"home": 0, "file": file, "key": key, "values": values});
    let (cli, plugin, lint_kit) = (
        ".copilot/mcp-config.json",
        ".copilot/installed-plugins/awesome/octo-tools/.mcp.json",
        ".copilot/installed-plugins/lint-kit/plugin.json",
    );
    let (vscode, settings) = (".config/Code/User/mcp.json", ".config/Code/User/settings.json");
    assert_eq!(
        report["skipped_keys"],
        json!([
            skipped(".config/.copilot/mcp-config.json", "mcpServers.legacy-jira.headers", 1),
            skipped(vscode, "inputs", 2),
            skipped(vscode, "servers.context7.headers", 1),
            skipped(vscode, "servers.filesystem.args", 3),
            // settings.json's other top-level keys, not named one by one: editor.fontSize,
            // workbench.colorTheme, http.proxy, http.proxyAuthorization,
            // terminal.integrated.env.linux, github.copilot.enable.
            skipped(settings, "(every key but mcp)", 6),
            skipped(settings, "mcp.servers.memory.args", 2),
            skipped(settings, "mcp.servers.memory.env", 1),
            skipped(plugin, "mcpServers.octo.args", 3),
            skipped(plugin, "mcpServers.octo.env", 1),
            skipped(lint_kit, "mcpServers.eslint.args", 2),
            skipped(cli, "mcpServers.aws-kb.args", 2),
            skipped(cli, "mcpServers.aws-kb.env", 3),
            skipped(cli, "mcpServers.github.args", 3),
            skipped(cli, "mcpServers.github.env", 2),
            skipped(cli, "mcpServers.github.timeout", 1),
            skipped(cli, "mcpServers.sentry.headers", 2),
            skipped(cli, "mcpServers.vault.args", 3),
            skipped(cli, "mcpServers.vault.env", 1),
        ])
    );

    let files: BTreeMap<&str, &Value> =
        report["files"].as_array().unwrap().iter().map(|file| (file["path"].as_str().unwrap(), file)).collect();
    let kind_and_status = |path: &str| {
        let file = files.get(path).unwrap_or_else(|| panic!("{path} is not in the report"));
        (file["kind"].as_str().unwrap(), file["status"].as_str().unwrap())
    };
    let session = |id: &str, file: &str| format!(".copilot/session-state/{id}/{file}");
    let octo = ".copilot/installed-plugins/awesome/octo-tools";
    let expected: Vec<(String, (&str, &str))> = vec![
        (".agents/skills/changelog-writer/SKILL.md".to_string(), ("skill", "read")),
        (".config/.copilot/mcp-config.json".to_string(), ("mcp_config", "read")),
        (vscode.to_string(), ("mcp_config", "read")),
        (settings.to_string(), ("vscode_settings", "read")),
        (".copilot/agents/docs-writer.md".to_string(), ("custom_agent", "read")),
        (".copilot/agents/security-auditor.agent.md".to_string(), ("custom_agent", "read")),
        (".copilot/copilot-instructions.md".to_string(), ("instructions", "read")),
        (plugin.to_string(), ("mcp_config", "read")),
        (format!("{octo}/agents/octo-reviewer.agent.md"), ("custom_agent", "read")),
        (format!("{octo}/plugin.json"), ("plugin_manifest", "read")),
        (format!("{octo}/skills/release/SKILL.md"), ("skill", "read")),
        (lint_kit.to_string(), ("plugin_manifest", "read")),
        (".copilot/instructions/python.instructions.md".to_string(), ("instructions", "read")),
        (".copilot/instructions/web/react.instructions.md".to_string(), ("instructions", "read")),
        (".copilot/instructions/vault.instructions.md".to_string(), ("instructions", "read")),
        (".copilot/skills/vault/SKILL.md".to_string(), ("skill", "read")),
        (".copilot/agents/vault-keeper.agent.md".to_string(), ("custom_agent", "read")),
        (session(SESSION_D, "plan.md"), ("plan", "read")),
        (session(SESSION_D, "checkpoints/index.md"), ("checkpoints_index", "read")),
        (cli.to_string(), ("mcp_config", "read")),
        (".copilot/skills/deploy/SKILL.md".to_string(), ("skill", "read")),
        (session(SESSION_A, "plan.md"), ("plan", "read")),
        (session(SESSION_A, "checkpoints/index.md"), ("checkpoints_index", "read")),
        // Their workspace.yaml counts no compaction (summary_count: 0): the table is empty.
        (session(SESSION_B, "checkpoints/index.md"), ("checkpoints_index", "not_needed")),
        (session(SESSION_C, "checkpoints/index.md"), ("checkpoints_index", "not_needed")),
        (session(SESSION_A, "files/notes.md"), ("artifact", "listed")),
        (session(SESSION_A, "files/out/report.csv"), ("artifact", "listed")),
        (".copilot/config.json".to_string(), ("secret", "not_read_secret")),
        (".copilot/mcp-oauth-config/sentry.json".to_string(), ("secret", "not_read_secret")),
        (".copilot/mcp-secrets/github.json".to_string(), ("secret", "not_read_secret")),
    ];
    for (path, kind) in &expected {
        assert_eq!(kind_and_status(path), *kind, "{path}");
    }
    for path in [".copilot/config.json", ".copilot/mcp-oauth-config/sentry.json", ".copilot/mcp-secrets/github.json"] {
        assert_eq!(files[path]["rows"], 0, "{path}");
    }
    // The plugins' other files stay one excluded tree, counted and never listed one by one.
    assert_eq!(
        report["excluded_trees"],
        json!([{"home": 0, "tree": ".copilot/installed-plugins", "files": 4, "bytes": 72 + 176 + 82 + 49}])
    );
    for excluded in ["README.md", "scripts/setup.sh", "skills/release/changelog-template.md"] {
        assert!(!files.contains_key(format!("{octo}/{excluded}").as_str()), "{excluded} is listed");
    }
    assert!(!files.contains_key(".copilot/installed-plugins/lint-kit/LICENSE"));
    assert_eq!(report["diagnostics"], json!([]));
}

#[test]
fn every_planted_secret_is_in_the_fixture() {
    // Else the secret-planting test below would look for strings that were never planted.
    let home: Vec<String> = common::files_below(&fixture("inventory/home")).iter().map(|path| read(path)).collect();
    let secrets = planted_secrets();
    assert!(secrets.len() >= 30, "{} secrets", secrets.len());
    for secret in &secrets {
        assert!(home.iter().any(|text| text.contains(secret.as_str())), "{secret} is planted nowhere");
    }
}

#[test]
fn no_planted_secret_reaches_any_output() {
    let (_scratch, run) = run_on_home();
    // Every file analyze wrote, whatever it is called, then what the commands printed.
    let mut outputs: Vec<(String, String)> = common::files_below(&run.out)
        .iter()
        .map(|path| (path.strip_prefix(&run.out).unwrap().display().to_string(), read(path)))
        .collect();
    for name in OUTPUT_FILES {
        assert!(outputs.iter().any(|(written, _)| written == name), "analyze did not write {name}");
    }
    // What the secrets sit beside is shown: the scan looks at real output.
    let inventory = read(&run.out.join("inventory.json"));
    for shown in ["mcp.sentry.dev", "github-mcp-server", "\"env\": 3", "jira.example.com", "\"command\": \"npx\""] {
        assert!(inventory.contains(shown), "inventory.json lacks {shown}");
    }
    let rows = read(&run.out.join("rows.jsonl"));
    for shown in
        ["MYAPP_GITHUB_TOKEN=[redacted]", "Authorization: Basic [redacted]", "sig=[redacted]", "vault:[redacted]@"]
    {
        assert!(rows.contains(shown), "rows.jsonl lacks {shown}");
    }
    // Every session's transcript is in the report, and it says how many secrets it scrubbed.
    assert_eq!(run.shared_report.matches("<h3>").count(), SESSIONS.len());
    assert!(run.shared_report.contains("Rotate the vault keys [redacted]"), "session D's transcript is in the report");
    let scrubbed = run.shared_report.split("data-figure=\"scrubbed\">Secrets scrubbed from the transcripts: ").nth(1);
    let scrubbed: usize = scrubbed.and_then(|rest| rest.split('.').next()).and_then(|n| n.parse().ok()).unwrap();
    assert!(scrubbed >= 100, "{scrubbed} secrets scrubbed from the transcripts");
    outputs.push(("usage --json".to_string(), run.usage_json));
    outputs.push(("report --session (every session)".to_string(), run.shared_report));
    outputs.push(("stderr".to_string(), run.stderr));
    for secret in planted_secrets() {
        for piece in pieces(&secret) {
            for (name, text) in &outputs {
                assert!(!text.contains(&piece), "{name} holds {piece:?}, a piece of the planted {secret:?}");
            }
        }
    }
}

#[test]
fn a_zip_of_the_home_gives_the_same_bytes() {
    let scratch = tempfile::tempdir().unwrap();
    let (from_folder, from_zip) = (scratch.path().join("folder"), scratch.path().join("zip"));
    copy_home(&from_folder.join("home"));
    fs::create_dir(&from_zip).unwrap();
    // Named `home` too, so that both runs label the home alike.
    zip_tree(&from_folder.join("home"), &from_zip.join("home"), "", "/");
    let (folder_run, zip_run) = (run_on(&from_folder, "home"), run_on(&from_zip, "home"));
    let written = |out: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        common::files_below(out)
            .into_iter()
            .map(|path| (path.strip_prefix(out).unwrap().to_path_buf(), fs::read(&path).unwrap()))
            .collect()
    };
    let (folder_files, zip_files) = (written(&folder_run.out), written(&zip_run.out));
    assert_eq!(folder_files.len(), OUTPUT_FILES.len());
    for ((name, folder_bytes), (zip_name, zip_bytes)) in folder_files.iter().zip(&zip_files) {
        assert_eq!(name, zip_name);
        assert!(folder_bytes == zip_bytes, "{} differs", name.display());
    }
    assert_eq!(folder_run.usage_json, zip_run.usage_json);
    assert!(read(&zip_run.out.join("inventory.json")).contains("\"modified\": \"2026-09-23T13:00:00.000Z\""));
}
