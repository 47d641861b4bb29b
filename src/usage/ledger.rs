//! One session's usage, built line by line in log order, by the counting rules:
//! shutdown totals are cumulative per model, so each checkpoint adds its increase over the
//! previous one, on the checkpoint's day; a repeated event id or a lower total adds nothing;
//! a checkpoint stamped with an agentId is already inside the parent's and adds nothing.
//! Per-call records (`session.usage_record`) are summed between checkpoints to reconcile them
//! with each increase, and to give a lower bound (partial) where no checkpoint covers them.
//!
//! A resumed session's shutdowns count by the CLI version that wrote them (`resumes`): from
//! 1.0.66 they are cumulative as above; before, each holds only its own process's counters,
//! which add to the totals of the processes before it. Where neither the version nor the
//! counters tell, the cumulative reading is counted (the lower one) and what the restarting
//! reading adds is kept apart (`Kind::AmbiguousResume`), the rows flagged `ambiguous_resume`.
//! A shutdown's session-wide billed totals above its per-model sum (a process that ended
//! without a shutdown) count too, on the day and model of the usage checkpoints that show them;
//! usage checkpoints and calls after the last shutdown are a partial lower bound.
//!
//! A counter that cannot be a token count is left out, never added (see `counters`): its
//! entry and the session are flagged `implausible_counter`, and a log's line says why in
//! `problems`, as do a shutdown without `modelMetrics` and a counter line without a date.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use chrono::NaiveDate;

use super::counters::{LeftOut, Reading, Recorded};
use super::inputs::{Call, ModelTotal, ShutdownTotals};
use super::plausible::{IMPLAUSIBLE_DATE, implausible};
use super::rates::RateTable;
use super::resumes::Counting;
use super::{Entries, Entry, EntryKey, Kind, Tokens, Zone};
use crate::facts::diagnostics::{Diagnostic, DiagnosticKind};

/// Where a log's counter line is: its number (a whole parse), or where it starts (a
/// usage-only scan, which counts lines only for the few it must name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Place {
    Line(u64),
    Byte(u64),
}

/// A log's counter line as the ledger takes it: where it is, and its timestamp as written.
#[derive(Clone, Copy, Debug)]
pub struct LoggedAt<'a> {
    pub place: Place,
    pub timestamp: &'a str,
}

/// Parts of a session's counted figures, by label, model and day: each counted checkpoint's
/// increase per sub-agent (`--by subagent`; the rest of the day's count is the main agent's),
/// or the calls made for a purpose of Copilot's own (`--by purpose`; the rest answered
/// requests).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Shares {
    /// The last checkpoint's totals per sub-agent (by its id) and model.
    last_totals: BTreeMap<(String, String), (Tokens, Recorded)>,
    pub entries: BTreeMap<(NaiveDate, String, String), Entry>,
}

impl Shares {
    /// The shares of `model`'s figures on `day`, by label.
    pub fn of<'a>(&'a self, day: NaiveDate, model: &'a str) -> impl Iterator<Item = (&'a str, &'a Entry)> {
        let on_day =
            self.entries.range((day, String::new(), String::new())..).take_while(move |((at, ..), _)| *at == day);
        on_day.filter(move |((.., of), _)| of == model).map(|((_, label, _), entry)| (label.as_str(), entry))
    }
}

/// What was wrong with a counter line of the log, for the report.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CounterProblem {
    pub at: Place,
    pub kind: DiagnosticKind,
    pub message: String,
}

impl CounterProblem {
    /// The diagnostic of `file`, with the line number when known (`line` where `at` is a byte).
    pub fn diagnostic(self, home: usize, file: &str, line: Option<u64>) -> Diagnostic {
        let (line, message) = match (self.at, line) {
            (Place::Line(number), _) | (Place::Byte(_), Some(number)) => (Some(number), self.message),
            (Place::Byte(offset), None) => (None, format!("{} (the line at byte {offset})", self.message)),
        };
        Diagnostic { home: Some(home), file: file.to_string(), line, kind: self.kind, message }
    }
}

/// The flag of entries and sessions whose figures leave out a counter that was not a count.
pub const IMPLAUSIBLE_COUNTER: &str = "implausible_counter";
/// The flag of entries and sessions whose shutdowns may have restarted their counters.
pub const AMBIGUOUS_RESUME: &str = "ambiguous_resume";

/// The flag of a session whose usage checkpoints' running totals went down (the higher is kept).
pub const USAGE_CHECKPOINT_WENT_DOWN: &str = "usage_checkpoint_went_down";

/// The flag of the credits a shutdown's session-wide totals hold above its per-model ones.
pub const SESSION_TOTAL_ABOVE_MODELS: &str = "session_total_above_models";

/// The flag of a session some of whose turns are counted from a per-call log's records of the
/// same responses (VS Code's debug log) rather than from the turn's own figure.
pub const TURNS_FROM_PER_CALL_LOG: &str = "turns_from_per_call_log";

/// Every flag a ledger can carry: a cached ledger's flags are read back as these.
const FLAGS: [&str; 21] = [
    IMPLAUSIBLE_COUNTER,
    AMBIGUOUS_RESUME,
    USAGE_CHECKPOINT_WENT_DOWN,
    SESSION_TOTAL_ABOVE_MODELS,
    IMPLAUSIBLE_DATE,
    "cache_above_input",
    "calls_after_last_shutdown",
    "counters_restarted_on_resume",
    "partial_turns",
    "per_call_from_store",
    "per_call_mismatch",
    "recorded_from_usage_checkpoint",
    "recorded_total_went_down",
    "repeated_checkpoint_not_counted",
    "several_logs_most_complete_counted",
    "shutdown_without_counters",
    "subagent_checkpoint_not_counted",
    TURNS_FROM_PER_CALL_LOG,
    "total_went_down",
    "undated_call",
    "undated_checkpoint_not_counted",
];

/// Reads flags back as the ledger's own (`FLAGS`); an unknown one fails the entry.
fn known_flags<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<BTreeSet<&'static str>, D::Error> {
    let names: Vec<String> = serde::Deserialize::deserialize(deserializer)?;
    names
        .iter()
        .map(|name| {
            FLAGS.iter().find(|flag| **flag == name).copied().ok_or_else(|| serde::de::Error::custom("unknown flag"))
        })
        .collect()
}

/// Per model, totals and what was recorded as billed.
type ModelTotals = BTreeMap<String, (Tokens, Recorded)>;

/// One of a store's calls with its time: what makes its `Entry` again.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct TimedCall {
    millis: i64,
    model: u32,
    tokens: Tokens,
    long: bool,
    implausible: bool,
    recorded: Recorded,
}

impl TimedCall {
    fn entry(&self) -> Entry {
        Entry { recorded: self.recorded, ..Entry::of(self.tokens, self.long, self.implausible) }
    }
}

/// Serialized for the cache (`crate::cache`): the agent and the zone are the log's context's,
/// set again when an entry is read; the flags are read back as the ledger's own constants.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SessionLedger {
    /// The agent whose session it is (set when the session's usage is finished), and the home
    /// (by the analysis's index) it is counted in: its log's, the first of its copies' (the
    /// days only a later copy holds are that copy's home's, `day_homes`), else the first that
    /// names the session.
    #[serde(skip)]
    pub agent: &'static str,
    pub home: usize,
    /// The log it was read from (the analysis's file index), which the report names.
    #[serde(skip)]
    pub file: Option<usize>,
    /// The days the log's counter lines put usage on, each with the first such line, in day
    /// order: where the report places a day usage cannot be on, and which copy of a session
    /// holds a day.
    record_days: Vec<(NaiveDate, Place)>,
    /// The days another home's copy of the session holds first (a session copied onto another
    /// machine and gone on there), each with that home: their usage is that home's.
    #[serde(skip)]
    day_homes: Vec<(NaiveDate, usize)>,
    /// The session's project (set with its agent), for `--by project`.
    pub project: String,
    /// The program the session was run from (set with its agent), for `--by client`.
    #[serde(default)]
    pub client: String,
    #[serde(skip)]
    zone: Zone,
    /// The last checkpoint's totals per model, and what it recorded as billed (cumulative too).
    last_totals: ModelTotals,
    /// How the shutdown of the process being read counts, and how the log's version says a
    /// resumed one does (`None`: no version that can be read).
    counting: Counting,
    version_counting: Option<Counting>,
    /// The totals of the processes before the current one: a restarting shutdown adds to them.
    process_base: ModelTotals,
    /// The usage checkpoints since the last shutdown: when, their running totals, their model.
    pending_checkpoints: Vec<(i64, Recorded, Option<String>)>,
    /// The session-wide billed totals as of the last shutdown, and how much of their excess
    /// over the per-model sum has been counted.
    shutdown_recorded: Recorded,
    excess_counted: Recorded,
    /// A store's calls with their times, to tell those after a log's last shutdown (a store
    /// holds hundreds of thousands: each kept as what makes its entry again, its model by index
    /// into `call_models`).
    timed_calls: Vec<TimedCall>,
    call_models: Vec<String>,
    /// The shares of the main agent and the sub-agents, for sessions whose shutdowns give them
    /// (boxed: most do not, and thousands of ledgers wait for the end).
    pub agents: Option<Box<Shares>>,
    /// The shares of the calls Copilot made for a purpose of its own (a chat's title, a summary),
    /// by that purpose, where a per-call log names it.
    pub purposes: Option<Box<Shares>>,
    /// Models some call of which was made with the person's own key (`.1`) or chosen by Auto
    /// (`.2`): their entries are flagged when the ledger is finished.
    billing_models: Vec<(String, bool, bool)>,
    /// The latest `session.usage_checkpoint`: when, and its running totals (boxed: few
    /// sessions have one).
    usage_checkpoint: Option<Box<(i64, Recorded)>>,
    seen_checkpoints: HashSet<String>,
    /// Per-call sums per model since the last counted checkpoint.
    interval: BTreeMap<String, Entry>,
    /// The same calls by their own day, for a lower bound if no checkpoint comes.
    uncovered: BTreeMap<(NaiveDate, String), Entry>,
    pub entries: Entries,
    pub checkpoints: u64,
    /// Time of the last counted checkpoint.
    pub last_checkpoint_ms: Option<i64>,
    /// The latest dated call: when (epoch milliseconds) and its model (`copilot-lens watch`).
    pub last_call: Option<(i64, String)>,
    /// Long-context thresholds of the models seen, looked up once.
    thresholds: Vec<(String, Option<u64>)>,
    pub calls: Tokens,
    /// Turns held until the ledger is closed (`answered_turn`), and the response each gave,
    /// in the same order. In types the cache reads already: the page's first module, which
    /// reads no per-call log, still reads the full module's entries (`finish` counts them),
    /// and a type of their own grew its first download.
    answered_turns: Vec<(EntryKey, Entry)>,
    answered_responses: Vec<String>,
    /// A per-call log's ledger (`recorded_call`): its calls add to other such logs' of the
    /// session (a session's main log and its child logs), and replace the turns whose responses
    /// they record (`take_per_call`).
    per_call_log: bool,
    /// The responses the per-call records name.
    recorded_responses: Vec<String>,
    #[serde(deserialize_with = "known_flags")]
    pub flags: BTreeSet<&'static str>,
    /// The log's counter lines the report must name, until the analysis takes them.
    pub problems: Vec<CounterProblem>,
}

impl SessionLedger {
    /// Flags this closed ledger's entries on implausible days (and its sub-agents' shares on
    /// them), and the ledger; returns each such day with why and what it holds, for the report.
    pub fn flag_implausible_days(&mut self, today: Option<NaiveDate>) -> Vec<(NaiveDate, &'static str, Tokens)> {
        let mut days: Vec<(NaiveDate, &'static str, Tokens)> = Vec::new();
        for (key, entry) in self.entries.iter_mut() {
            let Some(why) = implausible(key.day, today) else { continue };
            entry.implausible_date = true;
            match days.iter_mut().find(|(day, ..)| *day == key.day) {
                Some((_, _, tokens)) => tokens.add(&entry.tokens),
                None => days.push((key.day, why, entry.tokens)),
            }
        }
        for shares in [&mut self.agents, &mut self.purposes].into_iter().flatten() {
            for ((day, ..), entry) in &mut shares.entries {
                entry.implausible_date |= implausible(*day, today).is_some();
            }
        }
        if !days.is_empty() {
            self.flags.insert(IMPLAUSIBLE_DATE);
        }
        days
    }

    pub fn new(zone: Zone) -> Self {
        SessionLedger {
            agent: "",
            home: 0,
            file: None,
            record_days: Vec::new(),
            day_homes: Vec::new(),
            project: String::new(),
            client: String::new(),
            zone,
            last_totals: BTreeMap::new(),
            counting: Counting::default(),
            version_counting: None,
            process_base: BTreeMap::new(),
            pending_checkpoints: Vec::new(),
            shutdown_recorded: Recorded::default(),
            excess_counted: Recorded::default(),
            timed_calls: Vec::new(),
            call_models: Vec::new(),
            agents: None,
            purposes: None,
            billing_models: Vec::new(),
            usage_checkpoint: None,
            seen_checkpoints: HashSet::new(),
            interval: BTreeMap::new(),
            uncovered: BTreeMap::new(),
            entries: Entries::default(),
            checkpoints: 0,
            last_checkpoint_ms: None,
            last_call: None,
            thresholds: Vec::new(),
            calls: Tokens::default(),
            answered_turns: Vec::new(),
            answered_responses: Vec::new(),
            per_call_log: false,
            recorded_responses: Vec::new(),
            flags: BTreeSet::new(),
            problems: Vec::new(),
        }
    }

    /// The zone its days are counted in.
    pub fn zone(&self) -> Zone {
        self.zone
    }

    /// A ledger read from the cache counts in the zone of the run (the entry was made in it).
    pub(crate) fn set_zone(&mut self, zone: Zone) {
        self.zone = zone;
    }

    /// One model call of a log (`session.usage_record`).
    pub fn logged_call(&mut self, at: LoggedAt<'_>, model: &str, call: Call, rates: &RateTable) {
        const RECORD: &str = "session.usage_record";
        let millis = self.millis(at, RECORD, || {
            "its tokens cannot be put on a day, so they are in no usage row (only in the session's per-call sum)"
                .to_string()
        });
        if let Some(millis) = millis {
            self.note_day(self.zone.day(millis), at.place);
        }
        let Call { reading, recorded, byok, auto } = call;
        if !reading.unusable.is_empty() {
            self.note(Some(at.place), DiagnosticKind::ImplausibleCounter, || {
                let (problem, left_out) = (unusable_text(RECORD, &reading), left_out_text(reading.left_out));
                format!(
                    "{problem}. The call's {left_out} are left out, not added (flagged {IMPLAUSIBLE_COUNTER}); \
                     its other counts are kept"
                )
            });
        }
        self.note_model(model, byok, auto);
        self.billed_figure(Some(at.place), RECORD, recorded);
        self.call_reading(millis, model, reading, recorded, rates);
        self.written_by_cumulative_version();
    }

    /// A `session.usage_checkpoint`: the session's running billed totals so far, and the
    /// model it names.
    pub fn usage_checkpoint(&mut self, at: LoggedAt<'_>, recorded: Recorded, model: Option<&str>) {
        const RECORD: &str = "session.usage_checkpoint";
        self.written_by_cumulative_version();
        self.billed_figure(Some(at.place), RECORD, recorded);
        let Some(millis) = crate::time::parse_millis(at.timestamp) else { return };
        self.note_day(self.zone.day(millis), at.place);
        let latest = self.usage_checkpoint.as_deref().copied();
        if latest.is_none_or(|(latest, _)| latest <= millis) {
            // Running totals never go down: a lower one keeps the higher, and says so.
            let highest = latest.map_or(recorded, |(_, before)| {
                let (_, went_down) = recorded.increase_over(&before);
                if went_down {
                    self.flags.insert(USAGE_CHECKPOINT_WENT_DOWN);
                    self.note(Some(at.place), DiagnosticKind::ImplausibleCounter, || {
                        format!(
                            "{RECORD} with a running total below an earlier one: the higher is kept, the count never \
                             lowered (flagged {USAGE_CHECKPOINT_WENT_DOWN})"
                        )
                    });
                }
                recorded.max_each(&before)
            });
            self.usage_checkpoint = Some(Box::new((millis, highest)));
        }
        self.pending_checkpoints.push((millis, recorded, model.map(str::to_string)));
    }

    /// `session.start`: the CLI version that wrote the log tells how resumed shutdowns count.
    pub fn started(&mut self, copilot_version: Option<&str>) {
        self.version_counting = copilot_version.and_then(Counting::of_version);
    }

    /// `session.resume`: a new process, whose shutdown counts by its version. `session_limits`:
    /// the resume has the key only versions with cumulative shutdowns write.
    pub fn resumed(&mut self, session_limits: bool) {
        if session_limits {
            self.written_by_cumulative_version();
        } else {
            self.counting = self.version_counting.unwrap_or(Counting::Unknown);
        }
        self.process_base = self.last_totals.clone();
    }

    /// A line only versions with cumulative shutdowns write: the current process is one, and
    /// so is every later one (a version is not downgraded).
    fn written_by_cumulative_version(&mut self) {
        self.counting = Counting::Cumulative;
        self.version_counting = Some(Counting::Cumulative);
    }

    /// A model some call of which was made with the person's own key, or chosen by Auto.
    pub fn note_model(&mut self, model: &str, byok: bool, auto: bool) {
        if !byok && !auto {
            return;
        }
        match self.billing_models.iter_mut().find(|(known, ..)| known == model) {
            Some((_, was_byok, was_auto)) => (*was_byok, *was_auto) = (*was_byok || byok, *was_auto || auto),
            None => self.billing_models.push((model.to_string(), byok, auto)),
        }
    }

    /// One model call of a store's per-call rows. `rates` tells whether it ran above its
    /// model's long-context threshold.
    pub fn call(&mut self, millis: Option<i64>, model: &str, call: Call, rates: &RateTable) {
        let Call { reading, recorded, .. } = call;
        self.billed_figure(None, "the store's usage row", recorded);
        let entry = self.call_reading(millis, model, reading, recorded, rates);
        if let Some(millis) = millis {
            let model = match self.call_models.iter().position(|known| known == model) {
                Some(index) => index,
                None => {
                    self.call_models.push(model.to_string());
                    self.call_models.len() - 1
                }
            };
            self.timed_calls.push(TimedCall {
                millis,
                model: model as u32,
                tokens: entry.tokens,
                long: entry.long != Tokens::default(),
                implausible: entry.implausible,
                recorded,
            });
        }
    }

    /// Keeps the call at `millis` as the latest when it is (its model copied only when it changed:
    /// a session's calls are mostly of one model). Only `copilot-lens watch` shows it: the page,
    /// whose first download has no byte to spare, keeps none.
    fn note_last_call(&mut self, millis: Option<i64>, model: &str) {
        let Some(millis) = millis.filter(|_| cfg!(not(target_arch = "wasm32"))) else { return };
        match &mut self.last_call {
            Some((latest, _)) if *latest > millis => {}
            Some((latest, latest_model)) => {
                *latest = millis;
                if latest_model != model {
                    *latest_model = model.to_string();
                }
            }
            None => self.last_call = Some((millis, model.to_string())),
        }
    }

    /// A call's tokens and what Copilot recorded as billed for it: summed until a checkpoint
    /// covers them, or a partial (or recovered) lower bound if none does. Returns the call's entry.
    fn call_reading(
        &mut self,
        millis: Option<i64>,
        model: &str,
        reading: Reading,
        recorded: Recorded,
        rates: &RateTable,
    ) -> Entry {
        let mut tokens = reading.tokens;
        let implausible = reading.left_out.any();
        if implausible {
            self.flags.insert(IMPLAUSIBLE_COUNTER);
        }
        if tokens.hold_cache_inside_input() {
            self.flags.insert("cache_above_input");
        }
        let long = self.long_context_threshold(model, rates).is_some_and(|threshold| tokens.input > threshold);
        let entry = Entry { recorded, ..Entry::of(tokens, long, implausible) };
        self.calls.add(&tokens);
        self.note_last_call(millis, model);
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
        entry
    }

    /// One turn of a session whose tokens are recorded per turn (a VS Code chat request, at
    /// `at`), on its own day: counted when the record covers the whole turn, a partial lower
    /// bound when it describes only the turn's last call. `implausible`: a counter was left out.
    pub fn turn(&mut self, at: Place, millis: Option<i64>, model: &str, entry: Entry, whole: bool) {
        if let Some((day, kind)) = self.turn_key(at, millis, model, &entry, whole) {
            self.entries.add_at(day, model, kind, &entry);
        }
    }

    /// A turn's day and kind (its key, with its model), with the turn noted (its tokens in the
    /// session's calls, its day); `None` when it has no day.
    fn turn_key(
        &mut self,
        at: Place,
        millis: Option<i64>,
        model: &str,
        entry: &Entry,
        whole: bool,
    ) -> Option<(NaiveDate, Kind)> {
        let (tokens, implausible) = (entry.tokens, entry.implausible || entry.recorded.implausible);
        self.calls.add(&tokens);
        self.note_last_call(millis, model);
        if implausible {
            self.flags.insert(IMPLAUSIBLE_COUNTER);
        }
        let Some(millis) = millis else {
            self.flags.insert("undated_call");
            return None;
        };
        let kind = if whole { Kind::Counted } else { Kind::Partial };
        if !whole {
            self.flags.insert("partial_turns");
        }
        if whole {
            // Ranks this ledger against another copy's (`keep_more_complete`).
            self.checkpoints += 1;
            self.last_checkpoint_ms = self.last_checkpoint_ms.max(Some(millis));
        }
        let day = self.zone.day(millis);
        self.note_day(day, at);
        Some((day, kind))
    }

    /// A turn as `turn`, whose response Copilot named: held until the ledger is closed
    /// (`finish`), and not counted if a per-call log's records of that response are taken in
    /// (`take_per_call`): they count its calls, with what Copilot recorded for each. Both of the
    /// page's modules hold it so: they read and write the same cache entries, and an entry the
    /// first module made must still let the full one replace the turn.
    pub fn answered_turn(
        &mut self,
        at: Place,
        millis: Option<i64>,
        model: &str,
        entry: Entry,
        whole: bool,
        response_id: &str,
    ) {
        if let Some((day, kind)) = self.turn_key(at, millis, model, &entry, whole) {
            self.answered_turns.push((EntryKey { day, model: model.to_string(), kind }, entry));
            self.answered_responses.push(response_id.to_string());
        }
    }

    /// A counter line at `at` puts usage on `day` (the first line of each day is kept).
    fn note_day(&mut self, day: NaiveDate, at: Place) {
        if let Err(index) = self.record_days.binary_search_by_key(&day, |(known, _)| *known) {
            self.record_days.insert(index, (day, at));
        }
    }

    /// The first counter line of the log that put usage on `day`.
    pub fn first_line_on(&self, day: NaiveDate) -> Option<Place> {
        let index = self.record_days.binary_search_by_key(&day, |(known, _)| *known).ok()?;
        Some(self.record_days[index].1)
    }

    /// The line's time, or `None` with a problem noted (`consequence` says what follows).
    fn millis(&mut self, at: LoggedAt<'_>, record: &str, consequence: impl FnOnce() -> String) -> Option<i64> {
        let millis = crate::time::parse_millis(at.timestamp);
        if millis.is_none() {
            self.note(Some(at.place), DiagnosticKind::UndatedCounter, || {
                let stamp = match at.timestamp.trim() {
                    "" => "an empty, null or missing timestamp".to_string(),
                    text => {
                        format!("the timestamp {:?}, which is not a date", text.chars().take(64).collect::<String>())
                    }
                };
                format!("{record} with {stamp}: {}", consequence())
            });
        }
        millis
    }

    /// A record whose billed figure cannot be an amount: the figure was left out; the session
    /// is flagged and the line named.
    fn billed_figure(&mut self, at: Option<Place>, record: &str, recorded: Recorded) {
        if !recorded.implausible {
            return;
        }
        self.flags.insert(IMPLAUSIBLE_COUNTER);
        self.note(at, DiagnosticKind::ImplausibleCounter, || {
            format!(
                "{record}: a billed figure (totalNanoAiu, totalPremiumRequests or a cost) is negative, not a number \
                 or above 10^9: it is left out, not added (flagged {IMPLAUSIBLE_COUNTER})"
            )
        });
    }

    /// Keeps a problem for the report when the line is known (a log's, not a store's row).
    fn note(&mut self, at: Option<Place>, kind: DiagnosticKind, message: impl FnOnce() -> String) {
        if let Some(at) = at {
            self.problems.push(CounterProblem { at, kind, message: message() });
        }
    }

    /// The problems the report must name, taken (the analysis takes them from each log).
    pub fn take_problems(&mut self) -> Vec<CounterProblem> {
        std::mem::take(&mut self.problems)
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
    pub fn checkpoint<S: ShutdownTotals>(&mut self, at: LoggedAt<'_>, event_id: &str, by_subagent: bool, counters: &S) {
        const RECORD: &str = "session.shutdown";
        if by_subagent {
            self.flags.insert("subagent_checkpoint_not_counted");
            return;
        }
        if !event_id.is_empty() && !self.seen_checkpoints.insert(event_id.to_string()) {
            self.flags.insert("repeated_checkpoint_not_counted");
            return;
        }
        let metrics = match counters.per_model() {
            Ok(metrics) => metrics,
            Err(missing) => {
                self.flags.insert("shutdown_without_counters");
                self.note(Some(at.place), DiagnosticKind::MissingCounters, || {
                    let what = match missing {
                        Some(written) => format!("a modelMetrics that is {written}, not an object"),
                        None => "no modelMetrics (missing or null)".to_string(),
                    };
                    format!(
                        "{RECORD} with {what}: it counts no tokens, so the session's figure rests on its per-call \
                         records (partial) or is unknown; a later shutdown with modelMetrics counts everything up to it"
                    )
                });
                return;
            }
        };
        let Some(millis) = self.millis(at, RECORD, || {
            "its totals cannot be put on a day and are not counted; a later dated shutdown's totals include them"
                .to_string()
        }) else {
            self.flags.insert("undated_checkpoint_not_counted");
            return;
        };
        self.checkpoints += 1;
        self.last_checkpoint_ms = self.last_checkpoint_ms.max(Some(millis));
        let day = self.zone.day(millis);
        self.note_day(day, at.place);
        let had_calls = self.calls.requests > 0;
        let mut interval = std::mem::take(&mut self.interval);
        if self.counting == Counting::Unknown && self.restarted(metrics) {
            // Cumulative totals never go down, and keep every model they ever counted.
            self.counting = Counting::Restarting;
            self.flags.insert("counters_restarted_on_resume");
        }
        for (model, metric) in metrics {
            let mut reading = metric.read();
            let (previous, earlier) = self.last_totals.get(model).copied().unwrap_or_default();
            // A restarting process's own counters add to the processes' before it.
            let (base, base_recorded) = match self.counting {
                Counting::Restarting => self.process_base.get(model).copied().unwrap_or_default(),
                Counting::Cumulative | Counting::Unknown => Default::default(),
            };
            // The process's own counters since its last shutdown.
            let since = previous.minus(&base);
            reading.hold_reasoning_inside_output(&since, "usage", "reasoningTokens since the last shutdown");
            let implausible = reading.left_out.any();
            if implausible {
                self.flags.insert(IMPLAUSIBLE_COUNTER);
                self.note(Some(at.place), DiagnosticKind::ImplausibleCounter, || {
                    let problem = unusable_text(&format!("{RECORD} modelMetrics[{model:?}]"), &reading);
                    let left_out = left_out_text(reading.left_out);
                    format!(
                        "{problem}. This model's {left_out} add nothing at this shutdown (flagged \
                         {IMPLAUSIBLE_COUNTER}); a later shutdown whose totals can be read adds what they missed"
                    )
                });
            }
            // A counter left out keeps the previous total: it adds nothing now, and the next
            // total that can be read adds what it missed.
            let own = reading.left_out.fill(reading.tokens, since);
            let mut totals = base;
            totals.add(&own);
            let mut recorded = base_recorded;
            recorded.add(&metric.recorded());
            self.billed_figure(Some(at.place), &format!("{RECORD} modelMetrics[{model:?}]"), metric.recorded());
            let (recorded_increase, recorded_down) = recorded.increase_over(&earlier);
            if recorded_down {
                self.flags.insert("recorded_total_went_down");
            }
            // A figure not written this time keeps the last one written.
            let kept = Recorded {
                nano_aiu: recorded.nano_aiu.or(earlier.nano_aiu),
                premium_milli: recorded.premium_milli.or(earlier.premium_milli),
                implausible: false,
            };
            self.last_totals.insert(model.clone(), (totals, kept));
            let calls = interval.remove(model).unwrap_or_default();
            if totals.is_below(&previous) {
                self.flags.insert("total_went_down");
                continue;
            }
            let mut increase = totals.minus(&previous);
            if self.counting == Counting::Unknown {
                // The restarting reading adds the process's own counters whole.
                let (extra, mut extra_recorded) = (own.minus(&increase), metric.recorded());
                extra_recorded.take_away(&recorded_increase);
                self.add_ambiguous(
                    EntryKey { day, model: model.clone(), kind: Kind::AmbiguousResume },
                    extra,
                    extra_recorded,
                );
            }
            if increase.hold_cache_inside_input() {
                self.flags.insert("cache_above_input");
            }
            if had_calls && calls.tokens.counters() != increase.counters() {
                self.flags.insert("per_call_mismatch");
            }
            // An increase with a counter left out still makes its row, to carry the flag, as
            // does a billed amount recorded with no tokens.
            if increase.is_zero() && !implausible && recorded_increase.is_zero() {
                continue;
            }
            let long = calls.long.min_each(&increase);
            let key = EntryKey { day, model: model.clone(), kind: Kind::Counted };
            let (recorded, compaction) = (recorded_increase, reading.compaction);
            let entry = Entry { tokens: increase, long, implausible, recorded, compaction, ..Entry::default() };
            self.entries.add(key, &entry);
        }
        if had_calls && interval.values().any(|calls| !calls.tokens.is_zero()) {
            self.flags.insert("per_call_mismatch");
        }
        self.uncovered.clear();
        self.billed_figure(Some(at.place), RECORD, counters.session_recorded());
        self.session_totals(day, metrics, counters.session_recorded());
        self.agent_checkpoint(day, counters.per_agent());
    }

    /// Whether a shutdown of a process whose version cannot tell holds only its own counters:
    /// a total below the last one, or a model counted before and missing now.
    fn restarted(&self, metrics: &BTreeMap<String, impl ModelTotal>) -> bool {
        self.last_totals.iter().any(|(model, (previous, _))| match metrics.get(model) {
            None => !previous.is_zero(),
            Some(metric) => {
                let reading = metric.read();
                !reading.left_out.any() && reading.tokens.is_below(previous)
            }
        })
    }

    /// What the upper reading of an ambiguous resume adds: its rows, and the flag on the
    /// session's counted rows (set when the ledger is finished).
    fn add_ambiguous(&mut self, key: EntryKey, tokens: Tokens, recorded: Recorded) {
        if tokens.is_zero() && recorded.is_zero() {
            return;
        }
        self.flags.insert(AMBIGUOUS_RESUME);
        self.entries.add(key, &Entry { tokens, recorded, ambiguous: true, ..Entry::default() });
    }

    /// The shutdown's session-wide billed totals (cumulative from 1.0.66): what they hold
    /// above the per-model sum (a process that ended without a shutdown, whose per-model
    /// counters the next process never saw) is counted, on the day and model of the usage
    /// checkpoints that recorded it.
    fn session_totals(&mut self, day: NaiveDate, metrics: &BTreeMap<String, impl ModelTotal>, session: Recorded) {
        let mut per_model = Recorded::default();
        for (_, recorded) in self.last_totals.values() {
            per_model.add(recorded);
        }
        let checkpoints = std::mem::take(&mut self.pending_checkpoints);
        let before = std::mem::replace(&mut self.shutdown_recorded, per_model.max_each(&session));
        // Before 1.0.66 the session-wide totals are the process's own, as its counters are.
        if self.version_counting != Some(Counting::Cumulative) {
            return;
        }
        let excess = session.above(&per_model);
        let mut uncounted = excess;
        uncounted.take_away(&self.excess_counted);
        if uncounted.is_zero() {
            return;
        }
        self.flags.insert(SESSION_TOTAL_ABOVE_MODELS);
        self.excess_counted = self.excess_counted.max_each(&excess);
        // Where no checkpoint names one: the shutdown's model with the most recorded.
        let main_model = metrics
            .iter()
            .max_by_key(|(_, metric)| (metric.recorded().nano_aiu, metric.read().tokens.requests))
            .map_or("", |(model, _)| model.as_str());
        let mut last = before;
        for (millis, total, model) in checkpoints {
            let mut step = total;
            step.take_away(&last);
            last = last.max_each(&total);
            let share = step.min_each(&uncounted);
            if share.is_zero() {
                continue;
            }
            uncounted.take_away(&share);
            let model = model.unwrap_or_else(|| main_model.to_string());
            let key = EntryKey { day: self.zone.day(millis), model, kind: Kind::Counted };
            self.entries.add(key, &Entry { recorded: share, above_models: true, ..Entry::default() });
        }
        if !uncounted.is_zero() {
            let key = EntryKey { day, model: main_model.to_string(), kind: Kind::Counted };
            self.entries.add(key, &Entry { recorded: uncounted, above_models: true, ..Entry::default() });
        }
    }

    /// A counted checkpoint's increase per sub-agent and model, by the same rules as per model:
    /// a total that cannot be read or went down adds nothing (the main agent's share is what
    /// the sub-agents' leave of the count).
    fn agent_checkpoint<'a, M: ModelTotal + 'a>(
        &mut self,
        day: NaiveDate,
        agents: impl Iterator<Item = (&'a str, &'a str, &'a BTreeMap<String, M>)>,
    ) {
        for (id, label, models) in agents.filter(|(id, ..)| *id != "main") {
            for (model, metric) in models {
                let key = (id.to_string(), model.clone());
                let shares = self.agents.get_or_insert_with(Default::default);
                let (previous, earlier) = shares.last_totals.get(&key).copied().unwrap_or_default();
                let mut reading = metric.read();
                reading.hold_reasoning_inside_output(&previous, "usage", "reasoningTokens since the last shutdown");
                if reading.left_out.any() {
                    continue;
                }
                let (totals, recorded) = (reading.tokens, metric.recorded());
                shares.last_totals.insert(key, (totals, recorded));
                if totals.is_below(&previous) {
                    continue;
                }
                let (recorded, _) = recorded.increase_over(&earlier);
                let entry = Entry { tokens: totals.minus(&previous), recorded, ..Entry::default() };
                shares.entries.entry((day, label.to_string(), model.clone())).or_default().add(&entry);
            }
        }
    }

    /// Frees what only the reading of a log needs (the last totals, the checkpoints seen, the
    /// calls since the last checkpoint, the thresholds, the processes' base totals and the usage
    /// checkpoints since the last shutdown): thousands of ledgers wait for the end.
    pub fn log_ended(&mut self) {
        self.last_totals = BTreeMap::new();
        if let Some(shares) = &mut self.agents {
            shares.last_totals = BTreeMap::new();
        }
        self.seen_checkpoints = HashSet::new();
        self.interval = BTreeMap::new();
        self.thresholds = Vec::new();
        self.process_base = BTreeMap::new();
        self.pending_checkpoints = Vec::new();
    }

    /// Of two logs of one session (a copy left in an older folder, the same home given twice, a
    /// session copied onto another machine), the one to count: the later last checkpoint, then
    /// more checkpoints, then more calls. The other is not added: the copies hold the same
    /// tokens. Each day is counted in the first home whose copy holds it: a copy that went on a
    /// day longer on another machine gives that day to that machine.
    pub fn keep_more_complete(self, other: SessionLedger) -> SessionLedger {
        let rank = |ledger: &SessionLedger| {
            (ledger.last_checkpoint_ms, ledger.checkpoints, ledger.calls.requests, ledger.calls.input)
        };
        let home = self.home.min(other.home);
        let mut holders = self.day_holders();
        for (day, holder) in other.day_holders() {
            let first = holders.entry(day).or_insert(holder);
            *first = (*first).min(holder);
        }
        let mut kept = if rank(&other) > rank(&self) { other } else { self };
        kept.flags.insert("several_logs_most_complete_counted");
        kept.home = home;
        kept.day_homes = holders.into_iter().filter(|(_, holder)| *holder != home).collect();
        kept
    }

    /// The first home holding each day of the copies merged into this one.
    fn day_holders(&self) -> BTreeMap<NaiveDate, usize> {
        let own = self.record_days.iter().map(|(day, _)| (*day, self.home_of(*day)));
        own.chain(self.day_homes.iter().copied()).collect()
    }

    /// The home a day's usage is counted in.
    pub fn home_of(&self, day: NaiveDate) -> usize {
        match self.day_homes.binary_search_by_key(&day, |(known, _)| *known) {
            Ok(index) => self.day_homes[index].1,
            Err(_) => self.home,
        }
    }

    /// The entries by the home their day is counted in (`home_of`), in home order.
    pub fn entries_by_home(&self) -> Vec<(usize, Cow<'_, Entries>)> {
        if self.day_homes.is_empty() {
            return vec![(self.home, Cow::Borrowed(&self.entries))];
        }
        let mut parts: BTreeMap<usize, Entries> = BTreeMap::new();
        for (key, entry) in self.entries.iter() {
            parts.entry(self.home_of(key.day)).or_default().add(key.clone(), entry);
        }
        parts.into_iter().map(|(home, entries)| (home, Cow::Owned(entries))).collect()
    }

    /// Closes the ledger: calls no checkpoint covered become a partial lower bound, or, for a
    /// session whose log is gone, recovered usage.
    pub fn finish(&mut self, log_exists: bool) {
        for (key, entry) in std::mem::take(&mut self.answered_turns) {
            self.entries.add(key, &entry);
        }
        self.answered_responses.clear();
        if !self.uncovered.is_empty() && self.checkpoints > 0 {
            self.flags.insert("calls_after_last_shutdown");
        }
        let kind = if log_exists { Kind::Partial } else { Kind::Recovered };
        for ((day, model), entry) in std::mem::take(&mut self.uncovered) {
            self.entries.add(EntryKey { day, model, kind }, &entry);
        }
        self.interval.clear();
        if log_exists {
            self.add_usage_checkpoint();
        }
        let ambiguous = self.flags.contains(AMBIGUOUS_RESUME);
        let billing =
            |model: &str| self.billing_models.iter().find(|(known, ..)| known == model).map(|(_, b, a)| (*b, *a));
        for (key, entry) in self.entries.iter_mut() {
            if let Some((byok, auto)) = billing(&key.model) {
                (entry.byok, entry.auto) = (entry.byok || byok, entry.auto || auto);
            }
            entry.ambiguous |= ambiguous;
        }
        for shares in [&mut self.agents, &mut self.purposes].into_iter().flatten() {
            for ((_, _, model), entry) in &mut shares.entries {
                if let Some((byok, auto)) = billing(model) {
                    (entry.byok, entry.auto) = (entry.byok || byok, entry.auto || auto);
                }
            }
        }
    }

    /// A session with no shutdown, or work after its last one: what its latest usage checkpoint
    /// recorded beyond the last shutdown's totals and the later calls' own records goes into
    /// its partial figure (on that day's largest, or as a row of no model).
    fn add_usage_checkpoint(&mut self) {
        let Some(checkpoint) = self.usage_checkpoint.take() else { return };
        let (millis, mut total) = *checkpoint;
        if self.checkpoints > 0 {
            if self.last_checkpoint_ms.is_some_and(|last| millis <= last) {
                return;
            }
            total.take_away(&self.shutdown_recorded);
        }
        let mut calls = Recorded::default();
        for (_, entry) in self.entries.iter().filter(|(key, _)| key.kind == Kind::Partial) {
            calls.add(&entry.recorded);
        }
        let beyond =
            |total: Option<u64>, calls: Option<u64>| total.map(|total| total.saturating_sub(calls.unwrap_or(0)));
        let missing = Recorded {
            nano_aiu: beyond(total.nano_aiu, calls.nano_aiu).filter(|n| *n > 0),
            premium_milli: beyond(total.premium_milli, calls.premium_milli).filter(|n| *n > 0),
            implausible: false,
        };
        if missing == Recorded::default() {
            return;
        }
        self.flags.insert("recorded_from_usage_checkpoint");
        let day = self.zone.day(millis);
        let largest = self
            .entries
            .iter_mut()
            .filter(|(key, _)| key.kind == Kind::Partial && key.day == day)
            .max_by_key(|(_, entry)| entry.tokens.total());
        match largest {
            Some((_, entry)) => entry.recorded.add(&missing),
            None => self.entries.add(
                EntryKey { day, model: String::new(), kind: Kind::Partial },
                &Entry { recorded: missing, ..Entry::default() },
            ),
        }
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
        if let Some((millis, model)) = &store.last_call {
            self.note_last_call(Some(*millis), model);
        }
        for (key, entry) in &store.uncovered {
            self.uncovered.entry(key.clone()).or_default().add(entry);
        }
        self.flags.extend(store.flags.iter().copied());
        if let Some(last) = self.last_checkpoint_ms {
            // Calls after the last shutdown stay a partial lower bound; the others reconcile.
            self.uncovered.clear();
            let mut covered = store.calls;
            for call in store.timed_calls.iter().filter(|call| call.millis > last) {
                covered = covered.minus(&call.tokens);
                let model = store.call_models[call.model as usize].clone();
                self.uncovered.entry((self.zone.day(call.millis), model)).or_default().add(&call.entry());
            }
            if covered.counters() != counted.counters() {
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

/// `<record>: <field> is <value> (<why>), ...` for the fields of a reading that were left out,
/// or `<record> is <value> (<why>)` when the record itself was not an object.
fn unusable_text(record: &str, reading: &Reading) -> String {
    let described: Vec<String> = reading
        .unusable
        .iter()
        .map(|unusable| match unusable.path() {
            path if path.is_empty() => format!("is {} ({})", unusable.written, unusable.why()),
            path => format!("{path} is {} ({})", unusable.written, unusable.why()),
        })
        .collect();
    match described.as_slice() {
        [whole] if whole.starts_with("is ") => format!("{record} {whole}"),
        _ => format!("{record}: {}", described.join(", ")),
    }
}

/// What a reading left out, in words.
fn left_out_text(left_out: LeftOut) -> String {
    let parts: Vec<&str> = [
        (left_out.requests, "request count"),
        (left_out.input, "input and cache counts"),
        (left_out.output, "output and reasoning counts"),
    ]
    .into_iter()
    .filter_map(|(left, words)| left.then_some(words))
    .collect();
    match parts.as_slice() {
        [_, _, _] => "counts".to_string(),
        _ => parts.join(" and "),
    }
}

/// Who made a per-call log's call, and what for: the sub-agent or child task (`--by subagent`),
/// none for the session's own agent; the purpose of Copilot's own it was made for (`--by
/// purpose`: a chat's title, a summary), none for a call that answered a request.
#[derive(Clone, Copy, Debug, Default)]
pub struct CallMaker<'a> {
    pub agent: Option<&'a str>,
    pub purpose: Option<&'a str>,
}

/// The per-call logs' side of the ledger (VS Code's debug logs): only the full module reads
/// those logs (the page's first module leaves them out, to keep its first download small).
#[cfg(feature = "extras")]
impl SessionLedger {
    /// One model call of a per-call log (a VS Code debug log's `llm_request`), on its own day,
    /// with what Copilot recorded as billed in `entry`; `response_id`, the response it gave;
    /// `made`, who made it and what for.
    pub fn recorded_call(
        &mut self,
        at: Place,
        millis: Option<i64>,
        model: &str,
        entry: Entry,
        response_id: Option<&str>,
        made: CallMaker<'_>,
    ) {
        self.per_call_log = true;
        if let Some(response_id) = response_id.filter(|id| !id.is_empty()) {
            self.recorded_responses.push(response_id.to_string());
        }
        if let Some((day, kind)) = self.turn_key(at, millis, model, &entry, true) {
            for (shares, label) in [(&mut self.agents, made.agent), (&mut self.purposes, made.purpose)] {
                if let Some(label) = label {
                    let shares = shares.get_or_insert_with(Default::default);
                    shares.entries.entry((day, label.to_string(), model.to_string())).or_default().add(&entry);
                }
            }
            self.entries.add_at(day, model, kind, &entry);
        }
    }

    /// Whether it is a per-call log's ledger (`recorded_call`).
    pub fn is_per_call_log(&self) -> bool {
        self.per_call_log
    }

    /// Adds another per-call log of the same session (a child log beside its main log): their
    /// calls are different calls, so they add.
    pub fn add_per_call(&mut self, other: SessionLedger) {
        for (key, entry) in other.entries.iter() {
            self.entries.add(key.clone(), entry);
        }
        for (day, at) in &other.record_days {
            self.note_day(*day, *at);
        }
        for (mine, theirs) in [(&mut self.agents, other.agents), (&mut self.purposes, other.purposes)] {
            let Some(theirs) = theirs else { continue };
            let mine = mine.get_or_insert_with(Default::default);
            for (key, entry) in theirs.entries {
                mine.entries.entry(key).or_default().add(&entry);
            }
        }
        self.calls.add(&other.calls);
        self.checkpoints += other.checkpoints;
        self.last_checkpoint_ms = self.last_checkpoint_ms.max(other.last_checkpoint_ms);
        self.recorded_responses.extend(other.recorded_responses);
        self.billing_models.extend(other.billing_models);
        self.flags.extend(other.flags);
        self.per_call_log = true;
        self.home = self.home.min(other.home);
        self.file = self.file.or(other.file);
    }

    /// Takes in the session's per-call logs (`add_per_call`): the turns whose responses they
    /// record are counted from them (each call with what Copilot recorded), not from the
    /// turn's own figure; the other turns still count.
    pub fn take_per_call(&mut self, calls: SessionLedger) {
        let recorded: BTreeSet<&str> = calls.recorded_responses.iter().map(String::as_str).collect();
        let mut replaced = Tokens::default();
        let held = self.answered_turns.len();
        let turns = std::mem::take(&mut self.answered_turns).into_iter();
        for ((key, entry), response_id) in turns.zip(std::mem::take(&mut self.answered_responses)) {
            if !recorded.contains(response_id.as_str()) {
                self.answered_turns.push((key, entry));
                self.answered_responses.push(response_id);
                continue;
            }
            replaced.add(&entry.tokens);
            // The chat says what the call log does not: that Auto chose the model, or the
            // person's own key ran it.
            self.note_model(&key.model, entry.byok, entry.auto);
        }
        drop(recorded);
        if self.answered_turns.len() < held {
            self.flags.insert(TURNS_FROM_PER_CALL_LOG);
        }
        // The session's tokens count each call once: the replaced turns' are the calls'.
        self.calls = self.calls.minus(&replaced);
        let file = self.file;
        self.add_per_call(calls);
        self.file = file.or(self.file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy of a session's log in `home`, one request on each day of October in `days`.
    fn copy(home: usize, days: std::ops::RangeInclusive<u32>) -> SessionLedger {
        let mut ledger = SessionLedger::new(Zone::Utc);
        ledger.home = home;
        for day in days {
            let millis = NaiveDate::from_ymd_opt(2026, 10, day).unwrap().and_hms_opt(9, 0, 0).unwrap();
            let tokens = Tokens { requests: 1, input: 100, output: 10, ..Tokens::default() };
            let entry = Entry { tokens, ..Entry::default() };
            ledger.turn(Place::Line(u64::from(day)), Some(millis.and_utc().timestamp_millis()), "m", entry, true);
        }
        ledger
    }

    #[test]
    fn each_day_of_copied_logs_is_the_first_home_holding_it_in_whatever_order_they_come() {
        let homes = |ledger: &SessionLedger| -> Vec<(u32, usize)> {
            let parts = ledger.entries_by_home();
            let days = parts.iter().flat_map(|(home, entries)| entries.iter().map(move |(key, _)| (key.day, *home)));
            let mut days: Vec<(u32, usize)> = days.map(|(day, home)| (chrono::Datelike::day(&day), home)).collect();
            days.sort_unstable();
            days
        };
        let expected = [(1, 0), (2, 0), (3, 1), (4, 2)];
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0], [2, 0, 1]] {
            let copies = [copy(0, 1..=2), copy(1, 1..=3), copy(2, 1..=4)];
            let mut copies = order.map(|at| copies[at].clone()).into_iter();
            let first = copies.next().unwrap();
            let merged = copies.fold(first, SessionLedger::keep_more_complete);
            assert_eq!(homes(&merged), expected, "merged in the order {order:?}");
            assert_eq!(merged.first_line_on(NaiveDate::from_ymd_opt(2026, 10, 4).unwrap()), Some(Place::Line(4)));
        }
        assert_eq!(homes(&copy(3, 1..=2)), [(1, 3), (2, 3)], "a log alone: its home");
    }

    #[test]
    #[cfg(feature = "extras")]
    fn a_call_its_log_and_its_chat_both_hold_counts_once_as_the_log_recorded_it() {
        let at = |minute: u32| {
            let time = NaiveDate::from_ymd_opt(2026, 10, 20).unwrap().and_hms_opt(9, minute, 0).unwrap();
            Some(time.and_utc().timestamp_millis())
        };
        let tokens = |input: u64, output: u64| Tokens { requests: 1, input, output, ..Tokens::default() };
        // The chat: a turn its debug log holds (Auto chose its model) and one it does not.
        let mut chat = SessionLedger::new(Zone::Utc);
        let turn = Entry { tokens: tokens(5000, 300), auto: true, ..Entry::default() };
        chat.answered_turn(Place::Line(1), at(0), "gpt-5.4", turn, true, "resp-0");
        let other = Entry { tokens: tokens(1000, 100), ..Entry::default() };
        chat.answered_turn(Place::Line(2), at(10), "claude-sonnet-4.5", other, true, "resp-1");
        // Its main log's two calls of the first turn, and a sub-agent's call in a child log.
        let recorded = |nano: u64| Recorded { nano_aiu: Some(nano), ..Recorded::default() };
        let mut main = SessionLedger::new(Zone::Utc);
        let call =
            |input, output, nano| Entry { tokens: tokens(input, output), recorded: recorded(nano), ..Entry::default() };
        for (line, minute, input, output, nano, response) in
            [(3, 0, 2000, 100, 1_500_000_000, "r-0"), (6, 1, 3000, 200, 2_000_000_000, "resp-0")]
        {
            let call = call(input, output, nano);
            main.recorded_call(Place::Line(line), at(minute), "gpt-5.4", call, Some(response), CallMaker::default());
        }
        let mut child = SessionLedger::new(Zone::Utc);
        let explorer = CallMaker { agent: Some("runSubagent-explorer"), purpose: None };
        child.recorded_call(Place::Line(2), at(0), "claude-haiku-4.5", call(800, 50, 330_000_000), None, explorer);
        main.add_per_call(child);
        chat.take_per_call(main);
        chat.finish(true);
        let figures: Vec<_> = chat
            .entries
            .iter()
            .map(|(key, entry)| {
                (key.model.as_str(), entry.tokens.requests, entry.tokens.input, entry.recorded.nano_aiu, entry.auto)
            })
            .collect();
        assert_eq!(
            figures,
            [
                ("claude-haiku-4.5", 1, 800, Some(330_000_000), false),
                ("claude-sonnet-4.5", 1, 1000, None, false),
                ("gpt-5.4", 2, 5000, Some(3_500_000_000), true),
            ]
        );
        assert_eq!((chat.calls.requests, chat.calls.input), (4, 6800), "each call once");
        assert!(chat.flags.contains(TURNS_FROM_PER_CALL_LOG));
        let shares = chat.agents.as_ref().unwrap();
        assert_eq!(shares.of(NaiveDate::from_ymd_opt(2026, 10, 20).unwrap(), "claude-haiku-4.5").count(), 1);
    }
}
