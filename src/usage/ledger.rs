//! One session's usage, built line by line in log order (see the counting rules, seed 001):
//! shutdown totals are cumulative per model, so each checkpoint adds its increase over the
//! previous one, on the checkpoint's day; a repeated event id or a lower total adds nothing;
//! a checkpoint stamped with an agentId is already inside the parent's and adds nothing.
//! Per-call records (`session.usage_record`) are summed between checkpoints to reconcile them
//! with each increase, and to give a lower bound (partial) where no checkpoint covers them.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use chrono::NaiveDate;

use super::counters::{ModelMetrics, UsageCounts};
use super::rates::RateTable;
use super::{Entries, Entry, EntryKey, Kind, Tokens, Zone};

#[derive(Debug, Clone)]
pub struct SessionLedger {
    /// The agent whose session it is (set when the session's usage is finished).
    pub agent: &'static str,
    zone: Zone,
    last_totals: BTreeMap<String, Tokens>,
    seen_checkpoints: HashSet<String>,
    /// Per-call sums per model since the last counted checkpoint.
    interval: BTreeMap<String, Entry>,
    /// The same calls by their own day, for a lower bound if no checkpoint comes.
    uncovered: BTreeMap<(NaiveDate, String), Entry>,
    pub entries: Entries,
    pub checkpoints: u64,
    /// Time of the last counted checkpoint.
    pub last_checkpoint_ms: Option<i64>,
    /// Long-context thresholds of the models seen, looked up once.
    thresholds: Vec<(String, Option<u64>)>,
    pub calls: Tokens,
    pub flags: BTreeSet<&'static str>,
}

impl SessionLedger {
    pub fn new(zone: Zone) -> Self {
        SessionLedger {
            agent: "",
            zone,
            last_totals: BTreeMap::new(),
            seen_checkpoints: HashSet::new(),
            interval: BTreeMap::new(),
            uncovered: BTreeMap::new(),
            entries: Entries::default(),
            checkpoints: 0,
            last_checkpoint_ms: None,
            thresholds: Vec::new(),
            calls: Tokens::default(),
            flags: BTreeSet::new(),
        }
    }

    /// One model call. `rates` tells whether it ran above its model's long-context threshold.
    pub fn call(&mut self, millis: Option<i64>, counts: &UsageCounts, rates: &RateTable) {
        let (mut tokens, odd) = counts.tokens(Default::default());
        tokens.requests = 1;
        if odd {
            self.flags.insert("odd_counter");
        }
        if tokens.hold_cache_inside_input() {
            self.flags.insert("cache_above_input");
        }
        let model = counts.model.as_deref().unwrap_or_default();
        let long = self.long_context_threshold(model, rates).is_some_and(|threshold| tokens.input > threshold);
        let entry = Entry::of(tokens, long);
        self.calls.add(&tokens);
        match self.interval.get_mut(model) {
            Some(sum) => sum.add(&entry),
            None => {
                self.interval.insert(model.to_string(), entry);
            }
        }
        match millis {
            Some(millis) => {
                let day = self.zone.day(millis);
                match self.uncovered.iter_mut().find(|((d, m), _)| *d == day && m == model) {
                    Some((_, sum)) => sum.add(&entry),
                    None => {
                        self.uncovered.insert((day, model.to_string()), entry);
                    }
                }
            }
            None => {
                self.flags.insert("undated_call");
            }
        }
    }

    /// A model's long-context threshold, looked up once per model of the session (a lookup
    /// normalises the id).
    fn long_context_threshold(&mut self, model: &str, rates: &RateTable) -> Option<u64> {
        if let Some((_, threshold)) = self.thresholds.iter().find(|(known, _)| known == model) {
            return *threshold;
        }
        let threshold = rates.lookup(model).and_then(|rate| rate.long_context).map(|long| long.above_input_tokens);
        self.thresholds.push((model.to_string(), threshold));
        threshold
    }

    /// One `session.shutdown`.
    pub fn checkpoint(&mut self, event_id: &str, millis: Option<i64>, by_subagent: bool, metrics: &ModelMetrics) {
        if by_subagent {
            self.flags.insert("subagent_checkpoint_not_counted");
            return;
        }
        if !event_id.is_empty() && !self.seen_checkpoints.insert(event_id.to_string()) {
            self.flags.insert("repeated_checkpoint_not_counted");
            return;
        }
        let Some(millis) = millis else {
            self.flags.insert("undated_checkpoint_not_counted");
            return;
        };
        self.checkpoints += 1;
        self.last_checkpoint_ms = self.last_checkpoint_ms.max(Some(millis));
        let day = self.zone.day(millis);
        let had_calls = self.calls.requests > 0;
        let mut interval = std::mem::take(&mut self.interval);
        for (model, metric) in metrics {
            let (totals, odd) = metric.usage.tokens(metric.requests.count);
            if odd {
                self.flags.insert("odd_counter");
            }
            let previous = self.last_totals.insert(model.clone(), totals).unwrap_or_default();
            let calls = interval.remove(model).unwrap_or_default();
            if totals.is_below(&previous) {
                // Some CLI versions are reported to restart their totals on resume.
                self.flags.insert("total_went_down");
                continue;
            }
            let mut increase = totals.minus(&previous);
            if increase.hold_cache_inside_input() {
                self.flags.insert("cache_above_input");
            }
            if had_calls && calls.tokens.counters() != increase.counters() {
                self.flags.insert("per_call_mismatch");
            }
            if increase.is_zero() {
                continue;
            }
            let long = calls.long.min_each(&increase);
            let key = EntryKey { day, model: model.clone(), kind: Kind::Counted };
            self.entries.add(key, &Entry { tokens: increase, long });
        }
        if had_calls && interval.values().any(|calls| !calls.tokens.is_zero()) {
            self.flags.insert("per_call_mismatch");
        }
        self.uncovered.clear();
    }

    /// Frees what only the reading of a log needs (the last totals, the checkpoints seen, the
    /// calls since the last checkpoint, the thresholds): thousands of ledgers wait for the end.
    pub fn log_ended(&mut self) {
        self.last_totals = BTreeMap::new();
        self.seen_checkpoints = HashSet::new();
        self.interval = BTreeMap::new();
        self.thresholds = Vec::new();
    }

    /// Of two logs of one session (a copy left in an older folder, the same home given twice),
    /// the one to count: the later last checkpoint, then more checkpoints, then more calls. The
    /// other is not added: the copies hold the same tokens.
    pub fn keep_more_complete(self, other: SessionLedger) -> SessionLedger {
        let rank = |ledger: &SessionLedger| {
            (ledger.last_checkpoint_ms, ledger.checkpoints, ledger.calls.requests, ledger.calls.input)
        };
        let mut kept = if rank(&other) > rank(&self) { other } else { self };
        kept.flags.insert("several_logs_most_complete_counted");
        kept
    }

    /// Closes the ledger: calls no checkpoint covered become a partial lower bound, or, for a
    /// session whose log is gone, recovered usage.
    pub fn finish(&mut self, log_exists: bool) {
        if !self.uncovered.is_empty() && self.checkpoints > 0 {
            self.flags.insert("calls_after_last_shutdown");
        }
        let kind = if log_exists { Kind::Partial } else { Kind::Recovered };
        for ((day, model), entry) in std::mem::take(&mut self.uncovered) {
            self.entries.add(EntryKey { day, model, kind }, &entry);
        }
        self.interval.clear();
    }

    /// The store's per-call rows (gathered in a ledger of their own) stand in for a log's own
    /// records: as the reconciliation figure, and as the lower bound when the log has no
    /// checkpoint. A log with records of its own keeps them.
    pub fn add_store_calls(&mut self, store: &SessionLedger) {
        if self.calls.requests > 0 || store.calls.requests == 0 {
            return;
        }
        let counted = self.counted_total();
        self.calls.add(&store.calls);
        for (key, entry) in &store.uncovered {
            self.uncovered.entry(key.clone()).or_default().add(entry);
        }
        self.flags.extend(store.flags.iter().copied());
        if self.checkpoints > 0 {
            self.uncovered.clear();
            if self.calls.counters() != counted.counters() {
                self.flags.insert("per_call_mismatch");
            }
        }
        self.flags.insert("per_call_from_store");
    }

    fn counted_total(&self) -> Tokens {
        let mut total = Tokens::default();
        for (key, entry) in self.entries.iter() {
            if key.kind == Kind::Counted {
                total.add(&entry.tokens);
            }
        }
        total
    }
}
