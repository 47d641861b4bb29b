//! Event logs worked on by several threads, each with its own reader, while this thread hands
//! the work out and takes the results back. The core's `LogQueue` says which logs may be
//! parsed (or scanned) now and puts them back in task order, so the output is the same bytes
//! whatever the number of threads.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError, mpsc};

use copilot_lens::analysis::usage_only::UsageRun;
use copilot_lens::analysis::{LogJob, LogQueue, Parsing};
use copilot_lens::cache::{CacheTally, CacheUse, Purpose};
use copilot_lens::model::JsonlRowWriter;

use crate::cache::FolderStore;
use crate::roots::DiskRoots;

/// How far ahead of the first log not taken back the threads may run, in logs: bounds what
/// is buffered.
const WINDOW: usize = 64;
/// Most logs a thread takes at a time, so that handing work over costs little beside small logs.
const BATCH: usize = 8;

/// The cache a run reads and writes (`--cache`), and what its entries must agree with.
pub type Cache<'a> = Option<(&'a FolderStore, &'a CacheUse)>;

/// Parses every log, writing its rows to `out` and its outcome to the analysis, in order; with
/// a cache, a log's entry stands for it when it can.
pub fn parse_logs<W: Write>(
    parsing: &mut Parsing,
    roots: &DiskRoots,
    threads: usize,
    cache: Cache<'_>,
    out: &mut JsonlRowWriter<W>,
) -> io::Result<CacheTally> {
    let options = parsing.options().clone();
    let mut state = (LogQueue::<Vec<u8>>::new(parsing), parsing, out, CacheTally::default());
    let work = |job: LogJob, reader: &mut DiskRoots| match cache {
        Some((store, cache)) => {
            let keyed =
                crate::cache::keyed(reader, (store, cache), Purpose::Analyze, job.task.root, &job.task.listed_path);
            job.parse_through_jsonl(reader, store, keyed, cache, &options)
        }
        None => {
            let mut rows = JsonlRowWriter::new(Vec::new());
            let parsed = job.parse(reader, &options, &mut rows);
            (parsed, rows.finish(), CacheTally::default())
        }
    };
    pool(
        &mut state,
        roots,
        threads,
        |(queue, parsing, ..)| std::iter::from_fn(|| queue.next_job(parsing, WINDOW)).collect(),
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
/// cache, a log's entry stands for its scan when it can.
pub fn scan_usage(run: &mut UsageRun, roots: &DiskRoots, threads: usize, cache: Cache<'_>) -> CacheTally {
    let options = run.options().clone();
    let mut state = (LogQueue::<(), (), UsageRun>::new(run), run, CacheTally::default());
    let consumed = pool(
        &mut state,
        roots,
        threads,
        |(queue, run, _)| std::iter::from_fn(|| queue.next_job(run, WINDOW)).collect(),
        |job: LogJob<UsageRun>, reader: &mut DiskRoots| match cache {
            Some((store, cache)) => {
                let (root, path) = (job.task.root, &job.task.listed_path);
                let keyed = crate::cache::keyed(reader, (store, cache), Purpose::Usage, root, path);
                job.scan_through(reader, store, keyed, cache, &options)
            }
            None => (job.scan_usage(reader, &options), CacheTally::default()),
        },
        |(queue, run, total), (scanned, tally)| {
            total.add(&tally);
            queue.take_back(run, scanned, ());
            Ok(())
        },
    );
    debug_assert!(consumed.is_ok() && state.0.is_done(), "every log is scanned");
    state.2
}

/// Runs jobs on `threads` threads, each with its own reader. On this thread, `next` hands out
/// the jobs that may start now (asked again after each batch of results) and `consume` takes
/// the results as they come. Stops early when `consume` fails.
fn pool<S, J: Send, T: Send>(
    state: &mut S,
    roots: &DiskRoots,
    threads: usize,
    mut next: impl FnMut(&mut S) -> Vec<J>,
    work: impl Fn(J, &mut DiskRoots) -> T + Sync,
    mut consume: impl FnMut(&mut S, T) -> io::Result<()>,
) -> io::Result<()> {
    let threads = threads.max(1);
    let stop = AtomicBool::new(false);
    let (job_sender, jobs) = mpsc::channel::<Vec<J>>();
    let jobs = Mutex::new(jobs);
    std::thread::scope(|scope| {
        // `None` says a thread panicked: its results will never come.
        let (result_sender, results) = mpsc::channel::<Option<Vec<T>>>();
        for _ in 0..threads {
            let (jobs, work, stop) = (&jobs, &work, &stop);
            let (says_panic, mut reader) = (SaysPanic(result_sender.clone()), roots.clone());
            scope.spawn(move || {
                while let Ok(batch) = jobs.lock().unwrap_or_else(PoisonError::into_inner).recv() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let done = batch.into_iter().map(|job| work(job, &mut reader)).collect();
                    if says_panic.0.send(Some(done)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(result_sender);
        let mut in_flight = 0;
        let outcome = loop {
            let ready = next(state);
            // Spread over the threads, in batches.
            let batch = ready.len().div_ceil(threads).clamp(1, BATCH);
            let mut ready = ready.into_iter().peekable();
            while ready.peek().is_some() {
                let jobs: Vec<J> = ready.by_ref().take(batch).collect();
                in_flight += jobs.len();
                // The receiver outlives the threads.
                let _ = job_sender.send(jobs);
            }
            if in_flight == 0 {
                break Ok(());
            }
            let Ok(Some(done)) = results.recv() else {
                break Err(io::Error::other("a thread stopped"));
            };
            in_flight -= done.len();
            if let Err(error) = done.into_iter().try_for_each(|result| consume(state, result)) {
                break Err(error);
            }
        };
        // Threads stop once the jobs handed out run out, or at once when stopping early.
        stop.store(outcome.is_err(), Ordering::Relaxed);
        drop(job_sender);
        outcome
    })
}

/// Tells the thread handing work out that this one panicked, so that it does not wait for it.
struct SaysPanic<T>(mpsc::Sender<Option<Vec<T>>>);

impl<T> Drop for SaysPanic<T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let _ = self.0.send(None);
        }
    }
}
