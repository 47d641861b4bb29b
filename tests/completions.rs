//! The shell completions and the man page (issue 51): `copilot-lens completions SHELL` and
//! `copilot-lens man` name every command the command line has.

mod common;

use std::process::Command;

use common::run;

fn stdout_of(args: &[&str]) -> String {
    let scratch = tempfile::tempdir().unwrap();
    let output = run(scratch.path(), args);
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// The commands, as clap lists them in the main help (its own `help` left out: it has no page).
fn commands() -> Vec<String> {
    let help = stdout_of(&["--help"]);
    let listed = help.split("Commands:\n").nth(1).expect("the main help lists the commands");
    let commands: Vec<String> = listed
        .lines()
        .take_while(|line| line.starts_with("  "))
        .map(|line| line.split_whitespace().next().unwrap().to_string())
        .filter(|name| name != "help")
        .collect();
    for expected in ["analyze", "usage", "report", "completions", "man"] {
        assert!(commands.iter().any(|name| name == expected), "{expected} is not in {commands:?}");
    }
    commands
}

/// Whether `word` is in `text` as a word of its own (`man`, not the one in `command`).
fn names_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        [before, after].into_iter().flatten().all(|next| !next.is_alphanumeric())
    })
}

#[test]
fn each_shells_script_names_every_command() {
    let commands = commands();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout_of(&["completions", shell]);
        assert!(script.contains("copilot-lens"), "{shell}: the script does not name copilot-lens");
        for command in &commands {
            assert!(names_word(&script, command), "{shell}: the script does not name {command}:\n{script}");
        }
    }
}

#[test]
fn the_bash_script_is_valid_bash() {
    let script = stdout_of(&["completions", "bash"]);
    let scratch = tempfile::tempdir().unwrap();
    let path = scratch.path().join("copilot-lens.bash");
    std::fs::write(&path, script).unwrap();
    let Ok(checked) = Command::new("bash").arg("-n").arg(&path).output() else {
        eprintln!("no bash on this machine: the script's syntax is not checked");
        return;
    };
    assert!(checked.status.success(), "bash -n: {}", String::from_utf8_lossy(&checked.stderr));
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let scratch = tempfile::tempdir().unwrap();
    let output = run(scratch.path(), &["completions", "tcsh"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("invalid value 'tcsh'") && error.contains("bash"), "{error}");
}

/// The page's text with roff's escaped hyphens (`\-`) as plain ones.
fn unescaped(page: &str) -> String {
    page.replace("\\-", "-")
}

/// The `.TH` title line, after nothing but roff's conditional definitions (`.ie`, `.el`).
fn title_line(page: &str) -> &str {
    let mut lines = page.lines().skip_while(|line| line.starts_with(".ie ") || line.starts_with(".el "));
    lines.next().unwrap()
}

#[test]
fn the_man_page_is_roff_naming_every_command() {
    let page = stdout_of(&["man"]);
    assert!(title_line(&page).starts_with(".TH copilot-lens 1 "), "{page}");
    let page = unescaped(&page);
    for command in commands() {
        assert!(page.contains(&format!("copilot-lens-{command}(1)")), "the man page does not name {command}:\n{page}");
    }
}

#[test]
fn man_out_writes_a_page_per_command() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("man/man1");
    let output = run(scratch.path(), &["man", "--out", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut written: Vec<String> =
        common::files_below(&out).iter().map(|path| path.file_name().unwrap().to_string_lossy().into_owned()).collect();
    written.sort();
    let mut expected: Vec<String> = commands().iter().map(|command| format!("copilot-lens-{command}.1")).collect();
    expected.push("copilot-lens.1".into());
    expected.sort();
    assert_eq!(written, expected);
    let usage = common::read(&out.join("copilot-lens-usage.1"));
    assert!(title_line(&usage).starts_with(".TH copilot-lens-usage 1 "), "{usage}");
    // Each page carries its command's help, options and all.
    assert!(unescaped(&usage).contains("--plans-list"), "{usage}");
}
