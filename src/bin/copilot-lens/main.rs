//! The native command-line tool on the copilot-lens core.

mod cache;
mod completions;
mod config;
mod mcp;
mod parallel;
mod roots;
mod scan_memo;
mod search;
mod statusline;
mod table;
mod team;
mod terminal;
mod watch;

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use chrono::NaiveDate;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use copilot_lens::analysis::usage_only::{UsageOnly, UsageRun};
use copilot_lens::analysis::{self, Options, Outputs, Planned, StoreJob};
use copilot_lens::cache::CacheTally;
use copilot_lens::facts::files::FileStatus;
use copilot_lens::input::RootListing;
use copilot_lens::model::JsonlRowWriter;
use copilot_lens::outputs::{self, CATALOGUE, ROWS_JSONL};
use copilot_lens::share::{self, ChosenRows, Period, ShareOptions};
use copilot_lens::usage::Zone;
use copilot_lens::usage::bill::{self, Reconciliation};
use copilot_lens::usage::budget::Budgets;
use copilot_lens::usage::credits::grouped_decimal;
use copilot_lens::usage::month;
use copilot_lens::usage::plans::Plans;
use copilot_lens::usage::rates::RateTable;
use copilot_lens::usage::summary::{DayRange, GroupBy};
use copilot_lens::words::counted;

use crate::cache::{CachedRun, FolderStore};
use crate::roots::{DiskRoots, Scope};
use crate::terminal::say;

#[derive(Parser)]
// `about` and ROOT's help name the sources from the registry (`command`).
#[command(name = "copilot-lens", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read what Copilot keeps and write it as files: the timeline, sessions, inventory, usage and report.
    ///
    /// Example: copilot-lens analyze ~ --out lens-out
    ///
    /// The output folder gets rows.jsonl, sessions.jsonl, inventory.json, report.json, usage.jsonl
    /// and usage.csv. Nothing in the roots is changed.
    Analyze {
        #[arg(required = true, value_name = "ROOT")]
        roots: Vec<PathBuf>,
        /// Folder for the output files (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Also emit the model's reasoning text as `thinking` rows.
        #[arg(long)]
        include_thinking: bool,
        /// Threads that parse event logs (default: one per core). The output is the same.
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        #[command(flatten)]
        accounting: Accounting,
        #[command(flatten)]
        cache: CacheArgs,
    },
    /// Print the tokens and AI credits used, per day (or month, session, model, project, ...).
    ///
    /// Example: copilot-lens usage ~ --by model --since 2026-11-01
    ///
    /// The figures follow Copilot's counting rules; the agents' figures are added up unless split
    /// with `--by agent`. Only the lines that carry counters are read, and the store's per-call
    /// rows, unless --by project or client, --bill or --export needs every file.
    ///
    /// With a budget (--budget-day, --budget-month, or the config file's), a budget crossed today
    /// or this month (UTC) is said on stderr and the exit status is 3, for scripts and CI.
    Usage {
        #[arg(required_unless_present = "plans_list", value_name = "ROOT")]
        roots: Vec<PathBuf>,
        /// How to group (subagent: the main agent against each sub-agent; purpose: the calls
        /// that answered requests against those Copilot made for itself; every grouping but
        /// agent adds the agents up).
        #[arg(long, default_value = "day", value_parser = group_by_parser())]
        by: GroupBy,
        /// First day to show (YYYY-MM-DD), inclusive.
        #[arg(long, value_parser = parse_day)]
        since: Option<NaiveDate>,
        /// Last day to show (YYYY-MM-DD), inclusive.
        #[arg(long, value_parser = parse_day)]
        until: Option<NaiveDate>,
        /// Only this agent's figures (copilot-cli, ...).
        #[arg(long, value_name = "AGENT", value_parser = copilot_lens::sources::agent_named)]
        agent: Option<&'static str>,
        /// The monthly allowance in AI credits: shows the billing month (UTC) of --until, or
        /// this month, against it, with the pace and the day it would run out.
        #[arg(long, value_name = "CREDITS", value_parser = month::parse_allowance, conflicts_with = "plan")]
        allowance: Option<f64>,
        /// The allowance of a built-in plan (pro, pro-plus, max: see --plans-list), as --allowance.
        #[arg(long, value_name = "NAME")]
        plan: Option<String>,
        /// A JSON file of plans adding or replacing the built-in ones:
        /// {"source": "...", "plans": {"NAME": CREDITS, ...}}.
        #[arg(long, value_name = "FILE", requires = "plan")]
        plans: Option<PathBuf>,
        /// Print the built-in plans and their monthly allowances, and where they were read.
        #[arg(long, exclusive = true)]
        plans_list: bool,
        /// GitHub's usage report (the CSV from the billing settings) to reconcile with, day by
        /// day and model (repeat for several). Reads every file, for the login signed in with.
        #[arg(long = "bill", value_name = "FILE.csv")]
        bills: Vec<PathBuf>,
        /// The login: whose rows of the report --bill reconciles, and the one --export names
        /// (default: the login each home signed in with).
        #[arg(long, value_name = "LOGIN")]
        user: Option<String>,
        #[command(flatten)]
        accounting: Accounting,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Threads that read event logs (default: one per core).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        #[command(flatten)]
        budgets: config::BudgetArgs,
        /// Today (YYYY-MM-DD; default: today, UTC): the day and month the budgets are of, and
        /// the month --allowance shows without --until.
        #[arg(long, value_parser = parse_day)]
        today: Option<NaiveDate>,
        #[command(flatten)]
        team: team::TeamArgs,
        #[command(flatten)]
        cache: CacheArgs,
    },
    /// Write a report to share: one HTML file of a billing month's usage, with no script and no request.
    ///
    /// Example: copilot-lens report ~ --out report.html --month 2026-11
    ///
    /// It holds a summary, the top sessions, projects and models by credits, the usage tables,
    /// the charts and the billing month, for one month (the latest with usage unless --month) or
    /// the days of --since/--until. Prompts, replies, tool output and file contents are left
    /// out, but for the sessions given with --session, whose transcripts are included with their
    /// secrets scrubbed.
    Report {
        #[arg(required = true, value_name = "ROOT")]
        roots: Vec<PathBuf>,
        /// The HTML file to write, or a folder to write it in named by its period
        /// (copilot-report-2026-11.html).
        #[arg(long, value_name = "FILE|FOLDER")]
        out: PathBuf,
        /// The billing month to report (default: the latest month with usage).
        #[arg(long, value_name = "YYYY-MM", value_parser = parse_month, conflicts_with_all = ["since", "until"])]
        month: Option<NaiveDate>,
        /// Report the days from this one (UTC) instead of a month.
        #[arg(long, value_parser = parse_day)]
        since: Option<NaiveDate>,
        /// Report the days up to this one (UTC, included) instead of a month.
        #[arg(long, value_parser = parse_day)]
        until: Option<NaiveDate>,
        /// Include this session's transcript (repeat for several), secrets scrubbed.
        #[arg(long = "session", value_name = "ID")]
        sessions: Vec<String>,
        /// Keep the system prompts in the transcripts (left out by default).
        #[arg(long)]
        with_system_prompt: bool,
        /// Replace project paths by stable short names (project-3fa2c1).
        #[arg(long)]
        short_project_names: bool,
        /// The monthly allowance in AI credits, for the billing month.
        #[arg(long, value_name = "CREDITS", value_parser = month::parse_allowance, conflicts_with = "plan")]
        allowance: Option<f64>,
        /// The allowance of a built-in plan (pro, pro-plus, max: see usage --plans-list).
        #[arg(long, value_name = "NAME")]
        plan: Option<String>,
        /// GitHub's usage report to reconcile with (repeat for several), shown with the month.
        #[arg(long = "bill", value_name = "FILE.csv")]
        bills: Vec<PathBuf>,
        /// Whose rows of the report to reconcile (default: the login this machine signed in with).
        #[arg(long, value_name = "LOGIN", requires = "bills")]
        user: Option<String>,
        /// Today (YYYY-MM-DD; default: today, UTC): whether the month is still in progress.
        #[arg(long, value_parser = parse_day)]
        today: Option<NaiveDate>,
        /// A JSON rates file whose models replace or add to the built-in rate table (as --rates of usage).
        #[arg(long, value_name = "FILE")]
        rates: Option<PathBuf>,
        /// Threads that parse event logs (default: one per core).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
    /// Print the rows whose text holds a word: prompts, replies, tool calls and their output.
    ///
    /// Example: copilot-lens search tokio ~
    ///
    /// The word is found in any case, in the texts as the timeline shows them (secrets scrubbed),
    /// and each row is printed with its time, session and type, its text from a little before the
    /// word. A log none of whose lines can hold the word is read at memory speed, not parsed.
    Search {
        #[arg(value_name = "WORD")]
        word: String,
        #[arg(required = true, value_name = "ROOT")]
        roots: Vec<PathBuf>,
        /// Also search the model's reasoning text (`thinking` rows).
        #[arg(long)]
        include_thinking: bool,
        /// Print each row whole as a line of JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print the session's, today's and the month's AI credits as Copilot CLI's status line.
    ///
    /// Example: copilot-lens statusline --print-config
    ///
    /// Copilot CLI runs it with the session's status as JSON on stdin, and shows the line below
    /// the prompt: `12.40 cr session · 86.10 today · Nov 2,715 / 7,000 (39%) · runs out Nov 24`.
    /// A figure turns yellow at 80% of its budget (or allowance) and red at 100%. The month's other
    /// sessions come from a snapshot in the cache, made again in the background once a minute
    /// old; the session's own log is read on from where it ended. Whatever goes wrong, it prints
    /// a short line and exits 0.
    /// It writes nothing to Copilot's files: --print-config prints the settings.json lines to add.
    Statusline(statusline::StatuslineArgs),
    /// Show the day's and the month's AI credits, the active sessions and each model call, live.
    ///
    /// Example: copilot-lens watch --budget-day 50
    ///
    /// The sessions shown are those with a model call in the last hour. Each change under a home
    /// starts an update: a usage run through the cache, which opens only the logs that changed;
    /// where the file system reports no changes, it checks every --interval seconds. --once
    /// prints the view once, for scripts.
    Watch(watch::WatchArgs),
    /// Serve the usage, sessions, transcripts, search and inventory to an agent over MCP (stdio).
    ///
    /// Example: copilot-lens mcp --print-config
    ///
    /// A Model Context Protocol server for Copilot CLI, VS Code or any MCP client: it reads the
    /// roots (default: your home folder) afresh, through the cache, at each call, never writes to
    /// them and never goes online. Every text it answers is scrubbed of secrets. --print-config
    /// prints the entries to add to ~/.copilot/mcp-config.json and VS Code's mcp.json.
    Mcp(mcp::McpArgs),
    /// Print the completion script of copilot-lens for a shell: its commands, options and values.
    ///
    /// Example: copilot-lens completions bash > ~/.local/share/bash-completion/completions/copilot-lens
    ///
    /// The shells are bash, zsh, fish, elvish and powershell. Save the script where the shell
    /// reads completions (the guide's "Completions and the man page" says where).
    Completions {
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Print the man page of copilot-lens, or write one page per command into a folder.
    ///
    /// Example: copilot-lens man --out ~/.local/share/man/man1
    ///
    /// The page is roff, as man reads it: `copilot-lens man | man -l -` shows it. With --out the
    /// folder gets copilot-lens.1 and a page for each command (copilot-lens-usage.1, ...).
    Man {
        /// Folder to write the pages in (created if missing), instead of printing the main one.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

/// How the `usage` command shows its table.
struct UsageView {
    by: GroupBy,
    range: DayRange,
    json: bool,
    /// The month to show against an allowance: a day of it, today, the allowance.
    month: Option<(NaiveDate, NaiveDate, f64)>,
    /// GitHub's usage reports to reconcile with, and whose rows (none: the login signed in with).
    bill: Option<AskedBill>,
    /// The budgets set, and today (UTC), which they are of.
    budgets: Budgets,
    today: NaiveDate,
}

/// Exit status of `usage` when a budget is crossed.
const BUDGET_CROSSED: u8 = 3;

/// GitHub's usage reports given with `--bill` (opened, by name), and the `--user` asked for.
type AskedBill = (Vec<(String, File)>, Option<String>);

/// Threads per core beyond which more only cost memory and switching.
const MAX_THREADS_PER_CORE: usize = 4;

/// The threads to use: one per core unless asked, and never more than a few per core (said on
/// stderr when that cuts what was asked).
fn thread_count(asked: Option<usize>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let most = cores * MAX_THREADS_PER_CORE;
    match asked {
        Some(asked) if asked > most => {
            let cores = counted(cores as u64, "core", "cores");
            say!("--threads {asked} is more than {MAX_THREADS_PER_CORE} per core ({cores} here): using {most}");
            most
        }
        Some(asked) => asked.max(1),
        None => cores,
    }
}

/// The cache of parsed event logs (`analyze`, `usage`).
#[derive(Args)]
struct CacheArgs {
    /// Keep what parsing each event log gave in DIR and read it back while the log is unchanged
    /// (default: $COPILOT_LENS_CACHE, else the user cache folder's copilot-lens, e.g.
    /// ~/.cache/copilot-lens). The outputs are the same with or without it.
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    cache: Option<PathBuf>,
    /// Read and write no cache: every event log is parsed.
    #[arg(long)]
    no_cache: bool,
}

impl CacheArgs {
    /// The cache's folder, if any (`cache::folder`); its store is opened once the roots are
    /// (`open_cache`).
    fn folder(self) -> Option<PathBuf> {
        cache::folder(self.cache, self.no_cache)
    }
}

/// The store in the cache's `folder`, if any, refused inside a folder the roots' walk reads
/// (copilot-lens never writes into the data it reads); one that cannot be opened is said and
/// the run goes on without it.
fn open_cache(folder: Option<PathBuf>, roots: &DiskRoots) -> Result<Option<FolderStore>, ExitCode> {
    let Some(folder) = folder else { return Ok(None) };
    refuse_inside(&folder, roots.read_folders().iter().map(PathBuf::as_path))?;
    let store =
        FolderStore::open(&folder).map_err(|error| say!("nothing will be cached: {}: {error}", folder.display()));
    Ok(store.ok())
}

#[derive(Args)]
struct Accounting {
    /// Zone whose days group the usage: UTC (default), an offset like +02:00, or a name like
    /// Europe/Berlin.
    #[arg(long, value_name = "TZ", default_value = "UTC")]
    timezone: String,
    /// A JSON rates file whose models replace or add to the built-in rate table (GitHub's published
    /// rates): {"source": "...", "models": [{"id", "input", "cached_input", "cache_write",
    /// "output"}, ...]}, in USD per million tokens.
    #[arg(long, value_name = "FILE")]
    rates: Option<PathBuf>,
}

impl Accounting {
    fn options(&self, include_thinking: bool) -> Result<Options, String> {
        let zone = Zone::parse(&self.timezone)?;
        let rates = match &self.rates {
            Some(path) => {
                let text = fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))?;
                RateTable::with_overrides(&text).map_err(|error| format!("{}: {error}", path.display()))?
            }
            None => RateTable::default_table(),
        };
        Ok(Options { include_thinking, zone, rates, today: Some(today_utc()) })
    }
}

/// `--by`: the groupings' names, as the page's requests name them too.
fn group_by_parser() -> impl clap::builder::TypedValueParser<Value = GroupBy> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(GroupBy::ALL.map(GroupBy::name)).try_map(|name| name.parse::<GroupBy>())
}

/// The allowance of the plan named, from the default plans and a plans file.
fn plan_allowance(plan: Option<&str>, file: Option<&Path>) -> Result<Option<f64>, String> {
    let Some(plan) = plan else { return Ok(None) };
    let plans = match file {
        Some(path) => {
            let text = fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))?;
            Plans::with_overrides(&text).map_err(|error| format!("{}: {error}", path.display()))?
        }
        None => Plans::default_table(),
    };
    plans.allowance(plan).map(Some)
}

/// `usage --plans-list`: the built-in plans, their monthly allowances, and where they were read.
fn print_plans() -> ExitCode {
    let plans = Plans::default_table();
    let mut out = String::new();
    for (name, credits) in &plans.plans {
        out += &format!("{name:<10} {:<14} {:>10} credits a month\n", plans.title(name), grouped_decimal(*credits));
    }
    out += &format!("source: {}\n", plans.source);
    match std::io::stdout().write_all(out.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(1, &format!("writing the plans: {error}")),
    }
}

/// Today in UTC, by the system clock (the core has none).
fn today_utc() -> NaiveDate {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    NaiveDate::default() + chrono::Days::new(since.as_secs() / 86_400)
}

/// A month, `2026-11`: its first day.
fn parse_month(text: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(&format!("{text}-01"), "%Y-%m-%d")
        .map_err(|_| format!("{text:?} is not a month like 2026-11"))
}

fn parse_day(text: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .or_else(|_| NaiveDate::parse_from_str(text, "%Y%m%d"))
        .map_err(|_| format!("{text:?} is not a date like 2026-10-01"))
}

/// Exit status for unusable input or arguments; 1 is left for failures while writing.
const USAGE_ERROR: u8 = 2;

/// The command as derived, with the sources it reads named from the registry, so that a new
/// source shows in the help with no edit here.
fn command() -> clap::Command {
    let folders = copilot_lens::sources::own_folder_names();
    let roots = format!("A home folder, {}, or a zip of any of them", folders.join(", "));
    Cli::command()
        .about(format!("Look into what GitHub Copilot keeps on this machine ({})", folders.join(", ")))
        .mut_subcommand("analyze", |analyze| analyze.mut_arg("roots", |arg| arg.help(roots)))
}

fn main() -> ExitCode {
    let cli = Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|error| error.exit());
    match cli.command {
        Command::Statusline(args) => statusline::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Mcp(args) => mcp::run(args),
        Command::Completions { shell } => completions::print_completions(shell, command()),
        Command::Man { out } => completions::write_man(command(), out.as_deref()),
        Command::Analyze { roots, out, include_thinking, threads, accounting, cache } => {
            match accounting.options(include_thinking) {
                Ok(options) => run_analyze(&roots, &out, options, thread_count(threads), cache.folder()),
                Err(message) => fail(USAGE_ERROR, &message),
            }
        }
        Command::Search { word, roots, include_thinking, json } => {
            match (Accounting { timezone: "UTC".into(), rates: None }).options(include_thinking) {
                Ok(options) => search::run_search(&word, &roots, options, json),
                Err(message) => fail(USAGE_ERROR, &message),
            }
        }
        Command::Report { since: Some(since), until: Some(until), .. } if since > until => fail(
            USAGE_ERROR,
            &format!("--since {since} is after --until {until}: no day is in that range; give the earlier day first"),
        ),
        Command::Report {
            roots,
            out,
            month,
            since,
            until,
            sessions,
            with_system_prompt,
            short_project_names,
            allowance,
            plan,
            bills,
            user,
            today,
            rates,
            threads,
        } => {
            let bill = match open_bills(&bills) {
                Ok(files) => (!files.is_empty()).then_some((files, user)),
                Err(message) => return fail(USAGE_ERROR, &message),
            };
            let accounting = Accounting { timezone: "UTC".into(), rates };
            let asked = accounting.options(false).and_then(|options| {
                let allowance = plan_allowance(plan.as_deref(), None)?.or(allowance);
                Ok((options, allowance))
            });
            match asked {
                Ok((mut options, allowance)) => {
                    let today = today.unwrap_or_else(today_utc);
                    options.today = Some(today);
                    let period = match (month, since, until) {
                        (Some(month), ..) => Period::Month(month),
                        (None, None, None) => Period::LatestMonth,
                        (None, since, until) => Period::Days { since, until },
                    };
                    let share = ShareOptions {
                        today,
                        period,
                        allowance,
                        plan: plan
                            .filter(|_| allowance.is_some())
                            .map(|plan| Plans::default_table().title(&plan).to_string()),
                        short_project_names,
                        with_system_prompt,
                        bill: None,
                    };
                    run_report(&roots, &out, options, (share, sessions, bill), thread_count(threads))
                }
                Err(message) => fail(USAGE_ERROR, &message),
            }
        }
        Command::Usage { plans_list: true, .. } => print_plans(),
        Command::Usage { since: Some(since), until: Some(until), .. } if since > until => fail(
            USAGE_ERROR,
            &format!("--since {since} is after --until {until}: no day is in that range; give the earlier day first"),
        ),
        Command::Usage { ref allowance, ref plan, accounting: Accounting { ref timezone, .. }, .. }
            if (allowance.is_some() || plan.is_some()) && Zone::parse(timezone) != Ok(Zone::Utc) =>
        {
            fail(USAGE_ERROR, "--allowance counts the billing month, which is UTC's: leave out --timezone")
        }
        Command::Usage { budgets, accounting: Accounting { ref timezone, .. }, .. }
            if budgets.given() && Zone::parse(timezone) != Ok(Zone::Utc) =>
        {
            fail(USAGE_ERROR, "--budget-day and --budget-month count UTC days and months: leave out --timezone")
        }
        Command::Usage { ref bills, accounting: Accounting { ref timezone, .. }, .. }
            if !bills.is_empty() && Zone::parse(timezone) != Ok(Zone::Utc) =>
        {
            fail(USAGE_ERROR, "--bill compares UTC days, as GitHub's report counts them: leave out --timezone")
        }
        Command::Usage { ref team, accounting: Accounting { ref timezone, .. }, .. }
            if team.export.is_some() && Zone::parse(timezone) != Ok(Zone::Utc) =>
        {
            fail(USAGE_ERROR, "--export counts UTC days, as GitHub's usage report does: leave out --timezone")
        }
        Command::Usage {
            roots,
            by,
            since,
            until,
            agent,
            allowance,
            plan,
            plans,
            plans_list: _,
            bills,
            user,
            accounting,
            json,
            threads,
            budgets,
            today,
            team,
            cache,
        } => {
            if user.is_some() && bills.is_empty() && team.export.is_none() {
                return fail(
                    USAGE_ERROR,
                    "--user names whose rows --bill reconciles or --export names: give one of them",
                );
            }
            let bill = match open_bills(&bills) {
                Ok(files) => (!files.is_empty()).then_some((files, user.clone())),
                Err(message) => return fail(USAGE_ERROR, &message),
            };
            let asked = accounting.options(false).and_then(|options| {
                let allowance = plan_allowance(plan.as_deref(), plans.as_deref())?.or(allowance);
                Ok((options, allowance, team.checked(user)?, budgets.budgets()?))
            });
            match asked {
                Ok((mut options, allowance, export, budgets)) => {
                    // JSON rows keep the agent grain; the table adds the agents up.
                    let range = DayRange { since, until, agent, agents_apart: json };
                    let today = today.unwrap_or_else(today_utc);
                    options.today = Some(today);
                    let month = allowance.map(|allowance| (until.unwrap_or(today), today, allowance));
                    let view = UsageView { by, range, json, month, bill, budgets, today };
                    run_usage(&roots, options, view, (thread_count(threads), cache.folder()), export)
                }
                Err(message) => fail(USAGE_ERROR, &message),
            }
        }
    }
}

/// GitHub's usage reports, opened now (one that is not a regular file is refused at once) and
/// read once the analysis has told whose rows to keep.
fn open_bills(paths: &[PathBuf]) -> Result<Vec<(String, File)>, String> {
    paths.iter().map(|path| open_bill(path)).collect()
}

/// A report, opened: a regular file, never a pipe (it would wait forever for a writer), a
/// device (`/dev/zero` never ends) or a folder. The type is checked before opening, which is
/// what waits on a pipe, and again on the file opened, in case the path changed in between.
fn open_bill(path: &Path) -> Result<(String, File), String> {
    let shown = path.display();
    let not_a_report = |file_type: fs::FileType| {
        format!("{shown} is {}, not a file: --bill reads GitHub's usage report (a CSV file)", kind_of(file_type))
    };
    let metadata = fs::metadata(path).map_err(|error| format!("{shown}: {error}"))?;
    if !metadata.is_file() {
        return Err(not_a_report(metadata.file_type()));
    }
    let file = File::open(path).map_err(|error| format!("{shown}: {error}"))?;
    let opened = file.metadata().map_err(|error| format!("{shown}: {error}"))?;
    if !opened.is_file() {
        return Err(not_a_report(opened.file_type()));
    }
    let name = path.file_name().map_or_else(|| shown.to_string(), |name| name.to_string_lossy().into());
    Ok((name, file))
}

/// What a path that is not a regular file is, in words.
fn kind_of(file_type: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a named pipe";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "a device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() { "a folder" } else { "not a regular file" }
}

/// The reports read (as they stream: only the rows of whose they are kept) and reconciled with
/// this usage; what was noted of them said on stderr.
fn reconcile_bill(
    (files, asked): &AskedBill,
    logins: &[String],
    usage: &analysis::UsageData,
) -> Result<Reconciliation, String> {
    let reports = files.iter().map(|(name, file)| (name.clone(), file));
    let reconciled = bill::reconcile_reports(reports, asked.as_deref(), logins, usage.ledgers.values(), &usage.rates)?;
    for note in &reconciled.notes {
        eprintln!("copilot-lens: {note}");
    }
    Ok(reconciled)
}

fn run_usage(
    root_paths: &[PathBuf],
    options: Options,
    view: UsageView,
    (threads, cache_folder): (usize, Option<PathBuf>),
    export: Option<team::Export>,
) -> ExitCode {
    if view.by.needs_every_file() || view.bill.is_some() || export.is_some() {
        return run_usage_in_full(root_paths, options, view, (threads, cache_folder), export);
    }
    let (started, rules) = (Instant::now(), CachedRun::starting(&options));
    let (mut roots, listings) = match DiskRoots::open(root_paths, Scope::Usage, threads) {
        Ok(opened) => opened,
        Err(message) => return fail(USAGE_ERROR, &message),
    };
    let cached = match open_cache(cache_folder, &roots) {
        Ok(store) => CachedRun::new(store, rules),
        Err(code) => return code,
    };
    let (run, cache_tally) = match usage_only(&mut roots, listings, options, (threads, cached.cache(), None)) {
        Ok(done) => done,
        Err(message) => return fail(USAGE_ERROR, &message),
    };
    let crossed = match print_usage(&run.usage, &[], &view) {
        Ok(crossed) => crossed,
        Err(code) => return code,
    };
    for problem in &run.problems {
        say!("{problem}");
    }
    cached.finish(&cache_tally);
    let seconds = started.elapsed().as_secs_f64();
    say!(
        "{} sessions; {} counter lines read, {} unreadable; {:.1} MB in {seconds:.3} s ({:.0} MB/s, {threads} threads); peak memory {}",
        run.usage.ledgers.len(),
        run.stats.parsed,
        run.stats.bad,
        run.bytes_read as f64 / 1e6,
        run.bytes_read as f64 / 1e6 / seconds.max(1e-9),
        peak_memory_text()
    );
    // The process ends next, and the system takes its memory back whole: freeing every
    // session's ledger one by one took 1 to 2% of a run on the 2 GB home (`perf`).
    std::mem::forget(run);
    budget_status(crossed)
}

/// The usage table (or JSON) on stdout, with the month against the allowance when asked; then
/// each budget crossed, on stderr. Returns whether one was.
fn print_usage(usage: &analysis::UsageData, logins: &[String], view: &UsageView) -> Result<bool, ExitCode> {
    let table = usage.table(view.by, view.range);
    let month = view.month.map(|(month, today, allowance)| usage.month(month, today, Some(allowance)));
    let bill = match &view.bill {
        Some(asked) => Some(reconcile_bill(asked, logins, usage).map_err(|message| fail(USAGE_ERROR, &message))?),
        None => None,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let printed = if view.json {
        table::write_json(&mut out, &table, usage, month.as_ref(), bill.as_ref())
    } else {
        table::write_text(&mut out, &table, usage, view.by)
            .and_then(|()| month.as_ref().map_or(Ok(()), |month| table::write_month(&mut out, month)))
            .and_then(|()| bill.as_ref().map_or(Ok(()), |bill| table::write_bill(&mut out, bill)))
    };
    printed.and_then(|()| out.flush()).map_err(|error| fail(1, &format!("writing the table: {error}")))?;
    if view.budgets == Budgets::default() {
        return Ok(false);
    }
    // The budgets are of today and this month, whatever days the table shows.
    let this_month = usage.month(view.today, view.today, None);
    let crossed = view.budgets.crossed(this_month.on(view.today), this_month.used);
    for line in &crossed {
        say!("{line}");
    }
    Ok(!crossed.is_empty())
}

/// Success, or the budget's status when one was crossed.
fn budget_status(crossed: bool) -> ExitCode {
    if crossed { ExitCode::from(BUDGET_CROSSED) } else { ExitCode::SUCCESS }
}

/// The usage-only run (`usage`'s fast path: the counter lines and the stores' per-call rows) over
/// the roots listed, through the cache when there is one, and the memo of a watch's last update.
fn usage_only(
    roots: &mut DiskRoots,
    listings: Vec<RootListing>,
    options: Options,
    through: (usize, Option<cache::FolderRun<'_>>, Option<&scan_memo::ScanMemo>),
) -> Result<(UsageOnly, CacheTally), String> {
    let (run, cache_tally) = usage_run(roots, listings, options, through)?;
    Ok((run.finish(roots), cache_tally))
}

/// `usage_only` up to its finish: every log scanned, the stores read.
fn usage_run(
    roots: &mut DiskRoots,
    listings: Vec<RootListing>,
    options: Options,
    (threads, cache, memo): (usize, Option<cache::FolderRun<'_>>, Option<&scan_memo::ScanMemo>),
) -> Result<(UsageRun, CacheTally), String> {
    let mut usage_run = Planned::new(listings, options).map_err(|error| error.to_string())?.usage_only();
    if memo.is_some() {
        // A watch reads on the stores as Copilot writes to them.
        usage_run.keep_stores();
    }
    // The store's log is scanned on a thread of its own while the event logs are.
    let mut store_jobs = usage_run.store_jobs();
    let mut cache_tally = std::thread::scope(|scope| {
        let mut reader = roots.clone();
        let jobs = &mut store_jobs;
        scope.spawn(move || {
            for job in jobs.iter_mut() {
                if wal_changed(job, &reader, memo) {
                    job.scan_wal_ahead(&mut reader);
                }
            }
        });
        parallel::scan_usage(&mut usage_run, roots, threads, cache, memo)
    });
    let stores_tally =
        cache::stores_through(roots.clone(), cache, |through| usage_run.read_stores(roots, store_jobs, through));
    cache_tally.add(&stores_tally);
    Ok((usage_run, cache_tally))
}

/// Whether a store's write-ahead log may have changed since a watch's last update (always,
/// without a memo): one that did not is not scanned ahead.
fn wal_changed(job: &StoreJob, roots: &DiskRoots, memo: Option<&scan_memo::ScanMemo>) -> bool {
    let (Some(memo), Some((root, path))) = (memo, job.wal_file()) else { return true };
    roots.folder_stat(root, path).is_none_or(|(identity, now)| memo.wal_changed(identity, path, now))
}

/// Usage by project, or a team export: a session's project is known only from its files beyond
/// the counter lines (its log's working directory, workspace.yaml, VS Code's workspace.json), and
/// a home's login from its process logs, so every file is read, as `analyze` reads them, and no
/// row is kept.
fn run_usage_in_full(
    root_paths: &[PathBuf],
    options: Options,
    view: UsageView,
    (threads, cache_folder): (usize, Option<PathBuf>),
    export: Option<team::Export>,
) -> ExitCode {
    let (started, rules) = (Instant::now(), CachedRun::starting(&options));
    let planned = match &export {
        Some(export) => plan_writing_to(root_paths, &export.file, options, threads),
        None => DiskRoots::open(root_paths, Scope::Everything, threads)
            .map_err(|message| fail(USAGE_ERROR, &message))
            .and_then(|(roots, listings)| match Planned::new(listings, options) {
                Ok(planned) => Ok((roots, planned)),
                Err(error) => Err(fail(USAGE_ERROR, &error.to_string())),
            }),
    };
    let (mut roots, planned) = match planned {
        Ok(planned) => planned,
        Err(code) => return code,
    };
    let cached = match open_cache(cache_folder, &roots) {
        Ok(store) => CachedRun::new(store, rules),
        Err(code) => return code,
    };
    let mut no_rows = JsonlRowWriter::new(std::io::sink());
    let (outputs, cache_tally) = match analyze_through(&mut roots, planned, &mut no_rows, threads, cached.cache()) {
        Ok(done) => done,
        Err(error) => return fail(1, &format!("reading: {error}")),
    };
    let crossed = match print_usage(&outputs.usage, &outputs.inventory.logins(), &view) {
        Ok(crossed) => crossed,
        Err(code) => return code,
    };
    if let Some(export) = export {
        let file = export.file.display().to_string();
        match export.write(&outputs, view.range) {
            Ok(rows) => say!("{rows} rows exported to {file}"),
            Err(message) => return fail(1, &message),
        }
    }
    cached.finish(&cache_tally);
    say!(
        "{}, every file read in {:.3} s; peak memory {}",
        counted(outputs.usage.ledgers.len() as u64, "session", "sessions"),
        started.elapsed().as_secs_f64(),
        peak_memory_text()
    );
    budget_status(crossed)
}

/// Every file of the roots read as `analyze` reads them, the stores then the logs (on `threads`),
/// through the cache when there is one; the rows go to `rows`.
fn analyze_through<W: Write>(
    roots: &mut DiskRoots,
    mut planned: Planned,
    rows: &mut JsonlRowWriter<W>,
    threads: usize,
    cache: Option<cache::FolderRun<'_>>,
) -> std::io::Result<(Outputs, CacheTally)> {
    let mut cache_tally = cache::stores_through(roots.clone(), cache, |through| planned.read_stores(roots, through));
    let outputs = analysis::drive(planned, roots, rows, |parsing, roots, rows| {
        cache_tally.add(&parallel::parse_logs(parsing, roots, threads, cache, rows)?);
        Ok::<(), std::io::Error>(())
    })?;
    Ok((outputs, cache_tally))
}

/// Every file of the roots listed and planned, for a run that writes to `out` (never inside a
/// root: copilot-lens never writes into the data it reads).
fn plan_writing_to(
    root_paths: &[PathBuf],
    out: &Path,
    options: Options,
    threads: usize,
) -> Result<(DiskRoots, Planned), ExitCode> {
    let (roots, listings) =
        DiskRoots::open(root_paths, Scope::Everything, threads).map_err(|message| fail(USAGE_ERROR, &message))?;
    refuse_inside(out, roots.directories())?;
    let planned = Planned::new(listings, options).map_err(|error| fail(USAGE_ERROR, &error.to_string()))?;
    Ok((roots, planned))
}

fn run_analyze(
    root_paths: &[PathBuf],
    out: &Path,
    options: Options,
    threads: usize,
    cache_folder: Option<PathBuf>,
) -> ExitCode {
    let (started, rules) = (Instant::now(), CachedRun::starting(&options));
    let (mut roots, planned) = match plan_writing_to(root_paths, out, options, threads) {
        Ok(planned) => planned,
        Err(code) => return code,
    };
    let cached = match open_cache(cache_folder, &roots) {
        Ok(store) => CachedRun::new(store, rules),
        Err(code) => return code,
    };
    if let Err(error) = fs::create_dir_all(out) {
        return fail(1, &format!("{}: {error}", out.display()));
    }
    let rows_path = out.join(ROWS_JSONL.name);
    let mut rows = match File::create(&rows_path) {
        Ok(file) => JsonlRowWriter::new(BufWriter::with_capacity(1 << 20, file)),
        Err(error) => return fail(1, &format!("{}: {error}", rows_path.display())),
    };
    let written =
        analyze_through(&mut roots, planned, &mut rows, threads, cached.cache()).and_then(|(outputs, cache_tally)| {
            rows.finish()?.flush()?;
            write_outputs(out, &outputs)?;
            Ok((outputs, cache_tally))
        });
    match written {
        Ok((outputs, cache_tally)) => {
            cached.finish(&cache_tally);
            print_summary(&outputs, out, started, threads);
            ExitCode::SUCCESS
        }
        Err(error) => fail(1, &format!("writing {}: {error}", out.display())),
    }
}

/// The report to share, with the transcripts of the sessions asked for.
fn run_report(
    root_paths: &[PathBuf],
    out: &Path,
    options: Options,
    (mut share, sessions, bill): (ShareOptions, Vec<String>, Option<AskedBill>),
    threads: usize,
) -> ExitCode {
    let started = Instant::now();
    let (mut roots, planned) = match plan_writing_to(root_paths, out, options, threads) {
        Ok(planned) => planned,
        Err(code) => return code,
    };
    let mut chosen = ChosenRows::of(&sessions);
    // Rows are kept only for the chosen sessions, so the logs are parsed on this thread.
    let finished = analysis::drive(planned, &mut roots, &mut chosen, |parsing, roots, rows| {
        analysis::parse_logs_in_order(parsing, roots, rows);
        Ok::<(), std::io::Error>(())
    });
    let outputs = match finished {
        Ok(outputs) => outputs,
        Err(error) => return fail(1, &format!("reading: {error}")),
    };
    if let Some(missing) = sessions.iter().find(|id| !outputs.sessions.iter().any(|record| &record.session_id == *id)) {
        return fail(USAGE_ERROR, &format!("--session {missing}: no session of that id in the roots"));
    }
    if let Some(asked) = bill {
        match reconcile_bill(&asked, &outputs.inventory.logins(), &outputs.usage) {
            Ok(reconciled) => share.bill = Some(reconciled),
            Err(message) => return fail(USAGE_ERROR, &message),
        }
    }
    let transcripts = chosen.transcripts(&outputs.sessions, &sessions);
    let html = share::write(&outputs, &transcripts, &share);
    // A folder is given the report named by its period.
    let named;
    let out = if out.is_dir() {
        named = out.join(share::file_name(&outputs, &share));
        named.as_path()
    } else {
        out
    };
    if let Err(error) = fs::write(out, html) {
        return fail(1, &format!("{}: {error}", out.display()));
    }
    say!(
        "report of {} sessions, {} transcripts, in {} ({:.3} s)",
        outputs.sessions.len(),
        transcripts.len(),
        out.display(),
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

/// Every output file the CLI writes but the rows (written as they come).
fn write_outputs(out: &Path, outputs: &Outputs) -> std::io::Result<()> {
    for file in CATALOGUE.iter().filter(|file| file.written_by_cli && **file != ROWS_JSONL) {
        let mut writer = BufWriter::new(File::create(out.join(file.name))?);
        outputs::write(*file, outputs, &mut writer)?;
        writer.flush()?;
    }
    Ok(())
}

fn print_summary(outputs: &Outputs, out: &Path, started: Instant, threads: usize) {
    let totals = &outputs.report.totals;
    let bytes_read: u64 =
        outputs.report.files.iter().filter(|file| file.status == FileStatus::Read).map(|file| file.size).sum();
    let seconds = started.elapsed().as_secs_f64();
    say!(
        "{} sessions, {} rows from {} files ({} with errors); {} event lines, {} bad",
        totals.sessions,
        totals.rows,
        totals.files_read,
        totals.files_with_errors,
        totals.event_lines,
        totals.bad_lines
    );
    say!(
        "secondary rows kept {}, dropped as copies {}; outputs in {}",
        totals.secondary_rows_kept,
        totals.secondary_rows_deduplicated,
        out.display()
    );
    for drift in &outputs.report.format_drift {
        say!("{} (report.json's format_drift names them)", drift.message);
    }
    let megabytes = bytes_read as f64 / 1e6;
    say!(
        "read {megabytes:.1} MB in {seconds:.3} s ({:.0} MB/s, {threads} threads); peak memory {}",
        megabytes / seconds.max(1e-9),
        peak_memory_text()
    );
}

fn peak_memory_text() -> String {
    peak_memory_kib().map_or_else(|| "unknown".to_string(), |kib| format!("{:.1} MiB", kib as f64 / 1024.0))
}

/// Peak resident memory of this process (Linux's VmHWM), in KiB.
fn peak_memory_kib() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Refuses `path`, which the run writes (`--out`, `--export`, the cache's folder), inside any of
/// `folders` (the roots, or the folders their walk reads): copilot-lens never writes into the
/// data it reads.
fn refuse_inside<'a>(path: &Path, mut folders: impl Iterator<Item = &'a Path>) -> Result<(), ExitCode> {
    match folders.find(|folder| is_inside(path, folder)) {
        Some(folder) => {
            let message = format!(
                "{} is inside {}, which this run reads: copilot-lens never writes into the data it reads",
                path.display(),
                folder.display()
            );
            Err(fail(USAGE_ERROR, &message))
        }
        None => Ok(()),
    }
}

/// Whether `path` is, or once made would be, inside `folder`: as written, or with links
/// resolved (`resolved`).
fn is_inside(path: &Path, folder: &Path) -> bool {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (path, folder) = (absolute(path), absolute(folder));
    path.starts_with(&folder) || resolved(&path).starts_with(resolved(&folder))
}

/// An absolute path with its links resolved, where it does not exist yet through its nearest
/// existing ancestor: that one's canonical path, then the rest as written (`..` taken as
/// written: what follows the ancestor does not exist, so is no link).
fn resolved(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut existing = path;
    loop {
        if let Ok(mut resolved) = fs::canonicalize(existing) {
            for part in missing.into_iter().rev() {
                match part {
                    Component::ParentDir => {
                        resolved.pop();
                    }
                    Component::Normal(name) => resolved.push(name),
                    _ => {}
                }
            }
            return resolved;
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                missing.push(last);
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

fn fail(status: u8, message: &str) -> ExitCode {
    say!("{message}");
    ExitCode::from(status)
}
