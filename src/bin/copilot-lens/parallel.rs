//! Event logs worked on by several threads and taken back in path order, so that the output
//! is the same bytes whatever the number of threads.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

use copilot_lens::analysis::usage_only::UsageRun;
use copilot_lens::analysis::{Copies, LogTask, Parsing, Tally, TallySink};
use copilot_lens::model::JsonlRowWriter;

use crate::roots::DiskRoots;

/// How far ahead of the consumer a thread may run, in logs: bounds what is buffered.
const WINDOW: usize = 64;
/// Logs a thread takes at a time.
const BATCH: usize = 8;

/// Parses every log, writing its rows to `out` and its outcome to the analysis, in order.
pub fn parse_logs<W: Write>(
    parsing: &mut Parsing,
    roots: &DiskRoots,
    threads: usize,
    out: &mut JsonlRowWriter<W>,
) -> io::Result<()> {
    let tasks = parsing.log_tasks();
    // The later copies of a session's log need the rows of the copies before them: they come
    // last, and are taken here one by one.
    let later = tasks.iter().position(|task| matches!(task.copies, Copies::Later { .. })).unwrap_or(tasks.len());
    let (firsts, laters) = tasks.split_at(later);
    let options = parsing.options().clone();
    let work = |task: &LogTask, reader: &mut DiskRoots| {
        let mut tally = Tally::of(task);
        let mut rows = JsonlRowWriter::new(Vec::new());
        let outcome = task.parse(reader, &options, &mut TallySink::new(&mut tally, &mut rows));
        (outcome, tally, rows.finish())
    };
    in_order(firsts, roots, threads, work, |index, (outcome, tally, encoded)| {
        out.write_encoded(&encoded?)?;
        parsing.add_log(&firsts[index], outcome, tally);
        Ok(())
    })?;
    let mut reader = roots.clone();
    for task in laters {
        let mut tally = parsing.tally_for(task);
        let outcome = task.parse(&mut reader, &options, &mut TallySink::new(&mut tally, &mut *out));
        parsing.add_log(task, outcome, tally);
    }
    Ok(())
}

/// Scans every log for its counters only, handing the ledgers back in order.
pub fn scan_usage(run: &mut UsageRun, roots: &DiskRoots, threads: usize) {
    let tasks = run.log_tasks();
    let options = run.options().clone();
    let work = |task: &LogTask, reader: &mut DiskRoots| task.scan_usage(reader, &options);
    let consumed = in_order(&tasks, roots, threads, work, |index, scanned| {
        run.add_scan(&tasks[index], scanned);
        Ok(())
    });
    debug_assert!(consumed.is_ok(), "the consumer never fails");
}

/// Runs `work` on every task on `threads` threads (each with its own reader) and `consume`s
/// the results on this thread in task order. Threads take tasks in batches, so that handing
/// results over costs little beside small logs. Stops early when `consume` fails.
fn in_order<T: Send>(
    tasks: &[LogTask],
    roots: &DiskRoots,
    threads: usize,
    work: impl Fn(&LogTask, &mut DiskRoots) -> T + Sync,
    mut consume: impl FnMut(usize, T) -> io::Result<()>,
) -> io::Result<()> {
    let next = AtomicUsize::new(0);
    let consumed = Mutex::new(0usize);
    let progress = Condvar::new();
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::sync_channel::<Vec<(usize, T)>>(threads.max(1) * 2);
        for _ in 0..threads.max(1) {
            let (sender, mut reader) = (sender.clone(), roots.clone());
            let (next, consumed, progress, work) = (&next, &consumed, &progress, &work);
            scope.spawn(move || {
                loop {
                    let first = next.fetch_add(BATCH, Ordering::SeqCst);
                    if first >= tasks.len() {
                        break;
                    }
                    let mut done = consumed.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                    while first >= *done + WINDOW {
                        done = progress.wait(done).unwrap_or_else(|poisoned| poisoned.into_inner());
                    }
                    drop(done);
                    let batch = (first..(first + BATCH).min(tasks.len()))
                        .map(|index| (index, work(&tasks[index], &mut reader)));
                    if sender.send(batch.collect()).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut pending = BTreeMap::new();
        let mut cursor = 0;
        for batch in receiver {
            pending.extend(batch);
            let before = cursor;
            while let Some(result) = pending.remove(&cursor) {
                if let Err(error) = consume(cursor, result) {
                    // Release waiting threads; they stop when their next send fails.
                    next.store(tasks.len(), Ordering::SeqCst);
                    *consumed.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = usize::MAX / 2;
                    progress.notify_all();
                    return Err(error);
                }
                cursor += 1;
            }
            if cursor != before {
                *consumed.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = cursor;
                progress.notify_all();
            }
        }
        Ok(())
    })
}
