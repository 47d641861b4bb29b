//! Folders as VS Code writes them (`workspace.json`'s `folder`, a chat request's
//! `workingDirectory`, the Copilot CLI's VS Code metadata): a path, a URI, or URI components.
//! A `file` URI is a local path (with a host, a UNC path `//server/share`); any other scheme
//! is a remote folder: `vscode-remote://ssh-remote%2Bmybox/home/me/app` is `/home/me/app` on
//! the remote `ssh-remote+mybox` (VS Code's authorities are `<kind>+<host>`: `ssh-remote`,
//! `wsl`, `dev-container`, `codespaces`, ...; a host with characters an authority cannot
//! hold is written as the hex of its JSON, `{"hostName": ...}`).

use serde_json::Value;

/// A folder: its path, and the remote machine it is on (`<kind>+<host>`), if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Folder {
    pub path: String,
    pub remote: Option<String>,
}

impl Folder {
    /// The folder as one text that `decode` reads back: the path, or a remote folder's URI.
    pub fn written(&self) -> String {
        match &self.remote {
            None => self.path.clone(),
            Some(remote) => {
                let slash = if self.path.starts_with('/') { "" } else { "/" };
                format!("vscode-remote://{}{slash}{}", escape(remote, "%/"), escape(&self.path, "%"))
            }
        }
    }
}

/// A folder from its JSON: a string as `decode` reads it, or URI components (`scheme`,
/// `authority`, `path`; `fsPath` for a local one).
pub fn from_json(value: &Value) -> Option<Folder> {
    let text = |key: &str| value.get(key).and_then(Value::as_str).filter(|text| !text.is_empty());
    match value {
        Value::String(written) => decode(written),
        Value::Object(_) => match (text("scheme").unwrap_or("file"), text("authority")) {
            ("file", None) => text("fsPath").or_else(|| text("path")).and_then(decode),
            ("file", Some(host)) => Some(local(host, text("path").unwrap_or_default())),
            (_, authority) => Some(remote(authority.unwrap_or_default(), text("path").unwrap_or_default())),
        },
        _ => None,
    }
}

/// A folder written as a path or a URI (percent-encoded); none when empty.
pub fn decode(written: &str) -> Option<Folder> {
    let folder = match uri_parts(written) {
        None => Folder { path: written.to_string(), remote: None },
        Some(("file", authority, path)) => local(&percent_decode(authority), &percent_decode(path)),
        Some((_, authority, path)) => remote(&percent_decode(authority), &percent_decode(path)),
    };
    (!folder.path.is_empty()).then_some(folder)
}

/// `scheme://authority/path` split, the scheme lowercased; none for a path.
fn uri_parts(written: &str) -> Option<(&str, &str, &str)> {
    let (scheme, rest) = written.split_once("://")?;
    let is_scheme = scheme.len() > 1
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !is_scheme {
        return None;
    }
    let (authority, path) = rest.find('/').map_or((rest, ""), |at| rest.split_at(at));
    Some((if scheme.eq_ignore_ascii_case("file") { "file" } else { scheme }, authority, path))
}

/// A local folder: on a host, a UNC path (`//server/share/app`); else the path (`/c:/x` is
/// Windows' `c:/x`).
fn local(host: &str, path: &str) -> Folder {
    let path = if host.is_empty() || host.eq_ignore_ascii_case("localhost") {
        without_drive_slash(path).to_string()
    } else {
        format!("//{host}{path}")
    };
    Folder { path, remote: None }
}

fn remote(authority: &str, path: &str) -> Folder {
    Folder {
        path: without_drive_slash(path).to_string(),
        remote: (!authority.is_empty()).then(|| host_named(authority)),
    }
}

/// `/c:/Users/x` is a Windows path.
fn without_drive_slash(path: &str) -> &str {
    match path.as_bytes() {
        [b'/', letter, b':', ..] if letter.is_ascii_alphabetic() => &path[1..],
        _ => path,
    }
}

/// `<kind>+<host>` with a hex-encoded host read: its JSON's `hostName` (SSH) or `hostPath`
/// (containers), else its text when it is a container's folder.
fn host_named(authority: &str) -> String {
    let Some((kind, host)) = authority.split_once('+') else { return authority.to_string() };
    let decoded = hex_text(host).and_then(|text| match crate::json::from_str::<Value>(&text, &mut String::new()) {
        Ok(Value::Object(object)) => ["hostName", "hostPath", "repositoryPath"]
            .iter()
            .find_map(|key| object.get(*key).and_then(Value::as_str).map(str::to_string)),
        _ => kind.contains("container").then_some(text),
    });
    format!("{kind}+{}", decoded.as_deref().unwrap_or(host))
}

/// The text an even run of hex digits encodes, when it is UTF-8 without control characters.
fn hex_text(hex: &str) -> Option<String> {
    if hex.is_empty() || !hex.len().is_multiple_of(2) || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let bytes: Vec<u8> =
        (0..hex.len()).step_by(2).filter_map(|at| u8::from_str_radix(&hex[at..at + 2], 16).ok()).collect();
    String::from_utf8(bytes).ok().filter(|text| !text.chars().any(char::is_control))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |byte: u8| (byte as char).to_digit(16);
        match (bytes[at], bytes.get(at + 1).copied().and_then(hex), bytes.get(at + 2).copied().and_then(hex)) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((high * 16 + low) as u8);
                at += 3;
            }
            (byte, _, _) => {
                decoded.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

/// `text` with each of `characters` percent-encoded.
fn escape(text: &str, characters: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match characters.contains(c) {
            true => escaped.push_str(&format!("%{:02X}", c as u32)),
            false => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn folder(path: &str, remote: Option<&str>) -> Option<Folder> {
        Some(Folder { path: path.to_string(), remote: remote.map(str::to_string) })
    }

    #[test]
    fn local_folders_are_paths() {
        assert_eq!(decode("file:///home/mona/my%20app"), folder("/home/mona/my app", None));
        assert_eq!(decode("file:///c%3A/Users/mona/app"), folder("c:/Users/mona/app", None));
        assert_eq!(decode("FILE://localhost/srv/app"), folder("/srv/app", None));
        assert_eq!(decode("/home/x"), folder("/home/x", None));
        assert_eq!(decode("c:\\Users\\x"), folder("c:\\Users\\x", None));
        assert_eq!(decode(""), None);
    }

    #[test]
    fn a_file_uri_with_a_host_is_a_unc_path() {
        assert_eq!(decode("file://server/share/app"), folder("//server/share/app", None));
        assert_eq!(decode("file://server/share/my%20app"), folder("//server/share/my app", None));
        let components =
            json!({"scheme": "file", "authority": "server", "path": "/share/app", "fsPath": "\\\\server\\share\\app"});
        assert_eq!(from_json(&components), folder("//server/share/app", None));
    }

    #[test]
    fn remote_folders_name_their_machine() {
        let ssh = "vscode-remote://ssh-remote%2Bmybox/home/me/app";
        assert_eq!(decode(ssh), folder("/home/me/app", Some("ssh-remote+mybox")));
        assert_eq!(decode("vscode-remote://wsl%2BUbuntu/home/me/app"), folder("/home/me/app", Some("wsl+Ubuntu")));
        assert_eq!(
            decode("vscode-remote://codespaces%2Bfuzzy-space-a1b2/workspaces/app"),
            folder("/workspaces/app", Some("codespaces+fuzzy-space-a1b2"))
        );
        // A host VS Code wrote as the hex of `{"hostName":"my box"}`; a container as the hex of its folder.
        let hex_ssh = "vscode-remote://ssh-remote%2B7b22686f73744e616d65223a226d7920626f78227d/srv/app";
        assert_eq!(decode(hex_ssh), folder("/srv/app", Some("ssh-remote+my box")));
        let container = "vscode-remote://dev-container%2B2f686f6d652f6d652f617070/workspaces/app";
        assert_eq!(decode(container), folder("/workspaces/app", Some("dev-container+/home/me/app")));
        assert_eq!(
            decode("vscode-remote://ssh-remote%2Bwin/c%3A/Users/me/app"),
            folder("c:/Users/me/app", Some("ssh-remote+win"))
        );
        let components = json!({"scheme": "vscode-remote", "authority": "ssh-remote+mybox", "path": "/home/me/app"});
        assert_eq!(from_json(&components), folder("/home/me/app", Some("ssh-remote+mybox")));
    }

    #[test]
    fn a_folder_written_is_read_back() {
        for written in [
            "/home/me/app",
            "vscode-remote://ssh-remote%2Bmybox/home/me/my%25app",
            "vscode-remote://dev-container%2B2f686f6d652f6d652f617070/workspaces/app",
            "vscode-remote://ssh-remote%2Bwin/c%3A/Users/me/app",
        ] {
            let folder = decode(written).unwrap();
            assert_eq!(decode(&folder.written()), Some(folder), "{written}");
        }
    }
}
