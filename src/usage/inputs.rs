//! What the ledger takes from a source, in no source's shape: one model call ([`Call`]) and
//! one shutdown's cumulative totals ([`ShutdownTotals`], which a source's own record
//! implements, so the ledger walks it borrowed, with nothing copied per line).

use std::collections::BTreeMap;

use super::counters::{Reading, Recorded, Written};

/// One model call as a source read it: its counters, what Copilot recorded as billed for it,
/// and whether it was made with the person's own key (`byok`) or its model chosen by Auto.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Call {
    pub reading: Reading,
    pub recorded: Recorded,
    pub byok: bool,
    pub auto: bool,
}

/// One model's cumulative counters at a shutdown.
pub trait ModelTotal {
    /// The counters, with those that cannot be counts left out.
    fn read(&self) -> Reading;
    /// What Copilot recorded as billed, cumulative (none where nothing readable is written).
    fn recorded(&self) -> Recorded;
}

/// One shutdown's cumulative totals: per model, per agent instance, and session-wide.
pub trait ShutdownTotals {
    type Model: ModelTotal;

    /// The totals per model, or why there are none: `None` when none were written (which
    /// counts nothing), else what was written instead.
    fn per_model(&self) -> Result<&BTreeMap<String, Self::Model>, Option<Written>>;

    /// Each agent instance's totals per model: its id (the main agent's is `main`), its label
    /// (`main`, or a sub-agent's name) and its models.
    fn per_agent(&self) -> impl Iterator<Item = (&str, &str, &BTreeMap<String, Self::Model>)>;

    /// The session-wide billed totals as written.
    fn session_recorded(&self) -> Recorded;
}
