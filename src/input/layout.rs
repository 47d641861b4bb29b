//! Where things are inside a root: finding the home in a listing (whatever the source), and
//! making an archive's entry names safe. What each file of a home is, is its source's business
//! (`crate::sources`).

use crate::sources::{HomeLayout, SOURCES};

/// How the paths of one root map onto a home: the prefix to strip, and the source folder the
/// root is (below that prefix) when it is a source's own folder rather than a home.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rebase {
    prefix: String,
    own_folder: Option<&'static HomeLayout>,
}

impl Rebase {
    /// Finds the home in a root's listing: the shallowest folder holding one of the sources'
    /// data folders, else the shallowest folder that looks like a source's own folder itself
    /// (`COPILOT_HOME`, or a zip of `~/.copilot` whatever its top folder is called).
    pub fn detect<'a>(paths: impl Iterator<Item = &'a str> + Clone) -> Option<Rebase> {
        let layouts = || SOURCES.iter().map(|source| source.layout());
        let home = paths
            .clone()
            .filter_map(|path| {
                // The XDG names end in `.copilot` too: the match starting earliest is the home.
                layouts()
                    .flat_map(|layout| layout.data_folders)
                    .filter_map(|dir| find_component_path(path, dir))
                    .min()
                    .map(|at| path[..at].to_string())
            })
            .min_by(|a, b| depth(a).cmp(&depth(b)).then_with(|| a.cmp(b)));
        if let Some(prefix) = home {
            return Some(Rebase { prefix, own_folder: None });
        }
        paths
            .filter_map(|path| {
                layouts().find_map(|layout| {
                    layout.own_folder_markers.iter().find_map(|marker| {
                        let at = find_component_path(path, marker)?;
                        Some((path[..at].to_string(), layout))
                    })
                })
            })
            .min_by(|a, b| depth(&a.0).cmp(&depth(&b.0)).then_with(|| a.0.cmp(&b.0)))
            .map(|(prefix, own_folder)| Rebase { prefix, own_folder: Some(own_folder) })
    }

    /// How the report names the root's layout: `home`, or the source's own folder's name for
    /// it (`copilot_directory`).
    pub fn layout_name(&self) -> &'static str {
        self.own_folder.map_or("home", |layout| layout.own_folder_layout)
    }

    /// The home-relative path of a root-relative path; `None` outside the found home.
    pub fn apply(&self, path: &str) -> Option<String> {
        let rest = path.strip_prefix(self.prefix.as_str())?;
        Some(match self.own_folder {
            Some(layout) => format!("{}/{rest}", layout.own_folder),
            None => rest.to_string(),
        })
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
