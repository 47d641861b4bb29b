//! `copilot-lens statusline`: Copilot CLI's status line. Copilot CLI (1.0.43 and later) runs the
//! `statusLine.command` of `~/.copilot/settings.json` on its events and shows what it prints
//! below the prompt; it writes a JSON payload on the command's stdin (`session_id`, `cwd`,
//! `transcript_path`, `model`, ..., see the guide's CLI chapter).
//!
//! The figures come from a snapshot of the billing month kept in the cache (`StatusSnapshot`),
//! made again by a usage run over the home when it is older than [`SNAPSHOT_TTL_MS`], and the
//! shown session's log read through the cache, on from where it ended. Whatever goes wrong, a
//! short line is printed instead and the exit status is 0: the status line never gets in the way.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use chrono::NaiveDate;
use clap::{Args, ValueEnum};
use copilot_lens::analysis::Options;
use copilot_lens::cache::{CacheStore, CacheUse};
use copilot_lens::usage::Zone;
use copilot_lens::usage::month::{self, month_bounds};
use copilot_lens::usage::rates::RateTable;
use copilot_lens::usage::status::StatusSnapshot;
use serde::Deserialize;

use crate::cache::{self, FolderStore};
use crate::config::BudgetArgs;
use crate::roots::{DiskRoots, Scope};
use crate::terminal::one_line;
use crate::{CacheArgs, is_inside, parse_day, plan_allowance, today_utc, usage_only};

/// How old the month's snapshot may be before a status line makes it again (a usage run over
/// the home, through the cache): the other sessions' credits are at most this late.
const SNAPSHOT_TTL_MS: i64 = 60_000;
/// The most of a payload read: Copilot's is a few kilobytes.
const PAYLOAD_BYTES_AT_MOST: u64 = 1 << 20;

#[derive(Args)]
pub struct StatuslineArgs {
    /// The Copilot home (default: the one the payload's transcript_path is in, else
    /// $COPILOT_HOME, else ~/.copilot).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Print the settings.json lines that make this command Copilot CLI's status line, and exit.
    #[arg(long)]
    print_config: bool,
    /// Colours: auto (unless NO_COLOR is set or TERM is dumb: Copilot runs the command with
    /// stdout on a pipe, and shows the colours), always or never.
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    color: Colour,
    /// The monthly allowance in AI credits, shown beside the month when no monthly budget is.
    #[arg(long, value_name = "CREDITS", value_parser = month::parse_allowance, conflicts_with = "plan")]
    allowance: Option<f64>,
    /// The allowance of a built-in plan (pro, pro-plus, max: see usage --plans-list).
    #[arg(long, value_name = "NAME")]
    plan: Option<String>,
    #[command(flatten)]
    budgets: BudgetArgs,
    /// Today (YYYY-MM-DD; default: today, UTC).
    #[arg(long, value_parser = parse_day)]
    today: Option<NaiveDate>,
    #[command(flatten)]
    cache: CacheArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Colour {
    Auto,
    Always,
    Never,
}

/// What Copilot CLI writes on the command's stdin, as far as the status line reads it.
#[derive(Default, Deserialize)]
struct Payload {
    session_id: Option<String>,
    /// The session's state folder (`~/.copilot/session-state/<id>`).
    transcript_path: Option<String>,
}

/// The settings.json lines `--print-config` prints.
pub const SETTINGS_SNIPPET: &str = r#"{
  "statusLine": {
    "type": "command",
    "command": "copilot-lens statusline"
  },
  "footer": {
    "showCustom": true
  }
}
"#;

pub fn run(args: StatuslineArgs) -> ExitCode {
    if args.print_config {
        print!("{SETTINGS_SNIPPET}");
        return ExitCode::SUCCESS;
    }
    let figures = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| status_line(args)));
    match figures.unwrap_or_else(|_| Err("failed".to_string())) {
        // Figures, month names and the colours' escapes only: no text from the data.
        Ok(line) => println!("{line}"),
        Err(reason) => println!("copilot-lens: {}", one_line(&reason)),
    }
    ExitCode::SUCCESS
}

fn status_line(args: StatuslineArgs) -> Result<String, String> {
    let payload = read_payload()?;
    let budgets = args.budgets.budgets().map_err(|_| "unreadable config file".to_string())?;
    let allowance = plan_allowance(args.plan.as_deref(), None)?.or(args.allowance);
    let limit = budgets.month.or(allowance);
    let home = args.home.or_else(|| payload.transcript_path.as_deref().and_then(home_of)).or_else(default_home);
    let home = home.filter(|home| home.is_dir()).ok_or("no Copilot home")?;
    let folder = cache::folder(args.cache.cache, args.cache.no_cache).ok_or("no cache")?;
    if is_inside(&folder, &home) {
        return Err("the cache is inside the home".into());
    }
    let store = FolderStore::open(&folder).map_err(|_| "no cache")?;
    let today = args.today.unwrap_or_else(today_utc);
    let options =
        Options { include_thinking: false, zone: Zone::Utc, rates: RateTable::default_table(), today: Some(today) };
    let cache_use = CacheUse::new(&cache::build_identity(), &options, cache::now_ms());
    let snapshot = month_snapshot(&home, &store, &cache_use, &options, today)?;
    let session_id = payload.session_id.filter(|id| is_plain_name(id));
    let fresh = session_id.as_deref().and_then(|id| session_entries(&home, id, &store, &cache_use, &options));
    let session = match (&session_id, &fresh) {
        (Some(id), Some(entries)) => Some((id.as_str(), entries)),
        (Some(id), None) => snapshot.sessions.get_key_value(id).map(|(id, entries)| (id.as_str(), entries)),
        (None, _) => None,
    };
    let figures = snapshot.figures(session, &options.rates, today, limit);
    let colour = match args.color {
        Colour::Always => true,
        Colour::Never => false,
        Colour::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
                && std::env::var_os("TERM").is_none_or(|term| term != "dumb")
        }
    };
    Ok(figures.line(&budgets, limit, colour))
}

/// The payload on stdin: none when stdin is a terminal (a person trying the command) or empty.
fn read_payload() -> Result<Payload, String> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Ok(Payload::default());
    }
    let mut text = Vec::new();
    stdin.lock().take(PAYLOAD_BYTES_AT_MOST).read_to_end(&mut text).map_err(|_| "unreadable payload")?;
    if text.iter().all(u8::is_ascii_whitespace) {
        return Ok(Payload::default());
    }
    serde_json::from_slice(&text).map_err(|_| "unreadable payload".to_string())
}

/// The home a session's state folder (or a log in it) is in: `<home>/session-state/<id>[/events.jsonl]`.
fn home_of(transcript: &str) -> Option<PathBuf> {
    let path = Path::new(transcript);
    let folder = if path.extension().is_some_and(|extension| extension == "jsonl") { path.parent()? } else { path };
    let state = folder.parent()?;
    (state.file_name()? == "session-state").then(|| state.parent().map(Path::to_path_buf))?
}

/// `$COPILOT_HOME`, else `~/.copilot`.
fn default_home() -> Option<PathBuf> {
    match std::env::var_os("COPILOT_HOME") {
        Some(home) if !home.is_empty() => Some(PathBuf::from(home)),
        _ => dirs::home_dir().map(|home| home.join(".copilot")),
    }
}

/// A session id fit to be a folder's name: no separator, no `..`.
fn is_plain_name(id: &str) -> bool {
    !id.is_empty() && id != "." && id != ".." && !id.contains(['/', '\\', '\0'])
}

/// The billing month's snapshot from the cache, made again (and kept) when it is missing, of
/// another build, home or month, or older than [`SNAPSHOT_TTL_MS`].
fn month_snapshot(
    home: &Path,
    store: &FolderStore,
    cache_use: &CacheUse,
    options: &Options,
    today: NaiveDate,
) -> Result<StatusSnapshot, String> {
    let canonical = std::fs::canonicalize(home).map_err(|_| "no Copilot home")?;
    let canonical = canonical.to_string_lossy();
    let name = format!("statusline-{:016x}", xxhash_rust::xxh3::xxh3_64(canonical.as_bytes()));
    let identity = canonical.to_string();
    let now = cache::now_ms();
    let kept = store.get(&name).and_then(|bytes| cache_use.decode_own::<StatusSnapshot>(&bytes)).filter(|snapshot| {
        snapshot.identity == identity
            && snapshot.month == month_bounds(today).0
            && (0..SNAPSHOT_TTL_MS).contains(&(now - snapshot.made_ms))
    });
    if let Some(snapshot) = kept {
        return Ok(snapshot);
    }
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let (mut roots, listings) = DiskRoots::open(&[home.to_path_buf()], Scope::Usage, threads)?;
    let (run, _) = usage_only(&mut roots, listings, options.clone(), threads, Some((store, cache_use)))?;
    let snapshot = StatusSnapshot::of(run.usage.ledgers.iter(), identity, now, today);
    if let Some(entry) = cache_use.encode_own(&snapshot) {
        store.put(&name, &entry);
    }
    store.finish();
    Ok(snapshot)
}

/// The shown session's entries, all its days, from its log read through the cache (a log that
/// grew is read on from where it ended); none when it has no log.
fn session_entries(
    home: &Path,
    id: &str,
    store: &FolderStore,
    cache_use: &CacheUse,
    options: &Options,
) -> Option<copilot_lens::usage::Entries> {
    let (mut roots, listings) = DiskRoots::one_file(home, &format!("session-state/{id}/events.jsonl")).ok()?;
    let (mut run, _) = usage_only(&mut roots, listings, options.clone(), 1, Some((store, cache_use))).ok()?;
    run.usage.ledgers.remove(id).map(|ledger| ledger.entries)
}
