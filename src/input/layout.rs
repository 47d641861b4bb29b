//! Where things are inside a root: finding the home in a listing, and what each file is
//! ("Parser plan" `wants()`, "Exclusions" and "Credentials" in the format specification).

/// The Copilot directories of a home: `~/.copilot` and the two that predate the XDG migration.
const COPILOT_DIRS: [&str; 3] = [".copilot", ".local/state/.copilot", ".config/.copilot"];
/// The package caches beside the home, whose `pkg/` and `marketplaces/` trees are excluded.
const CACHE_DIRS: [&str; 3] = [".cache/copilot", "Library/Caches/copilot", "AppData/Local/copilot"];
/// Entries that only a Copilot directory holds: how a root that is `~/.copilot` itself is told
/// apart from a home.
const COPILOT_DIR_MARKERS: [&str; 6] = [
    "session-state",
    "session-store.db",
    "session-store.db-wal",
    "command-history-state.json",
    "permissions-config.json",
    "sidebar-sessions-state",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    EventsLog,
    Workspace,
    Snapshots,
    Store,
    StoreWal,
    StoreShm,
    History,
    Permissions,
    Settings,
    Sidebar,
    ProcessLog,
    /// Inside a tree that is never read (packages, plugin copies, marketplace clones).
    Excluded,
    /// A file that can hold credentials: never read for its values.
    Secret,
    /// A Copilot file that carries no rows (locks, caches, trackers).
    NotWanted,
    /// Outside the Copilot directories of the home.
    Outside,
}

/// What a home-relative path is, with the session id or excluded tree it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classified<'a> {
    pub kind: FileKind,
    /// The session directory name, for files under `session-state/<id>/`.
    pub session_id: Option<&'a str>,
    /// The excluded tree (e.g. `.copilot/pkg`), for [`FileKind::Excluded`].
    pub tree: Option<&'a str>,
}

pub fn classify(path: &str) -> Classified<'_> {
    let plain = |kind| Classified { kind, session_id: None, tree: None };
    if let Some((dir, rest)) = split_prefix(path, &COPILOT_DIRS) {
        return classify_in_copilot_dir(path, dir, rest);
    }
    if let Some((dir, rest)) = split_prefix(path, &CACHE_DIRS) {
        return match excluded_tree(path, dir, rest, &["pkg", "marketplaces"]) {
            Some(tree) => Classified { kind: FileKind::Excluded, session_id: None, tree: Some(tree) },
            None => plain(FileKind::NotWanted),
        };
    }
    plain(FileKind::Outside)
}

fn classify_in_copilot_dir<'a>(path: &'a str, dir: &str, rest: &'a str) -> Classified<'a> {
    let plain = |kind| Classified { kind, session_id: None, tree: None };
    if let Some(tree) = excluded_tree(path, dir, rest, &["pkg", "installed-plugins", "marketplaces"]) {
        return Classified { kind: FileKind::Excluded, session_id: None, tree: Some(tree) };
    }
    if let Some(in_session) = rest.strip_prefix("session-state/") {
        if let Some((id, file)) = in_session.split_once('/')
            && is_session_id(id)
        {
            let kind = match file {
                "events.jsonl" => FileKind::EventsLog,
                "workspace.yaml" => FileKind::Workspace,
                "rewind-file-snapshots/index.json" => FileKind::Snapshots,
                _ => FileKind::NotWanted,
            };
            return Classified { kind, session_id: Some(id), tree: None };
        }
        return plain(FileKind::NotWanted);
    }
    let kind = match rest {
        "session-store.db" => FileKind::Store,
        "session-store.db-wal" => FileKind::StoreWal,
        "session-store.db-shm" => FileKind::StoreShm,
        "command-history-state.json" => FileKind::History,
        "permissions-config.json" => FileKind::Permissions,
        "settings.json" => FileKind::Settings,
        "config.json" | "mcp-config.json" => FileKind::Secret,
        _ if rest.starts_with("mcp-secrets/") || rest.starts_with("mcp-oauth-config") => FileKind::Secret,
        _ if is_sidebar_file(rest) => FileKind::Sidebar,
        _ if is_process_log(rest) => FileKind::ProcessLog,
        _ => FileKind::NotWanted,
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

/// `[0-9a-f-]{36}`, the session directory pattern of the parser plan.
pub fn is_session_id(name: &str) -> bool {
    name.len() == 36 && name.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'-')
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

/// How the paths of one root map onto a home: the prefix to strip, and whether the root
/// (below that prefix) is a Copilot directory rather than a home.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rebase {
    prefix: String,
    copilot_dir_root: bool,
}

impl Rebase {
    /// Finds the home in a root's listing: the shallowest folder holding one of the Copilot
    /// directories, else the shallowest folder that looks like a Copilot directory itself
    /// (`COPILOT_HOME`, or a zip of `~/.copilot` whatever its top folder is called).
    pub fn detect<'a>(paths: impl Iterator<Item = &'a str> + Clone) -> Option<Rebase> {
        let home = paths
            .clone()
            .filter_map(|path| {
                // The XDG names end in `.copilot` too: the match starting earliest is the home.
                COPILOT_DIRS
                    .iter()
                    .filter_map(|dir| find_component_path(path, dir))
                    .min()
                    .map(|at| path[..at].to_string())
            })
            .min_by(|a, b| depth(a).cmp(&depth(b)).then_with(|| a.cmp(b)));
        if let Some(prefix) = home {
            return Some(Rebase { prefix, copilot_dir_root: false });
        }
        paths
            .filter_map(|path| {
                COPILOT_DIR_MARKERS.iter().find_map(|marker| {
                    let at = find_component_path(path, marker)?;
                    Some(path[..at].to_string())
                })
            })
            .min_by(|a, b| depth(a).cmp(&depth(b)).then_with(|| a.cmp(b)))
            .map(|prefix| Rebase { prefix, copilot_dir_root: true })
    }

    pub fn is_copilot_dir_root(&self) -> bool {
        self.copilot_dir_root
    }

    /// The home-relative path of a root-relative path; `None` outside the found home.
    pub fn apply(&self, path: &str) -> Option<String> {
        let rest = path.strip_prefix(self.prefix.as_str())?;
        Some(if self.copilot_dir_root { format!(".copilot/{rest}") } else { rest.to_string() })
    }
}

/// The byte offset at which `components` (one or more whole path components) start in `path`.
fn find_component_path(path: &str, components: &str) -> Option<usize> {
    let mut start = 0;
    loop {
        let rest = &path[start..];
        if rest.starts_with(components) && rest[components.len()..].starts_with('/') {
            return Some(start);
        }
        start += rest.find('/')? + 1;
    }
}

fn depth(prefix: &str) -> usize {
    prefix.matches('/').count()
}

/// A root-relative path with `\\` separators made `/` and `.`/empty parts dropped, or why the
/// name is refused: it climbs out of the root (`..`) or is absolute (`/x`, `C:\\x`).
pub fn normalize_entry_name(name: &str) -> Result<String, &'static str> {
    if name.starts_with(['/', '\\']) || name.as_bytes().get(1) == Some(&b':') {
        return Err("absolute entry name");
    }
    let mut parts = Vec::new();
    for part in name.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return Err("entry name climbs out of the root with .."),
            _ => parts.push(part),
        }
    }
    if parts.is_empty() { Err("empty entry name") } else { Ok(parts.join("/")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "5e55a0a1-0000-4000-8000-000000000001";

    #[test]
    fn wanted_files_are_recognised() {
        let events = format!(".copilot/session-state/{ID}/events.jsonl");
        assert_eq!(classify(&events), Classified { kind: FileKind::EventsLog, session_id: Some(ID), tree: None });
        let snapshots = format!(".local/state/.copilot/session-state/{ID}/rewind-file-snapshots/index.json");
        assert_eq!(classify(&snapshots).kind, FileKind::Snapshots);
        assert_eq!(classify(".copilot/logs/process-1790845199000-4242.log").kind, FileKind::ProcessLog);
        assert_eq!(classify(".copilot/logs/process-1790845199000-4242.1.log").kind, FileKind::NotWanted);
        assert_eq!(classify(".config/.copilot/permissions-config.json").kind, FileKind::Permissions);
        let sidebar = format!(".copilot/sidebar-sessions-state/{}.json", "6b".repeat(32));
        assert_eq!(classify(&sidebar).kind, FileKind::Sidebar);
        assert_eq!(
            classify(&format!(".copilot/session-state/{ID}/rewind-file-snapshots/tracking.json")).kind,
            FileKind::NotWanted
        );
        assert_eq!(classify(".copilot/config.json").kind, FileKind::Secret);
        assert_eq!(classify(".copilot/mcp-secrets/a").kind, FileKind::Secret);
        assert_eq!(classify("Documents/notes.txt").kind, FileKind::Outside);
    }

    #[test]
    fn excluded_trees_are_named() {
        let pkg = classify(".copilot/pkg/linux-x64/1.0.102/cli-main.js");
        assert_eq!((pkg.kind, pkg.tree), (FileKind::Excluded, Some(".copilot/pkg")));
        let market = classify("AppData/Local/copilot/marketplaces/x/README.md");
        assert_eq!((market.kind, market.tree), (FileKind::Excluded, Some("AppData/Local/copilot/marketplaces")));
        assert_eq!(classify(".cache/copilot/exp-cache.json").kind, FileKind::NotWanted);
    }

    #[test]
    fn homes_and_copilot_dirs_are_found() {
        let home = ["backup/mona/.copilot/session-store.db", "backup/mona/Documents/a.txt"];
        let rebase = Rebase::detect(home.iter().copied()).unwrap();
        assert_eq!(rebase.apply(home[0]).as_deref(), Some(".copilot/session-store.db"));
        assert_eq!(rebase.apply("elsewhere/x").as_deref(), None);

        let xdg = [".local/state/.copilot/session-store.db"];
        assert_eq!(Rebase::detect(xdg.iter().copied()).unwrap().apply(xdg[0]).as_deref(), Some(xdg[0]));

        let dir = ["my-copilot/session-state/x/events.jsonl", "my-copilot/config.json"];
        let rebase = Rebase::detect(dir.iter().copied()).unwrap();
        assert_eq!(rebase.apply(dir[1]).as_deref(), Some(".copilot/config.json"));

        assert_eq!(Rebase::detect(["photos/cat.jpg"].iter().copied()), None);
    }

    #[test]
    fn entry_names_are_made_safe() {
        assert_eq!(normalize_entry_name(r"home\.copilot\settings.json").as_deref(), Ok("home/.copilot/settings.json"));
        assert_eq!(normalize_entry_name("./a//b").as_deref(), Ok("a/b"));
        assert!(normalize_entry_name("a/../../etc/passwd").is_err());
        assert!(normalize_entry_name("/etc/passwd").is_err());
        assert!(normalize_entry_name(r"C:\Users\x").is_err());
    }
}
