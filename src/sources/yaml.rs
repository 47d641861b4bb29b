//! The YAML the sources read (`workspace.yaml`, the front matter of skills and agents): flat
//! mappings whose keys copilot-lens shows as text. They are read from granit-parser's events,
//! with no serde layer on top: serde-saphyr cost the page about 80 kB of its gzipped download
//! for a dozen keys (scripts/first-load.mjs).

use std::cell::RefCell;
use std::collections::HashMap;

use granit_parser::{Event, Parser, ScalarStyle};

/// One top-level key of a mapping.
#[derive(Debug, PartialEq)]
pub struct Field {
    pub key: String,
    /// The scalar as written, after YAML's quoting and folding (`false`, `0`, `fix: the thing`),
    /// or the anchored scalar an alias names; none for a null (`~`, `null`, nothing), a
    /// sequence, a mapping, and an alias of one of those or past the aliases' budget.
    pub value: Option<String>,
    /// 1-based line of the key.
    pub line: u64,
}

/// The top-level keys of the first document, in order. An empty document has none; a document
/// that is not a mapping, or not YAML, is an error.
pub fn top_level_fields(text: &str) -> Result<Vec<Field>, String> {
    let mut events = Parser::new_from_str(text);
    // Anchored scalars (none for a null), by anchor: each is a part of the text, so together
    // no longer than it.
    let anchors = RefCell::new(HashMap::new());
    let mut next = || match events.next() {
        Some(Ok((event, span))) => {
            if let Event::Scalar(scalar, style, anchor, tag) = &event
                && *anchor != 0
            {
                let value = (!is_null(scalar, *style, tag.is_some())).then(|| scalar.clone());
                anchors.borrow_mut().insert(*anchor, value);
            }
            Ok(Some((event, span.start.line() as u64)))
        }
        Some(Err(error)) => {
            let at = error.marker();
            Err(format!("not valid YAML from line {}, column {}", at.line(), at.col() + 1))
        }
        None => Ok(None),
    };
    // What aliases may copy in all: as much as the text again, however many aliases name a
    // long scalar (an alias bomb).
    let mut alias_budget = text.len();
    let mut fields = Vec::new();
    // Up to the document's first node.
    let first = loop {
        match next()? {
            Some((Event::StreamStart | Event::DocumentStart(..), _)) => continue,
            Some((event, _)) => break event,
            None => return Ok(fields),
        }
    };
    match first {
        Event::MappingStart(..) => {}
        Event::StreamEnd | Event::DocumentEnd => return Ok(fields),
        Event::Scalar(text, style, _, tag) if is_null(&text, style, tag.is_some()) => return Ok(fields),
        _ => return Err("not a mapping of keys to values".into()),
    }
    loop {
        let (key, line) = match next()? {
            Some((Event::MappingEnd, _)) | None => return Ok(fields),
            Some((Event::Scalar(key, ..), line)) => (Some(key.into_owned()), line),
            // A sequence or mapping as a key: not a key anything here reads.
            Some((event, line)) => {
                skip_node(&event, &mut next)?;
                (None, line)
            }
        };
        let value = match next()? {
            Some((Event::Scalar(text, style, _, tag), _)) => {
                (!is_null(&text, style, tag.is_some())).then(|| text.into_owned())
            }
            Some((Event::Alias(anchor), _)) => {
                let anchors = anchors.borrow();
                let scalar =
                    anchors.get(&anchor).and_then(Option::as_ref).filter(|scalar| scalar.len() <= alias_budget);
                scalar.map(|scalar| {
                    alias_budget -= scalar.len();
                    scalar.to_string()
                })
            }
            Some((event, _)) => {
                skip_node(&event, &mut next)?;
                None
            }
            None => None,
        };
        if let Some(key) = key {
            fields.push(Field { key, value, line });
        }
    }
}

/// YAML's nulls (an empty node comes as `~`); a quoted or tagged `null` is text.
fn is_null(text: &str, style: ScalarStyle, tagged: bool) -> bool {
    style == ScalarStyle::Plain && !tagged && matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

type NextEvent<'a> = dyn FnMut() -> Result<Option<(Event<'a>, u64)>, String> + 'a;

/// Reads past the rest of a node whose first event is `first`.
fn skip_node<'a>(first: &Event<'a>, next: &mut NextEvent<'a>) -> Result<(), String> {
    let mut depth = match first {
        Event::MappingStart(..) | Event::SequenceStart(..) => 1usize,
        _ => 0,
    };
    while depth > 0 {
        match next()? {
            Some((Event::MappingStart(..) | Event::SequenceStart(..), _)) => depth += 1,
            Some((Event::MappingEnd | Event::SequenceEnd, _)) => depth -= 1,
            Some(_) => {}
            None => break,
        }
    }
    Ok(())
}

/// The value of `key`: empty when it is absent or has no scalar value.
pub fn text<'f>(fields: &'f [Field], key: &str) -> &'f str {
    fields.iter().find(|field| field.key == key).and_then(|field| field.value.as_deref()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_are_kept_as_written_and_nested_values_are_none() {
        let fields = top_level_fields(
            "# note\nname: 'fix: the thing'\nuser_named: false\ncount: 0\nmissing: ~\nlist: [a, {b: c}]\n\
             tree:\n  deep: 1\n? [complex]\n: value\nfolded: >\n  Ships the app\nlast: null\n",
        )
        .unwrap();
        let seen: Vec<_> = fields.iter().map(|f| (f.key.as_str(), f.value.as_deref(), f.line)).collect();
        assert_eq!(
            seen,
            [
                ("name", Some("fix: the thing"), 2),
                ("user_named", Some("false"), 3),
                ("count", Some("0"), 4),
                ("missing", None, 5),
                ("list", None, 6),
                ("tree", None, 7),
                ("folded", Some("Ships the app\n"), 11),
                ("last", None, 13),
            ]
        );
        assert_eq!(text(&fields, "user_named"), "false");
        assert_eq!(text(&fields, "missing"), "");
        assert_eq!(text(&fields, "absent"), "");
    }

    #[test]
    fn aliases_of_scalars_read_as_their_anchors_within_a_budget() {
        let fields = top_level_fields(
            "name: &n reviewer\ndescription: *n\nnothing: &z ~\nalso_nothing: *z\nlist: &l [a]\nlisted: *l\n",
        )
        .unwrap();
        let seen: Vec<_> = fields.iter().map(|f| (f.key.as_str(), f.value.as_deref())).collect();
        assert_eq!(
            seen,
            [
                ("name", Some("reviewer")),
                ("description", Some("reviewer")),
                ("nothing", None),
                ("also_nothing", None),
                ("list", None),
                ("listed", None),
            ]
        );
        // 2000 aliases of a 10 kB scalar would copy 20 MB from a 26 kB text: they copy at most
        // the text's length again, and the rest read as nothing.
        let mut bomb = format!("long: &a {}\n", "x".repeat(10_000));
        bomb.extend((0..2000).map(|at| format!("k{at}: *a\n")));
        let fields = top_level_fields(&bomb).unwrap();
        let copied: usize = fields[1..].iter().filter_map(|field| field.value.as_ref()).map(String::len).sum();
        assert_eq!(fields.len(), 2001);
        assert_eq!(copied, 20_000, "as many copies as fit in {} bytes", bomb.len());
        assert_eq!(fields[3].value, None);
    }

    #[test]
    fn empty_documents_have_no_fields_and_others_are_errors() {
        assert_eq!(top_level_fields("").unwrap(), []);
        assert_eq!(top_level_fields("# only a comment\n").unwrap(), []);
        assert_eq!(top_level_fields("---\n...\n").unwrap(), []);
        assert!(top_level_fields("just text").is_err());
        assert!(top_level_fields("- a\n- b\n").is_err());
        assert!(top_level_fields("name: : :\n  - x\n").is_err());
        assert!(top_level_fields("a: [unclosed\n").is_err());
        assert_eq!(top_level_fields("a: b\nc: [d\n").unwrap_err(), "not valid YAML from line 2, column 4");
    }
}
