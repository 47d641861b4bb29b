//! The command line's help (issue 51): each command's starts with one line saying what it does,
//! then an example (the completions' and the man page's too), and no help names a source file;
//! the built-in plans are printed by `usage --plans-list`.

mod common;

use common::run;

fn stdout_of(args: &[&str]) -> String {
    let scratch = tempfile::tempdir().unwrap();
    let output = run(scratch.path(), args);
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn each_command_says_what_it_does_then_shows_an_example() {
    let examples = [
        ("analyze", "copilot-lens analyze ~ "),
        ("usage", "copilot-lens usage ~ "),
        ("report", "copilot-lens report ~ "),
        ("statusline", "copilot-lens statusline --print-config"),
        ("mcp", "copilot-lens mcp --print-config"),
        ("watch", "copilot-lens watch --budget-day 50"),
        ("completions", "copilot-lens completions bash > "),
        ("man", "copilot-lens man --out "),
    ];
    for (command, example_start) in examples {
        let help = stdout_of(&[command, "--help"]);
        let mut lines = help.lines();
        let what = lines.next().unwrap();
        assert!(what.ends_with('.') && what.len() <= 100, "{command}: {what:?} is not one line saying what it does");
        assert_eq!(lines.next(), Some(""), "{command}: the line saying what it does is followed by more of it");
        let example = lines.next().unwrap();
        assert!(
            example.starts_with(&format!("Example: {example_start}")),
            "{command}: its help's second paragraph is {example:?}, not an example"
        );
    }
}

#[test]
fn no_help_names_a_source_file() {
    let commands = ["analyze", "usage", "report", "statusline", "mcp", "watch", "completions", "man"];
    let helps = std::iter::once(vec!["--help"]).chain(commands.map(|command| vec![command, "--help"]));
    for args in helps {
        let help = stdout_of(&args);
        for named in ["src/", ".rs", "plans.json", "default-rates.json", "docs/"] {
            assert!(!help.contains(named), "{args:?} names {named:?}:\n{help}");
        }
    }
}

#[test]
fn plans_list_prints_the_built_in_plans_and_their_source() {
    let listed = stdout_of(&["usage", "--plans-list"]);
    // Each line: the name --plan takes, the product's name, the allowance.
    let listed_plans: Vec<(&str, String, &str)> = listed
        .lines()
        .filter(|line| line.ends_with("credits a month"))
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            (words[0], words[1..words.len() - 4].join(" "), words[words.len() - 4])
        })
        .collect();
    assert_eq!(
        listed_plans,
        [
            ("max", "Copilot Max".into(), "20,000.00"),
            ("pro", "Copilot Pro".into(), "1,500.00"),
            ("pro-plus", "Copilot Pro+".into(), "7,000.00")
        ]
    );
    let plans = listed_plans.iter().map(|(name, _, credits)| (*name, *credits));
    assert!(listed.lines().last().unwrap().starts_with("source: github.com/features/copilot/plans, read 2026-12-01"));
    // Every plan listed is one --plan takes.
    let scratch = tempfile::tempdir().unwrap();
    let home = common::fixture("credits/08-allowance-runout");
    for (plan, _) in plans {
        let output = run(scratch.path(), &["usage", home.to_str().unwrap(), "--plan", plan, "--until", "2026-11-30"]);
        assert!(output.status.success(), "--plan {plan}: {}", String::from_utf8_lossy(&output.stderr));
    }
    let with_a_root = run(scratch.path(), &["usage", home.to_str().unwrap(), "--plans-list"]);
    assert_eq!(with_a_root.status.code(), Some(2), "--plans-list takes nothing else");
}
