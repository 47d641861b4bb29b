//! Usage accounting: tokens and cost per day and model, by the counting rules (cumulative
//! shutdown totals counted by their increases, stamped sub-agent checkpoints skipped, see
//! `ledger`), with the per-call records shown beside the default figures, never mixed into them.
//!
//! - `counters`: the counter shapes the logs write, read leniently; what cannot be a count is
//!   left out, never added.
//! - `ledger`: one session's usage, built in log order (checkpoint increases, per-call sums).
//! - `rates`: the pinned rate table and pricing in integer nano-dollars.
//! - `summary`: entries grouped by day, month, session or model, priced, with flags.
//! - `flags`: those flags in a person's words.

/// An AI credit (0.01 USD, what GitHub bills Copilot in) in nano-AIU, as Copilot records it.
pub const NANO_AIU_PER_CREDIT: f64 = 1e9;
/// An AI credit in nano-dollars, as the estimates are priced.
pub const NANO_DOLLARS_PER_CREDIT: f64 = 1e7;

pub mod bill;
pub mod budget;
pub mod counters;
pub mod credits;
pub mod flags;
pub mod inputs;
pub mod ledger;
pub mod month;
pub mod plans;
pub mod plausible;
pub mod rates;
pub mod resumes;
pub mod status;
pub mod summary;
pub mod watch;

use chrono::{FixedOffset, NaiveDate, Offset, TimeZone, Utc};
use serde::Serialize;

/// Token counters. `input` is as the logs report it: it includes cache reads and writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Tokens {
    pub requests: u64,
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    /// Part of `output`, never added to it.
    pub reasoning: u64,
}

impl Tokens {
    /// Raises `input` to the cache reads and writes it includes, when a record says less, so
    /// that fresh input is clamped at zero per record (sums of records then keep the clamp).
    /// Returns whether the record had to be corrected.
    pub fn hold_cache_inside_input(&mut self) -> bool {
        let cached = self.cache_read.saturating_add(self.cache_write);
        let corrected = cached > self.input;
        self.input = self.input.max(cached);
        corrected
    }

    /// Input that was neither read from nor written to the cache.
    pub fn fresh_input(&self) -> u64 {
        self.input.saturating_sub(self.cache_read.saturating_add(self.cache_write))
    }

    /// Fresh input + cache reads + cache writes + output.
    pub fn total(&self) -> u64 {
        self.fresh_input().saturating_add(self.cache_read).saturating_add(self.cache_write).saturating_add(self.output)
    }

    pub fn add(&mut self, other: &Tokens) {
        *self = self.each(other, u64::saturating_add);
    }

    pub fn minus(&self, other: &Tokens) -> Tokens {
        self.each(other, u64::saturating_sub)
    }

    pub fn min_each(&self, other: &Tokens) -> Tokens {
        self.each(other, u64::min)
    }

    pub fn max_each(&self, other: &Tokens) -> Tokens {
        self.each(other, u64::max)
    }

    /// `combine` of each counter and the same counter of `other`.
    fn each(&self, other: &Tokens, combine: fn(u64, u64) -> u64) -> Tokens {
        let (mine, theirs) = (self.counters(), other.counters());
        let [requests, input, output, cache_read, cache_write, reasoning] =
            std::array::from_fn(|at| combine(mine[at], theirs[at]));
        Tokens { requests, input, output, cache_read, cache_write, reasoning }
    }

    /// The lower of each part that adds up (`parts`) in the two, as tokens.
    pub fn parts_min(&self, other: &Tokens) -> Tokens {
        self.each_part(other, u64::min)
    }

    /// Each part that adds up (`parts`) less the same part of `other`, as tokens.
    pub fn parts_less(&self, other: &Tokens) -> Tokens {
        self.each_part(other, u64::saturating_sub)
    }

    /// `combine` of each part (`parts`) and the same part of `other`, made tokens again.
    fn each_part(&self, other: &Tokens, combine: fn(u64, u64) -> u64) -> Tokens {
        let (mine, theirs) = (self.parts(), other.parts());
        let [requests, fresh, cache_read, cache_write, output, reasoning] =
            std::array::from_fn(|at| combine(mine[at], theirs[at]));
        Tokens {
            requests,
            input: fresh.saturating_add(cache_read).saturating_add(cache_write),
            cache_read,
            cache_write,
            output: output.saturating_add(reasoning),
            reasoning,
        }
    }

    /// The record's parts that add up: requests, fresh input, cache reads, cache writes, output
    /// besides reasoning, reasoning (each stays a whole record when taken apart).
    fn parts(&self) -> [u64; 6] {
        let Tokens { requests, cache_read, cache_write, reasoning, .. } = *self;
        [requests, self.fresh_input(), cache_read, cache_write, self.output.saturating_sub(reasoning), reasoning]
    }

    /// Whether any counter is lower than in `previous` (a total that went down).
    pub fn is_below(&self, previous: &Tokens) -> bool {
        self.counters().iter().zip(previous.counters()).any(|(now, before)| *now < before)
    }

    pub fn is_zero(&self) -> bool {
        self.counters().iter().all(|count| *count == 0)
    }

    pub fn counters(&self) -> [u64; 6] {
        [self.requests, self.input, self.output, self.cache_read, self.cache_write, self.reasoning]
    }

    /// The columns the flat rows write.
    pub fn columns(&self) -> TokenColumns {
        TokenColumns {
            requests: self.requests,
            input: self.fresh_input(),
            cache_read: self.cache_read,
            cache_write: self.cache_write,
            output: self.output,
            reasoning: self.reasoning,
            total: self.total(),
        }
    }
}

/// The token columns of every flat row (`usage.jsonl`/`usage.csv`, the sessions' usage, the team
/// export), in the order each writes them: listed here once, so that a column added here is one
/// every output writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TokenColumns {
    pub requests: u64,
    /// Fresh input: input less cache reads and cache writes.
    pub input: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub output: u64,
    /// Part of `output`, never added to it.
    pub reasoning: u64,
    /// Fresh input + cache reads + cache writes + output.
    pub total: u64,
}

impl TokenColumns {
    pub const NAMES: [&'static str; 7] =
        ["requests", "input", "cache_read", "cache_write", "output", "reasoning", "total"];

    /// The values, in the order of `NAMES` (a field added and not named does not compile).
    pub fn values(&self) -> [u64; Self::NAMES.len()] {
        let TokenColumns { requests, input, cache_read, cache_write, output, reasoning, total } = *self;
        [requests, input, cache_read, cache_write, output, reasoning, total]
    }

    /// The value of the column named `name`, none for another name.
    pub fn get(&self, name: &str) -> Option<u64> {
        Self::NAMES.iter().position(|known| *known == name).map(|at| self.values()[at])
    }

    /// Writes the columns as fields of a row's struct, flat: serde's `flatten` would make each row
    /// a map (more code in the page's WebAssembly, and a map the csv crate does not write).
    pub fn serialize_fields<S: serde::ser::SerializeStruct>(&self, row: &mut S) -> Result<(), S::Error> {
        for (name, value) in Self::NAMES.into_iter().zip(self.values()) {
            row.serialize_field(name, &value)?;
        }
        Ok(())
    }
}

/// What a figure rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Shutdown checkpoints, counted by the rules: the default figures.
    Counted,
    /// Per-call records of a session no checkpoint covers (still open, or crashed): a lower bound.
    Partial,
    /// The store's per-call rows of a session whose log is gone.
    Recovered,
    /// What the upper reading of a resumed session adds over its counted (lower) figure, when
    /// the CLI's version cannot tell whether its shutdowns restart their counters.
    AmbiguousResume,
}

impl Kind {
    /// The name every output gives it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Counted => "counted",
            Kind::Partial => "partial",
            Kind::Recovered => "recovered",
            Kind::AmbiguousResume => "ambiguous_resume",
        }
    }

    /// What a person reads for it: a part of the total the headline gives, or, for the upper
    /// reading of an ambiguous resume, what that total leaves out.
    pub fn words(self) -> &'static str {
        match self {
            Kind::Counted => "from session totals",
            Kind::Partial => "from unfinished sessions (at least)",
            Kind::Recovered => "from deleted sessions",
            Kind::AmbiguousResume => "if a resume restarted the counters (not in the total)",
        }
    }
}

/// Tokens with the part of them that ran above their model's long-context threshold, and
/// whether a record behind them had a counter left out (`implausible_counter`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub tokens: Tokens,
    pub long: Tokens,
    pub implausible: bool,
    /// What Copilot itself recorded as billed for these tokens, beside the estimate.
    pub recorded: counters::Recorded,
    /// Calls made with the person's own key (not billed by GitHub), or whose model Auto chose.
    pub byok: bool,
    pub auto: bool,
    /// On a day usage cannot be on (`plausible`): shown, flagged, and left out of the month.
    pub implausible_date: bool,
    /// From a resumed session whose shutdowns may restart their counters (`ambiguous_resume`).
    pub ambiguous: bool,
    /// Credits a shutdown's session-wide totals hold above its per-model ones
    /// (`session_total_above_models`).
    pub above_models: bool,
    /// Tokens of compactions, which a shutdown's usage counters leave out (`compaction`).
    pub compaction: bool,
    /// Where Copilot recorded credits for some of the entry's calls and nothing for others,
    /// the tokens of the others (and their long-context part): they are estimated (`both`).
    pub unrecorded: Tokens,
    pub unrecorded_long: Tokens,
}

impl Entry {
    fn of(tokens: Tokens, long: bool, implausible: bool) -> Entry {
        Entry { tokens, long: if long { tokens } else { Tokens::default() }, implausible, ..Entry::default() }
    }

    /// The tokens (and their long-context part) no recorded credits cover.
    pub fn unrecorded_part(&self) -> (Tokens, Tokens) {
        match self.recorded.nano_aiu {
            None => (self.tokens, self.long),
            Some(_) => (self.unrecorded, self.unrecorded_long),
        }
    }

    pub fn add(&mut self, other: &Entry) {
        let (mut unrecorded, mut unrecorded_long) = self.unrecorded_part();
        let (other_unrecorded, other_unrecorded_long) = other.unrecorded_part();
        unrecorded.add(&other_unrecorded);
        unrecorded_long.add(&other_unrecorded_long);
        self.tokens.add(&other.tokens);
        self.long.add(&other.long);
        self.implausible |= other.implausible;
        self.recorded.add(&other.recorded);
        self.byok |= other.byok;
        self.auto |= other.auto;
        self.implausible_date |= other.implausible_date;
        self.ambiguous |= other.ambiguous;
        self.above_models |= other.above_models;
        self.compaction |= other.compaction;
        (self.unrecorded, self.unrecorded_long) = match self.recorded.nano_aiu {
            Some(_) => (unrecorded, unrecorded_long),
            None => Default::default(),
        };
    }
}

/// A session's entries by key. A session has few (its days times its models), so they are kept
/// sorted in a vector: a map's node would cost over a kilobyte for each of thousands of sessions.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Entries(Vec<(EntryKey, Entry)>);

impl Entries {
    pub fn add(&mut self, key: EntryKey, entry: &Entry) {
        match self.position(key.day, &key.model, key.kind) {
            Ok(at) => self.0[at].1.add(entry),
            Err(at) => self.0.insert(at, (key, *entry)),
        }
    }

    /// `add` of a key given by its parts: the model is copied for a new key only (a call
    /// mostly adds to its day's and model's entry).
    pub fn add_at(&mut self, day: NaiveDate, model: &str, kind: Kind, entry: &Entry) {
        match self.position(day, model, kind) {
            Ok(at) => self.0[at].1.add(entry),
            Err(at) => self.0.insert(at, (EntryKey { day, model: model.to_string(), kind }, *entry)),
        }
    }

    /// Where the key is, or would be, in key order (`EntryKey`'s).
    fn position(&self, day: NaiveDate, model: &str, kind: Kind) -> Result<usize, usize> {
        self.0.binary_search_by(|(known, _)| (known.day, known.model.as_str(), known.kind).cmp(&(day, model, kind)))
    }

    pub fn iter(&self) -> impl Iterator<Item = (&EntryKey, &Entry)> {
        self.0.iter().map(|(key, entry)| (key, entry))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&EntryKey, &mut Entry)> {
        self.0.iter_mut().map(|(key, entry)| (&*key, entry))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct EntryKey {
    pub day: NaiveDate,
    pub model: String,
    pub kind: Kind,
}

/// The zone days are counted in: UTC by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Zone {
    #[default]
    Utc,
    Fixed(FixedOffset),
    /// An IANA zone from chrono-tz's database (the native build).
    #[cfg(not(target_arch = "wasm32"))]
    Named(chrono_tz::Tz),
    /// An IANA zone as offsets the caller looked up: the page's browser knows every zone
    /// (Intl), so the WebAssembly build carries no database of its own.
    Offsets(&'static ZoneOffsets),
}

/// A zone's offsets from UTC in seconds, each from an instant (epoch milliseconds, ascending)
/// on; before the first, the first's.
#[derive(Debug, PartialEq, Eq)]
pub struct ZoneOffsets(pub Vec<(i64, i32)>);

thread_local! {
    /// Every zone's offsets given so far, kept for the program's life: `Zone` is `Copy`, and a
    /// page offers at most UTC and its browser's own zone.
    static KEPT_ZONE_OFFSETS: std::cell::RefCell<Vec<&'static ZoneOffsets>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl ZoneOffsets {
    /// These offsets for the program's life, as `Zone::Offsets` holds them: the same offsets
    /// given again are the ones kept before.
    pub fn kept(self) -> &'static ZoneOffsets {
        KEPT_ZONE_OFFSETS.with_borrow_mut(|known| match known.iter().find(|&&k| *k == self) {
            Some(&kept) => kept,
            None => {
                let kept: &'static ZoneOffsets = Box::leak(Box::new(self));
                known.push(kept);
                kept
            }
        })
    }

    fn offset_at(&self, millis: i64) -> i32 {
        let after = self.0.partition_point(|&(from, _)| from <= millis);
        self.0.get(after.saturating_sub(1)).map_or(0, |&(_, offset)| offset)
    }
}

impl Zone {
    /// `UTC`, an offset such as `+02:00`, or (natively) an IANA name such as `Europe/Berlin`.
    pub fn parse(text: &str) -> Result<Zone, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("utc") || text == "Z" {
            return Ok(Zone::Utc);
        }
        if let Ok(offset) = text.parse::<FixedOffset>() {
            return Ok(Zone::Fixed(offset));
        }
        #[cfg(not(target_arch = "wasm32"))]
        if let Ok(zone) = text.parse::<chrono_tz::Tz>() {
            return Ok(Zone::Named(zone));
        }
        Err(format!("unknown time zone {text:?} (use UTC, +02:00 or a name like Europe/Berlin)"))
    }

    pub fn day(&self, millis: i64) -> NaiveDate {
        let utc = Utc.timestamp_millis_opt(millis).single().unwrap_or_default();
        match self {
            Zone::Utc => utc.date_naive(),
            Zone::Fixed(offset) => utc.with_timezone(offset).date_naive(),
            #[cfg(not(target_arch = "wasm32"))]
            Zone::Named(zone) => utc.with_timezone(zone).date_naive(),
            Zone::Offsets(offsets) => {
                let offset = FixedOffset::east_opt(offsets.offset_at(millis)).unwrap_or(Utc.fix());
                utc.with_timezone(&offset).date_naive()
            }
        }
    }
}
