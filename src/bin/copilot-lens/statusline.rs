//! `copilot-lens statusline`: Copilot CLI's status line. Copilot CLI (1.0.43 and later) runs the
//! `statusLine.command` of `~/.copilot/settings.json` on its events and shows what it prints
//! below the prompt; it writes a JSON payload on the command's stdin (`session_id`, `cwd`,
//! `transcript_path`, `model`, ..., see the guide's CLI chapter).
//!
//! The figures come from a snapshot of the billing month kept in the cache (`StatusSnapshot`),
//! made again by a usage run over the home in a process of its own when it is older than
//! [`SNAPSHOT_TTL_MS`], and the shown session's log read through the cache, on from where it
//! ended. Whatever goes wrong, a
//! short line is printed instead and the exit status is 0: the status line never gets in the way.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};

use chrono::NaiveDate;
use clap::{Args, ValueEnum};
use copilot_lens::analysis::Options;
use copilot_lens::cache::EntryRules;
use copilot_lens::usage::Zone;
use copilot_lens::usage::month::month_bounds;
use copilot_lens::usage::rates::RateTable;
use copilot_lens::usage::status::StatusSnapshot;
use serde::Deserialize;

use crate::cache::{self, FolderRun, FolderStore};
use crate::config::{AllowanceArgs, BudgetArgs};
use crate::roots::{DiskRoots, Scope};
use crate::terminal::one_line;
use crate::{CacheArgs, is_inside, parse_day, today_utc, usage_only};

/// How old the month's snapshot may be before a status line starts making it again (in the
/// background, showing the old one meanwhile): the other sessions' credits are about this late.
const SNAPSHOT_TTL_MS: i64 = 60_000;
/// A refresh's lock older than this is of one that died: a usage run over a home whose cache is
/// warm takes a second or so, a cold one a few seconds per gigabyte.
const LOCK_STALE: std::time::Duration = std::time::Duration::from_secs(10 * 60);
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
    /// Make the month's snapshot in the cache now, print nothing, and exit (what a status line
    /// starts in the background when its snapshot is a minute old).
    #[arg(long)]
    refresh_snapshot: bool,
    /// Colours: auto (unless NO_COLOR is set or TERM is dumb: Copilot runs the command with
    /// stdout on a pipe, and shows the colours), always or never.
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    color: Colour,
    #[command(flatten)]
    allowance: AllowanceArgs,
    #[command(flatten)]
    budgets: BudgetArgs,
    /// Today (YYYY-MM-DD; default: today, UTC).
    #[arg(long, value_parser = parse_day)]
    today: Option<NaiveDate>,
    #[command(flatten)]
    cache: CacheArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Colour {
    Auto,
    Always,
    Never,
}

impl Colour {
    /// Whether to colour: `auto` when `output_shows_them` and neither NO_COLOR nor TERM=dumb say not to.
    pub fn enabled(self, output_shows_them: bool) -> bool {
        match self {
            Colour::Always => true,
            Colour::Never => false,
            Colour::Auto => {
                output_shows_them
                    && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
                    && std::env::var_os("TERM").is_none_or(|term| term != "dumb")
            }
        }
    }
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
        Ok(Some(line)) => println!("{line}"),
        Ok(None) => {}
        Err(reason) => println!("copilot-lens: {}", one_line(&reason)),
    }
    ExitCode::SUCCESS
}

/// The line (none for `--refresh-snapshot`), or why there is none.
fn status_line(args: StatuslineArgs) -> Result<Option<String>, String> {
    let payload = if args.refresh_snapshot { Payload::default() } else { read_payload()? };
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
    let rules = cache::CachedRun::starting(&options);
    let place = SnapshotPlace::of(&home, &folder)?;
    if args.refresh_snapshot {
        let made = make_snapshot(&place, &home, &store, &rules, &options, today);
        // Removed whatever happened, so that the next old snapshot starts another refresh.
        let _ = std::fs::remove_file(&place.lock);
        return made.map(|()| None);
    }
    let budgets = args.budgets.budgets().map_err(|_| "unreadable config file".to_string())?;
    let allowance = args.allowance.allowance()?;
    let limit = budgets.month.or(allowance);
    let snapshot = match kept_snapshot(&place, &store, &rules, today) {
        Some((snapshot, fresh)) => {
            if !fresh {
                refresh_in_background(&place, &home, &folder, args.today);
            }
            snapshot
        }
        None => {
            refresh_in_background(&place, &home, &folder, args.today);
            return Err("counting this month's credits (shown from the next run)".into());
        }
    };
    let session_id = payload.session_id.filter(|id| is_plain_name(id));
    let fresh = session_id.as_deref().and_then(|id| session_entries(&home, id, &store, &rules, &options));
    let session = match (&session_id, &fresh) {
        (Some(id), Some(entries)) => Some((id.as_str(), entries)),
        (Some(id), None) => snapshot.sessions.get_key_value(id).map(|(id, entries)| (id.as_str(), entries)),
        (None, _) => None,
    };
    let figures = snapshot.figures(session, &options.rates, today, limit);
    // Copilot runs the command with stdout on a pipe, and shows the colours.
    let colour = args.color.enabled(true);
    Ok(Some(figures.line(&budgets, limit, colour)))
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
pub fn default_home() -> Option<PathBuf> {
    match std::env::var_os("COPILOT_HOME") {
        Some(home) if !home.is_empty() => Some(PathBuf::from(home)),
        _ => dirs::home_dir().map(|home| home.join(".copilot")),
    }
}

/// A session id fit to be a folder's name: no separator, no `..`.
fn is_plain_name(id: &str) -> bool {
    !id.is_empty() && id != "." && id != ".." && !id.contains(['/', '\\', '\0'])
}

/// Where a home's month snapshot is kept in the cache, and the lock of its refresh.
struct SnapshotPlace {
    /// The home's canonical path: the snapshot's identity.
    identity: String,
    /// The cache entry's name.
    name: String,
    /// Held by the one refresh under way (`refresh_in_background`).
    lock: PathBuf,
}

impl SnapshotPlace {
    fn of(home: &Path, folder: &Path) -> Result<SnapshotPlace, String> {
        let canonical = std::fs::canonicalize(home).map_err(|_| "no Copilot home")?;
        let identity = canonical.to_string_lossy().into_owned();
        let name = format!("statusline-{:016x}", xxhash_rust::xxh3::xxh3_64(identity.as_bytes()));
        let lock = folder.join(format!("{name}.lock"));
        Ok(SnapshotPlace { identity, name, lock })
    }
}

/// The home's snapshot of `today`'s month in the cache, and whether it is younger than
/// [`SNAPSHOT_TTL_MS`]; none when there is none of this build, home and month.
fn kept_snapshot(
    place: &SnapshotPlace,
    store: &FolderStore,
    rules: &EntryRules,
    today: NaiveDate,
) -> Option<(StatusSnapshot, bool)> {
    let snapshot = rules.decode_own::<StatusSnapshot>(&store.get(&place.name)?)?;
    if snapshot.identity != place.identity || snapshot.month != month_bounds(today).0 {
        return None;
    }
    let fresh = (0..SNAPSHOT_TTL_MS).contains(&(cache::now_ms() - snapshot.made_ms));
    Some((snapshot, fresh))
}

/// Makes the month's snapshot by a usage run over the home, through the cache, and keeps it.
fn make_snapshot(
    place: &SnapshotPlace,
    home: &Path,
    store: &FolderStore,
    rules: &EntryRules,
    options: &Options,
    today: NaiveDate,
) -> Result<(), String> {
    let made_ms = cache::now_ms();
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let (mut roots, listings) = DiskRoots::open(&[home.to_path_buf()], Scope::Usage, threads)?;
    let (run, _) =
        usage_only(&mut roots, listings, options.clone(), (threads, Some(FolderRun { store, rules }), None))?;
    let snapshot = StatusSnapshot::of(run.usage.ledgers.iter(), place.identity.clone(), made_ms, today);
    let entry = rules.encode_own(&snapshot).ok_or("the snapshot could not be written")?;
    store.put(&place.name, &entry);
    store.finish();
    Ok(())
}

/// Starts `statusline --refresh-snapshot` as a process of its own, which this one does not wait
/// for: a status line never waits for the home's usage run. One refresh at a time: it holds the
/// lock file, made here and removed by it; a lock older than [`LOCK_STALE`] (a refresh that
/// died) is taken over.
fn refresh_in_background(place: &SnapshotPlace, home: &Path, folder: &Path, today: Option<NaiveDate>) {
    let take = || std::fs::OpenOptions::new().write(true).create_new(true).open(&place.lock).is_ok();
    let stale = || {
        let modified = std::fs::metadata(&place.lock).and_then(|metadata| metadata.modified()).ok();
        modified.and_then(|modified| modified.elapsed().ok()).is_some_and(|age| age > LOCK_STALE)
    };
    let taken = take() || (stale() && std::fs::remove_file(&place.lock).is_ok() && take());
    if !taken {
        return;
    }
    let Ok(binary) = std::env::current_exe() else {
        let _ = std::fs::remove_file(&place.lock);
        return;
    };
    let mut command = std::process::Command::new(binary);
    command.args(["statusline", "--refresh-snapshot", "--home"]).arg(home).arg("--cache").arg(folder);
    if let Some(today) = today {
        command.arg("--today").arg(today.to_string());
    }
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    if command.spawn().is_err() {
        let _ = std::fs::remove_file(&place.lock);
    }
}

/// The shown session's entries, all its days, from its log read through the cache (a log that
/// grew is read on from where it ended); none when it has no log.
fn session_entries(
    home: &Path,
    id: &str,
    store: &FolderStore,
    rules: &EntryRules,
    options: &Options,
) -> Option<copilot_lens::usage::Entries> {
    let (mut roots, listings) = DiskRoots::one_file(home, &format!("session-state/{id}/events.jsonl")).ok()?;
    let (mut run, _) =
        usage_only(&mut roots, listings, options.clone(), (1, Some(FolderRun { store, rules }), None)).ok()?;
    run.usage.ledgers.remove(id).map(|ledger| ledger.entries)
}
