//! A search as the user types it, found in texts as they are shown: case-insensitive, an
//! empty one finding everything. The CLI's search (`crate::search`), the lines that may hold
//! one (`crate::line_filter`) and the page's timeline (`crate::page::table`) look for it so.

/// A search, case-insensitive: empty finds everything.
pub struct Needle {
    lower: String,
    ascii: bool,
}

impl Needle {
    pub fn new(search: &str) -> Needle {
        let lower = search.to_lowercase();
        Needle { ascii: lower.is_ascii(), lower }
    }

    pub fn is_empty(&self) -> bool {
        self.lower.is_empty()
    }

    /// The search in lower case, as it is looked for.
    pub fn folded(&self) -> &str {
        &self.lower
    }

    pub fn finds(&self, text: &str) -> bool {
        self.lower.is_empty() || contains_folded(text, &self.lower, self.ascii)
    }

    /// About where the first match in `text` starts (a character's boundary), for a snippet
    /// around it: the shortest start of `text` that holds a match ends with the first, found by
    /// halving with `finds` itself, so that a snippet shows what the search found.
    pub fn first_match(&self, text: &str) -> Option<usize> {
        if self.lower.is_empty() || !self.finds(text) {
            return None;
        }
        // `text[..without]` holds no match, `text[..with]` does.
        let (mut without, mut with) = (0, text.len());
        loop {
            let middle = text.floor_char_boundary(without + (with - without) / 2);
            let middle = if middle == without { text.ceil_char_boundary(middle + 1) } else { middle };
            if middle >= with {
                break;
            }
            if self.finds(&text[..middle]) { with = middle } else { without = middle }
        }
        Some(text.floor_char_boundary(with.saturating_sub(self.lower.len())))
    }
}

/// Case-insensitive containment; `needle` is already lowercase and not empty.
fn contains_folded(haystack: &str, needle: &str, ascii_needle: bool) -> bool {
    if ascii_needle {
        let (hay, pin) = (haystack.as_bytes(), needle.as_bytes());
        let first = pin[0];
        let upper = first.to_ascii_uppercase();
        let mut from = 0;
        while let Some(at) = memchr::memchr2(first, upper, &hay[from..]) {
            let start = from + at;
            if hay.len() - start >= pin.len() && hay[start..start + pin.len()].eq_ignore_ascii_case(pin) {
                return true;
            }
            from = start + 1;
        }
        false
    } else {
        haystack.to_lowercase().contains(needle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_finds_where_its_first_match_starts_in_any_case() {
        assert_eq!(Needle::new("WORLD").first_match("hello wOrld, world"), Some(6));
        assert_eq!(Needle::new("straße").first_match("Die STRASSE, die Straße"), Some(17));
        assert_eq!(Needle::new("éa").first_match("xÉA"), Some(1));
        assert_eq!(Needle::new("absent").first_match("hello"), None);
        assert_eq!(Needle::new("").first_match("hello"), None);
    }
}
