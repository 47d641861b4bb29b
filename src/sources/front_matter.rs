//! The Markdown files that shape Copilot's answers (skills' `SKILL.md`, custom agents,
//! instructions): the name and description of their YAML front matter, and a first line.

use super::yaml;

/// The fields of a front matter the inventory shows; one that is not a scalar is none.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FrontMatter {
    pub name: Option<String>,
    pub description: Option<String>,
}

/// Reads the front matter (`---` lines around YAML, at the very start). A file without one has
/// none; a front matter that is not YAML is an error of the file.
pub fn read(text: &str) -> Result<FrontMatter, String> {
    match split(text)?.0 {
        Some(front) => {
            let fields = yaml::top_level_fields(front).map_err(|error| format!("front matter: {error}"))?;
            let field = |key| Some(yaml::text(&fields, key).trim().to_string()).filter(|text| !text.is_empty());
            Ok(FrontMatter { name: field("name"), description: field("description") })
        }
        None => Ok(FrontMatter::default()),
    }
}

/// The first line with text after the front matter, at most `MAX_FIRST_LINE` characters.
pub fn first_line(text: &str) -> String {
    // An unclosed front matter is all body here: the first line is still worth showing.
    let body = split(text).map_or(text, |(_, body)| body);
    let line = body.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or_default();
    line.chars().take(MAX_FIRST_LINE).collect()
}

/// A text's front matter (the YAML between its `---` lines), if it has one, and its body.
fn split(text: &str) -> Result<(Option<&str>, &str), String> {
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Ok((None, text));
    }
    let start = text.find('\n').map_or(text.len(), |at| at + 1);
    let mut end = start;
    for line in lines {
        if line.trim_end() == "---" {
            return Ok((Some(&text[start..end]), &text[end + line.len()..]));
        }
        end += line.len();
    }
    Err("front matter: no closing ---".into())
}

/// Instructions are shown by their first line only; a long one is cut.
pub const MAX_FIRST_LINE: usize = 200;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_and_description_come_from_the_front_matter() {
        let text =
            "---\nname: deploy\ndescription: >\n  Ships the app\nallowed-tools: [bash]\n---\n\n# Deploy\nSteps.\n";
        let front = read(text).unwrap();
        assert_eq!(front.name.as_deref(), Some("deploy"));
        assert_eq!(front.description.as_deref(), Some("Ships the app"));
        assert_eq!(first_line(text), "# Deploy");
    }

    #[test]
    fn files_without_front_matter_or_with_odd_fields_still_read() {
        assert_eq!(read("# Only text\n").unwrap(), FrontMatter::default());
        assert_eq!(first_line("\n\n  Always answer in English.  \nMore"), "Always answer in English.");
        let odd = read("---\nname: [a, b]\ndescription: 3\n---\n").unwrap();
        assert_eq!((odd.name.as_deref(), odd.description.as_deref()), (None, Some("3")));
        assert!(read("---\nname: x\n").is_err());
        assert!(read("---\nname: : :\n  - x\n---\n").is_err());
        assert_eq!(first_line(&"x".repeat(300)).len(), MAX_FIRST_LINE);
    }
}
