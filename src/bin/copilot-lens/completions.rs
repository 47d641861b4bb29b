//! The shell completions and man pages (issue 51), written from the command line's own clap
//! command, so they follow every option as it changes.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap_complete::Shell;

use crate::fail;

/// Prints `shell`'s completion script for `command` to stdout.
pub fn print_completions(shell: Shell, mut command: clap::Command) -> ExitCode {
    let name = command.get_name().to_string();
    // Into memory first: clap_complete panics on a failed write (a closed pipe), where an error is due.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, name, &mut script);
    print(&script, "the completion script")
}

/// Prints `command`'s man page (roff) to stdout, or with `out` writes one page per command
/// into that folder (created if missing): `copilot-lens.1`, `copilot-lens-usage.1`, ...
pub fn write_man(command: clap::Command, out: Option<&Path>) -> ExitCode {
    // As `generate_to` does: clap's `help` command gets no page, so the main page names none.
    let command = command.disable_help_subcommand(true);
    let Some(out) = out else {
        let mut page = Vec::new();
        return match clap_mangen::Man::new(command).render(&mut page) {
            Ok(()) => print(&page, "the man page"),
            Err(error) => fail(1, &format!("writing the man page: {error}")),
        };
    };
    match fs::create_dir_all(out).and_then(|()| clap_mangen::generate_to(command, out)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(1, &format!("writing the man pages into {}: {error}", out.display())),
    }
}

fn print(text: &[u8], what: &str) -> ExitCode {
    match std::io::stdout().write_all(text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(1, &format!("writing {what}: {error}")),
    }
}
