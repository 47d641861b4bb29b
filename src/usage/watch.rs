//! `copilot-lens watch`: the credits being spent, live. The CLI counts again, on each change of
//! the home, the sessions whose logs grew (`LiveUsage::recount`); this turns their ledgers into
//! the view: the day and the month against their limits (the status line's figures), the
//! sessions active in the last hour, and the calls that arrived since the update before, told
//! by the growth of each session's requests per model. The core has no clock: the caller says
//! when it is.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use chrono::NaiveDate;

use super::credits::{counts, entry_credits};
use super::ledger::SessionLedger;
use super::month::month_of_days;
use super::rates::RateTable;
use super::status::StatusFigures;
use super::{NANO_AIU_PER_CREDIT, NANO_DOLLARS_PER_CREDIT};

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

/// Credits per day as integers (recorded nano-AIU, estimated nano-dollars): a session's are
/// taken from the sums and its new ones added, with nothing lost to rounding.
type ByDay = BTreeMap<NaiveDate, (u128, u128)>;

/// What the view keeps of a session from the update that last changed it.
struct Seen {
    by_model: ByModel,
    by_day: ByDay,
    last_call: Option<(i64, String)>,
}

impl Seen {
    /// By the rule of every figure (`counts`, `entry_credits`).
    fn of(ledger: &SessionLedger, rates: &RateTable) -> Seen {
        let (mut by_model, mut by_day) = (ByModel::new(), ByDay::new());
        for (key, entry) in ledger.entries.iter().filter(|(key, entry)| counts(key, entry)) {
            let credits = entry_credits(rates, &key.model, entry);
            let slot = by_model.entry(key.model.clone()).or_default();
            slot.0 += entry.tokens.requests;
            slot.1 += credits.recorded_nano_aiu as f64 / NANO_AIU_PER_CREDIT
                + credits.estimated_nanos as f64 / NANO_DOLLARS_PER_CREDIT;
            let day = by_day.entry(key.day).or_default();
            day.0 += u128::from(credits.recorded_nano_aiu);
            day.1 += credits.estimated_nanos;
        }
        Seen { by_model, by_day, last_call: ledger.last_call.clone() }
    }

    fn is_active(&self, now_ms: i64) -> bool {
        self.last_call.as_ref().is_some_and(|(last_call_ms, _)| now_ms - last_call_ms <= ACTIVE_MS)
    }
}

/// The state kept from update to update: each session's figures, their sums per day, and the
/// arrivals shown. An update gives the sessions that changed, so it costs what they hold.
#[derive(Default)]
pub struct Watch {
    sessions: HashMap<String, Seen>,
    by_day: ByDay,
    /// The sessions whose latest call was within the hour when they changed: only they can be
    /// active now (a session's latest call only ages until it changes).
    recent: BTreeSet<String>,
    updated: bool,
    arrivals: VecDeque<Arrival>,
}

impl Watch {
    /// The view at `now_ms`, the month against `limit`, after an update whose ledgers are
    /// `changed`: every session's when `whole` (a session not among them is gone), else those
    /// of the sessions that changed.
    pub fn update<'a>(
        &mut self,
        changed: impl Iterator<Item = (&'a String, &'a SessionLedger)>,
        whole: bool,
        rates: &RateTable,
        now_ms: i64,
        limit: Option<f64>,
    ) -> WatchView {
        let changed: Vec<(&String, Seen)> = changed.map(|(id, ledger)| (id, Seen::of(ledger, rates))).collect();
        if whole {
            let given: BTreeSet<&str> = changed.iter().map(|(id, _)| id.as_str()).collect();
            let gone: Vec<String> = self.sessions.keys().filter(|id| !given.contains(id.as_str())).cloned().collect();
            for id in gone {
                self.forget(&id);
            }
        }
        let mut grew = Vec::new();
        for (id, seen) in changed {
            grew.extend(self.take_in(id, seen, now_ms));
        }
        let active = self.active(now_ms);
        self.arrive(grew, &active, now_ms);
        WatchView { figures: self.figures(now_ms, limit), active, arrivals: self.arrivals.iter().cloned().collect() }
    }

    /// Puts a session's new figures in place of its old ones; gives the calls of each model
    /// that arrived since (none at the first update, whose calls had all arrived before it),
    /// timed by `arrive`.
    fn take_in(&mut self, id: &str, seen: Seen, now_ms: i64) -> Vec<Arrival> {
        let before = self.forget(id);
        for (day, (recorded, estimated)) in &seen.by_day {
            let sum = self.by_day.entry(*day).or_default();
            (sum.0, sum.1) = (sum.0 + recorded, sum.1 + estimated);
        }
        let mut grew = Vec::new();
        if self.updated {
            let before = before.map(|before| before.by_model).unwrap_or_default();
            for (model, &(requests, credits)) in &seen.by_model {
                let (requests_before, credits_before) = before.get(model).copied().unwrap_or_default();
                if requests > requests_before {
                    grew.push(Arrival {
                        at_ms: now_ms,
                        session: id.to_string(),
                        model: model.clone(),
                        requests: requests - requests_before,
                        credits: (credits - credits_before).max(0.0),
                    });
                }
            }
        }
        if seen.is_active(now_ms) {
            self.recent.insert(id.to_string());
        }
        self.sessions.insert(id.to_string(), seen);
        grew
    }

    /// The sessions active at `now_ms`, latest first.
    fn active(&mut self, now_ms: i64) -> Vec<ActiveSession> {
        let sessions = &self.sessions;
        self.recent.retain(|id| sessions.get(id).is_some_and(|seen| seen.is_active(now_ms)));
        let mut active: Vec<ActiveSession> = self
            .recent
            .iter()
            .filter_map(|id| {
                let seen = &sessions[id];
                let (last_call_ms, last_model) = seen.last_call.clone()?;
                let credits = seen.by_model.values().map(|(_, credits)| credits).sum();
                Some(ActiveSession { id: id.clone(), credits, last_model, last_call_ms })
            })
            .collect();
        active.sort_by(|a, b| b.last_call_ms.cmp(&a.last_call_ms).then_with(|| a.id.cmp(&b.id)));
        active
    }

    /// Adds the calls that arrived to those shown, newest first, each timed by its session.
    fn arrive(&mut self, mut arrived: Vec<Arrival>, active: &[ActiveSession], now_ms: i64) {
        for arrival in &mut arrived {
            arrival.at_ms = snapshot_time(&arrival.session, active, now_ms);
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
        self.updated = true;
    }

    /// The day and the month against `limit`, from the sums per day.
    fn figures(&self, now_ms: i64, limit: Option<f64>) -> StatusFigures {
        let today = chrono::DateTime::from_timestamp_millis(now_ms).map_or(NaiveDate::MIN, |now| now.date_naive());
        let by_day = self
            .by_day
            .iter()
            .map(|(day, (recorded, estimated))| {
                (*day, (*recorded as f64 / NANO_AIU_PER_CREDIT, *estimated as f64 / NANO_DOLLARS_PER_CREDIT))
            })
            .collect();
        let month = month_of_days(&by_day, today, today, limit);
        StatusFigures { session: None, today: month.on(today), month }
    }

    /// Takes a session's figures out of the sums, and gives them.
    fn forget(&mut self, id: &str) -> Option<Seen> {
        let seen = self.sessions.remove(id)?;
        for (day, (recorded, estimated)) in &seen.by_day {
            if let Some(sum) = self.by_day.get_mut(day) {
                (sum.0, sum.1) = (sum.0 - recorded, sum.1 - estimated);
                if *sum == (0, 0) {
                    self.by_day.remove(day);
                }
            }
        }
        Some(seen)
    }
}

/// When a session's new calls are shown as made: its latest call if it is active, else now.
fn snapshot_time(id: &str, active: &[ActiveSession], now_ms: i64) -> i64 {
    active.iter().find(|session| session.id == id).map_or(now_ms, |session| session.last_call_ms)
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
        let view = watch.update(first.into_iter(), true, &rates, now_ms(), Some(100.0));
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
        let view = watch.update(second.into_iter(), true, &rates, now_ms(), Some(100.0));
        assert_eq!(view.figures.today, 11.0);
        assert_eq!(view.active[0].last_model, "claude-sonnet-4.5");
        let arrived: Vec<_> =
            view.arrivals.iter().map(|a| (a.session.as_str(), a.model.as_str(), a.requests, a.credits)).collect();
        assert_eq!(arrived, [("a", "claude-sonnet-4.5", 1, 3.0), ("a", "gpt-5.4", 1, 1.0)]);

        // A run with nothing new adds nothing; the arrivals stay.
        let third = [(&ids[0], &finished(a.clone())), (&ids[1], &finished(old))];
        assert_eq!(watch.update(third.into_iter(), true, &rates, now_ms(), None).arrivals.len(), 2);
    }

    #[test]
    fn an_update_given_the_changed_sessions_shows_what_one_given_every_session_shows() {
        let rates = RateTable::default_table();
        let ids = ["a".to_string(), "b".to_string(), "old".to_string()];
        let (mut a, mut b, mut old) =
            (SessionLedger::new(Zone::Utc), SessionLedger::new(Zone::Utc), SessionLedger::new(Zone::Utc));
        call(&mut a, "2026-12-06T09:30:00Z", "gpt-5.4", 2);
        call(&mut b, "2026-12-05T23:00:00Z", "claude-sonnet-4.5", 4);
        call(&mut old, "2026-11-20T07:00:00Z", "gpt-5.4", 5);
        let (mut given_all, mut given_changed) = (Watch::default(), Watch::default());
        let all = |a: &SessionLedger, b: &SessionLedger, old: &SessionLedger| {
            vec![(&ids[0], finished(a.clone())), (&ids[1], finished(b.clone())), (&ids[2], finished(old.clone()))]
        };
        let first = all(&a, &b, &old);
        let view = |watch: &mut Watch, ledgers: &[(&String, SessionLedger)], whole: bool, now: i64| {
            format!(
                "{:?}",
                watch.update(ledgers.iter().map(|(id, ledger)| (*id, ledger)), whole, &rates, now, Some(50.0))
            )
        };
        assert_eq!(view(&mut given_all, &first, true, now_ms()), view(&mut given_changed, &first, true, now_ms()));
        // a grows twice, then b; the hour moves on between.
        for (step, minutes) in [(0, 1), (1, 2), (2, 70)] {
            let changed = match step {
                0 | 1 => {
                    call(&mut a, "2026-12-06T09:59:00Z", if step == 0 { "gpt-5.4" } else { "o4" }, 3);
                    vec![(&ids[0], finished(a.clone()))]
                }
                _ => {
                    call(&mut b, "2026-12-06T10:00:00Z", "claude-sonnet-4.5", 1);
                    vec![(&ids[1], finished(b.clone()))]
                }
            };
            let now = now_ms() + minutes * 60_000;
            let whole = view(&mut given_all, &all(&a, &b, &old), true, now);
            assert_eq!(whole, view(&mut given_changed, &changed, false, now), "step {step}");
        }
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
