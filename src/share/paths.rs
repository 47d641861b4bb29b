//! A project path in every spelling a transcript can hold it, for `--short-project-names`:
//! forward or back slashes (JSON-escaped too), the drive letter in either case, URL-encoded
//! characters, and inside `file://` or `vscode-remote://` URIs (whose path is the project's).

use regex_lite::Regex;

/// Finds one project path, however it is spelled.
pub struct PathSpellings {
    pattern: Regex,
}

impl PathSpellings {
    /// None for an empty path or one that names no folder (`/`).
    pub fn of(path: &str) -> Option<PathSpellings> {
        let separator = r"(?:/|\\\\|\\|%2[Ff]|%5[Cc])";
        let mut pattern = String::new();
        let mut rest = path;
        if let [drive, b':', ..] = path.as_bytes()
            && drive.is_ascii_alphabetic()
        {
            pattern.push_str(&format!(
                "(?:{}|{}){}",
                *drive as char,
                drive.to_ascii_uppercase() as char,
                "(?::|%3[Aa])"
            ));
            rest = &path[2..];
        }
        let segments: Vec<&str> = rest.split(['/', '\\']).collect();
        if segments.iter().all(|segment| segment.is_empty()) {
            return None;
        }
        for (index, segment) in segments.iter().enumerate() {
            if index > 0 {
                pattern.push_str(separator);
            }
            for ch in segment.chars() {
                match ch {
                    ch if ch.is_ascii_alphanumeric() => pattern.push(ch),
                    // Any other character as written, or URL-encoded (each UTF-8 byte).
                    ch => {
                        let mut utf8 = [0; 4];
                        let encoded: String =
                            ch.encode_utf8(&mut utf8).bytes().map(|byte| format!("%(?i:{byte:02X})")).collect();
                        pattern.push_str(&format!("(?:{}|{encoded}{})", regex_lite::escape(&ch.to_string()), plus(ch)));
                    }
                }
            }
        }
        Some(PathSpellings { pattern: Regex::new(&pattern).expect("an escaped path") })
    }

    /// The text with every spelling of the path replaced.
    pub fn replace(&self, text: &str, with: &str) -> String {
        self.pattern.replace_all(text, regex_lite::NoExpand(with)).into_owned()
    }
}

/// A space can be written `+` in a URL's query.
fn plus(ch: char) -> &'static str {
    if ch == ' ' { r"|\+" } else { "" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_windows_path_is_replaced() {
        let spellings = PathSpellings::of("c:/Users/mona/Secret Project").unwrap();
        for text in [
            "c:/Users/mona/Secret Project/src",
            r"c:\Users\mona\Secret Project\src",
            r#"{"cwd":"C:\\Users\\mona\\Secret Project\\src"}"#,
            "file:///c%3A/Users/mona/Secret%20Project/src",
            "vscode://file/C%3A%5CUsers%5Cmona%5CSecret+Project/src",
        ] {
            let replaced = spellings.replace(text, "project-1");
            assert!(replaced.contains("project-1") && !replaced.contains("Secret"), "{text} became {replaced}");
        }
    }

    #[test]
    fn a_remote_path_in_its_uri_is_replaced() {
        let spellings = PathSpellings::of("/home/me/app").unwrap();
        let replaced =
            spellings.replace("vscode-remote://ssh-remote%2Bmybox/home/me/app/main.rs and %2Fhome%2Fme%2Fapp", "p");
        // The leading slash is the path's, as where the path is written alone.
        assert_eq!(replaced, "vscode-remote://ssh-remote%2Bmyboxp/main.rs and p");
        assert!(PathSpellings::of("/").is_none() && PathSpellings::of("").is_none());
    }
}
