//! Which lines of a JSON log may hold a search, found in the raw bytes before any parsing: a
//! search of a word a log lacks then reads its bytes at memory speed and parses nothing.
//!
//! A text's characters stand in its JSON line as themselves, except `"`, `\` and control
//! characters (escaped), `/` (which may be written `\/`), and any character at all written
//! `\uXXXX`. The search (`Needle`, already lower case) is cut at the first ones into
//! segments; a text holding the search holds each segment, so its line holds the longest one
//! (the anchor) as it is, or the line writes one of the anchor's characters `\u00XX`. Both
//! are looked for ASCII-case-insensitively (bytes folded with `| 0x20`, which folds more
//! than letters: more lines pass, never fewer). What is searched is the text as shown, its
//! secrets scrubbed: `[` and `]` cut segments too, and a segment inside `[redacted]` is no
//! anchor. The search is on one text as its line writes it: a text the parser composes of
//! several fields and its own words (`permission decision: …`) can hold a search across
//! them that no line holds (see `LineFilter::new`).

use std::ops::Range;

use memchr::memmem;

use crate::needle::Needle;
use crate::scrub::REDACTED;

/// A search's anchor and how to find it in a log's lines.
pub struct LineFilter {
    /// `None`: every line may hold the search.
    anchor: Option<Anchor>,
}

struct Anchor {
    /// The anchor's bytes folded (`fold`).
    folded: memmem::Finder<'static>,
    /// The anchor's bytes, ASCII lower case: a `\u00XX` of one of them may hide it.
    bytes: Vec<u8>,
}

/// `\u00` folded, where an escaped ASCII character starts.
const ESCAPE_START: &[u8] = b"|u00";

/// Bytes of the lines searched at a time: a folded copy this long is kept.
const CHUNK: usize = 1 << 20;

impl LineFilter {
    /// The filter for `needle`. A needle whose case folds beyond ASCII keeps only its ASCII
    /// characters as anchors, without `k` and `i` (which `K`, the Kelvin sign, and `İ` fold
    /// to). Without an anchor every line passes.
    pub fn new(needle: &Needle) -> LineFilter {
        let ascii = needle.folded().is_ascii();
        let cuts = |character: char| {
            matches!(character, '"' | '\\' | '/' | '[' | ']')
                || character.is_control()
                || (!ascii && (!character.is_ascii() || matches!(character, 'k' | 'i')))
        };
        let anchor = needle
            .folded()
            .split(cuts)
            .filter(|segment| !segment.is_empty() && !REDACTED.contains(segment))
            .max_by_key(|segment| segment.len());
        let anchor = anchor.map(|anchor| Anchor {
            folded: memmem::Finder::new(&fold(anchor.as_bytes())).into_owned(),
            bytes: anchor.as_bytes().to_vec(),
        });
        LineFilter { anchor }
    }

    /// Whether `line` may hold the search.
    pub fn may_match(&self, line: &[u8]) -> bool {
        let mut found = false;
        self.each_line(line, &mut Vec::new(), |_| found = true);
        found || self.anchor.is_none()
    }

    /// Calls `hit` with each line of `bytes` (without its `\n`) that may hold the search, once
    /// each and in order. `folded` is a buffer kept from call to call.
    pub fn each_line(&self, bytes: &[u8], folded: &mut Vec<u8>, mut hit: impl FnMut(Range<usize>)) {
        let Some(anchor) = &self.anchor else {
            let mut start = 0;
            while start < bytes.len() {
                let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |newline| start + newline);
                hit(start..end);
                start = end + 1;
            }
            return;
        };
        // Where the line after the last one given starts: a line is given once.
        let mut given_to = 0;
        let mut chunk_start = 0;
        // A chunk starts this far before the last one's end, to find what that end cuts.
        let overlap = anchor.bytes.len().max(ESCAPE_START.len() + 2) - 1;
        let chunk = CHUNK.max(2 * overlap);
        let mut found = Vec::new();
        while chunk_start < bytes.len() {
            let chunk_end = (chunk_start + chunk).min(bytes.len());
            folded.clear();
            folded.extend(bytes[chunk_start..chunk_end].iter().map(|&byte| byte | 0x20));
            found.clear();
            found.extend(anchor.folded.find_iter(folded));
            for at in memmem::find_iter(folded, ESCAPE_START) {
                let hex =
                    bytes.get(chunk_start + at + 4..chunk_start + at + 6).and_then(|hex| std::str::from_utf8(hex).ok());
                let escaped = hex.and_then(|hex| u8::from_str_radix(hex, 16).ok());
                if escaped.is_some_and(|escaped| anchor.bytes.contains(&escaped.to_ascii_lowercase())) {
                    found.push(at);
                }
            }
            crate::order::sort(&mut found);
            for &at in &found {
                let at = chunk_start + at;
                if at < given_to {
                    continue;
                }
                let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |newline| newline + 1);
                let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |newline| at + newline);
                hit(start..end);
                given_to = end + 1;
            }
            if chunk_end == bytes.len() {
                break;
            }
            chunk_start = (chunk_end - overlap).max(given_to);
        }
    }
}

/// ASCII upper case folded to lower (and other bytes moved alike).
fn fold(bytes: &[u8]) -> Vec<u8> {
    bytes.iter().map(|&byte| byte | 0x20).collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn filter(search: &str) -> LineFilter {
        LineFilter::new(&Needle::new(search))
    }

    /// `text` as a JSON string, each character in the form `forms` picks (0: as it is where
    /// JSON allows, 1: its short escape where it has one, else `\u` in lower or upper case):
    /// every way a writer may write it.
    fn json_string(text: &str, forms: &[u8]) -> String {
        let mut json = String::from("\"");
        for (at, character) in text.chars().enumerate() {
            let form = forms.get(at % forms.len().max(1)).copied().unwrap_or(0) % 4;
            let short = match character {
                '"' => Some("\\\""),
                '\\' => Some("\\\\"),
                '/' => Some("\\/"),
                '\n' => Some("\\n"),
                '\t' => Some("\\t"),
                '\r' => Some("\\r"),
                '\u{8}' => Some("\\b"),
                '\u{c}' => Some("\\f"),
                _ => None,
            };
            let literal_allowed = !(character.is_ascii_control() || matches!(character, '"' | '\\'));
            match (form, short) {
                (0, _) if literal_allowed => json.push(character),
                (0 | 1, Some(short)) => json.push_str(short),
                _ => {
                    for unit in character.encode_utf16(&mut [0; 2]) {
                        let hex = format!("\\u{unit:04x}");
                        json.push_str(&if form == 3 { hex.to_uppercase().replace("\\U", "\\u") } else { hex });
                    }
                }
            }
        }
        json.push('"');
        json
    }

    /// An event line holding `text` as a string, as the logs write their texts.
    fn line(text: &str, forms: &[u8]) -> String {
        format!(
            r#"{{"type":"tool.execution_complete","data":{{"result":{{"content":{}}}}}}}"#,
            json_string(text, forms)
        )
    }

    #[test]
    fn a_word_a_line_lacks_is_not_a_match_and_one_it_holds_in_any_case_or_escape_is() {
        let tokio = filter("Tokio");
        assert!(!tokio.may_match(line("use serde; and more", &[0]).as_bytes()));
        assert!(tokio.may_match(line("use TOKIO::spawn", &[0]).as_bytes()));
        assert!(tokio.may_match(line("use tokio", &[2]).as_bytes()), "every character written \\u00XX");
        assert!(!tokio.may_match(line("\u{1b}[31mred\u{1b}[0m", &[2]).as_bytes()), "an escaped ESC hides no letter");
        let quoted = filter("say \"hi\"\nnow");
        assert!(quoted.may_match(line("they say \"hi\"\nnow", &[0]).as_bytes()));
        assert!(!quoted.may_match(line("they said hello", &[0]).as_bytes()), "the anchor `say `");
    }

    #[test]
    fn searches_without_an_anchor_pass_every_line() {
        for search in ["", "\"", "é", "日本", "red", "[redacted]", "/"] {
            assert!(filter(search).may_match(b"{}"), "{search:?}");
        }
        assert!(!filter("Ünïcode").may_match(b"{}"), "its ASCII `code` is an anchor");
    }

    #[test]
    fn lines_are_given_once_in_order_across_chunks() {
        let mut log = Vec::new();
        let mut expected = Vec::new();
        for index in 0..40_000 {
            let start = log.len();
            let text = if index % 997 == 0 { format!("the Needle {index} needle") } else { format!("hay {index}") };
            log.extend_from_slice(line(&text, &[0]).as_bytes());
            if index % 997 == 0 {
                expected.push(start..log.len());
            }
            log.push(b'\n');
        }
        assert!(log.len() > 2 * CHUNK);
        let mut given = Vec::new();
        filter("needle").each_line(&log, &mut Vec::new(), |range| given.push(range));
        assert_eq!(given, expected);
        let mut every = 0;
        filter("\"").each_line(&log, &mut Vec::new(), |_| every += 1);
        assert_eq!(every, 40_000, "no anchor: every line");
    }

    #[test]
    fn only_k_and_i_fold_to_ascii_from_beyond_it() {
        // The anchors of a search that folds beyond ASCII leave these two out.
        let folding_to_ascii: Vec<char> = (0x80..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|character| character.to_lowercase().any(|lower| lower.is_ascii()))
            .collect();
        assert_eq!(folding_to_ascii, ['\u{130}', '\u{212a}']);
        assert_eq!(['\u{130}', '\u{212a}'].map(|c| c.to_lowercase().next()), [Some('i'), Some('k')]);
    }

    /// Characters that make case and escapes hard: letters of both cases, the escaped ones,
    /// the scrubber's brackets, letters folding beyond ASCII and to it.
    const CHARACTERS: &str =
        "[aAbBkKiIsS \"\\\\/\n\t\u{1b}\\[\\]\u{e9}\u{c9}\u{df}\u{130}\u{212a}\u{3a3}\u{3c3}\u{1F600}]";

    fn texts(least: usize, most: usize) -> impl Strategy<Value = String> {
        proptest::string::string_regex(&format!("{CHARACTERS}{{{least},{most}}}")).unwrap()
    }

    proptest! {
        // Few cases hold a search's longest segment written with an escape: many cases.
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Every line whose text the search finds (as the table finds it, scrubbed) passes.
        #[test]
        fn every_line_whose_text_matches_passes(
            text in texts(0, 40),
            cut in any::<prop::sample::Index>(),
            length in 0usize..8,
            cases in prop::collection::vec(any::<bool>(), 8),
            other in texts(1, 6),
            forms in prop::collection::vec(any::<u8>(), 1..8),
        ) {
            // The search: a piece of the text in another case, or another text.
            let characters: Vec<char> = text.chars().collect();
            let from = if characters.is_empty() { 0 } else { cut.index(characters.len()) };
            let piece: String = characters[from..(from + length).min(characters.len())]
                .iter()
                .zip(cases.iter().cycle())
                .map(|(character, upper)| if *upper { character.to_uppercase().collect::<String>() } else { character.to_string() })
                .collect();
            for search in [piece, other] {
                let needle = Needle::new(&search);
                let shown = crate::scrub::scrub(&text).0;
                if needle.finds(&shown) {
                    let line = line(&text, &forms);
                    prop_assert!(filter(&search).may_match(line.as_bytes()), "{search:?} in {line}");
                    let log = format!("{{}}\n{line}\n{{}}");
                    let mut given = Vec::new();
                    filter(&search).each_line(log.as_bytes(), &mut Vec::new(), |range| given.push(range));
                    prop_assert!(given.contains(&(3..3 + line.len())), "{given:?}");
                }
            }
        }
    }
}
