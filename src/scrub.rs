//! Secrets scrubbed from every text an output shows (rows, sessions, the inventory, the report
//! and the shared report). Each secret becomes [`REDACTED`]; what names it (`Bearer`,
//! `GITHUB_TOKEN=`, the URL's user) stays, so a reader still sees what was there.
//!
//! The rules follow gitleaks' default rule set (`config/gitleaks.toml` of gitleaks/gitleaks at
//! commit [`GITLEAKS_COMMIT`]); each names the gitleaks rule ids it follows. Where this file
//! differs from gitleaks it says so: a scrubber must also catch what a detector tuned against
//! false alarms lets pass, so
//! - a token may follow a JSON escape (`\nghp_…`), a prefix (`MYAPP_ghp_…`) or any other
//!   non-alphanumeric character where gitleaks asks for a word boundary;
//! - a token's whole run is taken, not only gitleaks' fixed length;
//! - OpenAI keys need not hold gitleaks' `T3BlbkFJ` marker (its documented `sk-`, `sk-proj-`,
//!   `sk-svcacct-` and `sk-admin-` shapes are taken as they are), Anthropic keys any `sk-ant-`
//!   kind, AWS key ids any upper-case letter or digit;
//! - a private key block cut before its END line is taken up to where its body ends;
//! - URL-encoded text (`token%3Dghp_…`, `ghp%5F…`) is read decoded;
//! - no allowlist and no entropy threshold: a fake-looking secret is scrubbed too.
//!
//! gitleaks has no rule for Azure SAS signatures, bearer headers outside `curl`, passwords in
//! URLs or `*_TOKEN=`-style assignments as such (its `generic-api-key` asks for entropy): those
//! rules are this crate's own, marked `own:`.
//!
//! Each rule has gitleaks' `keywords` (ASCII, any case), found in one pass over a text's bytes:
//! a rule is tried only near its keywords (its pattern in a window around each, an assignment
//! read byte by byte), so a text without keywords costs that pass alone.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex_lite::Regex;

use crate::model::Row;

pub const REDACTED: &str = "[redacted]";

/// The gitleaks commit whose `config/gitleaks.toml` the rules follow.
pub const GITLEAKS_COMMIT: &str = "009e025ad4106ab333aa0b9dc4f2a884390d134c";

/// What a token may follow: the text's start, a character that is not a letter or digit, or a
/// JSON escape (`\n`, `\u003d`), whose last character is one. (`boundary_before` checks the same
/// by hand before a pattern is tried.)
const AFTER: &str = r"(?:^|[^0-9A-Za-z]|\\[nrtbf]|\\u[0-9A-Fa-f]{4})";

/// One kind of secret: the gitleaks rules it follows, the keywords one of which a match holds,
/// and how it is found near them.
struct Rule {
    /// Named for the reader (and checked by the tests): the rules this one follows.
    #[cfg_attr(not(test), allow(dead_code))]
    ids: &'static [&'static str],
    keywords: &'static [&'static str],
    /// Whether a keyword counts only after `AFTER` (the token starts with it).
    after_boundary: bool,
    finder: Finder,
}

/// How a rule finds its secrets near a keyword.
enum Finder {
    /// A pattern, tried in a window around each keyword found: from `back` bytes before it (where
    /// a match can start) to `span` bytes after it (a match is shorter). The secret is the
    /// pattern's first group where it has one (the text before it names it and stays), else the
    /// whole match.
    Pattern { pattern: Regex, back: usize, span: usize },
    /// `NAME=value`, `"name": "value"` right after a keyword (`GITHUB_TOKEN=…`), read byte by
    /// byte after each keyword found: `\\?["']?\s*[=:]\s*\\?["']?` then the value,
    /// `[^\s"'\\,;&()<>\[\]{}]{4,}`, unless it is letters, `_`, `.` and `-` alone, digits alone,
    /// or code (a call, a generic type).
    Assignment,
}

/// Bytes a token is searched for after its keyword: more than any token's length.
const TOKEN_SPAN: usize = 4096;

fn pattern(pattern: &str, back: usize, span: usize) -> Finder {
    Finder::Pattern { pattern: Regex::new(pattern).expect("a valid secret pattern"), back, span }
}

/// A token that starts with its keyword, wherever it is.
fn token(ids: &'static [&'static str], keywords: &'static [&'static str], token: &str) -> Rule {
    Rule { ids, keywords, after_boundary: false, finder: pattern(token, 0, TOKEN_SPAN) }
}

/// A token (or a name and its value) that starts with its keyword, after `AFTER`.
fn after(ids: &'static [&'static str], keywords: &'static [&'static str], token: &str) -> Rule {
    // `\u003d` is the longest `AFTER`: six bytes.
    Rule { ids, keywords, after_boundary: true, finder: pattern(&format!("{AFTER}{token}"), 6, TOKEN_SPAN) }
}

/// A pattern whose match starts up to `back` bytes before its keyword.
fn around(ids: &'static [&'static str], keywords: &'static [&'static str], found: Finder) -> Rule {
    Rule { ids, keywords, after_boundary: false, finder: found }
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        around(
            &["private-key"],
            &["-----begin"],
            // The whole block, or one cut before its END line up to where its body ends. (Its
            // names' classes are lazy, so that an END line never runs on into the next block.)
            pattern(
                r"(?i)-----BEGIN[ A-Z0-9_-]{0,100}?PRIVATE KEY(?: BLOCK)?-----(?:(?s:.)*?-----END[ A-Z0-9_-]{0,100}?PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=]|\r|\n|\\r|\\n)*)",
                0,
                1 << 16,
            ),
        ),
        token(
            &["github-pat", "github-oauth", "github-app-token", "github-refresh-token"],
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
            r"gh[pousr]_[0-9A-Za-z]{36,}",
        ),
        // 82 characters in gitleaks; any run from 22 on (its first part) here, cut ones too.
        token(&["github-fine-grained-pat"], &["github_pat_"], r"github_pat_[0-9A-Za-z_]{22,}"),
        after(&["anthropic-api-key", "anthropic-admin-api-key"], &["sk-ant-"], r"(sk-ant-[A-Za-z0-9_-]{20,})"),
        after(
            &["openai-api-key"],
            &["sk-"],
            r"(sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9]{20,}[A-Za-z0-9_-]*)",
        ),
        after(
            &["stripe-access-token"],
            &["sk_test", "sk_live", "sk_prod", "rk_test", "rk_live", "rk_prod"],
            r"((?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,})",
        ),
        token(
            &[
                "gitlab-pat",
                "gitlab-pat-routable",
                "gitlab-deploy-token",
                "gitlab-runner-authentication-token",
                "gitlab-ptt",
                "gitlab-cicd-job-token",
                "gitlab-feed-token",
                "gitlab-oauth-app-secret",
                "gitlab-scim-token",
            ],
            &["glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "gloas-", "glsoat-"],
            r"gl(?:pat|dt|rt|ptt|cbt|ft|oas|soat)-[0-9A-Za-z_.-]{20,}",
        ),
        token(
            &[
                "slack-bot-token",
                "slack-user-token",
                "slack-app-token",
                "slack-legacy-token",
                "slack-legacy-bot-token",
                "slack-legacy-workspace-token",
                "slack-config-access-token",
                "slack-config-refresh-token",
            ],
            &["xox", "xapp"],
            r"(?i:xox[abeoprs](?:\.xox[bp])?|xapp)-[0-9A-Za-z-]{8,}",
        ),
        token(
            &["slack-webhook-url"],
            &["hooks.slack.com"],
            r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/]{20,})",
        ),
        around(
            &["jwt"],
            // Every match holds `.ey` (gitleaks' keyword `ey` is in most English texts), after a
            // header of up to 1 kB. gitleaks' `\\` in its classes is for JSON's `\/`; a `\n`
            // after the token is not its.
            &[".ey"],
            pattern(
                &format!(
                    r"{AFTER}(ey[A-Za-z0-9]{{17,}}\.ey(?:[A-Za-z0-9/_-]|\\/){{17,}}\.(?:(?:[A-Za-z0-9/_-]|\\/){{10,}}={{0,2}})?)"
                ),
                1024,
                1 << 14,
            ),
        ),
        after(
            &["aws-access-token"],
            &["a3t", "akia", "asia", "abia", "acca"],
            r"((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})",
        ),
        after(&["gcp-api-key"], &["aiza"], r"(AIza[\w-]{35,})"),
        after(&["npm-access-token"], &["npm_"], r"((?i:npm_)[A-Za-z0-9]{36,})"),
        around(
            // gitleaks' curl-auth-header, its `Basic` part, wherever the header is written.
            &["curl-auth-header"],
            &["basic"],
            pattern(r#"(?i)authorization\\?["']?\s*[:=]\s*\\?["']?basic\s+([a-z0-9+/]{8,}={0,3})"#, 64, TOKEN_SPAN),
        ),
        after(&["own:bearer"], &["bearer"], r"(?i:bearer)\s+([A-Za-z0-9\-._~+/]{8,}=*)"),
        after(&["own:azure-sas-signature"], &["sig="], r"sig=([A-Za-z0-9+/=]{16,})"),
        around(
            // The scheme's last letter is enough for a match to start. The user runs to the
            // first `:`, the password to the last `@` before the host (an `@` in it unencoded, as
            // browsers read it), neither past the authority's end nor out of a quoted string.
            &["own:url-password"],
            &["://"],
            pattern(r#"[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#"'`<>\\]+:([^\s/?#"'`<>\\]+)@"#, 1, 1024),
        ),
        around(&["own:assignment"], &["token", "key", "secret", "password", "passwd", "pwd"], Finder::Assignment),
    ]
});

/// How far before a text's end a keyword that runs past it can start a match: the longest
/// keyword, and the most bytes before its keyword that a match can start (the JWT rule's header).
static REACH_BACK: LazyLock<usize> = LazyLock::new(|| {
    let back = |rule: &Rule| match rule.finder {
        Finder::Pattern { back, .. } => back,
        Finder::Assignment => 0,
    };
    let longest = |rule: &Rule| rule.keywords.iter().map(|keyword| keyword.len()).max().unwrap_or(0);
    RULES.iter().map(back).max().unwrap_or(0) + RULES.iter().map(longest).max().unwrap_or(0)
});

/// Where the rules' keywords are in a text: one pass over it, three bytes at a time. Each
/// keyword is three bytes at least; every three bytes of the text are hashed, with ASCII upper
/// case folded (`| 0x20`, which folds some punctuation too: a false alarm, never a miss), into a
/// bit set of the keywords' first three bytes, eight places at a time and with no branch
/// between them. Where one is found, the three bytes in lower case are looked up in a small
/// table of the keywords' starts, and only the keywords there are compared.
struct Prefilter {
    /// The keywords' first three bytes, folded, by `start_bit`.
    starts: Box<[u64; 1024]>,
    /// By `start_slot_of` three bytes in lower case, 1 + the entry in `by_start` of the keywords
    /// whose start lands there, or 0 where none does.
    start_slot: Box<[u8; START_SLOTS]>,
    /// The keywords whose starts share a slot, each with its rule.
    by_start: Vec<Vec<(&'static [u8], usize)>>,
}

/// Slots of `start_slot_of`: a table small enough to stay in the processor's nearest cache.
const START_SLOTS: usize = 1 << 12;

static PREFILTER: LazyLock<Prefilter> = LazyLock::new(|| {
    let mut prefilter =
        Prefilter { starts: Box::new([0; 1024]), start_slot: Box::new([0; START_SLOTS]), by_start: Vec::new() };
    for (index, rule) in RULES.iter().enumerate() {
        for keyword in rule.keywords {
            let bytes = keyword.as_bytes();
            let start = lower_start(bytes, 0).expect("a keyword is three bytes at least");
            let bit = start_bit(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], 0]) | FOLD);
            prefilter.starts[bit / 64] |= 1 << (bit % 64);
            let slot = &mut prefilter.start_slot[start_slot_of(start)];
            if *slot == 0 {
                prefilter.by_start.push(Vec::new());
                *slot = u8::try_from(prefilter.by_start.len()).expect("few keywords");
            }
            prefilter.by_start[usize::from(*slot) - 1].push((bytes, index));
        }
    }
    prefilter
});

/// Natively, the keywords' starts (three bytes, folded) are found with the SIMD "Teddy"
/// searcher of `aho-corasick` in a folded copy of the text: a pass at memory speed. (Its
/// case-insensitive search has no SIMD path, hence the copy.) The page keeps the loop of
/// `Prefilter::hits`: WebAssembly has no such searcher, and its download no room for one.
#[cfg(not(target_arch = "wasm32"))]
static STARTS_FINDER: LazyLock<Option<aho_corasick::packed::Searcher>> = LazyLock::new(|| {
    let mut starts: Vec<[u8; 3]> =
        RULES.iter().flat_map(|rule| rule.keywords).map(|keyword| folded(&keyword.as_bytes()[..3])).collect();
    starts.sort_unstable();
    starts.dedup();
    aho_corasick::packed::Config::new().builder().extend(starts).build()
});

/// Texts shorter than this go through the loop: setting the SIMD search up costs more.
#[cfg(not(target_arch = "wasm32"))]
const PACKED_FROM: usize = 64;

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    /// The folded copy of the text being searched, kept from text to text.
    static FOLDED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Bytes with ASCII upper case folded as `FOLD` does.
#[cfg(not(target_arch = "wasm32"))]
fn folded<const N: usize>(bytes: &[u8]) -> [u8; N] {
    std::array::from_fn(|at| bytes[at] | 0x20)
}

/// Each place of `text` where a keyword's start (folded) is, found in `folded` (a buffer
/// to copy the text into, folded); a start inside another is found too.
#[cfg(not(target_arch = "wasm32"))]
fn each_start(
    finder: &aho_corasick::packed::Searcher,
    text: &[u8],
    folded: &mut Vec<u8>,
    mut found: impl FnMut(usize),
) {
    folded.clear();
    folded.extend(text.iter().map(|byte| byte | 0x20));
    let mut from = 0;
    while let Some(start) = finder.find_in(&folded[..], aho_corasick::Span { start: from, end: folded.len() }) {
        found(start.start());
        from = start.start() + 1;
    }
}

/// ASCII upper case folded, three bytes at a time.
const FOLD: u32 = 0x0020_2020;

/// Three bytes (the low three of `three`, folded) as a bit of `Prefilter::starts` (Fibonacci
/// hashing).
fn start_bit(three: u32) -> usize {
    ((three & 0x00FF_FFFF).wrapping_mul(0x9E37_79B1) >> 16) as usize
}

/// The three bytes from `at` in lower case, if the text holds three there.
fn lower_start(text: &[u8], at: usize) -> Option<[u8; 3]> {
    let bytes = text.get(at..at + 3)?;
    Some([bytes[0].to_ascii_lowercase(), bytes[1].to_ascii_lowercase(), bytes[2].to_ascii_lowercase()])
}

/// Three bytes in lower case as a slot of `Prefilter::start_slot`.
fn start_slot_of(start: [u8; 3]) -> usize {
    let value = u32::from_le_bytes([start[0], start[1], start[2], 0]);
    (value.wrapping_mul(0x9E37_79B1) >> (32 - START_SLOTS.trailing_zeros())) as usize
}

/// A keyword found: its rule, where it starts and its length.
struct Hit {
    rule: usize,
    at: usize,
    len: usize,
}

impl Prefilter {
    fn hits(&self, text: &[u8]) -> Vec<Hit> {
        let mut hits = Vec::new();
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(finder) = STARTS_FINDER.as_ref().filter(|_| text.len() >= PACKED_FROM) {
            let found = |at: usize| self.keywords_at(text, at, &mut hits);
            FOLDED.with_borrow_mut(|folded| each_start(finder, text, folded, found));
            return hits;
        }
        let mut at = 0;
        // Eight places from `at`, read from the sixteen bytes there.
        while at + 16 <= text.len() {
            let word = |from: usize| u64::from_le_bytes(text[from..from + 8].try_into().expect("eight bytes"));
            let (low, high) = (word(at) | 0x2020_2020_2020_2020, word(at + 8) | 0x2020_2020_2020_2020);
            let three =
                |place: u32| (if place == 0 { low } else { low >> (8 * place) | high << (64 - 8 * place) }) as u32;
            let found = (0..8).fold(0, |found, place| found | self.start_bit_set(three(place)));
            if found != 0 {
                (at..at + 8).for_each(|start| self.keywords_at(text, start, &mut hits));
            }
            at += 8;
        }
        (at..text.len().saturating_sub(2)).for_each(|start| self.keywords_at(text, start, &mut hits));
        hits
    }

    /// 1 when three bytes (the low three of `three`, folded) may start a keyword, else 0.
    fn start_bit_set(&self, three: u32) -> u64 {
        let bit = start_bit(three);
        self.starts[bit / 64] >> (bit % 64) & 1
    }

    /// The keywords starting at `at`.
    fn keywords_at(&self, text: &[u8], at: usize, hits: &mut Vec<Hit>) {
        let Some(start) = lower_start(text, at) else { return };
        let slot = self.start_slot[start_slot_of(start)];
        if slot == 0 {
            return;
        }
        for &(keyword, rule) in &self.by_start[usize::from(slot) - 1] {
            if text[at..].get(..keyword.len()).is_some_and(|found| found.eq_ignore_ascii_case(keyword)) {
                hits.push(Hit { rule, at, len: keyword.len() });
            }
        }
    }
}

/// Whether `AFTER` holds before byte `at`.
fn boundary_before(text: &[u8], at: usize) -> bool {
    let Some(&before) = at.checked_sub(1).map(|i| &text[i]) else { return true };
    !before.is_ascii_alphanumeric()
        || (at >= 2 && text[at - 2] == b'\\' && b"nrtbf".contains(&before))
        || (at >= 6
            && text[at - 6] == b'\\'
            && text[at - 5] == b'u'
            && text[at - 4..at].iter().all(u8::is_ascii_hexdigit))
}

/// The value of `NAME=value` whose name ends at `end` (see `Finder::Assignment`); `Err` with
/// where the value starts when `more` (the text goes on past its end) and the end cut it.
fn assignment_value(text: &[u8], end: usize, more: bool) -> Result<Option<Range<usize>>, usize> {
    let mut at = end;
    let skip = |at: &mut usize, what: &dyn Fn(u8) -> bool| {
        while text.get(*at).is_some_and(|&byte| what(byte)) {
            *at += 1;
        }
    };
    let optional = |at: &mut usize, what: &[u8]| {
        if text.get(*at).is_some_and(|byte| what.contains(byte)) {
            *at += 1;
        }
    };
    optional(&mut at, b"\\");
    optional(&mut at, b"\"'");
    skip(&mut at, &|byte| byte.is_ascii_whitespace());
    if !matches!(text.get(at), Some(b'=' | b':')) {
        return Ok(None);
    }
    at += 1;
    skip(&mut at, &|byte| byte.is_ascii_whitespace());
    optional(&mut at, b"\\");
    optional(&mut at, b"\"'");
    let start = at;
    skip(&mut at, &|byte| !byte.is_ascii_whitespace() && !b"\"'\\,;&()<>[]{}".contains(&byte));
    if more && at == text.len() {
        return Err(start);
    }
    // Code, not a value: `key = render("cache")`, `token: Option<&str>`.
    if matches!(text.get(at), Some(b'(' | b'<' | b'[' | b'{')) {
        return Ok(None);
    }
    // Four characters at least (the value's bytes end on an ASCII byte, a character's boundary),
    // not a word alone (gitleaks' generic-api-key allows those: `key = 'current_phase'`) nor a
    // number.
    let Ok(value) = std::str::from_utf8(&text[start..at]) else { return Ok(None) };
    let word = value.bytes().all(|byte| byte.is_ascii_alphabetic() || b"_.-".contains(&byte));
    let number = value.bytes().all(|byte| byte.is_ascii_digit());
    Ok((value.chars().count() >= 4 && !word && !number).then_some(start..at))
}

/// The char boundary at or before `at`, or at or after it.
fn boundary(text: &str, mut at: usize, forward: bool) -> usize {
    while !text.is_char_boundary(at) {
        if forward { at += 1 } else { at -= 1 }
    }
    at
}

/// A text with `%XX` escapes of ASCII characters decoded, and where each of its bytes starts in
/// the text as written (one entry more: the written text's length).
struct Decoded {
    text: String,
    written_at: Vec<usize>,
}

/// The value of the `%XX` escape of an ASCII character at `at`, if one is there.
fn ascii_escape(bytes: &[u8], at: usize) -> Option<u8> {
    let hex = bytes.get(at + 1..at + 3)?;
    let value = u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
    value.is_ascii().then_some(value)
}

/// Where the text's first `%XX` escape of an ASCII character is.
fn first_escape(bytes: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'%', bytes).find(|&at| ascii_escape(bytes, at).is_some())
}

fn url_decoded(text: &str) -> Option<Decoded> {
    let bytes = text.as_bytes();
    let first = first_escape(bytes)?;
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut written_at = Vec::with_capacity(bytes.len() + 1);
    decoded.extend_from_slice(&bytes[..first]);
    written_at.extend(0..first);
    let mut at = first;
    while at < bytes.len() {
        match (bytes[at] == b'%').then(|| ascii_escape(bytes, at)).flatten() {
            Some(value) => {
                decoded.push(value);
                written_at.push(at);
                at += 3;
            }
            None => {
                decoded.push(bytes[at]);
                written_at.push(at);
                at += 1;
            }
        }
    }
    written_at.push(bytes.len());
    // Only ASCII bytes replaced ASCII escapes: the text is still UTF-8.
    let text = String::from_utf8(decoded).expect("ASCII escapes decode to UTF-8");
    Some(Decoded { text, written_at })
}

/// The byte ranges of the secrets in `text`, sorted, overlapping ones merged, and how far they
/// are settled. `more` says that `text` is the start of a longer text: then the ranges that
/// start before the byte this gives are exactly the longer text's there (none of them reaches
/// it), and a window its end cuts is not read. Without `more` every range is settled.
fn secret_ranges(text: &str, more: bool) -> (Vec<Range<usize>>, usize) {
    let bytes = text.as_bytes();
    // A keyword past the end may start a match up to `REACH_BACK` bytes before it.
    let mut settled = if more { text.len().saturating_sub(*REACH_BACK) } else { text.len() };
    let mut ranges = Vec::new();
    for hit in PREFILTER.hits(bytes) {
        let rule = &RULES[hit.rule];
        if rule.after_boundary && !boundary_before(bytes, hit.at) {
            continue;
        }
        match &rule.finder {
            Finder::Assignment => match assignment_value(bytes, hit.at + hit.len, more) {
                Ok(value) => ranges.extend(value),
                Err(cut) => settled = settled.min(cut),
            },
            Finder::Pattern { pattern, back, span } => {
                let start = boundary(text, hit.at.saturating_sub(*back), false);
                // A window ends at most 3 bytes on (a character's end), and must end before
                // the last 3 (a `%XX` escape the end cuts reads otherwise in the longer text).
                if more && hit.at + span + 6 > text.len() {
                    settled = settled.min(start);
                    continue;
                }
                let end = boundary(text, (hit.at + span).min(text.len()), true);
                for captures in pattern.captures_iter(&text[start..end]) {
                    let secret = captures.get(1).or_else(|| captures.get(0)).expect("a match");
                    ranges.push(start + secret.start()..start + secret.end());
                }
            }
        }
    }
    // A value scrubbed already (by an earlier scrub) stays as it is.
    ranges.retain(|range| !text[range.clone()].starts_with(REDACTED));
    crate::order::sort_by_key(&mut ranges, |range| (range.start, range.end));
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    // A range that reaches what is not settled may go on, or join one the longer text holds.
    if more {
        if let Some(open) = merged.iter().find(|range| range.start < settled && range.end >= settled) {
            settled = open.start;
        }
        merged.retain(|range| range.start < settled);
    }
    (merged, settled)
}

/// `text` with each of `ranges` (sorted, apart) written [`REDACTED`].
fn redacted(text: &str, ranges: &[Range<usize>]) -> String {
    let mut scrubbed = String::with_capacity(text.len());
    let mut from = 0;
    for range in ranges {
        scrubbed.push_str(&text[from..range.start]);
        scrubbed.push_str(REDACTED);
        from = range.end;
    }
    scrubbed.push_str(&text[from..]);
    scrubbed
}

/// A text with its secrets replaced, and how many there were; borrowed when there were none.
/// Never inlined: a copy of it at each call site grew the page's first download by 0.9 kB.
#[inline(never)]
pub fn scrub_cow(text: &str) -> (Cow<'_, str>, usize) {
    // A URL inside a URL's query is encoded twice (`sig%253D`): up to three levels are read.
    let mut decoded: Option<Decoded> = None;
    for _ in 0..3 {
        let Some(next) = url_decoded(decoded.as_ref().map_or(text, |d| d.text.as_str())) else { break };
        decoded = Some(match decoded {
            None => next,
            Some(outer) => Decoded {
                written_at: next.written_at.iter().map(|&at| outer.written_at[at]).collect(),
                text: next.text,
            },
        });
    }
    let ranges = match decoded {
        None => secret_ranges(text, false).0,
        Some(decoded) => {
            let (ranges, _) = secret_ranges(&decoded.text, false);
            let written = |range: Range<usize>| decoded.written_at[range.start]..decoded.written_at[range.end];
            ranges.into_iter().map(written).collect()
        }
    };
    if ranges.is_empty() {
        return (Cow::Borrowed(text), 0);
    }
    (Cow::Owned(redacted(text, &ranges)), ranges.len())
}

/// Bytes of a long text read first for its start (`scrub_start`), beyond the start kept.
const START_WINDOW: usize = 2048;

/// The start of `text` scrubbed, for a sink that keeps only its first `keep` bytes: the text
/// itself when the scrubber changes nothing there, else a start of its scrubbed text that is
/// longer than `keep` bytes, or all of it. Either begins as `scrub_cow(text)` does, for `keep`
/// bytes and the character after them (a kept start ends on a character's boundary), and is
/// longer than `keep` bytes exactly when that is. A long tool output is scrubbed this far, not
/// whole: a window from its start, made larger while what it holds is not settled that far.
pub fn scrub_start(text: &str, keep: usize) -> Cow<'_, str> {
    let mut window = keep + START_WINDOW;
    while window < text.len() {
        let part = &text[..boundary(text, window, false)];
        // Positions in URL-decoded text are not the text's: such a text is scrubbed whole.
        if first_escape(part.as_bytes()).is_some() {
            break;
        }
        let (ranges, settled) = secret_ranges(part, true);
        let settled = boundary(part, settled, false);
        let taken: usize = ranges.iter().map(Range::len).sum();
        // `keep` bytes and a character more, whole.
        if settled + ranges.len() * REDACTED.len() >= keep + 4 + taken {
            return match ranges.is_empty() {
                true => Cow::Borrowed(text),
                false => Cow::Owned(redacted(&text[..settled], &ranges)),
            };
        }
        window *= 2;
    }
    scrub_cow(text).0
}

/// A text with its secrets replaced, and how many were.
pub fn scrub(text: &str) -> (String, usize) {
    let (text, count) = scrub_cow(text);
    (text.into_owned(), count)
}

/// Scrubs a text where it is; returns how many secrets were.
pub fn scrub_in_place(text: &mut String) -> usize {
    let (scrubbed, count) = scrub_cow(text);
    if let Cow::Owned(scrubbed) = scrubbed {
        *text = scrubbed;
    }
    count
}

/// A row with its text scrubbed, for a sink that keeps `kept` bytes of it (its
/// `RowSink::text_kept`: none for all). Rows are keyed for deduplication before this, on their
/// texts as written, and every copy of a text scrubs alike.
pub fn row<'r, 'a>(row: &'r Row<'a>, kept: Option<usize>) -> Cow<'r, Row<'a>> {
    let scrubbed = match kept {
        Some(keep) => scrub_start(&row.text, keep),
        None => scrub_cow(&row.text).0,
    };
    match scrubbed {
        Cow::Borrowed(_) => Cow::Borrowed(row),
        Cow::Owned(text) => Cow::Owned(Row { text: Cow::Owned(text), ..row.clone() }),
    }
}

/// How many secrets a text shows scrubbed.
pub fn redacted_in(text: &str) -> usize {
    text.matches(REDACTED).count()
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
             {key}\nGITHUB_TOKEN=abc123def OPENAI_API_KEY=\"sk-proj-xyz789\" https://mona:hunter2@example.com/x",
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
        assert_eq!(redacted_in(&scrubbed), 9);
        assert_eq!(scrub(&scrubbed), (scrubbed.clone(), 0), "scrubbing twice finds nothing more");
    }

    /// The kinds of issue 22, each in the shape its issuer documents (fake values).
    const KINDS: [&str; 14] = [
        "sk-proj-Q2hhbmdlTWVfbm90X2FfcmVhbF9rZXlfMTIzNDU2Nzg5MGFiY2RlZmdo",
        "sk-Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5",
        "sk-ant-api03-ZmFrZV9hbnRocm9waWNfa2V5X2Zvcl90ZXN0aW5nX29ubHlfMDEyMzQ1Njc4OQ-AbCdEfAA",
        "xoxb-1234567890123-9876543210987-AbCdEfGhIjKlMnOpQrStUvWx",
        "xoxp-1234567890-1234567890-1234567890-0123456789abcdef0123456789abcdef",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtb25hLXRlc3QtdXNlciJ9.c2lnbmF0dXJlX29mX2FfZmFrZV90b2tlbg",
        "AIzaSyFAKE0key1for2tests3only4abcdefghi",
        "sk_live_51FaKeStRiPeKeY0123456789abcdef",
        "rk_live_51FaKeRestrictedKey0123456789abc",
        "glpat-FaKeGiTlAbToKeN01234",
        "npm_FaKeNpMtOkEn0123456789abcdefghijklmn",
        "AKIAZ2FAKEKEYID7TEST",
        "ghp_FaKeGiThUbClAsSiCtOkEn0123456789abcd",
        "github_pat_11AFAKE0000000000000000_FaKeFineGrainedTokenForTestsOnly0123456789abcdefghijklmnopqr",
    ];

    /// Where a token can sit in JSON, shell and URL text.
    fn spellings(token: &str) -> Vec<String> {
        let encoded = token.replace('_', "%5F").replace('-', "%2D");
        vec![
            token.to_string(),
            format!(r#"{{"content":"line one\n{token}\nline two"}}"#),
            format!(r#"say \"{token}\" and"#),
            format!(r"{token}\nnext line"),
            format!("MYAPP_{token}"),
            format!("export MYAPP_GITHUB_TOKEN={token}"),
            format!("https://api.example/x?token%3D{token}&b=1"),
            format!("https://api.example/x?token={encoded}&b=1"),
            format!("\\u003d{token}"),
            format!("({token})"),
        ]
    }

    #[test]
    fn every_kind_in_every_spelling_is_redacted() {
        for token in KINDS {
            for text in spellings(token) {
                let (scrubbed, count) = scrub(&text);
                let piece = &token[token.len() - 12..];
                assert!(!scrubbed.contains(piece) && count >= 1, "{text:?} became {scrubbed:?}");
                // Nothing after the token is taken with it.
                for kept in ["line two", "and", "next line", "&b=1"] {
                    assert_eq!(text.contains(kept), scrubbed.contains(kept), "{text:?} became {scrubbed:?}");
                }
            }
        }
    }

    #[test]
    fn what_names_a_secret_stays() {
        for (text, shown) in [
            ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [redacted]"),
            (r#"{"http.proxyAuthorization": "Basic dXNlcjpwYXNzd29yZA=="}"#, "\"Basic [redacted]\""),
            (
                "https://acct.blob.core.windows.net/c/b?sv=2024-01-01&sig=dGhpcyBpcyBub3QgYSByZWFsIHNpZw%3D%3D&se=1",
                "&sig=[redacted]&se=1",
            ),
            ("MYAPP_GITHUB_TOKEN=s3cr3t-value", "MYAPP_GITHUB_TOKEN=[redacted]"),
            (
                "connect(password=hunter22) and PASSWORD: p@ss!w0rd#",
                "connect(password=[redacted]) and PASSWORD: [redacted]",
            ),
            ("password%3Dhunter22%26x", "password%3D[redacted]%26x"),
            ("next=https%3A%2F%2Fh%2Fb%3Fsig%3DdGhpcyBpcyBub3Q%252BYSBzaWc%253D%26x", "sig%3D[redacted]%26x"),
            ("SLACK https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX", "services/[redacted]"),
        ] {
            let (scrubbed, _) = scrub(text);
            assert!(scrubbed.contains(shown), "{text:?} became {scrubbed:?}");
        }
    }

    #[test]
    fn a_urls_password_runs_to_the_last_at_before_its_host() {
        for (text, shown) in [
            ("https://user:p@ss@word@example.com/", "https://user:[redacted]@example.com/"),
            ("git clone https://user:p%40ss@example.com/r.git", "https://user:[redacted]@example.com/r.git"),
            ("https://mona:hunter2@example.com/x@y", "https://mona:[redacted]@example.com/x@y"),
            ("https://mona:p@ss@h.example?next=a@b", "https://mona:[redacted]@h.example?next=a@b"),
            (r#"{"url":"https://u:pw1@h.example","mail":"a@b"}"#, r#""https://u:[redacted]@h.example","mail":"a@b"}"#),
        ] {
            let (scrubbed, count) = scrub(text);
            assert!(scrubbed.contains(shown) && count == 1, "{text:?} became {scrubbed:?}");
        }
        for text in [
            "ssh://git@github.com:org/repo.git and mona@example.com",
            "https://example.com/@mona:profile@home",
            "https://example.com:8080/a@b",
        ] {
            assert_eq!(scrub(text), (text.to_string(), 0), "{text:?}");
        }
    }

    /// The spellings issue 48 found in a report: after a JSON `\n` escape as a raw JSON text
    /// holds it, after an underscore, URL-encoded.
    #[test]
    fn a_github_token_is_redacted_however_it_is_joined_to_the_text_before() {
        let body = "R2D2C3POr2d2c3poR2D2C3POr2d2c3poR2D2";
        for text in [
            format!(r#"{{"content":"line one\nghp_{body}\nline two"}}"#),
            format!("MY_TOKEN_ghp_{body}"),
            format!("https://example.com/cb?code=ghp%5F{body}&state=1"),
            format!("https://example.com/cb?code=%67%68%70%5F{body}"),
            format!("ghp_{body}").replace('_', "%255F"),
            format!("hotfix/github_pat_11ABCDEFG0123456789_{body}"),
            format!("x\\ngithub_pat_11ABCDEFG0123456789_{body}"),
        ] {
            let (scrubbed, count) = scrub(&text);
            assert!(!scrubbed.contains(&body[8..]) && count == 1, "{text:?} became {scrubbed:?}");
            assert!(!scrub_start(&text, 8).contains(&body[8..]), "{text:?}: its start");
        }
    }

    #[test]
    fn a_private_key_cut_before_its_end_is_redacted_to_where_its_body_ends() {
        let text =
            "here:\\n-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\\nU8VNs+Ab3mbBZkn\" and more";
        let (scrubbed, count) = scrub(text);
        assert_eq!((scrubbed.as_str(), count), ("here:\\n[redacted]\" and more", 1));
        let plain = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAAbm9uZQ";
        assert_eq!(scrub(plain), (REDACTED.to_string(), 1));
        let block = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----";
        assert_eq!(
            scrub(&format!("{block}  {block} x")),
            (format!("{REDACTED}  {REDACTED} x"), 2),
            "two blocks, two secrets"
        );
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in [
            "The key point: run `cargo test` and see https://docs.example/path?q=1. Primary keys are ids.",
            "Ask the task-runner about the disk-usage-report-generator; a basic introduction; 100%2 done.",
            "They said the keys of a monkey are ok; tokens: 12; sig: none.",
            "SELECT value FROM session_state WHERE key = 'current_phase'; {\"secret\": \"none_given\"}",
            "let token: Option<&str> = None; key = render(\"cache\"); def f(timeout, key=None): max_tokens = 4096",
        ] {
            assert_eq!(scrub(text), (text.to_string(), 0));
        }
    }

    #[test]
    fn every_keyword_is_found_wherever_it_starts() {
        for (index, rule) in RULES.iter().enumerate() {
            for keyword in rule.keywords {
                for before in ["", "x", "xy", "xyz"] {
                    let text = format!("{before}{}", keyword.to_ascii_uppercase());
                    let hits = PREFILTER.hits(text.as_bytes());
                    assert!(hits.iter().any(|hit| hit.rule == index && hit.at == before.len()), "{text}");
                    assert_eq!(hits.iter().filter(|hit| hit.rule == index && hit.at == before.len()).count(), 1);
                }
            }
        }
    }

    /// Pieces of a long text: filler (some of it not ASCII), and secrets in every shape the
    /// rules find, a window's length apart or side by side.
    fn piece() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let filler = (0usize..800, any::<u8>()).prop_map(|(length, seed)| {
            let words = [
                "lorem ", "ipsum ", "é ", "日本 ", "\\\\n", "\\n", "x=1 ", "key: ", "dolor ", "tokens ", "ey", "sit ",
                "sk-", "%", "a-b ", "amet ",
            ];
            (0..length).map(|at| words[(at * 7 + seed as usize) % words.len()]).collect::<String>()
        });
        let secret =
            (0..KINDS.len(), 0usize..10).prop_map(|(kind, spelling)| spellings(KINDS[kind]).swap_remove(spelling));
        let shaped = (0usize..8, 0usize..5000).prop_map(|(shape, length)| {
            let body = "QUJD".repeat(length / 4 + 1);
            match shape {
                0 => format!("-----BEGIN RSA PRIVATE KEY-----\\n{body}\\n-----END RSA PRIVATE KEY-----"),
                1 => format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{body}"),
                2 => format!(" eyJ{}.eyJ{}.c2ln{} ", "a".repeat(length % 900 + 17), "b".repeat(17), "c".repeat(10)),
                3 => format!("GITHUB_TOKEN={body}2"),
                4 => format!("password = \"{}9\" ", "p".repeat(length)),
                5 => format!("https://mona:{}@example.com", "h".repeat(length % 300 + 1)),
                6 => format!("Authorization: Bearer {}", "t".repeat(length % 200 + 8)),
                _ => format!("{REDACTED}{body}"),
            }
        });
        prop_oneof![3 => filler, 1 => secret, 1 => shaped]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(150))]

        /// What `scrub_start` gives begins as the whole text scrubbed does, for the bytes kept
        /// and a character more, and is longer than them exactly when that is.
        #[test]
        fn a_start_scrubbed_is_the_start_of_the_text_scrubbed(
            pieces in proptest::collection::vec(piece(), 1..12),
            keep in 0usize..700,
        ) {
            let text = pieces.concat();
            let (whole, _) = scrub_cow(&text);
            let start = scrub_start(&text, keep);
            let shown: &str = match &start {
                Cow::Borrowed(_) => &text,
                Cow::Owned(start) => start,
            };
            let same = whole.len().min(keep + 4);
            proptest::prop_assert!(shown.len() >= same);
            proptest::prop_assert_eq!(&shown.as_bytes()[..same], &whole.as_bytes()[..same]);
            proptest::prop_assert_eq!(shown.len() > keep, whole.len() > keep);
            if matches!(start, Cow::Borrowed(_)) {
                proptest::prop_assert_eq!(&text.as_bytes()[..same], &whole.as_bytes()[..same]);
            }
        }
    }

    #[test]
    fn a_start_is_scrubbed_from_a_window_unless_a_secret_runs_past_it() {
        let tail = "lorem ipsum ".repeat(2000);
        // Nothing in reach of the start: the text itself, even with a secret far past it.
        let text = format!("{tail}GITHUB_TOKEN=abc123def");
        assert!(matches!(scrub_start(&text, 512), Cow::Borrowed(_)));
        // A secret at the start: only a window is scrubbed and given.
        let text = format!("GITHUB_TOKEN=abc123def {tail}");
        let start = scrub_start(&text, 512);
        assert!(start.starts_with("GITHUB_TOKEN=[redacted] lorem") && start.len() < 4096, "{}", start.len());
        // A `%XX` escape cut by a window's end: the start is still the whole text's.
        for pad in 2550..2570 {
            let text = format!("ghp_{} {}%3D{}", "a".repeat(36), "x".repeat(pad), "lorem ".repeat(1000));
            assert!(scrub_cow(&text).0.starts_with(&*scrub_start(&text, 512)), "{pad}");
        }
        // A private key block, read 64 KiB on: the window grows until that fits in it.
        let key = format!("-----BEGIN RSA PRIVATE KEY-----\n{}", "QUJD".repeat(20_000));
        let start = scrub_start(&key, 512);
        assert!(start.starts_with(REDACTED) && scrub(&key).0.starts_with(&*start), "{}", start.len());
    }

    #[test]
    fn every_rule_has_keywords_and_an_id() {
        for rule in RULES.iter() {
            assert!(!rule.ids.is_empty() && !rule.keywords.is_empty());
            assert!(rule.keywords.iter().all(|k| k.len() >= 2 && k.is_ascii() && *k == k.to_ascii_lowercase()));
        }
        assert!(RULES.iter().any(|rule| rule.ids.contains(&"private-key")));
    }
}
