//! Where Copilot CLI's files are under a home and what each one is ("Parser plan" `wants()`,
//! "Exclusions" and "Credentials" in the format specification).

use crate::facts::files::{FileKind, Role};
use crate::sources::{Classified, HomeLayout, OwnFolderMarker, SessionFolders, System};

/// The Copilot directories of a home: `~/.copilot` and the two that predate the XDG migration.
pub const COPILOT_DIRS: [&str; 3] = [".copilot", ".local/state/.copilot", ".config/.copilot"];
/// Folders of a home read for Copilot's customizations that do not make a home of their own
/// (`~/.agents/skills`, which other agents read too).
pub const SHARED_DIRS: [&str; 1] = [".agents"];
/// The CLI's own GitHub MCP server: its process log says `Service initialized as client for
/// the github-mcp-server remote MCP server` (seed 000, "Process logs") with no file configuring it.
pub const BUILT_IN_MCP_SERVERS: &[&str] = &["github-mcp-server"];
/// The package caches beside the home, whose `pkg/` and `marketplaces/` trees are excluded.
pub const CACHE_DIRS: [&str; 3] = [".cache/copilot", "Library/Caches/copilot", "AppData/Local/copilot"];
/// Entries that only a Copilot directory holds: how a root that is `~/.copilot` itself is told
/// apart from a home.
pub const COPILOT_DIR_MARKERS: [OwnFolderMarker; 7] = [
    copilot_dir_marker("session-state"),
    copilot_dir_marker("history-session-state"),
    copilot_dir_marker("session-store.db"),
    copilot_dir_marker("session-store.db-wal"),
    copilot_dir_marker("command-history-state.json"),
    copilot_dir_marker("permissions-config.json"),
    copilot_dir_marker("sidebar-sessions-state"),
];

const fn copilot_dir_marker(entry: &'static str) -> OwnFolderMarker {
    OwnFolderMarker { entry, read_as: ".copilot", layout: "copilot_directory" }
}

/// The folders of a home that hold Copilot CLI's files.
pub static LAYOUT: HomeLayout = HomeLayout {
    title: "Copilot CLI",
    data_folders: &COPILOT_DIRS,
    // `%USERPROFILE%\.copilot` on Windows; the XDG places only before the migration.
    data_folder_systems: &[System::Any, System::Older, System::Older],
    cache_folders: &CACHE_DIRS,
    shared_folders: &SHARED_DIRS,
    own_folder_markers: &COPILOT_DIR_MARKERS,
    loose_log: Some(loose_log_path),
    top_files: &[],
    walk_rules: &[],
    // The older layouts' files are listed too: the flat logs are read (in any folder: one given
    // alone is its session), the sessions from before event logs are named as found and holding
    // no usage.
    usage_log: |folder, name| {
        name == "events.jsonl"
            || flat_log_id(name).is_some()
            || (folder == "history-session-state" && history_session_id(name).is_some())
    },
    session_folders: &[SessionFolders { folder: "session-state", log: "events.jsonl" }],
    store_files: &["session-store.db", "session-store.db-wal", "session-store.db-shm"],
};

/// Where a log read alone goes: `events.jsonl` into its session folder, named as the folder it
/// was in when that is a session id, else a stand-in id made from its listed path (the log's own
/// id replaces it); a flat `<id>.jsonl` (CLI 0.0.3xx) into `session-state/` as it was.
fn loose_log_path(listed_path: &str) -> Option<String> {
    let mut parts = listed_path.rsplit('/');
    let (name, folder) = (parts.next()?, parts.next().unwrap_or_default());
    if let Some(id) = flat_log_id(name) {
        return Some(format!(".copilot/session-state/{id}.jsonl"));
    }
    if name != "events.jsonl" {
        return None;
    }
    let id = if is_session_id(folder) { folder.to_string() } else { crate::sources::stand_in_session_id(listed_path) };
    Some(format!(".copilot/session-state/{id}/events.jsonl"))
}

const fn kind(name: &'static str, role: Role, secondary: bool) -> FileKind {
    FileKind { name, role, secondary }
}

pub const EVENTS_LOG: FileKind = kind("events_log", Role::EventLog, false);
pub const WORKSPACE: FileKind = kind("workspace", Role::Metadata, false);
pub const VSCODE_METADATA: FileKind = kind("vscode_metadata", Role::Metadata, false);
pub const SNAPSHOTS: FileKind = kind("snapshots", Role::LateMetadata, true);
pub const STORE: FileKind = kind("store", Role::Store, true);
pub const STORE_WAL: FileKind = kind("store_wal", Role::StoreWal, true);
pub const STORE_SHM: FileKind = kind("store_shm", Role::NotNeeded, false);
pub const HISTORY: FileKind = kind("history", Role::Metadata, true);
/// `history-session-state/session_<id>_<ms>.json`: a whole session from before event logs;
/// secondary, as a log that imported it (`session.import_legacy`) repeats its rows.
pub const HISTORY_SESSION: FileKind = kind("history_session", Role::Metadata, true);
pub const PERMISSIONS: FileKind = kind("permissions", Role::Metadata, false);
pub const SETTINGS: FileKind = kind("settings", Role::Metadata, false);
pub const SIDEBAR: FileKind = kind("sidebar", Role::Metadata, false);
pub const PROCESS_LOG: FileKind = kind("process_log", Role::MetadataInParts, false);
/// Read for servers' names only: its `env`, `headers` and `args` can hold tokens.
pub const MCP_CONFIG: FileKind = kind("mcp_config", Role::Metadata, false);
pub const SKILL: FileKind = kind("skill", Role::Metadata, false);
pub const CUSTOM_AGENT: FileKind = kind("custom_agent", Role::Metadata, false);
pub const INSTRUCTIONS: FileKind = kind("instructions", Role::Metadata, false);
pub const PLUGIN_MANIFEST: FileKind = kind("plugin_manifest", Role::Metadata, false);
pub const PLAN: FileKind = kind("plan", Role::LateMetadata, false);
pub const CHECKPOINTS_INDEX: FileKind = kind("checkpoints_index", Role::LateMetadata, false);
/// Where a session folder's `WORKSPACE` and `CHECKPOINTS_INDEX` are in it.
pub const WORKSPACE_FILE: &str = "workspace.yaml";
pub const CHECKPOINTS_INDEX_FILE: &str = "checkpoints/index.md";
/// A session's artifact (`files/`): named in its record, never read.
pub const ARTIFACT: FileKind = kind("artifact", Role::Listed, false);

pub fn classify(path: &str) -> Classified<'_> {
    let plain = |kind| Classified { kind, session_id: None, tree: None };
    if let Some((dir, rest)) = split_prefix(path, &COPILOT_DIRS) {
        return classify_in_copilot_dir(path, dir, rest);
    }
    if let Some((_, rest)) = split_prefix(path, &SHARED_DIRS) {
        return plain(if is_skill_file(rest) { SKILL } else { FileKind::NOT_WANTED });
    }
    if let Some((dir, rest)) = split_prefix(path, &CACHE_DIRS) {
        return match excluded_tree(path, dir, rest, &["pkg", "marketplaces"]) {
            Some(tree) => Classified { kind: FileKind::EXCLUDED, session_id: None, tree: Some(tree) },
            None => plain(FileKind::NOT_WANTED),
        };
    }
    plain(FileKind::OUTSIDE)
}

fn classify_in_copilot_dir<'a>(path: &'a str, dir: &str, rest: &'a str) -> Classified<'a> {
    let plain = |kind| Classified { kind, session_id: None, tree: None };
    if let Some(in_plugins) = rest.strip_prefix("installed-plugins/")
        && let Some(kind) = classify_in_plugins(in_plugins).map(|(kind, _)| kind)
    {
        return plain(kind);
    }
    if let Some(tree) = excluded_tree(path, dir, rest, &["pkg", "installed-plugins", "marketplaces"]) {
        return Classified { kind: FileKind::EXCLUDED, session_id: None, tree: Some(tree) };
    }
    if let Some(in_session) = rest.strip_prefix("session-state/") {
        if let Some((id, file)) = in_session.split_once('/')
            && is_session_id(id)
        {
            let kind = match file {
                "events.jsonl" => EVENTS_LOG,
                WORKSPACE_FILE => WORKSPACE,
                "vscode.metadata.json" => VSCODE_METADATA,
                "rewind-file-snapshots/index.json" => SNAPSHOTS,
                "plan.md" => PLAN,
                CHECKPOINTS_INDEX_FILE => CHECKPOINTS_INDEX,
                _ if file.strip_prefix("files/").is_some_and(|name| !name.is_empty()) => ARTIFACT,
                _ => FileKind::NOT_WANTED,
            };
            return Classified { kind, session_id: Some(id), tree: None };
        }
        if let Some(id) = flat_log_id(in_session) {
            return Classified { kind: EVENTS_LOG, session_id: Some(id), tree: None };
        }
        // A session folder under another name (copied, renamed): its log names its session.
        if in_session.split_once('/').is_some_and(|(folder, file)| file == "events.jsonl" && !folder.starts_with('.')) {
            return plain(EVENTS_LOG);
        }
        return plain(FileKind::NOT_WANTED);
    }
    if let Some(id) = rest.strip_prefix("history-session-state/").and_then(history_session_id) {
        return Classified { kind: HISTORY_SESSION, session_id: Some(id), tree: None };
    }
    if let Some(id) =
        rest.strip_prefix("logs/session-").and_then(|name| name.strip_suffix(".log")).filter(|id| is_session_id(id))
    {
        return Classified { kind: PROCESS_LOG, session_id: Some(id), tree: None };
    }
    let kind = match rest {
        "session-store.db" => STORE,
        "session-store.db-wal" => STORE_WAL,
        "session-store.db-shm" => STORE_SHM,
        "command-history-state.json" => HISTORY,
        "permissions-config.json" => PERMISSIONS,
        "settings.json" => SETTINGS,
        "mcp-config.json" => MCP_CONFIG,
        "copilot-instructions.md" => INSTRUCTIONS,
        "config.json" => FileKind::SECRET,
        _ if rest.starts_with("mcp-secrets/") || rest.starts_with("mcp-oauth-config") => FileKind::SECRET,
        _ if is_sidebar_file(rest) => SIDEBAR,
        _ if is_skill_file(rest) => SKILL,
        _ if is_agent_file(rest) => CUSTOM_AGENT,
        _ if rest.starts_with("instructions/") && rest.ends_with(".instructions.md") => INSTRUCTIONS,
        _ if is_process_log(rest) => PROCESS_LOG,
        _ => FileKind::NOT_WANTED,
    };
    plain(kind)
}

/// `dir/rest` split at the first of `prefixes` it starts with.
fn split_prefix<'a>(path: &'a str, prefixes: &[&'static str]) -> Option<(&'static str, &'a str)> {
    prefixes.iter().find_map(|dir| {
        let rest = path.strip_prefix(dir)?.strip_prefix('/')?;
        Some((*dir, rest))
    })
}

fn excluded_tree<'a>(path: &'a str, dir: &str, rest: &str, trees: &[&str]) -> Option<&'a str> {
    let top = rest.split('/').next()?;
    (trees.contains(&top) && rest.len() > top.len()).then(|| &path[..dir.len() + 1 + top.len()])
}

/// Where a plugin's manifest can be, below its folder.
const MANIFESTS: [&str; 3] = ["plugin.json", ".github/plugin/plugin.json", ".claude-plugin/plugin.json"];
/// Where a plugin's MCP servers can be, below its folder (or inline in its manifest).
const MCP_CONFIGS: [&str; 2] = [".mcp.json", ".github/mcp.json"];

/// What a file below `installed-plugins/` is (`plugins` reads them), if it is read, with the length of its plugin's
/// folder in `in_plugins` (`<marketplace>/<plugin>`, or `<plugin>` for one installed directly).
pub fn classify_in_plugins(in_plugins: &str) -> Option<(FileKind, usize)> {
    let mut folder_ends = in_plugins.match_indices('/').map(|(at, _)| at);
    let first = folder_ends.next()?;
    let second = folder_ends.next();
    second.into_iter().chain([first]).find_map(|end| Some((kind_in_plugin(&in_plugins[end + 1..])?, end)))
}

fn kind_in_plugin(rest: &str) -> Option<FileKind> {
    if MANIFESTS.contains(&rest) {
        Some(PLUGIN_MANIFEST)
    } else if MCP_CONFIGS.contains(&rest) {
        Some(MCP_CONFIG)
    } else if is_skill_file(rest) {
        Some(SKILL)
    } else if is_agent_file(rest) {
        Some(CUSTOM_AGENT)
    } else {
        None
    }
}

/// The plugin folder of a home-relative path (`.copilot/installed-plugins/<m>/<p>`) and its
/// marketplace (empty for a plugin installed directly), when the path is a plugin's file.
pub fn plugin_of(path: &str) -> Option<(&str, &str)> {
    let at = path.find("/installed-plugins/")? + "/installed-plugins/".len();
    let (_, root_len) = classify_in_plugins(&path[at..])?;
    let inside = &path[at..at + root_len];
    let marketplace = inside.split_once('/').map_or("", |(marketplace, _)| marketplace);
    Some((&path[..at + root_len], marketplace))
}

/// `skills/<name>/SKILL.md`, in a Copilot folder, `~/.agents` or a plugin.
pub fn is_skill_file(rest: &str) -> bool {
    rest.strip_prefix("skills/")
        .and_then(|name| name.strip_suffix("/SKILL.md"))
        .is_some_and(|name| !name.is_empty() && !name.contains('/'))
}

/// `agents/<name>.md` (`<name>.agent.md` by the documented convention).
pub fn is_agent_file(rest: &str) -> bool {
    rest.strip_prefix("agents/")
        .and_then(|name| name.strip_suffix(".md"))
        .is_some_and(|name| !name.is_empty() && !name.contains('/'))
}

/// `[0-9a-f-]{36}`, the session directory pattern of the parser plan.
pub fn is_session_id(name: &str) -> bool {
    name.len() == 36 && name.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'-')
}

/// The session id of a flat session log, `<id>.jsonl` (CLI 0.0.3xx wrote `session-state/<id>.jsonl`).
pub fn flat_log_id(name: &str) -> Option<&str> {
    name.strip_suffix(".jsonl").filter(|id| is_session_id(id))
}

/// The session id of `session_<id>_<epoch ms>.json`, the CLI's sessions from before event logs.
fn history_session_id(name: &str) -> Option<&str> {
    let (id, ms) = name.strip_prefix("session_")?.strip_suffix(".json")?.rsplit_once('_')?;
    (is_session_id(id) && !ms.is_empty() && ms.bytes().all(|b| b.is_ascii_digit())).then_some(id)
}

/// The folder-form log that a flat one of the same session gives way to (the CLI moved
/// sessions into folders; a home can hold both).
pub fn read_instead(path: &str) -> Option<String> {
    let (folder, name) = path.rsplit_once('/')?;
    let id = flat_log_id(name).filter(|_| folder.ends_with("session-state"))?;
    Some(format!("{folder}/{id}/events.jsonl"))
}

fn is_sidebar_file(rest: &str) -> bool {
    rest.strip_prefix("sidebar-sessions-state/")
        .and_then(|name| name.strip_suffix(".json"))
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

/// `logs/process-<digits>-<digits>.log`: rotated logs (`.1.log`) do not match, as in the plan.
fn is_process_log(rest: &str) -> bool {
    let Some(stem) = rest.strip_prefix("logs/process-").and_then(|name| name.strip_suffix(".log")) else {
        return false;
    };
    let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    stem.split_once('-').is_some_and(|(epoch, pid)| all_digits(epoch) && all_digits(pid))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "5e55a0a1-0000-4000-8000-000000000001";

    #[test]
    fn a_plugins_folder_is_found_from_any_of_its_read_files() {
        assert_eq!(classify_in_plugins("awesome/octo/plugin.json"), Some((PLUGIN_MANIFEST, "awesome/octo".len())));
        assert_eq!(classify_in_plugins("octo/.mcp.json"), Some((MCP_CONFIG, "octo".len())));
        assert_eq!(
            classify_in_plugins("awesome/octo/.claude-plugin/plugin.json").map(|(kind, _)| kind),
            Some(PLUGIN_MANIFEST)
        );
        assert_eq!(classify_in_plugins("awesome/octo/README.md"), None);
        assert_eq!(classify_in_plugins("awesome/octo/skills/x/scripts/run.sh"), None);
        let path = ".copilot/installed-plugins/awesome/octo/agents/helper.agent.md";
        assert_eq!(plugin_of(path), Some((".copilot/installed-plugins/awesome/octo", "awesome")));
        assert_eq!(plugin_of(".copilot/skills/x/SKILL.md"), None);
    }

    #[test]
    fn wanted_files_are_recognised() {
        let events = format!(".copilot/session-state/{ID}/events.jsonl");
        assert_eq!(classify(&events), Classified { kind: EVENTS_LOG, session_id: Some(ID), tree: None });
        let snapshots = format!(".local/state/.copilot/session-state/{ID}/rewind-file-snapshots/index.json");
        assert_eq!(classify(&snapshots).kind, SNAPSHOTS);
        let vscode = format!(".copilot/session-state/{ID}/vscode.metadata.json");
        assert_eq!(classify(&vscode), Classified { kind: VSCODE_METADATA, session_id: Some(ID), tree: None });
        assert_eq!(classify(".copilot/logs/process-1790845199000-4242.log").kind, PROCESS_LOG);
        assert_eq!(classify(".copilot/logs/process-1790845199000-4242.1.log").kind, FileKind::NOT_WANTED);
        assert_eq!(classify(".config/.copilot/permissions-config.json").kind, PERMISSIONS);
        let sidebar = format!(".copilot/sidebar-sessions-state/{}.json", "6b".repeat(32));
        assert_eq!(classify(&sidebar).kind, SIDEBAR);
        assert_eq!(
            classify(&format!(".copilot/session-state/{ID}/rewind-file-snapshots/tracking.json")).kind,
            FileKind::NOT_WANTED
        );
        assert_eq!(classify(".copilot/config.json").kind, FileKind::SECRET);
        assert_eq!(classify(".config/.copilot/mcp-config.json").kind, MCP_CONFIG);
        assert_eq!(classify(".copilot/skills/deploy/SKILL.md").kind, SKILL);
        assert_eq!(classify(".agents/skills/lint/SKILL.md").kind, SKILL);
        assert_eq!(classify(".agents/skills/lint/scripts/run.sh").kind, FileKind::NOT_WANTED);
        assert_eq!(classify(".copilot/agents/reviewer.agent.md").kind, CUSTOM_AGENT);
        assert_eq!(classify(".copilot/instructions/rust/style.instructions.md").kind, INSTRUCTIONS);
        assert_eq!(classify(".copilot/copilot-instructions.md").kind, INSTRUCTIONS);
        assert_eq!(classify(&format!(".copilot/session-state/{ID}/plan.md")).kind, PLAN);
        assert_eq!(classify(&format!(".copilot/session-state/{ID}/checkpoints/index.md")).kind, CHECKPOINTS_INDEX);
        let artifact_path = format!(".copilot/session-state/{ID}/files/out/report.csv");
        let artifact = classify(&artifact_path);
        assert_eq!((artifact.kind, artifact.session_id), (ARTIFACT, Some(ID)));
        assert_eq!(classify(".copilot/mcp-secrets/a").kind, FileKind::SECRET);
        assert_eq!(classify("Documents/notes.txt").kind, FileKind::OUTSIDE);
    }

    #[test]
    fn older_layouts_are_recognised() {
        let flat = format!(".copilot/session-state/{ID}.jsonl");
        assert_eq!(classify(&flat), Classified { kind: EVENTS_LOG, session_id: Some(ID), tree: None });
        assert_eq!(read_instead(&flat), Some(format!(".copilot/session-state/{ID}/events.jsonl")));
        assert_eq!(read_instead(&format!(".copilot/session-state/{ID}/events.jsonl")), None);
        // A session folder under another name: its log names the session.
        let renamed = classify(".copilot/session-state/backup-of-3/events.jsonl");
        assert_eq!((renamed.kind, renamed.session_id), (EVENTS_LOG, None));
        assert_eq!(classify(".copilot/session-state/.session-operation-locks/events.jsonl").kind, FileKind::NOT_WANTED);
        assert_eq!(classify(".copilot/session-state/notes.jsonl").kind, FileKind::NOT_WANTED);
        let history = format!(".copilot/history-session-state/session_{ID}_1759309200000.json");
        assert_eq!(classify(&history), Classified { kind: HISTORY_SESSION, session_id: Some(ID), tree: None });
        assert_eq!(classify(&format!(".copilot/history-session-state/session_{ID}_.json")).kind, FileKind::NOT_WANTED);
        let session_log = format!(".copilot/logs/session-{ID}.log");
        assert_eq!(classify(&session_log), Classified { kind: PROCESS_LOG, session_id: Some(ID), tree: None });
        assert_eq!(classify(".copilot/logs/session-x.log").kind, FileKind::NOT_WANTED);
        // A usage-only walk lists the flat logs and the history sessions too.
        assert!((LAYOUT.usage_log)("session-state", &format!("{ID}.jsonl")));
        assert!((LAYOUT.usage_log)("history-session-state", &format!("session_{ID}_1759309200000.json")));
        assert!((LAYOUT.usage_log)("dropped", &format!("{ID}.jsonl")), "a flat log given alone");
        assert!(!(LAYOUT.usage_log)("logs", &format!("session-{ID}.jsonl")));
    }

    #[test]
    fn the_files_a_usage_walk_takes_by_name_are_the_store_and_the_session_logs() {
        let roles: Vec<Role> =
            LAYOUT.store_files.iter().map(|name| classify(&format!(".copilot/{name}")).kind.role).collect();
        assert_eq!(roles, [Role::Store, Role::StoreWal, Role::NotNeeded]);
        assert!(crate::sources::is_store_file("session-store.db-wal"));
        assert!(!crate::sources::is_store_file("session-store.db.bak"));
        let log = crate::sources::session_folder_log("session-state").expect("a folder of session folders");
        assert_eq!(classify(&format!(".copilot/session-state/{ID}/{log}")).kind, EVENTS_LOG);
        assert_eq!(crate::sources::session_folder_log("chatSessions"), None);
    }

    #[test]
    fn a_loose_log_goes_into_a_session_folder_or_beside_them() {
        let place = LAYOUT.loose_log.unwrap();
        assert_eq!(place(&format!("saved/{ID}.jsonl")), Some(format!(".copilot/session-state/{ID}.jsonl")));
        assert_eq!(place(&format!("{ID}/events.jsonl")), Some(format!(".copilot/session-state/{ID}/events.jsonl")));
        let stand_in = place("events.jsonl").unwrap();
        assert!(
            stand_in.ends_with("/events.jsonl") && stand_in.len() == ".copilot/session-state//events.jsonl".len() + 36
        );
        assert_eq!(place("notes.jsonl"), None);
    }

    #[test]
    fn excluded_trees_are_named() {
        let pkg = classify(".copilot/pkg/linux-x64/1.0.102/cli-main.js");
        assert_eq!((pkg.kind, pkg.tree), (FileKind::EXCLUDED, Some(".copilot/pkg")));
        let plugin_file = classify(".copilot/installed-plugins/awesome/octo/scripts/run.sh");
        assert_eq!((plugin_file.kind, plugin_file.tree), (FileKind::EXCLUDED, Some(".copilot/installed-plugins")));
        assert_eq!(classify(".copilot/installed-plugins/awesome/octo/plugin.json").kind, PLUGIN_MANIFEST);
        assert_eq!(classify(".copilot/installed-plugins/awesome/octo/skills/x/SKILL.md").kind, SKILL);
        let market = classify("AppData/Local/copilot/marketplaces/x/README.md");
        assert_eq!((market.kind, market.tree), (FileKind::EXCLUDED, Some("AppData/Local/copilot/marketplaces")));
        assert_eq!(classify(".cache/copilot/exp-cache.json").kind, FileKind::NOT_WANTED);
    }
}
