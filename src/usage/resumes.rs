//! How a resumed session's `session.shutdown` counters count, by the CLI version that wrote
//! them (read from the `@github/copilot` packages' code; the table and its evidence are in
//! the guide, docs/src/usage.md, "Resumed sessions"):
//!
//! - up to 1.0.65 (and 1.0.66's pre-releases) a resumed process rebuilds its counters from
//!   the persisted events, and the per-call `assistant.usage` events are never persisted: each
//!   shutdown holds only its own process's counters (they restart from 0);
//! - from 1.0.66 a resumed process replays the last `session.shutdown` (per model) and the
//!   last `session.usage_checkpoint` (session-wide totals): shutdowns are cumulative. A process
//!   that ends without a shutdown is missing from the next one's per-model counters, but not
//!   from its session-wide totals.
//!
//! What marks it: `session.start`'s `copilotVersion`; a `session.resume` written by 1.0.66 or
//! later always has `sessionLimits` (null when none); `session.usage_checkpoint` and
//! `session.usage_record` are written only by cumulative versions.

use serde::{Deserialize, Deserializer};

/// How the shutdown of the process being read counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, Deserialize)]
pub enum Counting {
    /// Its totals include the earlier processes' (1.0.66 and later).
    #[default]
    Cumulative,
    /// Its totals are its own process's (up to 1.0.65).
    Restarting,
    /// The version cannot tell: counted as cumulative (the lower reading), and the restarting
    /// reading kept beside it (the upper one).
    Unknown,
}

/// The first version whose resumed shutdowns are cumulative.
const FIRST_CUMULATIVE: (u64, u64, u64) = (1, 0, 66);

impl Counting {
    /// By the version `session.start` names: `None` when it names none that can be read.
    pub fn of_version(version: &str) -> Option<Counting> {
        let (release, pre_release) = match version.trim().split_once('-') {
            Some((release, _)) => (release, true),
            None => (version.trim(), false),
        };
        let mut parts = release.split('.').map(|part| part.parse::<u64>().ok());
        let number = (parts.next()??, parts.next()??, parts.next()??);
        if parts.next().is_some() {
            return None;
        }
        // A pre-release comes before its release.
        let cumulative = number > FIRST_CUMULATIVE || (number == FIRST_CUMULATIVE && !pre_release);
        Some(if cumulative { Counting::Cumulative } else { Counting::Restarting })
    }
}

/// `session.start` `data`, as far as counting goes.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct StartData {
    #[serde(deserialize_with = "crate::json::lenient")]
    pub copilot_version: Option<String>,
}

/// `session.resume` `data`, as far as counting goes.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ResumeData {
    /// Written (null when there are none) by every resume of 1.0.66 and later.
    #[serde(deserialize_with = "present")]
    pub session_limits: bool,
}

/// Whether the key is there, whatever its value (null included).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(deserializer)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_1_0_66_on_are_cumulative() {
        let of = |version| Counting::of_version(version);
        assert_eq!(of("1.0.14"), Some(Counting::Restarting));
        assert_eq!(of("0.0.365"), Some(Counting::Restarting));
        assert_eq!(of("1.0.65"), Some(Counting::Restarting));
        assert_eq!(of("1.0.66-2"), Some(Counting::Restarting));
        assert_eq!(of("1.0.66"), Some(Counting::Cumulative));
        assert_eq!(of(" 1.0.102 "), Some(Counting::Cumulative));
        assert_eq!(of("1.1.0"), Some(Counting::Cumulative));
        assert_eq!(of(""), None);
        assert_eq!(of("1.0"), None);
        assert_eq!(of("1.0.x"), None);
        assert_eq!(of("1.0.5.1"), None);
    }

    #[test]
    fn a_resume_with_session_limits_null_still_marks_them() {
        let read = |text| serde_json::from_str::<ResumeData>(text).unwrap().session_limits;
        assert!(read(r#"{"sessionLimits":null}"#));
        assert!(read(r#"{"sessionLimits":{"maxAiCredits":30}}"#));
        assert!(!read(r#"{"resumeTime":"2026-01-01T00:00:00Z","eventCount":3}"#));
    }
}
