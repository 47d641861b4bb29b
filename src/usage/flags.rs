//! Each flag a usage row can carry, as the JSON outputs name it, in a person's words and with what
//! it means: for the page's tables and legends and the report to share (issue 52 §4). The names
//! stay the outputs' contract; a person reads the words.

use serde::Serialize;

use super::ledger::{AMBIGUOUS_RESUME, IMPLAUSIBLE_COUNTER, SESSION_TOTAL_ABOVE_MODELS};
use super::plausible::IMPLAUSIBLE_DATE;

#[derive(Serialize, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Flag {
    pub name: &'static str,
    pub words: &'static str,
    pub meaning: &'static str,
}

const fn flag(name: &'static str, words: &'static str, meaning: &'static str) -> Flag {
    Flag { name, words, meaning }
}

/// Every flag, in the order a legend lists them.
pub const LEGEND: [Flag; 12] = [
    flag("byok", "your own key", "calls on the person's own model key: GitHub bills no credits for them"),
    flag("auto", "Auto, 10% off", "Auto chose the model: its 10% discount is applied"),
    flag(
        "differs",
        "our estimate ≠ Copilot's record",
        "the estimate at the published rates and the credits Copilot recorded differ by more than 5%",
    ),
    flag(
        "partial",
        "unfinished session (at least)",
        "a session still running or ended without its shutdown counters: a lower bound from its checkpoints",
    ),
    flag("recovered", "from a deleted session", "a session whose log is gone, recovered from Copilot's session store"),
    flag(
        "no_rate",
        "no price for this model",
        "a model without a published rate and without recorded credits: not in the credits",
    ),
    flag("long_context", "long context", "some calls priced at the long-context tier"),
    flag(
        "compaction",
        "compaction",
        "holds the tokens of compactions (summaries of a long conversation), which Copilot billed but left out of its usage counters",
    ),
    flag(
        AMBIGUOUS_RESUME,
        "resumed: counters may have restarted",
        "a resumed session whose Copilot version cannot tell whether its counters restarted: the lower reading is counted",
    ),
    flag(
        SESSION_TOTAL_ABOVE_MODELS,
        "session credits not given to a model",
        "credits a session's totals hold above its per-model ones, put on the day and model of the checkpoints that recorded them",
    ),
    flag(
        IMPLAUSIBLE_COUNTER,
        "a bad token count, left out",
        "a counter that cannot be a token count (negative, fractional, too large) was left out, not added",
    ),
    flag(
        IMPLAUSIBLE_DATE,
        "impossible date, left out",
        "usage dated before 2020 or after tomorrow: shown, but left out of the totals and the month",
    ),
];

/// A flag in a person's words; an unknown name as it is.
pub fn words(name: &str) -> &str {
    LEGEND.iter().find(|flag| flag.name == name).map_or(name, |flag| flag.words)
}

/// The legend of the flags that occur among `names`, in the legend's order.
pub fn legend_of<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'static Flag> {
    let mut present = [false; LEGEND.len()];
    for name in names {
        if let Some(at) = LEGEND.iter().position(|flag| flag.name == name) {
            present[at] = true;
        }
    }
    LEGEND.iter().zip(present).filter_map(|(flag, present)| present.then_some(flag)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_has_one_name_and_one_wording() {
        for (at, flag) in LEGEND.iter().enumerate() {
            for other in &LEGEND[at + 1..] {
                assert_ne!(flag.name, other.name);
                assert_ne!(flag.words, other.words);
            }
        }
        assert_eq!(words("partial"), "unfinished session (at least)");
        assert_eq!(words("not_a_flag"), "not_a_flag");
        let names =
            legend_of(["no_rate", "byok", "no_rate", "unknown"]).iter().map(|flag| flag.name).collect::<Vec<_>>();
        assert_eq!(names, ["byok", "no_rate"]);
    }
}
