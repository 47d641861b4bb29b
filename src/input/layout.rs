//! Where things are inside a root: finding the home in a listing (whatever the source), and
//! making an archive's entry names safe. What each file of a home is, is its source's business
//! (`crate::sources`).

use std::collections::HashMap;

use memchr::memmem::Finder;

use crate::facts::files::Role;
use crate::order;
use crate::sources::{HomeLayout, OwnFolderMarker, SOURCES};

/// How the paths of one root map onto a home: the prefix to strip, and what is below it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rebase {
    prefix: String,
    kind: HomeKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HomeKind {
    Home,
    /// A source's own folder (`~/.copilot` itself, a VS Code `User` folder), by the marker
    /// that told it.
    OwnFolder(&'static OwnFolderMarker),
    /// No home at all, only a source's session logs.
    LooseLogs(&'static HomeLayout),
}

impl Rebase {
    /// Finds every home in a root's listing, shallowest first, none inside another: a folder
    /// holding one of the sources' data folders, or a folder that looks like a source's own
    /// folder itself (`COPILOT_HOME`, or a zip of `~/.copilot` whatever its top folder is
    /// called). A collection of machines (`machineA/.copilot`, `machineB/.copilot`) has several.
    /// (A `dyn` iterator: one copy of this for every kind of listing, in the page's download.)
    pub fn detect_all(paths: &mut dyn Iterator<Item = &str>) -> Vec<Rebase> {
        let layouts = || SOURCES.iter().map(|source| source.layout());
        let mut candidates: HashMap<&str, HomeKind> = HashMap::new();
        let mut loose: Option<&'static HomeLayout> = None;
        let data_folders: Vec<Finder<'static>> =
            layouts().flat_map(|layout| layout.data_folders).map(Finder::new).collect();
        let markers: Vec<(Finder<'static>, &'static OwnFolderMarker)> = layouts()
            .flat_map(|layout| layout.own_folder_markers)
            .map(|marker| (Finder::new(marker.entry), marker))
            .collect();
        for path in paths {
            // The XDG names end in `.copilot` too: the match starting earliest is the home.
            let home = data_folders.iter().filter_map(|dir| find_component_path(path, dir)).min();
            if let Some(at) = home {
                candidates.insert(&path[..at], HomeKind::Home);
                continue;
            }
            // The marker found earliest in the path tells the folder (a VS Code user-data folder
            // holds `User/workspaceStorage`, its `User` folder `workspaceStorage`).
            let own_folder = markers
                .iter()
                .filter_map(|(entry, marker)| Some((find_component_path(path, entry)?, *marker)))
                .min_by_key(|(at, _)| *at);
            if let Some((at, marker)) = own_folder {
                candidates.entry(&path[..at]).or_insert(HomeKind::OwnFolder(marker));
                continue;
            }
            loose =
                loose.or_else(|| layouts().find(|layout| layout.loose_log.is_some_and(|place| place(path).is_some())));
        }
        if candidates.is_empty()
            && let Some(layout) = loose
        {
            return vec![Rebase { prefix: String::new(), kind: HomeKind::LooseLogs(layout) }];
        }
        let mut candidates: Vec<_> = candidates.into_iter().collect();
        order::sort_by(&mut candidates, |a, b| depth(a.0).cmp(&depth(b.0)).then_with(|| a.0.cmp(b.0)));
        let mut homes: Vec<Rebase> = Vec::new();
        for (prefix, kind) in candidates {
            // Inside a home only its sources' folders are read: a second home there is not one.
            if !homes.iter().any(|home| prefix.starts_with(home.prefix.as_str())) {
                homes.push(Rebase { prefix: prefix.to_string(), kind });
            }
        }
        order::sort_by(&mut homes, |a, b| a.prefix.cmp(&b.prefix));
        homes
    }

    /// Where the home is in its root: the folder's path, empty for the root itself.
    pub fn path(&self) -> &str {
        self.prefix.trim_end_matches('/')
    }

    /// How the report names the root's layout: `home`, the source's own folder's name for it
    /// (`copilot_directory`), or `loose_logs`.
    pub fn layout_name(&self) -> &'static str {
        match self.kind {
            HomeKind::Home => "home",
            HomeKind::OwnFolder(marker) => marker.layout,
            HomeKind::LooseLogs(_) => "loose_logs",
        }
    }

    /// Whether the home is only loose session logs, whose session ids are their own.
    pub fn is_loose_logs(&self) -> bool {
        matches!(self.kind, HomeKind::LooseLogs(_))
    }

    /// The home-relative path of a root-relative path; `None` outside the found home.
    pub fn apply(&self, path: &str) -> Option<String> {
        let rest = path.strip_prefix(self.prefix.as_str())?;
        match self.kind {
            HomeKind::Home => Some(rest.to_string()),
            HomeKind::OwnFolder(marker) => Some(format!("{}/{rest}", marker.read_as)),
            HomeKind::LooseLogs(layout) => layout.loose_log?(rest),
        }
    }
}

/// The home of `homes` (as `detect_all` found them in one root) a listed path falls in, with
/// the path relative to it; `None` outside them all.
pub fn home_of(homes: &[Rebase], path: &str) -> Option<(usize, String)> {
    let (index, home) = homes
        .iter()
        .enumerate()
        .filter(|(_, home)| path.starts_with(home.prefix.as_str()))
        .max_by_key(|(_, home)| home.prefix.len())?;
    Some((index, home.apply(path)?))
}

/// The zips a folder holds outside every home in it, each read as a root of its own (a home's
/// backup dropped in a folder, alone or beside other things). A zip inside a home's Copilot
/// folders is that home's file, not a root. This goes one level deep: the zips inside those
/// roots are read as any zip's are.
#[derive(Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FolderZips {
    /// Their paths in the folder, in listing order.
    pub zips: Vec<String>,
    /// Whether the folder holds a home (or loose logs) besides them; one that does not is no
    /// root of its own.
    pub holds_data: bool,
}

pub fn zips_outside_homes<'a>(paths: impl Iterator<Item = &'a str> + Clone) -> FolderZips {
    let is_zip = |path: &&str| path.len() > 4 && path.as_bytes()[path.len() - 4..].eq_ignore_ascii_case(b".zip");
    let homes = Rebase::detect_all(&mut paths.clone().filter(|path| !is_zip(path)));
    let in_a_home = |path: &str| {
        home_of(&homes, path).is_some_and(|(_, inside)| crate::sources::classify(&inside).1.kind.role != Role::Outside)
    };
    let zips = paths.filter(is_zip).filter(|path| !in_a_home(path)).map(str::to_string).collect();
    FolderZips { zips, holds_data: !homes.is_empty() }
}

/// The files of a folder's listing, by index, that no analysis opens: inside a home, those its
/// sources only count, name or size (`Role::is_opened`). A browser's walk gets their Files after
/// the analysis, for the report's sizes: each File costs a round trip to the browser. (Files
/// outside every home are few, and one may be a zip read as a root: they are not among them.)
pub fn never_opened<'a>(paths: impl Iterator<Item = &'a str> + Clone) -> Vec<u32> {
    let homes = Rebase::detect_all(&mut paths.clone());
    let opened = |path: &str| {
        home_of(&homes, path).is_none_or(|(_, inside)| crate::sources::classify(&inside).1.kind.role.is_opened())
    };
    (0u32..).zip(paths).filter(|(_, path)| !opened(path)).map(|(index, _)| index).collect()
}

/// The byte offset at which `components` (one or more whole path components) start in `path`.
/// Searched for whole, with a searcher made once (stepping through every component of every
/// path was 2.5% of a `usage` run).
fn find_component_path(path: &str, components: &Finder<'_>) -> Option<usize> {
    let bytes = path.as_bytes();
    components
        .find_iter(bytes)
        .find(|&at| (at == 0 || bytes[at - 1] == b'/') && bytes.get(at + components.needle().len()) == Some(&b'/'))
}

fn depth(prefix: &str) -> usize {
    prefix.matches('/').count()
}

/// A root-relative path with `\` separators made `/` and `.`/empty parts dropped, or why the
/// name is refused: it climbs out of the root (`..`) or names nothing. An absolute name, which
/// some Windows zip tools write (`C:\Users\x\...`, `/home/x/...`, `\\server\share\...`,
/// `\\?\C:\...`), is read as relative: an entry's name is only a name, nothing is extracted.
pub fn normalize_entry_name(name: &str) -> Result<String, &'static str> {
    let mut parts = Vec::new();
    for part in name.split(['/', '\\']) {
        // Before the first name: the `?` of a `\\?\` path and a drive (`C:`, also run into a
        // drive-relative name, `C:x`) only said where the name began.
        let part = match part.as_bytes() {
            [b'?'] if parts.is_empty() => "",
            [letter, b':', ..] if parts.is_empty() && letter.is_ascii_alphabetic() => &part[2..],
            _ => part,
        };
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

    fn one_home(paths: &[&str]) -> Rebase {
        let mut homes = Rebase::detect_all(&mut paths.iter().copied());
        assert_eq!(homes.len(), 1, "{homes:?}");
        homes.remove(0)
    }

    #[test]
    fn never_opened_are_the_home_s_files_only_counted_named_or_sized() {
        let id = "0cb916db-26aa-40f4-86b4-d0a3ec4dd4a2";
        let session = format!("home/.copilot/session-state/{id}");
        let paths = [
            format!("{session}/events.jsonl"),
            format!("{session}/workspace.yaml"),
            format!("{session}/checkpoints/index.md"),
            format!("{session}/rewind-file-snapshots/index.json"),
            format!("{session}/rewind-file-snapshots/tracking.json"),
            format!("{session}/files/report.pdf"),
            format!("{session}/.workspace-fork.lock"),
            "home/.copilot/config.json".to_string(),
            "home/.copilot/session-store.db-shm".to_string(),
            "home/.copilot/pkg/linux-x64/1.0.102/cli-main.js".to_string(),
            "notes.txt".to_string(),
            "old-home.zip".to_string(),
        ];
        // Not the log, workspace, checkpoints or snapshots (opened); nor what lies outside the home.
        assert_eq!(never_opened(paths.iter().map(String::as_str)), [4, 5, 6, 7, 8, 9]);
    }

    #[test]
    fn zips_outside_every_home_are_roots_of_their_own() {
        let only_a_zip = ["backup-2026-11.zip", "notes.txt"];
        assert_eq!(
            zips_outside_homes(only_a_zip.iter().copied()),
            FolderZips { zips: vec!["backup-2026-11.zip".into()], holds_data: false }
        );
        let beside_a_home = [
            "laptop/.copilot/session-state/a/events.jsonl",
            "laptop/.copilot/session-state/a/files/bundle.zip",
            "laptop/Old-Home.ZIP",
            "desktop.zip",
        ];
        assert_eq!(
            zips_outside_homes(beside_a_home.iter().copied()),
            FolderZips { zips: vec!["laptop/Old-Home.ZIP".into(), "desktop.zip".into()], holds_data: true },
            "a session's artifact is the home's file; a zip beside the Copilot folders is a root"
        );
        assert_eq!(zips_outside_homes(["a.txt", ".zip"].iter().copied()), FolderZips::default());
    }

    #[test]
    fn homes_and_copilot_dirs_are_found() {
        let home = ["backup/mona/.copilot/session-store.db", "backup/mona/Documents/a.txt"];
        let rebase = one_home(&home);
        assert_eq!(rebase.apply(home[0]).as_deref(), Some(".copilot/session-store.db"));
        assert_eq!(rebase.apply("elsewhere/x").as_deref(), None);

        let xdg = [".local/state/.copilot/session-store.db"];
        assert_eq!(one_home(&xdg).apply(xdg[0]).as_deref(), Some(xdg[0]));

        let dir = ["my-copilot/session-state/x/events.jsonl", "my-copilot/config.json"];
        assert_eq!(one_home(&dir).apply(dir[1]).as_deref(), Some(".copilot/config.json"));

        assert_eq!(Rebase::detect_all(&mut ["photos/cat.jpg"].iter().copied()), vec![]);
    }

    #[test]
    fn a_root_of_loose_logs_is_read_as_their_sessions() {
        let id = "5e55a0a1-0000-4000-8000-000000000001";
        let paths = ["events.jsonl".to_string(), format!("saved/{id}/events.jsonl"), "notes.txt".into()];
        let homes = Rebase::detect_all(&mut paths.iter().map(String::as_str));
        assert_eq!(homes.iter().map(Rebase::layout_name).collect::<Vec<_>>(), ["loose_logs"]);
        let stand_in = homes[0].apply(&paths[0]).unwrap();
        assert!(stand_in.starts_with(".copilot/session-state/") && stand_in.ends_with("/events.jsonl"), "{stand_in}");
        assert_eq!(homes[0].apply(&paths[1]), Some(format!(".copilot/session-state/{id}/events.jsonl")));
        assert_eq!(homes[0].apply(&paths[2]), None);
    }

    #[test]
    fn every_home_is_found_but_none_inside_another() {
        let paths = [
            "machineB/.copilot/session-store.db",
            "machineA/.copilot/session-state/x/events.jsonl",
            "old/copilot-copy/session-state/y/events.jsonl",
            "machineA/projects/app/.copilot/mcp-config.json",
            "machineA/.copilot/session-state/x/files/permissions-config.json",
            "notes.txt",
        ];
        let homes = Rebase::detect_all(&mut paths.iter().copied());
        let found: Vec<_> = homes.iter().map(|home| (home.path(), home.layout_name())).collect();
        assert_eq!(found, [("machineA", "home"), ("machineB", "home"), ("old/copilot-copy", "copilot_directory")]);
        assert_eq!(home_of(&homes, paths[1]), Some((0, ".copilot/session-state/x/events.jsonl".into())));
        assert_eq!(home_of(&homes, paths[2]), Some((2, ".copilot/session-state/y/events.jsonl".into())));
        // Inside a home, what is not its Copilot folder is not another home.
        assert_eq!(home_of(&homes, paths[3]), Some((0, "projects/app/.copilot/mcp-config.json".into())));
        assert_eq!(home_of(&homes, paths[5]), None);
    }

    #[test]
    fn vs_code_folders_are_found_as_homes_or_as_themselves() {
        let log = "workspaceStorage/ab12/chatSessions/s.jsonl";
        let read_as = |paths: &[&str]| {
            let home = one_home(paths);
            (home.layout_name(), home.apply(paths[0]).unwrap())
        };
        let in_home = format!("backup/AppData/Roaming/Code/User/{log}");
        assert_eq!(read_as(&[&in_home]), ("home", format!("AppData/Roaming/Code/User/{log}")));
        let user_folder = format!("my-user/{log}");
        assert_eq!(read_as(&[&user_folder]), ("vscode_user_folder", format!(".config/Code/User/{log}")));
        let user_data = format!("portable/user-data/User/{log}");
        assert_eq!(read_as(&[&user_data]), ("vscode_user_data", format!(".config/Code/User/{log}")));
        let empty_window = "User/globalStorage/emptyWindowChatSessions/e.json";
        assert_eq!(read_as(&[empty_window]), ("vscode_user_data", format!(".config/Code/{empty_window}")));
        // Both agents in one home are one home.
        let both = [".copilot/session-state/x/events.jsonl", &in_home[7..]];
        assert_eq!(one_home(&both).path(), "");
    }

    #[test]
    fn entry_names_are_made_safe() {
        assert_eq!(normalize_entry_name(r"home\.copilot\settings.json").as_deref(), Ok("home/.copilot/settings.json"));
        assert_eq!(normalize_entry_name("./a//b").as_deref(), Ok("a/b"));
        assert!(normalize_entry_name("a/../../etc/passwd").is_err());
        assert!(normalize_entry_name(r"C:\..\x").is_err());
        assert!(normalize_entry_name("/").is_err());
    }

    #[test]
    fn absolute_entry_names_are_read_as_relative() {
        let cases = [
            (r"C:\Users\mona\.copilot\config.json", "Users/mona/.copilot/config.json"),
            ("C:/Users/mona/.copilot/config.json", "Users/mona/.copilot/config.json"),
            ("c:Users/mona", "Users/mona"),
            ("/home/mona/.copilot/config.json", "home/mona/.copilot/config.json"),
            (r"\\server\share\mona\.copilot\config.json", "server/share/mona/.copilot/config.json"),
            (r"\\?\C:\Users\mona", "Users/mona"),
            (r"\\.\C:\Users\mona", "Users/mona"),
            ("Users/mona/C:/x", "Users/mona/C:/x"),
        ];
        for (name, relative) in cases {
            assert_eq!(normalize_entry_name(name).as_deref(), Ok(relative), "{name}");
        }
    }
}
