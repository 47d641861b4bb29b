//! `copilot-lens watch`: the credits being spent, live. The CLI makes a usage run on each change
//! of the home (through the cache, so it costs what was written since the last one); this turns
//! each run's ledgers into the view: the day and the month against their limits (the status
//! line's figures), the sessions active in the last hour, and the calls that arrived since the
//! run before, told by the growth of each session's requests per model. The core has no clock:
//! the caller says when it is.

use std::collections::{BTreeMap, HashMap, VecDeque};

use chrono::NaiveDate;

use super::credits::{counts, entry_credits};
use super::ledger::SessionLedger;
use super::rates::RateTable;
use super::status::{StatusFigures, StatusSnapshot};
use super::{Entries, NANO_AIU_PER_CREDIT, NANO_DOLLARS_PER_CREDIT};

/// A session is active when its latest call is at most this old.
pub const ACTIVE_MS: i64 = 60 * 60 * 1000;
/// The arrivals the view keeps, newest first.
const ARRIVALS_KEPT: usize = 12;

/// A session with a call in the last hour.
#[derive(Clone, Debug, PartialEq)]
pub struct ActiveSession {
    pub id: String,
    /// Its credits, all its days.
    pub credits: f64,
    pub last_model: String,
    pub last_call_ms: i64,
}

/// Calls of one session and model that arrived between two runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Arrival {
    /// The session's latest call when they were seen (the run's time if it has none).
    pub at_ms: i64,
    pub session: String,
    pub model: String,
    pub requests: u64,
    /// What they added to the session's credits (never below zero: a checkpoint that turns an
    /// estimate into Copilot's record can lower it).
    pub credits: f64,
}

/// What the view shows after a run.
#[derive(Debug)]
pub struct WatchView {
    /// The day and the month (no session shown).
    pub figures: StatusFigures,
    /// Latest first.
    pub active: Vec<ActiveSession>,
    /// Newest first; none after the first run, whose calls had all arrived before it.
    pub arrivals: Vec<Arrival>,
}

/// A session's requests and credits per model.
type ByModel = BTreeMap<String, (u64, f64)>;

/// The state kept from run to run: each session's counts at the last run.
#[derive(Default)]
pub struct Watch {
    seen: Option<HashMap<String, ByModel>>,
    arrivals: VecDeque<Arrival>,
}

impl Watch {
    /// The view after a run whose ledgers are `ledgers`, at `now_ms`, the month against `limit`.
    pub fn update<'a>(
        &mut self,
        ledgers: impl Iterator<Item = (&'a String, &'a SessionLedger)> + Clone,
        rates: &RateTable,
        now_ms: i64,
        limit: Option<f64>,
    ) -> WatchView {
        let today = chrono::DateTime::from_timestamp_millis(now_ms).map_or(NaiveDate::MIN, |now| now.date_naive());
        let snapshot = StatusSnapshot::of(ledgers.clone(), String::new(), now_ms, today);
        let figures = snapshot.figures(None, rates, today, limit);
        let mut totals = HashMap::new();
        let mut active = Vec::new();
        for (id, ledger) in ledgers {
            let by_model = per_model(&ledger.entries, rates);
            if let Some((last_call_ms, last_model)) = &ledger.last_call
                && now_ms - last_call_ms <= ACTIVE_MS
            {
                let credits = by_model.values().map(|(_, credits)| credits).sum();
                active.push(ActiveSession {
                    id: id.clone(),
                    credits,
                    last_model: last_model.clone(),
                    last_call_ms: *last_call_ms,
                });
            }
            totals.insert(id.clone(), by_model);
        }
        active.sort_by(|a, b| b.last_call_ms.cmp(&a.last_call_ms).then_with(|| a.id.cmp(&b.id)));
        if let Some(seen) = &self.seen {
            let mut arrived: Vec<Arrival> = Vec::new();
            for (id, by_model) in &totals {
                let before = seen.get(id);
                let at_ms = snapshot_time(id, &active, now_ms);
                for (model, &(requests, credits)) in by_model {
                    let (requests_before, credits_before) =
                        before.and_then(|b| b.get(model)).copied().unwrap_or_default();
                    if requests > requests_before {
                        arrived.push(Arrival {
                            at_ms,
                            session: id.clone(),
                            model: model.clone(),
                            requests: requests - requests_before,
                            credits: (credits - credits_before).max(0.0),
                        });
                    }
                }
            }
            // Oldest first, so that the newest ends first; of one session's, its latest call's model last.
            let is_latest = |arrival: &Arrival| {
                active.iter().any(|session| session.id == arrival.session && session.last_model == arrival.model)
            };
            arrived.sort_by(|a, b| {
                (a.at_ms, is_latest(a), &a.session, &a.model).cmp(&(b.at_ms, is_latest(b), &b.session, &b.model))
            });
            for arrival in arrived {
                self.arrivals.push_front(arrival);
            }
            self.arrivals.truncate(ARRIVALS_KEPT);
        }
        self.seen = Some(totals);
        WatchView { figures, active, arrivals: self.arrivals.iter().cloned().collect() }
    }
}

/// When a session's new calls are shown as made: its latest call if it is active, else now.
fn snapshot_time(id: &str, active: &[ActiveSession], now_ms: i64) -> i64 {
    active.iter().find(|session| session.id == id).map_or(now_ms, |session| session.last_call_ms)
}

/// A session's requests and credits per model, by the rule of every figure (`counts`,
/// `entry_credits`).
fn per_model(entries: &Entries, rates: &RateTable) -> ByModel {
    let mut by_model = ByModel::new();
    for (key, entry) in entries.iter().filter(|(key, entry)| counts(key, entry)) {
        let credits = entry_credits(rates, &key.model, entry);
        let slot = by_model.entry(key.model.clone()).or_default();
        slot.0 += entry.tokens.requests;
        slot.1 += credits.recorded_nano_aiu as f64 / NANO_AIU_PER_CREDIT
            + credits.estimated_nanos as f64 / NANO_DOLLARS_PER_CREDIT;
    }
    by_model
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::Tokens;
    use crate::usage::Zone;
    use crate::usage::counters::Reading;
    use crate::usage::counters::Recorded;
    use crate::usage::inputs::Call;
    use crate::usage::ledger::{LoggedAt, Place};

    /// A call of `credits` recorded credits at `timestamp`.
    fn call(ledger: &mut SessionLedger, timestamp: &str, model: &str, credits: u64) {
        let reading = Reading {
            tokens: Tokens { requests: 1, input: 100, output: 10, ..Tokens::default() },
            ..Reading::default()
        };
        let recorded = Recorded { nano_aiu: Some(credits * 1_000_000_000), ..Recorded::default() };
        let call = Call { reading: reading.finish(), recorded, byok: false, auto: false };
        ledger.logged_call(LoggedAt { place: Place::Byte(0), timestamp }, model, call, &RateTable::default_table());
    }

    fn finished(mut ledger: SessionLedger) -> SessionLedger {
        ledger.log_ended();
        ledger.finish(true);
        ledger
    }

    const NOW: &str = "2026-12-06T10:00:00Z";

    fn now_ms() -> i64 {
        crate::time::parse_millis(NOW).unwrap()
    }

    #[test]
    fn the_calls_made_between_two_runs_arrive_and_only_recent_sessions_are_active() {
        let rates = RateTable::default_table();
        let mut a = SessionLedger::new(Zone::Utc);
        call(&mut a, "2026-12-06T09:30:00Z", "gpt-5.4", 2);
        let mut old = SessionLedger::new(Zone::Utc);
        call(&mut old, "2026-12-06T07:00:00Z", "gpt-5.4", 5);
        let ids = ["a".to_string(), "old".to_string()];
        let mut watch = Watch::default();
        let first = [(&ids[0], &finished(a.clone())), (&ids[1], &finished(old.clone()))];
        let view = watch.update(first.into_iter(), &rates, now_ms(), Some(100.0));
        assert_eq!((view.figures.today, view.figures.month.used), (7.0, 7.0));
        assert_eq!(view.active.len(), 1, "only a's call is within the hour");
        assert_eq!(
            (view.active[0].id.as_str(), view.active[0].credits, view.active[0].last_model.as_str()),
            ("a", 2.0, "gpt-5.4")
        );
        assert!(view.arrivals.is_empty(), "the first run's calls had arrived before it");

        // Two more calls of a, one of another model; old unchanged.
        call(&mut a, "2026-12-06T09:58:00Z", "gpt-5.4", 1);
        call(&mut a, "2026-12-06T09:59:00Z", "claude-sonnet-4.5", 3);
        let second = [(&ids[0], &finished(a.clone())), (&ids[1], &finished(old.clone()))];
        let view = watch.update(second.into_iter(), &rates, now_ms(), Some(100.0));
        assert_eq!(view.figures.today, 11.0);
        assert_eq!(view.active[0].last_model, "claude-sonnet-4.5");
        let arrived: Vec<_> =
            view.arrivals.iter().map(|a| (a.session.as_str(), a.model.as_str(), a.requests, a.credits)).collect();
        assert_eq!(arrived, [("a", "claude-sonnet-4.5", 1, 3.0), ("a", "gpt-5.4", 1, 1.0)]);

        // A run with nothing new adds nothing; the arrivals stay.
        let third = [(&ids[0], &finished(a.clone())), (&ids[1], &finished(old))];
        assert_eq!(watch.update(third.into_iter(), &rates, now_ms(), None).arrivals.len(), 2);
    }

    #[test]
    fn the_latest_call_is_kept_whatever_order_the_calls_come_in() {
        let mut ledger = SessionLedger::new(Zone::Utc);
        call(&mut ledger, "2026-12-06T09:00:00Z", "b", 1);
        call(&mut ledger, "2026-12-06T08:00:00Z", "a", 1);
        assert_eq!(
            ledger.last_call,
            Some((crate::time::parse_millis("2026-12-06T09:00:00Z").unwrap(), "b".to_string()))
        );
    }
}
