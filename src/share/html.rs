//! The little HTML the shared report needs: text escaped, and tables.

use std::fmt::Write;

/// Text safe in HTML element content and in double-quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// A table with a header row; every cell is text (escaped here). Cells of a `numeric` column
/// are right-aligned.
pub fn table(out: &mut String, caption: &str, head: &[&str], numeric: &[bool], rows: &[Vec<String>]) {
    let _ = write!(out, "<table><caption>{}</caption><thead><tr>", escape(caption));
    for name in head {
        let _ = write!(out, r#"<th scope="col">{}</th>"#, escape(name));
    }
    out.push_str("</tr></thead><tbody>");
    for row in rows {
        out.push_str("<tr>");
        for (index, cell) in row.iter().enumerate() {
            let class = if numeric.get(index).copied().unwrap_or(false) { r#" class="n""# } else { "" };
            let _ = write!(out, "<td{class}>{}</td>", escape(cell));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_text_stays_text() {
        assert_eq!(escape(r#"<img src=x onerror="a">&'"#), "&lt;img src=x onerror=&quot;a&quot;&gt;&amp;&#39;");
        let mut out = String::new();
        table(&mut out, "c", &["a", "b"], &[false, true], &[vec!["<x>".into(), "1".into()]]);
        assert_eq!(
            out,
            r#"<table><caption>c</caption><thead><tr><th scope="col">a</th><th scope="col">b</th></tr></thead><tbody><tr><td>&lt;x&gt;</td><td class="n">1</td></tr></tbody></table>"#
        );
    }
}
