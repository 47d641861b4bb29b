//! `session-state/<id>/vscode.metadata.json`: written by VS Code's Copilot Chat extension, not
//! by the CLI, into the folder of a Copilot CLI session it runs ("vscode.metadata.json" under
//! "Other stores"). It gives the title the person sees in VS Code, the repository and branch
//! (the project's fallback), and the git worktree VS Code may have made for the session at
//! `<repo parent>/<repo>.worktrees/<branch>`: a scratch directory of the agent, not the user's
//! project ("Scratch directories").
//!
//! The shape is VS Code's `ChatSessionMetadataFile` (`chatSessionMetadataStore.ts`; a worktree
//! is a `ChatSessionWorktreeProperties`, version 1 or 2, in `chatSessionWorktreeService.ts`).
//! Read leniently: a key of another type than expected is as good as absent; only a file that is
//! not JSON (cut short, say) is an error.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::ranks;
use crate::facts::session::{FolderRemote, SessionFacts};
use crate::lines::utf8_text;
use crate::model::{PendingRow, RowMark, TurnType};
use crate::sources::folder_uri::{self, Folder};
use crate::time;

/// What the session record and the inventory take of the file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VscodeMetadataFacts {
    /// `customTitle`: the name the person sees in VS Code.
    pub title: String,
    /// The repository (or workspace folder) and branch: the project's fallback.
    pub repository: String,
    /// The remote machine the repository is on (`ssh-remote+mybox`), if it is remote.
    pub remote: String,
    pub branch: String,
    /// The git worktrees VS Code made for the session: scratch directories of the agent.
    pub worktrees: Vec<String>,
}

impl VscodeMetadataFacts {
    /// Its claims on the session (the first file read of a session speaks for it).
    pub fn claim(self, facts: &mut SessionFacts) {
        facts.title.claim(ranks::TITLE_FROM_VSCODE_METADATA, self.title);
        facts.project.claim(ranks::PROJECT_FROM_VSCODE_METADATA, self.repository.as_str());
        facts.branch.claim(ranks::BRANCH_FROM_VSCODE_METADATA, self.branch);
        facts
            .folder_remote
            .get_or_insert_with(|| Box::new(FolderRemote { folder: self.repository, remote: self.remote }));
        facts.worktrees.get_or_insert(self.worktrees);
    }
}

/// The keys copilot-lens reads; every other key (`writtenToDisc`, `firstUserMessage`,
/// `requestDetails`, a worktree's `changes`, ...) is skipped.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VscodeMetadata {
    #[serde(deserialize_with = "crate::json::lenient")]
    pub custom_title: Option<String>,
    #[serde(deserialize_with = "crate::json::lenient")]
    pub repository_properties: Option<Repository>,
    #[serde(deserialize_with = "crate::json::lenient")]
    pub workspace_folder: Option<WorkspaceFolder>,
    #[serde(deserialize_with = "crate::json::lenient")]
    pub worktree_properties: Option<Worktree>,
    #[serde(deserialize_with = "lenient_list")]
    pub additional_workspaces: Vec<AdditionalWorkspace>,
    /// Epoch milliseconds of the file's first write (a number, a fraction dropped, or a
    /// timestamp as text).
    #[serde(deserialize_with = "millis")]
    pub created: Option<i64>,
    /// 1-based line of each `"worktreePath"` key, with its value, for `source_line`.
    #[serde(skip)]
    worktree_lines: Vec<(String, u64)>,
}

/// `repositoryProperties`: the repository the session works on.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Repository {
    #[serde(deserialize_with = "crate::json::lenient")]
    pub repository_path: Option<String>,
    #[serde(deserialize_with = "crate::json::lenient")]
    pub branch_name: Option<String>,
}

/// `workspaceFolder`: the folder opened in VS Code.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WorkspaceFolder {
    #[serde(deserialize_with = "crate::json::lenient")]
    pub folder_path: Option<String>,
}

/// `worktreeProperties`: the git worktree VS Code made for the session, its repository and
/// branch (`baseCommit`, `baseBranchName`, `autoCommit`, ... are not read).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Worktree {
    #[serde(deserialize_with = "crate::json::lenient")]
    pub worktree_path: Option<String>,
    #[serde(deserialize_with = "crate::json::lenient")]
    pub repository_path: Option<String>,
    #[serde(deserialize_with = "crate::json::lenient")]
    pub branch_name: Option<String>,
}

/// One of `additionalWorkspaces`: a folder or a worktree of its own.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AdditionalWorkspace {
    #[serde(deserialize_with = "crate::json::lenient")]
    pub worktree_properties: Option<Worktree>,
    #[serde(deserialize_with = "crate::json::lenient")]
    pub workspace_folder: Option<WorkspaceFolder>,
}

/// A list whose items are each kept when they have the expected shape; not a list, no items.
fn lenient_list<'de, D: Deserializer<'de>, T: DeserializeOwned>(deserializer: D) -> Result<Vec<T>, D::Error> {
    let raw = <&RawValue>::deserialize(deserializer)?;
    let items: Vec<&RawValue> = serde_json::from_str(raw.get()).unwrap_or_default();
    Ok(items.into_iter().filter_map(|item| crate::json::from_str(item.get(), &mut String::new()).ok()).collect())
}

fn millis<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    Ok(time::value_millis(&serde_json::Value::deserialize(deserializer)?))
}

/// A text that is there and not empty.
fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|text| !text.is_empty())
}

pub fn parse(bytes: &[u8]) -> Result<VscodeMetadata, String> {
    let mut spare = String::new();
    let text = utf8_text(bytes)?;
    let mut metadata: VscodeMetadata = crate::json::from_str(text, &mut spare).map_err(|error| error.to_string())?;
    let key = "\"worktreePath\"";
    metadata.worktree_lines = text
        .match_indices(key)
        .filter_map(|(at, _)| {
            let value = text[at + key.len()..].trim_start().strip_prefix(':')?;
            let read = |text| String::deserialize(&mut serde_json::Deserializer::from_str(text));
            let path = crate::json::with_lone_surrogates(value, &mut String::new(), read).ok()?;
            Some((path, text[..at].matches('\n').count() as u64 + 1))
        })
        .collect();
    Ok(metadata)
}

impl VscodeMetadata {
    /// The session's worktrees with a path: its own, then those of its additional workspaces.
    fn worktrees(&self) -> impl Iterator<Item = (&str, &Worktree)> {
        let additional = self.additional_workspaces.iter().filter_map(|entry| entry.worktree_properties.as_ref());
        self.worktree_properties
            .iter()
            .chain(additional)
            .filter_map(|worktree| Some((given(&worktree.worktree_path)?, worktree)))
    }

    /// What the session record and the inventory take: the title; the repository (else the
    /// worktree's, else the workspace folder) and branch (else the worktree's); the worktrees.
    pub fn facts(&self) -> VscodeMetadataFacts {
        let repository = self.repository_properties.as_ref();
        let worktree = self.worktree_properties.as_ref();
        let folder = self.workspace_folder.as_ref();
        let branch =
            repository.and_then(|r| given(&r.branch_name)).or_else(|| worktree.and_then(|w| given(&w.branch_name)));
        let branch = branch.unwrap_or_default();
        let mut worktrees: Vec<String> = Vec::new();
        for (path, _) in self.worktrees() {
            if !worktrees.iter().any(|known| known == path) {
                worktrees.push(path.to_string());
            }
        }
        // A folder may be written as a URI (a remote one names its machine).
        let project = [
            repository.and_then(|r| given(&r.repository_path)),
            worktree.and_then(|w| given(&w.repository_path)),
            folder.and_then(|f| given(&f.folder_path)),
        ]
        .into_iter()
        .flatten()
        .find_map(folder_uri::decode)
        .unwrap_or(Folder { path: String::new(), remote: None });
        VscodeMetadataFacts {
            title: given(&self.custom_title).unwrap_or_default().to_string(),
            repository: project.path,
            remote: project.remote.unwrap_or_default(),
            // Scrubbed as read: a branch can be named with a token (`hotfix/github_pat_…`).
            branch: crate::scrub::scrub_cow(branch).0.into_owned(),
            worktrees,
        }
    }

    /// One row per worktree: `scratch directory: <path> (VS Code worktree of <repo>, branch
    /// <branch>)`, at the file's first write (`created`), else at its modification time.
    pub fn rows(&self, session_id: &str) -> Vec<PendingRow> {
        let created = self.created.map(time::format_millis).filter(|stamp| !stamp.is_empty());
        let mut rows: Vec<PendingRow> = Vec::new();
        for (path, worktree) in self.worktrees() {
            let mut about = String::from("VS Code worktree");
            if let Some(repository) = given(&worktree.repository_path) {
                about.push_str(" of ");
                about.push_str(repository);
            }
            if let Some(branch) = given(&worktree.branch_name) {
                about.push_str(", branch ");
                about.push_str(branch);
            }
            let text = format!("scratch directory: {path} ({about})");
            if rows.iter().any(|row| row.text == text) {
                continue;
            }
            let line = self.worktree_lines.iter().find(|(value, _)| value == path).map_or(0, |(_, line)| *line);
            let mut row = match &created {
                Some(stamp) => PendingRow::new(TurnType::System, text, stamp, line),
                None => PendingRow::at_file_time(TurnType::System, text, line),
            };
            row.mark = RowMark::ScratchDirectory;
            rows.push(row.in_session(session_id));
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's example, as VS Code writes it (`JSON.stringify(metadata, null, 2)`).
    const FOLDER: &str = r#"{
  "workspaceFolder": {
    "folderPath": "c:\\Users\\name\\git\\my-project",
    "timestamp": 1773245818098
  },
  "writtenToDisc": true,
  "repositoryProperties": {
    "repositoryPath": "c:\\Users\\name\\git\\my-project",
    "branchName": "feature/my-branch",
    "baseBranchName": "origin/main"
  },
  "customTitle": "User-written session label or system-set title"
}"#;

    /// A session in a worktree (version 2 properties), with a second workspace in a worktree
    /// of its own and one that is only a folder.
    const WORKTREE: &str = r#"{
  "worktreeProperties": {
    "version": 2,
    "baseCommit": "0a1b2c3",
    "branchName": "copilot/fix-tests",
    "baseBranchName": "main",
    "repositoryPath": "/home/mona/git/app",
    "worktreePath": "/home/mona/git/app.worktrees/copilot-fix-tests",
    "changes": []
  },
  "additionalWorkspaces": [
    { "worktreeProperties": { "version": 1, "autoCommit": true, "baseCommit": "9f8e", "branchName": "copilot/fix-tests",
        "repositoryPath": "/home/mona/git/lib", "worktreePath": "/home/mona/git/lib.worktrees/copilot-fix-tests" } },
    { "workspaceFolder": { "folderPath": "/home/mona/git/docs", "timestamp": 1790931600000 } },
    "not an entry"
  ],
  "customTitle": "Fix the tests",
  "created": 1790931600000
}"#;

    #[test]
    fn a_folder_session_gives_its_title_repository_and_branch() {
        let metadata = parse(FOLDER.as_bytes()).unwrap();
        assert_eq!(
            metadata.facts(),
            VscodeMetadataFacts {
                title: "User-written session label or system-set title".into(),
                repository: r"c:\Users\name\git\my-project".into(),
                branch: "feature/my-branch".into(),
                worktrees: Vec::new(),
                remote: String::new(),
            }
        );
        assert!(metadata.rows("s").is_empty());
    }

    #[test]
    fn a_token_in_a_branch_is_scrubbed_as_read() {
        let token = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345";
        let text = FOLDER.replace("feature/my-branch", &format!("hotfix/{token}"));
        assert_eq!(parse(text.as_bytes()).unwrap().facts().branch, "hotfix/[redacted]");
    }

    #[test]
    fn a_remote_folder_is_its_path_on_its_machine() {
        let text = r#"{"workspaceFolder":{"folderPath":"vscode-remote://ssh-remote%2Bmybox/home/me/app"},"created":1790931600000.5}"#;
        let metadata = parse(text.as_bytes()).unwrap();
        let facts = metadata.facts();
        assert_eq!((facts.repository.as_str(), facts.remote.as_str()), ("/home/me/app", "ssh-remote+mybox"));
        assert_eq!(metadata.created, Some(1790931600000), "a fraction of a millisecond is dropped");
    }

    #[test]
    fn each_worktree_is_a_scratch_directory() {
        let metadata = parse(WORKTREE.as_bytes()).unwrap();
        let facts = metadata.facts();
        assert_eq!((facts.repository.as_str(), facts.branch.as_str()), ("/home/mona/git/app", "copilot/fix-tests"));
        assert_eq!(
            facts.worktrees,
            ["/home/mona/git/app.worktrees/copilot-fix-tests", "/home/mona/git/lib.worktrees/copilot-fix-tests"]
        );
        let rows = metadata.rows("s");
        let texts: Vec<_> = rows.iter().map(|row| (row.text.as_str(), row.source_line)).collect();
        assert_eq!(
            texts,
            [
                (
                    "scratch directory: /home/mona/git/app.worktrees/copilot-fix-tests \
                     (VS Code worktree of /home/mona/git/app, branch copilot/fix-tests)",
                    8
                ),
                (
                    "scratch directory: /home/mona/git/lib.worktrees/copilot-fix-tests \
                     (VS Code worktree of /home/mona/git/lib, branch copilot/fix-tests)",
                    13
                ),
            ]
        );
        assert!(rows.iter().all(|row| row.mark == RowMark::ScratchDirectory && row.session_id == "s"));
        assert!(rows.iter().all(|row| row.timestamp_utc == "2026-10-02T09:00:00.000Z" && !row.at_file_time));
    }

    #[test]
    fn keys_of_other_types_are_as_good_as_absent() {
        let text =
            br#"{"customTitle": 7, "repositoryProperties": "c:\\x", "workspaceFolder": {"folderPath": "/srv/app"},
            "worktreeProperties": {"worktreePath": ["x"], "branchName": null}, "additionalWorkspaces": {"a": 1},
            "created": "yesterday"}"#;
        let metadata = parse(text).unwrap();
        assert_eq!(
            metadata.facts(),
            VscodeMetadataFacts { repository: "/srv/app".into(), ..VscodeMetadataFacts::default() }
        );
        assert!(metadata.rows("s").is_empty());
        assert_eq!(parse(b"{}").unwrap().facts(), VscodeMetadataFacts::default());
    }

    #[test]
    fn a_worktree_without_repository_or_date_is_still_named() {
        let metadata = parse(br#"{"worktreeProperties": {"worktreePath": "/tmp/wt"}}"#).unwrap();
        let rows = metadata.rows("s");
        assert_eq!(rows[0].text, "scratch directory: /tmp/wt (VS Code worktree)");
        assert!(rows[0].at_file_time);
        assert_eq!(rows[0].source_line, 1);
    }

    #[test]
    fn a_file_that_is_not_json_is_an_error() {
        assert!(parse(br#"{"customTitle": "cut sh"#).is_err());
        assert!(parse(b"").is_err());
        assert!(parse(b"\xff\xfe").is_err());
    }
}
