//! Event logs worked on by several threads, each with its own reader, while this thread hands
//! the work out and takes the results back. The core's `LogQueue` says which logs may be
//! parsed (or scanned) now and puts them back in task order, so the output is the same bytes
//! whatever the number of threads.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use copilot_lens::analysis::usage_only::UsageRun;
use copilot_lens::analysis::{LogJob, LogQueue, Options, ParsedLog, Parsing};
use copilot_lens::cache::{CacheTally, Purpose};
use copilot_lens::model::JsonlRowWriter;

use crate::cache::FolderRun;
use crate::roots::DiskRoots;
use crate::scan_memo::ScanMemo;

/// How far ahead of the first log not taken back the threads may run, in logs: bounds what
/// is buffered.
const WINDOW: usize = 64;
/// Most logs a thread takes at a time, so that handing work over costs little beside small logs.
const BATCH: usize = 8;
/// The most reserved at once for a log's rows: pages only reserved cost nothing until written.
const ROWS_RESERVED_AT_MOST: u64 = 64 << 20;

/// What a log's rows (fewer bytes than the log's, escaped texts aside) are given at once, so
/// that they are not copied as their buffer grows: 3% of a run's instructions went to that.
fn rows_capacity(log_size: u64) -> usize {
    usize::try_from(log_size.min(ROWS_RESERVED_AT_MOST)).unwrap_or(0)
}

/// Parses every log, writing its rows to `out` and its outcome to the analysis, in order; with
/// a cache, a log's entry stands for it when it can.
pub fn parse_logs<W: Write>(
    parsing: &mut Parsing,
    roots: &DiskRoots,
    threads: usize,
    cache: Option<FolderRun<'_>>,
    out: &mut JsonlRowWriter<W>,
) -> io::Result<CacheTally> {
    let options = parsing.options().clone();
    let mut state = (LogQueue::<Vec<u8>>::new(parsing), parsing, out, CacheTally::default());
    let work = |job: LogJob, reader: &mut DiskRoots| match cache {
        Some(mut entries) => {
            let (root, path) = (job.task.root, &job.task.listed_path);
            let looked_up = crate::cache::look_up(reader, &entries, Purpose::Analyze, root, path);
            job.parse_through_jsonl(reader, &mut entries, looked_up, &options)
        }
        None => {
            let mut rows = JsonlRowWriter::new(Vec::with_capacity(rows_capacity(job.task.size)));
            let parsed = job.parse(reader, &options, &mut rows);
            (parsed, rows.finish(), CacheTally::default())
        }
    };
    pool(
        &mut state,
        roots,
        threads,
        |(queue, parsing, ..)| queue.next_job(parsing, WINDOW),
        work,
        |(queue, parsing, out, total), (parsed, rows, tally)| {
            total.add(&tally);
            for rows in queue.take_back(parsing, parsed, rows?).rows {
                out.write_encoded(&rows)?;
            }
            Ok(())
        },
    )?;
    debug_assert!(state.0.is_done(), "every log is parsed");
    Ok(state.3)
}

/// Scans every log for its counters only, the scans added to the run in task order; with a
/// cache, a log's entry stands for its scan when it can, and with a memo (`watch`), the scan an
/// earlier update made of it, when the log is as it was then.
pub fn scan_usage(
    run: &mut UsageRun,
    roots: &DiskRoots,
    threads: usize,
    cache: Option<FolderRun<'_>>,
    memo: Option<&ScanMemo>,
) -> CacheTally {
    let options = run.options().clone();
    let mut state = (LogQueue::<(), (), UsageRun>::new(run), run, CacheTally::default());
    let consumed = pool(
        &mut state,
        roots,
        threads,
        |(queue, run, _)| queue.next_job(run, WINDOW),
        |job: LogJob<UsageRun>, reader: &mut DiskRoots| scan_log(job, reader, cache, memo, &options),
        |(queue, run, total), (scanned, tally)| {
            total.add(&tally);
            queue.take_back(run, scanned, ());
            Ok(())
        },
    );
    debug_assert!(consumed.is_ok() && state.0.is_done(), "every log is scanned");
    state.2
}

/// One log's scan: a watch's from its last update when the log is as it was then, else through
/// the cache (kept in the watch's memo), else read.
pub fn scan_log(
    job: LogJob<UsageRun>,
    reader: &mut DiskRoots,
    cache: Option<FolderRun<'_>>,
    memo: Option<&ScanMemo>,
    options: &Options,
) -> (ParsedLog<UsageRun>, CacheTally) {
    let scan = |job: LogJob<UsageRun>, reader: &mut DiskRoots| match cache {
        Some(mut entries) => {
            let (root, path) = (job.task.root, &job.task.listed_path);
            let looked_up = crate::cache::look_up(reader, &entries, Purpose::Usage, root, path);
            job.scan_through(reader, &mut entries, looked_up, options)
        }
        None => (job.scan_usage(reader, options), CacheTally::default()),
    };
    let Some(memo) = memo else { return scan(job, reader) };
    let path = job.task.listed_path.clone();
    let Some((root, stat)) = reader.folder_stat(job.task.root, &path).map(|(root, stat)| (root.to_string(), stat))
    else {
        return scan(job, reader);
    };
    if let Some(scanned) = memo.scan_if_unchanged(&root, &path, stat) {
        let tally = CacheTally { cached: 1, cached_bytes: stat.size, unread: 1, ..CacheTally::default() };
        return (job.scanned_before(scanned), tally);
    }
    let (scanned, tally) = scan(job, reader);
    memo.keep(&root, &path, stat, scanned.scan());
    (scanned, tally)
}

/// Runs jobs on `threads` threads, each with its own reader. This thread hands out what
/// `next` says may start now into a list the threads take from, in batches, without waiting for
/// this thread; it wakes only when results came, `consume`s them in the order they came, and
/// hands out what they allowed. So the threads parse ahead while results wait to be applied:
/// the order belongs to applying (the `LogQueue`), not to parsing. Stops early when `consume`
/// fails.
fn pool<S, J: Send, T: Send>(
    state: &mut S,
    roots: &DiskRoots,
    threads: usize,
    mut next: impl FnMut(&mut S) -> Option<J>,
    work: impl Fn(J, &mut DiskRoots) -> T + Sync,
    mut consume: impl FnMut(&mut S, T) -> io::Result<()>,
) -> io::Result<()> {
    let threads = threads.max(1);
    let shared = Shared::<J, T>::default();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (shared, work, mut reader) = (&shared, &work, roots.clone());
            scope.spawn(move || {
                let _says_panic = SaysPanic(shared);
                while let Some(batch) = shared.take_jobs(threads) {
                    let done: Vec<T> = batch.into_iter().map(|job| work(job, &mut reader)).collect();
                    shared.give_results(done);
                }
            });
        }
        let mut in_flight = 0usize;
        let outcome = loop {
            in_flight += shared.give_jobs(std::iter::from_fn(|| next(state)));
            if in_flight == 0 {
                break Ok(());
            }
            let Some(done) = shared.wait_for_results() else {
                break Err(io::Error::other("a thread stopped"));
            };
            in_flight -= done.len();
            if let Err(error) = done.into_iter().try_for_each(|result| consume(state, result)) {
                break Err(error);
            }
        };
        shared.stop();
        outcome
    })
}

/// What this thread and the pool's threads share: the jobs handed out and not yet taken, the
/// results not yet consumed.
struct Shared<J, T> {
    lists: Mutex<Lists<J, T>>,
    /// Jobs came, or the pool stops.
    jobs_came: Condvar,
    /// Results came, or a thread stopped.
    results_came: Condvar,
}

struct Lists<J, T> {
    jobs: VecDeque<J>,
    results: Vec<T>,
    stopping: bool,
    /// A thread panicked: its results will never come.
    panicked: bool,
}

impl<J, T> Default for Shared<J, T> {
    fn default() -> Self {
        let lists = Lists { jobs: VecDeque::new(), results: Vec::new(), stopping: false, panicked: false };
        Shared { lists: Mutex::new(lists), jobs_came: Condvar::new(), results_came: Condvar::new() }
    }
}

impl<J, T> Shared<J, T> {
    fn lists(&self) -> MutexGuard<'_, Lists<J, T>> {
        self.lists.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds jobs to take; gives how many.
    fn give_jobs(&self, jobs: impl Iterator<Item = J>) -> usize {
        let mut lists = self.lists();
        let before = lists.jobs.len();
        lists.jobs.extend(jobs);
        let given = lists.jobs.len() - before;
        drop(lists);
        if given > 0 {
            self.jobs_came.notify_all();
        }
        given
    }

    /// A thread's next batch: its share of the jobs waiting, at most `BATCH`; none once the
    /// pool stops.
    fn take_jobs(&self, threads: usize) -> Option<Vec<J>> {
        let mut lists = self.lists();
        loop {
            if lists.stopping {
                return None;
            }
            if !lists.jobs.is_empty() {
                let batch = lists.jobs.len().div_ceil(threads).clamp(1, BATCH);
                return Some(lists.jobs.drain(..batch).collect());
            }
            lists = self.jobs_came.wait(lists).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn give_results(&self, done: Vec<T>) {
        let mut lists = self.lists();
        // This thread waits only while there are none.
        let was_empty = lists.results.is_empty();
        lists.results.extend(done);
        drop(lists);
        if was_empty {
            self.results_came.notify_one();
        }
    }

    /// The results so far, once there are some; none when a thread panicked.
    fn wait_for_results(&self) -> Option<Vec<T>> {
        let mut lists = self.lists();
        while lists.results.is_empty() && !lists.panicked {
            lists = self.results_came.wait(lists).unwrap_or_else(PoisonError::into_inner);
        }
        (!lists.panicked).then(|| std::mem::take(&mut lists.results))
    }

    /// The threads stop once they finish their batch.
    fn stop(&self) {
        self.lists().stopping = true;
        self.jobs_came.notify_all();
    }
}

/// Tells the thread handing work out that this one panicked, so that it does not wait for it.
struct SaysPanic<'a, J, T>(&'a Shared<J, T>);

impl<J, T> Drop for SaysPanic<'_, J, T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.lists().panicked = true;
            self.0.results_came.notify_one();
        }
    }
}
