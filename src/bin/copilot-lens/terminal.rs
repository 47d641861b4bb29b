//! What the CLI writes to a terminal. A name read from the data (a model, a project, a session
//! folder, a bill's label) or a path given can hold escape sequences: a terminal would set its
//! window's title from `\x1b]0;…\x07`, clear the screen on `\x1b[2J`, make a link of OSC 8, or
//! move the cursor back with a bare carriage return. Every text the CLI writes to stdout or
//! stderr passes [`safe`] (tables through [`fit_columns`], messages through [`say!`]), which
//! shows such characters escaped (`--json` is left to serde_json, which escapes C0 controls in
//! its strings). And a table fits the terminal, a cell cut with `…` where it would not.

use std::borrow::Cow;

/// Writes a message on stderr after the tool's name, its text as [`safe`] shows it.
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!("copilot-lens: {}", $crate::terminal::safe(&format!($($arg)*)))
    };
}
pub(crate) use say;

/// Text as a terminal must show it: every control character but the line feed (C0, so ESC, BEL
/// and a bare CR; DEL; C1, U+0080 to U+009F) and every character that reorders a line's text
/// (the bidirectional overrides and isolates) written as Rust writes it in a string,
/// `\u{1b}`: one form for every one, readable, and never an escape sequence itself. A backslash
/// stays as it is (Windows paths), so a name that spells `\u{1b}` out shows the same.
pub fn safe(text: &str) -> Cow<'_, str> {
    escaped(text, |character| character == '\n')
}

/// One line's text (a table's cell): as [`safe`], the line feed escaped too.
pub fn one_line(text: &str) -> Cow<'_, str> {
    escaped(text, |_| false)
}

fn escaped(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let shown = |character: char| keep(character) || !(character.is_control() || reorders(character));
    if text.chars().all(shown) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for character in text.chars() {
        match shown(character) {
            true => escaped.push(character),
            false => escaped.extend(character.escape_unicode()),
        }
    }
    Cow::Owned(escaped)
}

/// The characters that reorder the text around them (Unicode's bidirectional formatting
/// characters): a line could show other words than it holds.
fn reorders(character: char) -> bool {
    matches!(character, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The widest a text cell is shown when stdout is not a terminal (a file, a pipe, where no width
/// is known): wide enough for a project's path, and a bound on a name made to break the table.
const TEXT_CELL_CAP: usize = 120;

/// The narrowest a text column is cut to so that a table fits a terminal: a name stays
/// recognisable, and a narrow terminal wraps the line rather.
const TEXT_COLUMN_MIN: usize = 12;

/// A table's lines made fit to be shown: the cells of `text_columns` as [`one_line`] shows them,
/// cut with `…` so that the table fits the terminal's width when stdout is one (the text
/// columns share what the others leave), else to `TEXT_CELL_CAP` characters. Returns each
/// column's width, in characters (as `{:width$}` pads; a character a column, a wide one
/// included). `gap` is the spaces written between two cells.
pub fn fit_columns<const N: usize>(lines: &mut [[String; N]], text_columns: &[usize], gap: usize) -> [usize; N] {
    let room = terminal_size::terminal_size_of(std::io::stdout()).map(|(width, _)| usize::from(width.0));
    fit_to(lines, text_columns, gap, room)
}

fn fit_to<const N: usize>(
    lines: &mut [[String; N]],
    text_columns: &[usize],
    gap: usize,
    room: Option<usize>,
) -> [usize; N] {
    for line in lines.iter_mut() {
        for &column in text_columns {
            if let Cow::Owned(escaped) = one_line(&line[column]) {
                line[column] = escaped;
            }
        }
    }
    let natural = widths(lines);
    let cap = match room {
        Some(room) => {
            // Columns no line fills (one a table leaves out) take no room.
            let shown = |column: &usize| natural[*column] > 0;
            let others: usize =
                (0..N).filter(|column| shown(column) && !text_columns.contains(column)).map(|c| natural[c] + gap).sum();
            let texts: Vec<usize> = text_columns.iter().filter(|column| shown(column)).map(|&c| natural[c]).collect();
            let budget = room.saturating_sub(others + texts.len() * gap);
            level(&texts, budget).max(TEXT_COLUMN_MIN)
        }
        None => TEXT_CELL_CAP,
    };
    for line in lines.iter_mut() {
        for &column in text_columns {
            cut(&mut line[column], cap);
        }
    }
    widths(lines)
}

fn widths<const N: usize>(lines: &[[String; N]]) -> [usize; N] {
    let mut widths = [0; N];
    for line in lines {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    widths
}

/// The most characters each column may show so that `widths` cut to it add up to `budget` at
/// most: the widest are cut first, to one width.
fn level(widths: &[usize], budget: usize) -> usize {
    let mut sorted = widths.to_vec();
    sorted.sort_unstable();
    let mut left = budget;
    for (at, &width) in sorted.iter().enumerate() {
        let sharing = sorted.len() - at;
        if width * sharing > left {
            return left / sharing;
        }
        left -= width;
    }
    usize::MAX
}

/// `cell` cut to `most` characters (at least one), its last one `…`, when it is longer.
fn cut(cell: &mut String, most: usize) {
    let most = most.max(1);
    if cell.chars().nth(most).is_some() {
        let end = cell.char_indices().nth(most - 1).map_or(cell.len(), |(at, _)| at);
        cell.truncate(end);
        cell.push('…');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_escaped() {
        for (text, shown) in [
            ("\x1b]0;pwned\x07", r"\u{1b}]0;pwned\u{7}"),
            ("\x1b[2Jcleared", r"\u{1b}[2Jcleared"),
            (
                "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
                r"\u{1b}]8;;https://evil.example\u{1b}\link\u{1b}]8;;\u{1b}\",
            ),
            ("a\rb\tc\0d\x7f", r"a\u{d}b\u{9}c\u{0}d\u{7f}"),
            ("c1 \u{9b}31m \u{85}", r"c1 \u{9b}31m \u{85}"),
            ("\u{202e}gnp.exe", r"\u{202e}gnp.exe"),
            ("two\nlines", "two\nlines"),
            (r"C:\Users\mona", r"C:\Users\mona"),
            ("日本 é …", "日本 é …"),
        ] {
            assert_eq!(safe(text), shown, "{text:?}");
        }
        assert!(matches!(safe("plain /home/mona"), Cow::Borrowed(_)));
        assert_eq!(one_line("two\nlines"), r"two\u{a}lines");
    }

    fn table(cells: [&str; 3]) -> Vec<[String; 3]> {
        vec![["name", "count", "note"].map(String::from), cells.map(String::from)]
    }

    #[test]
    fn a_long_cell_is_cut_to_the_cap_when_no_terminal_is_known() {
        let long = "m".repeat(100_000);
        let mut lines = table([&long, "12", "x"]);
        let widths = fit_to(&mut lines, &[0, 2], 2, None);
        assert_eq!(widths, [TEXT_CELL_CAP, 5, 4]);
        assert_eq!(lines[1][0], format!("{}…", "m".repeat(TEXT_CELL_CAP - 1)));
        // A width `{:width$}` takes (past 65,535 it panics).
        let _ = format!("{:<width$}", lines[1][0], width = widths[0]);
        let mut short = table(["gpt-5.4", "12", "x"]);
        assert_eq!(fit_to(&mut short, &[0, 2], 2, None), [7, 5, 4]);
        assert_eq!(short[1][0], "gpt-5.4", "what fits is not cut");
    }

    #[test]
    fn the_text_columns_share_what_a_terminal_leaves() {
        let mut lines = table([&"a".repeat(300), "12", &"b".repeat(40)]);
        // 80 columns: the number takes 5 and its gap 2, the two texts 2 gaps and 69 between them.
        let widths = fit_to(&mut lines, &[0, 2], 2, Some(80));
        assert_eq!(widths, [34, 5, 34]);
        assert!(lines[1][0].ends_with('…') && lines[1][2].ends_with('…'));
        let shown: usize = widths.iter().map(|width| width + 2).sum::<usize>() - 2;
        assert!(shown <= 80, "{shown}");
        // The narrow one keeps its width; the wide one takes the rest.
        let mut lines = table([&"a".repeat(300), "12", "note"]);
        assert_eq!(fit_to(&mut lines, &[0, 2], 2, Some(80)), [65, 5, 4]);
        // A terminal too narrow for anything: the texts keep a recognisable start.
        let mut lines = table([&"a".repeat(300), "12", "note"]);
        assert_eq!(fit_to(&mut lines, &[0, 2], 2, Some(10))[0], TEXT_COLUMN_MIN);
    }

    #[test]
    fn a_cell_is_escaped_before_it_is_measured() {
        let mut lines = table(["\x1b[2J", "1", "a\nb"]);
        let widths = fit_to(&mut lines, &[0, 2], 2, None);
        assert_eq!(lines[1][0], r"\u{1b}[2J");
        assert_eq!(lines[1][2], r"a\u{a}b");
        assert_eq!(widths[0], lines[1][0].chars().count());
    }
}
