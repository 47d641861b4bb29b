//! Secrets scrubbed from text before it leaves the machine in a shared report: GitHub tokens,
//! bearer headers, AWS keys, private key blocks, `*_TOKEN=` / `*_KEY=` style values and
//! passwords in URLs. Each becomes [`REDACTED`]; what names it (`Bearer`, `GITHUB_TOKEN=`, the
//! URL's user) stays, so a reader still sees what was there.

use std::sync::LazyLock;

use regex_lite::Regex;

pub const REDACTED: &str = "[redacted]";

/// One kind of secret: the pattern, and how many leading groups to keep (the name before it).
struct Rule {
    pattern: Regex,
    keeps_prefix: bool,
}

fn rule(pattern: &str, keeps_prefix: bool) -> Rule {
    Rule { pattern: Regex::new(pattern).expect("a valid secret pattern"), keeps_prefix }
}

/// In the order they apply: a key block first (it holds anything), names with values last.
static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        rule(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?s:.*?)-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----",
            false,
        ),
        rule(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255})", false),
        rule(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b", false),
        rule(r"(?i)(\bbearer\s+)[A-Za-z0-9\-._~+/]+=*", true),
        rule(r"([A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@]+:)[^\s/@]+@", true),
        rule(
            r#"(?i)(\b[A-Z0-9_.\-]*(?:token|key|secret|password|passwd|pwd)["']?\s*[=:]\s*["']?)[^\s"',;&]{4,}"#,
            true,
        ),
    ]
});

/// A text with its secrets replaced, and how many were.
pub fn scrub(text: &str) -> (String, usize) {
    let mut text = text.to_string();
    let mut count = 0;
    for rule in RULES.iter() {
        let replaced = rule.pattern.replace_all(&text, |captures: &regex_lite::Captures<'_>| {
            let whole = &captures[0];
            // A value scrubbed already (by an earlier rule, or an earlier scrub) stays as it is.
            if whole.ends_with(REDACTED) || whole.ends_with(&format!("{REDACTED}@")) {
                return whole.to_string();
            }
            count += 1;
            let prefix = if rule.keeps_prefix { captures.get(1).map_or("", |m| m.as_str()) } else { "" };
            let at = if whole.ends_with('@') && rule.keeps_prefix { "@" } else { "" };
            format!("{prefix}{REDACTED}{at}")
        });
        if let std::borrow::Cow::Owned(changed) = replaced {
            text = changed;
        }
    }
    (text, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_secret_is_redacted_and_counted() {
        let key =
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAA\n-----END OPENSSH PRIVATE KEY-----";
        let text = format!(
            "token ghp_{} and github_pat_{}\nAuthorization: Bearer eyJhbGciOi.J9x-y_z\n\
             aws AKIAIOSFODNN7EXAMPLE aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n\
             {key}\nGITHUB_TOKEN=abc123def OPENAI_API_KEY=\"sk-proj-xyz\" https://mona:hunter2@example.com/x",
            "a".repeat(36),
            "B".repeat(82)
        );
        let (scrubbed, count) = scrub(&text);
        for secret in [
            "ghp_aaa",
            "github_pat_BBB",
            "eyJhbGciOi",
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI",
            "b3BlbnNzaC1rZXktdjEAAAAA",
            "abc123def",
            "sk-proj-xyz",
            "hunter2",
        ] {
            assert!(!scrubbed.contains(secret), "{secret} is still in:\n{scrubbed}");
        }
        assert!(scrubbed.contains("Bearer [redacted]"), "{scrubbed}");
        assert!(scrubbed.contains("GITHUB_TOKEN=[redacted]"), "{scrubbed}");
        assert!(scrubbed.contains("https://mona:[redacted]@example.com/x"), "{scrubbed}");
        assert_eq!(count, 9, "{scrubbed}");
        assert_eq!(scrub(&scrubbed), (scrubbed.clone(), 0), "scrubbing twice finds nothing more");
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        let text = "The key point: run `cargo test` and see https://docs.example/path?q=1. Primary keys are ids.";
        assert_eq!(scrub(text), (text.to_string(), 0));
    }
}
