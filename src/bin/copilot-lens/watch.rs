//! `copilot-lens watch`: the credits being spent, live in a terminal. The first update is a
//! usage run over the homes, kept (`LiveUsage`). When the file system then reports (the `notify`
//! crate) only files of that run written to, their sessions alone are counted again, so an
//! update costs what was written: a log's session is counted again, a session store's new
//! per-call rows are read (Copilot CLI writes one per call), and a file the run does not read
//! (the store's shared memory) changes nothing. Any other change (a file made or removed, a
//! store's main file written, a new day, events lost, or a timer where nothing reports) makes a
//! whole run, through the last one's scans kept in memory and the cache. `usage::watch` turns
//! the ledgers into the view, printed again in place.

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Args;
use copilot_lens::analysis::usage_only::{LiveUsage, Written};
use copilot_lens::analysis::{LogJob, LogTask, Options};
use copilot_lens::cache::EntryRules;
use copilot_lens::usage::Zone;
use copilot_lens::usage::budget::Budgets;
use copilot_lens::usage::credits::grouped_decimal;
use copilot_lens::usage::rates::RateTable;
use copilot_lens::usage::watch::{Watch, WatchView};
use notify::event::ModifyKind;
use notify::{EventKind, RecursiveMode, Watcher};

use crate::cache::{self, FolderRun, FolderStore};
use crate::config::{AllowanceArgs, BudgetArgs};
use crate::roots::{DiskRoots, Scope};
use crate::scan_memo::ScanMemo;
use crate::statusline::{Colour, default_home};
use crate::terminal::one_line;
use crate::{CacheArgs, is_inside, parallel, usage_run};

/// Changes reported this close together make one update: Copilot writes a call as a few lines.
const SETTLE: Duration = Duration::from_millis(100);
/// An update at least this often with no change reported: the last hour moves on, and the day.
const TICK: Duration = Duration::from_secs(30);
/// How often the cache is trimmed to its size while watching.
const TRIM_EVERY: Duration = Duration::from_secs(600);

#[derive(Args)]
pub struct WatchArgs {
    /// The Copilot homes to watch (default: $COPILOT_HOME, else ~/.copilot).
    #[arg(value_name = "ROOT")]
    roots: Vec<PathBuf>,
    /// Print the view once and exit, for scripts.
    #[arg(long)]
    once: bool,
    /// Seconds between updates where the file system reports no changes (a network folder).
    #[arg(long, value_name = "SECONDS", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=3600))]
    interval: u64,
    #[command(flatten)]
    allowance: AllowanceArgs,
    #[command(flatten)]
    budgets: BudgetArgs,
    /// Colours: auto (on a terminal, unless NO_COLOR is set or TERM is dumb), always or never.
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    color: Colour,
    /// The time the view is as of (RFC 3339, e.g. 2026-12-06T10:00:00Z; default: the clock), for
    /// scripts and tests.
    #[arg(long, value_name = "TIME", value_parser = parse_now)]
    now: Option<i64>,
    #[command(flatten)]
    cache: CacheArgs,
}

fn parse_now(text: &str) -> Result<i64, String> {
    copilot_lens::time::parse_millis(text).ok_or_else(|| format!("{text:?} is not a time like 2026-12-06T10:00:00Z"))
}

pub fn run(args: WatchArgs) -> ExitCode {
    match watch(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(reason) => {
            eprintln!("copilot-lens: {}", one_line(&reason));
            ExitCode::FAILURE
        }
    }
}

fn watch(args: WatchArgs) -> Result<(), String> {
    let homes = if args.roots.is_empty() { default_home().into_iter().collect() } else { args.roots.clone() };
    if homes.is_empty() {
        return Err("no Copilot home: give one".into());
    }
    let budgets = args.budgets.budgets()?;
    let limit = budgets.month.or(args.allowance.allowance()?);
    let folder = cache::folder(args.cache.cache.clone(), args.cache.no_cache);
    if let Some(folder) = &folder
        && let Some(home) = homes.iter().find(|home| is_inside(folder, home))
    {
        return Err(format!(
            "the cache folder {} is inside {}: give another with --cache",
            folder.display(),
            home.display()
        ));
    }
    let store = folder.as_deref().map(FolderStore::open).transpose().map_err(|error| format!("the cache: {error}"))?;
    let on_terminal = std::io::stdout().is_terminal();
    let colour = args.color.enabled(on_terminal);
    let mut updater = Updater {
        homes: &homes,
        store: store.as_ref(),
        memo: ScanMemo::default(),
        watch: Watch::default(),
        limit,
        budgets,
        colour,
        live: None,
    };
    if args.once {
        print_view(&updater.update(args.now, false, None)?, false);
        return Ok(());
    }
    // Watching before the first view: a line written while it is made starts the next. A sender
    // is kept here, so that where nothing watches, the wait is the timer's.
    let (sender, changes) = mpsc::channel();
    let watcher = watch_homes(&homes, sender.clone());
    let wait = match &watcher {
        Ok(_) => TICK,
        Err(why) => {
            eprintln!("copilot-lens: {}: checking every {} s", one_line(why), args.interval);
            Duration::from_secs(args.interval)
        }
    };
    print_view(&updater.update(args.now, true, None)?, on_terminal);
    if let Some(store) = &store {
        store.finish();
    }
    let mut trimmed = Instant::now();
    let (mut written, mut whole) = (Vec::new(), watcher.is_err());
    loop {
        let mut take = |change| match change {
            Change::Wrote(file) => written.push(file),
            Change::Other => whole = true,
        };
        if let Ok(change) = changes.recv_timeout(wait) {
            take(change);
            // The rest of this write, then one update.
            while let Ok(change) = changes.recv_timeout(SETTLE) {
                take(change);
            }
        }
        // A write reported once per system call: each file placed once.
        written.sort();
        written.dedup();
        let grown = (!whole).then_some(written.as_slice());
        let updated = updater.update(args.now, true, grown);
        written.clear();
        whole = watcher.is_err();
        match updated {
            Ok(view) => print_view(&view, on_terminal),
            // A home gone for a moment (a folder moved, a disk unmounted): the next change or tick tries again.
            Err(reason) => eprintln!("copilot-lens: {}", one_line(&reason)),
        }
        give_freed_memory_back();
        if let Some(store) = store.as_ref().filter(|_| trimmed.elapsed() > TRIM_EVERY) {
            store.finish();
            trimmed = Instant::now();
        }
    }
}

/// Gives the memory an update freed back to the system. Each update's threads are new, and
/// glibc keeps what a thread freed in that thread's arena: without this, a watch's memory grew
/// from update to update (600 MB home, 300 updates: 42.6 to 49.1 MiB; with it, 41.8 to 37.3 MiB,
/// each update about 10 ms longer, its pages faulted in again).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn give_freed_memory_back() {
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_freed_memory_back() {}

/// What the file system reported: a file written to, or a change that cannot be placed so (a
/// file made, removed or renamed, events lost), after which the update is whole.
enum Change {
    Wrote(PathBuf),
    Other,
}

/// Watches the folders of each root where Copilot writes: a CLI home's own files and its
/// sessions' folders (not its packages, which would take thousands of watches; the home is the
/// root or its `.copilot`), else the whole root. Sends each change that writes (reads, the
/// updates' own among them, are not changes).
fn watch_homes(homes: &[PathBuf], sender: mpsc::Sender<Change>) -> Result<notify::RecommendedWatcher, String> {
    let handler = move |event: notify::Result<notify::Event>| {
        let changes = match event {
            Ok(event) if event.need_rescan() => vec![Change::Other],
            Ok(event) => match event.kind {
                EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Metadata(_) | ModifyKind::Any) => {
                    event.paths.into_iter().map(Change::Wrote).collect()
                }
                EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => vec![Change::Other],
                _ => Vec::new(),
            },
            Err(_) => vec![Change::Other],
        };
        for change in changes {
            let _ = sender.send(change);
        }
    };
    let mut watcher = notify::recommended_watcher(handler).map_err(|error| error.to_string())?;
    for home in homes {
        for (folder, mode) in watch_points(home) {
            watcher.watch(&folder, mode).map_err(|error| format!("{}: {error}", folder.display()))?;
        }
    }
    Ok(watcher)
}

fn watch_points(root: &Path) -> Vec<(PathBuf, RecursiveMode)> {
    for home in [root.to_path_buf(), root.join(".copilot")] {
        let sessions = home.join("session-state");
        if sessions.is_dir() {
            return vec![(home, RecursiveMode::NonRecursive), (sessions, RecursiveMode::Recursive)];
        }
    }
    vec![(root.to_path_buf(), RecursiveMode::Recursive)]
}

/// What each update needs: the homes, the cache, and from update to update the logs' scans, the
/// last run and the view's state.
struct Updater<'a> {
    homes: &'a [PathBuf],
    store: Option<&'a FolderStore>,
    memo: ScanMemo,
    watch: Watch,
    limit: Option<f64>,
    budgets: Budgets,
    colour: bool,
    live: Option<Live>,
}

/// The last whole run, kept to count again the sessions whose logs grew, with its homes.
struct Live {
    usage: LiveUsage,
    roots: DiskRoots,
}

impl Updater<'_> {
    /// The view's lines at `now` (default: the clock), saying what the update took when `timed`
    /// (live: a printed once view is the same bytes from run to run): the files `grown` since
    /// the last update read on (`recount`), else (`None`, a file the last run cannot read on,
    /// or a new day) a whole run.
    fn update(&mut self, now: Option<i64>, timed: bool, grown: Option<&[PathBuf]>) -> Result<String, String> {
        let started = Instant::now();
        let now_ms = now.unwrap_or_else(cache::now_ms);
        let today = chrono::DateTime::from_timestamp_millis(now_ms).map(|now| now.date_naive());
        let live = self.live.take().filter(|live| live.usage.options().today == today);
        let recounted = match (grown, live) {
            (Some(grown), Some(live)) => self.recount(live, grown, now_ms),
            _ => None,
        };
        let view = match recounted {
            Some(view) => view,
            None => self.whole(now_ms, today)?,
        };
        Ok(self.lines(&view, now_ms, timed.then(|| started.elapsed())))
    }

    /// A usage run over the homes through the last update's scans and the cache, kept.
    fn whole(&mut self, now_ms: i64, today: Option<chrono::NaiveDate>) -> Result<WatchView, String> {
        let options = Options { include_thinking: false, zone: Zone::Utc, rates: RateTable::default_table(), today };
        let started_ms = cache::now_ms();
        let rules = EntryRules::new(&cache::build_identity(), &options, started_ms);
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let (mut roots, listings) = DiskRoots::open(self.homes, Scope::Usage, threads)?;
        let cache = self.store.map(|store| FolderRun { store, rules: &rules });
        self.memo.begin(started_ms);
        let (run, _) = usage_run(&mut roots, listings, options.clone(), (threads, cache, Some(&self.memo)))?;
        self.memo.end();
        let usage = run.finish_live(&mut roots);
        let view = self.watch.update(usage.usage().ledgers.iter(), true, &options.rates, now_ms, self.limit);
        self.live = Some(Live { usage, roots });
        Ok(view)
    }

    /// The files `grown` read on in the last run: the sessions of its logs counted again (each
    /// log through the scans kept and the cache), its stores' new rows read; none when a file is
    /// one it cannot read on (made since, a store's main file), or a session's count now rests
    /// on the stores otherwise (`LiveUsage::read_stores_on`, `LiveUsage::recount`).
    fn recount(&mut self, mut live: Live, grown: &[PathBuf], now_ms: i64) -> Option<WatchView> {
        let (mut sessions, mut stores) = (BTreeSet::new(), BTreeSet::new());
        for file in grown {
            let (root, path) = live.roots.place(file)?;
            match live.usage.written(root, &path) {
                Written::Log(session) => sessions.insert(session.to_string()),
                Written::StoreLog(store) => stores.insert(store),
                Written::Unread => false,
                Written::Other => return None,
            };
        }
        live.usage.read_stores_on(&stores, &mut live.roots).ok()?;
        let options = live.usage.options().clone();
        let started_ms = cache::now_ms();
        let rules = EntryRules::new(&cache::build_identity(), &options, started_ms);
        let cache = self.store.map(|store| FolderRun { store, rules: &rules });
        // Not ended: the scans of the logs not asked for now stay for the next whole run.
        self.memo.begin(started_ms);
        let (memo, reader) = (&self.memo, &mut live.roots);
        let scan = |task: &LogTask| {
            parallel::scan_log(LogJob::alone(task.clone()), reader, cache, Some(memo), &options).0.into_scan()
        };
        live.usage.recount(&sessions, scan).ok()?;
        let changed = sessions.iter().filter_map(|id| live.usage.usage().ledgers.get_key_value(id));
        let view = self.watch.update(changed, false, &options.rates, now_ms, self.limit);
        self.live = Some(live);
        Some(view)
    }

    /// The view's lines: figures, model names and session ids only, each made safe to print.
    fn lines(&self, view: &WatchView, now_ms: i64, took: Option<Duration>) -> String {
        let clock = |ms: i64| {
            chrono::DateTime::from_timestamp_millis(ms).map_or_else(String::new, |t| t.format("%H:%M:%S").to_string())
        };
        let homes: Vec<String> = self.homes.iter().map(|home| home.display().to_string()).collect();
        let took = took.map_or_else(String::new, |took| format!(" · updated in {} ms", took.as_millis()));
        let mut text = format!(
            "copilot-lens watch · {} · {} UTC{took}\n{}\n",
            one_line(&homes.join(", ")),
            clock(now_ms),
            view.figures.line(&self.budgets, self.limit, self.colour)
        );
        text.push_str("\nActive in the last hour\n");
        if view.active.is_empty() {
            text.push_str("  no session made a model call in the last hour\n");
        }
        for session in &view.active {
            text.push_str(&format!(
                "  {}  {:>10} cr  {}  last call {}\n",
                short_id(&session.id),
                grouped_decimal(session.credits),
                one_line(&session.last_model),
                clock(session.last_call_ms)
            ));
        }
        text.push_str("\nCalls as they arrive\n");
        if view.arrivals.is_empty() {
            text.push_str("  none since the watch began\n");
        }
        for arrival in &view.arrivals {
            let calls = copilot_lens::words::counted(arrival.requests, "call", "calls");
            text.push_str(&format!(
                "  {}  {}  {}  {calls}  +{} cr\n",
                clock(arrival.at_ms),
                short_id(&arrival.session),
                one_line(&arrival.model),
                grouped_decimal(arrival.credits)
            ));
        }
        text
    }
}

/// A session id's first eight characters, as the other views shorten it.
fn short_id(id: &str) -> String {
    one_line(&id.chars().take(8).collect::<String>()).into_owned()
}

/// Prints the view: in place of the last on a terminal that is being updated, else after it.
fn print_view(lines: &str, in_place: bool) {
    let mut out = std::io::stdout().lock();
    let clear = if in_place { "\x1b[H\x1b[2J" } else { "" };
    let _ = write!(out, "{clear}{lines}");
    if !in_place {
        let _ = writeln!(out);
    }
    let _ = out.flush();
}
