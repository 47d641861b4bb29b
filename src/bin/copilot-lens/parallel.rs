//! The event logs parsed on several threads. Each thread serialises its log's rows into a
//! buffer; the main thread writes the buffers and hands the outcomes back to the analysis in
//! path order, so the output is the same bytes whatever the number of threads.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

use copilot_lens::analysis::{Analysis, Tally, TallySink};
use copilot_lens::model::JsonlRowWriter;

use crate::roots::DiskRoots;

/// How far ahead of the writer a thread may run, in logs: bounds the buffered rows.
const WINDOW: usize = 32;

pub fn parse_logs(
    analysis: &mut Analysis,
    roots: &DiskRoots,
    threads: usize,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let tasks = analysis.log_tasks();
    let next = AtomicUsize::new(0);
    let written = Mutex::new(0usize);
    let progress = Condvar::new();
    let options = analysis.options.clone();
    std::thread::scope(|scope| -> std::io::Result<()> {
        let (sender, receiver) = mpsc::sync_channel(threads * 2);
        for _ in 0..threads.max(1) {
            let (sender, mut reader) = (sender.clone(), roots.clone());
            let (tasks, next, written, progress, options) = (&tasks, &next, &written, &progress, &options);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    if index >= tasks.len() {
                        break;
                    }
                    let mut done = written.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                    while index >= *done + WINDOW {
                        done = progress.wait(done).unwrap_or_else(|poisoned| poisoned.into_inner());
                    }
                    drop(done);
                    let mut tally = Tally::default();
                    let mut rows = JsonlRowWriter::new(Vec::new());
                    let outcome = tasks[index].parse(&mut reader, options, &mut TallySink::new(&mut tally, &mut rows));
                    let bytes = rows.finish().unwrap_or_default();
                    if sender.send((index, outcome, tally, bytes)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut pending = BTreeMap::new();
        let mut cursor = 0;
        let mut result = Ok(());
        for (index, outcome, tally, bytes) in receiver {
            pending.insert(index, (outcome, tally, bytes));
            while let Some((outcome, tally, bytes)) = pending.remove(&cursor) {
                result = out.write_all(&bytes);
                if result.is_err() {
                    break;
                }
                analysis.add_log(&tasks[cursor], outcome, tally);
                cursor += 1;
                *written.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = cursor;
                progress.notify_all();
            }
            if result.is_err() {
                // Release waiting threads; they stop when their next send fails.
                next.store(tasks.len(), Ordering::SeqCst);
                *written.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = usize::MAX / 2;
                progress.notify_all();
                break;
            }
        }
        result
    })
}
