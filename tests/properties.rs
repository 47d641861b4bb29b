//! Invariants over generated trees (proptest): every event-log line is accounted for, the
//! output does not depend on listing order, thread count or the order logs are parsed and
//! taken back in, input bytes never change, no input makes the analysis panic, and a counter
//! is either added exactly or flagged.

mod common;

use std::fs;

use copilot_lens::analysis::{LogJob, LogQueue, Options, ParsedLog, Planned, UsageData, analyze, usage_only};
use copilot_lens::input::memory::{MemoryRoot, MemoryRoots};
use copilot_lens::model::JsonlRowWriter;
use proptest::prelude::*;

/// A line of an event log: a well-formed event of a type that matters, or damage.
fn log_line() -> impl Strategy<Value = Vec<u8>> {
    let text = "[a-zA-Z0-9 \"\\\\/<>\u{e9}\u{1F600}\n\t]{0,40}";
    let event = (
        prop::sample::select(vec![
            "session.start",
            "session.resume",
            "user.message",
            "assistant.message",
            "tool.execution_start",
            "tool.execution_complete",
            "permission.requested",
            "permission.completed",
            "session.model_change",
            "session.info",
            "session.usage_record",
            "session.shutdown",
            "hook.end",
            "model.message",
            "assistant.turn_start",
            "session.brand_new",
        ]),
        text,
        prop::sample::select(vec!["call_1", "call_2", "custom_3"]),
        any::<i64>(),
    )
        .prop_map(|(kind, text, call, number)| {
            let data = serde_json::json!({
                "content": text, "message": text, "newModel": text, "toolCallId": call, "toolName": text,
                "arguments": {"command": text}, "result": {"content": text, "kind": text}, "success": number % 2 == 0,
                "toolRequests": [{"toolCallId": call, "name": text, "arguments": text}],
                "permissionRequest": {"kind": "shell", "toolCallId": call, "fullCommandText": text},
                "usage": {"model": text, "inputTokens": number, "outputTokens": number % 1000},
                "modelMetrics": {text.clone(): {"requests": {"count": number}, "usage": {"inputTokens": number}}},
                "context": {"cwd": text},
            });
            let line = serde_json::json!({"type": kind, "data": data, "id": format!("e{number}"), "timestamp": "2026-10-01T09:00:00.000Z"});
            serde_json::to_vec(&line).unwrap()
        });
    prop_oneof![
        6 => event,
        1 => prop::collection::vec(any::<u8>(), 0..60).prop_map(|bytes| bytes.into_iter().filter(|b| *b != b'\n').collect()),
        1 => Just(b"{\"type\":\"user.message\",\"data\":{\"content\":\"cut".to_vec()),
        1 => Just(Vec::new()),
    ]
}

fn session_id(index: usize) -> String {
    format!("0000000{index}-0000-4000-8000-000000000000")
}

/// A home with a few sessions, their logs, and sometimes damaged side files.
fn tree() -> impl Strategy<Value = MemoryRoot> {
    let session = (prop::collection::vec(log_line(), 0..30), any::<bool>(), prop::collection::vec(any::<u8>(), 0..80));
    (prop::collection::vec(session, 1..4), prop::collection::vec(any::<u8>(), 0..200), any::<bool>()).prop_map(
        |(sessions, junk, junk_store)| {
            let mut root = MemoryRoot::new("home");
            for (index, (lines, trailing_newline, yaml)) in sessions.into_iter().enumerate() {
                let mut log = lines.join(&b'\n');
                if trailing_newline {
                    log.push(b'\n');
                }
                let dir = format!(".copilot/session-state/{}", session_id(index));
                root.insert(&format!("{dir}/events.jsonl"), log, Some(0));
                root.insert(&format!("{dir}/workspace.yaml"), yaml, Some(0));
            }
            root.insert(".copilot/command-history-state.json", junk.clone(), Some(0));
            root.insert(".copilot/settings.json", junk.clone(), Some(0));
            if junk_store {
                root.insert(".copilot/session-store.db", junk.clone(), Some(0));
                root.insert(".copilot/session-store.db-wal", junk, Some(0));
            }
            root
        },
    )
}

fn run(root: &MemoryRoot, reverse: bool) -> (Vec<u8>, serde_json::Value, String) {
    let mut roots = MemoryRoots(vec![root.clone()]);
    let mut listings = roots.listings();
    if reverse {
        listings[0].files.reverse();
    }
    let mut rows = JsonlRowWriter::new(Vec::new());
    let outputs = analyze(listings, &mut roots, Options::default(), &mut rows).unwrap();
    let report = serde_json::to_value(&outputs.report).unwrap();
    (rows.finish().unwrap(), report, serde_json::to_string(&outputs.sessions).unwrap())
}

/// What must not change however the sessions are spread over homes and roots, or given twice:
/// every row once (wherever it was read), the session records, the usage and the totals.
fn counted(roots: Vec<MemoryRoot>) -> (Vec<String>, Vec<serde_json::Value>, String, serde_json::Value) {
    let mut roots = MemoryRoots(roots);
    let listings = roots.listings();
    let mut rows = JsonlRowWriter::new(Vec::new());
    let outputs = analyze(listings, &mut roots, Options::default(), &mut rows).unwrap();
    let mut rows: Vec<String> = String::from_utf8(rows.finish().unwrap())
        .unwrap()
        .lines()
        .map(|line| {
            let mut row: serde_json::Value = serde_json::from_str(line).unwrap();
            let row = row.as_object_mut().unwrap();
            row.remove("source");
            row.remove("source_line");
            serde_json::to_string(row).unwrap()
        })
        .collect();
    rows.sort();
    let sessions = outputs
        .sessions
        .iter()
        .map(|record| {
            let mut record = serde_json::to_value(record).unwrap();
            record.as_object_mut().unwrap().remove("homes");
            // Says that the session's log was given more than once, which is the point here.
            if let Some(flags) = record.pointer_mut("/usage/flags").and_then(|flags| flags.as_array_mut()) {
                flags.retain(|flag| flag != "several_logs_most_complete_counted");
            }
            record
        })
        .collect();
    let usage = serde_json::to_string(&outputs.usage.table(Default::default(), Default::default())).unwrap();
    // The rows and sessions, not the counts of files and lines, which copies add to.
    let totals = &outputs.report.totals;
    let totals =
        serde_json::json!([totals.rows, totals.rows_by_turn_type, totals.sessions, totals.secondary_rows_kept]);
    (rows, sessions, usage, totals)
}

/// The rows of `all` that `some` lacks (both sorted).
fn missing(some: &[String], all: &[String]) -> Vec<String> {
    let mut some = some.iter().peekable();
    all.iter()
        .filter(|row| {
            while some.next_if(|other| other < row).is_some() {}
            some.next_if(|other| other == row).is_none()
        })
        .cloned()
        .collect()
}

/// A home's sessions spread over several homes (`machine<n>/` folders, in one root or
/// several), some given more than once, whole or cut at a line boundary. The files that are not
/// a session's stay in the first home.
fn spread() -> impl Strategy<Value = (MemoryRoot, Vec<MemoryRoot>)> {
    let copy = (0usize..4, prop::option::of(0.0f64..1.0));
    (tree(), prop::collection::vec(prop::collection::vec(copy, 0..3), 4), 1usize..4).prop_map(
        |(home, copies, root_count)| {
            let mut roots: Vec<MemoryRoot> = (0..root_count).map(|at| MemoryRoot::new(&format!("root{at}"))).collect();
            // A home holds one copy of a file: the first placed.
            let mut place = |machine: usize, path: &str, bytes: &[u8]| {
                let (root, path) = (&mut roots[machine % root_count], format!("machine{machine}/{path}"));
                if !root.files.contains_key(&path) {
                    root.insert(&path, bytes.to_vec(), Some(0));
                }
            };
            for (path, (bytes, _)) in &home.files {
                let session = (0..4).find(|&index| path.contains(&session_id(index)));
                let Some(session) = session else {
                    place(0, path, bytes);
                    continue;
                };
                // One whole copy, in a home of its own choosing, and maybe more, some cut.
                let homes = &copies[session];
                place(homes.first().map_or(1, |(machine, _)| *machine), path, bytes);
                for &(machine, cut) in homes.iter().skip(1) {
                    let bytes = match cut {
                        Some(fraction) if path.ends_with("events.jsonl") => {
                            let at = (bytes.len() as f64 * fraction) as usize;
                            let end = bytes[..at].iter().rposition(|b| *b == b'\n').map_or(0, |newline| newline + 1);
                            &bytes[..end]
                        }
                        _ => &bytes[..],
                    };
                    place(machine, path, bytes);
                }
            }
            (home, roots)
        },
    )
}

fn line_count(bytes: &[u8]) -> u64 {
    if bytes.is_empty() {
        return 0;
    }
    let newlines = bytes.iter().filter(|b| **b == b'\n').count() as u64;
    newlines + u64::from(*bytes.last().unwrap() != b'\n')
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_line_is_accounted_for_and_order_does_not_matter(root in tree()) {
        let (rows, report, sessions) = run(&root, false);
        for file in report["files"].as_array().unwrap() {
            let Some(lines) = file.get("lines") else { continue };
            let path = file["path"].as_str().unwrap();
            let sum = lines["with_rows"].as_u64().unwrap()
                + lines["skipped_by_rule"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum::<u64>()
                + lines["unknown_types"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum::<u64>()
                + lines["bad_lines"].as_u64().unwrap();
            prop_assert_eq!(sum, lines["lines"].as_u64().unwrap(), "{}", path);
            prop_assert_eq!(lines["lines"].as_u64().unwrap(), line_count(&root.files[path].0), "{}", path);
        }
        let again = run(&root, true);
        prop_assert!(rows == again.0, "rows differ with the listing reversed");
        prop_assert_eq!(report, again.1);
        prop_assert_eq!(sessions, again.2);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The same sessions give the same rows, records, usage and counts however the homes are
    /// split over roots, and whatever is given twice.
    #[test]
    fn homes_split_or_repeated_count_the_same((home, spread) in spread()) {
        let spread = spread.into_iter().filter(|root| !root.files.is_empty()).collect();
        let (rows, sessions, usage, totals) = counted(vec![home]);
        let again = counted(spread);
        prop_assert!(rows == again.0, "only alone: {:?}\nonly spread: {:?}", missing(&again.0, &rows), missing(&rows, &again.0));
        for (one, other) in sessions.iter().zip(&again.1) {
            for (key, value) in one.as_object().unwrap() {
                prop_assert_eq!(value, &other[key], "session {}: {}", one["session_id"], key);
            }
        }
        prop_assert_eq!(sessions.len(), again.1.len());
        prop_assert_eq!(usage, again.2);
        prop_assert_eq!(totals, again.3);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// The native tool on disk: any number of threads gives the same bytes, and the input is
    /// left exactly as it was.
    #[test]
    fn threads_do_not_change_the_output_and_input_is_untouched(root in tree()) {
        let scratch = tempfile::tempdir().unwrap();
        for (path, (bytes, _)) in &root.files {
            let target = scratch.path().join("home").join(path);
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::write(target, bytes).unwrap();
        }
        let mut outputs = Vec::new();
        for threads in ["1", "3"] {
            let out = format!("out{threads}");
            let result = common::run(scratch.path(), &["analyze", "home", "--out", &out, "--threads", threads]);
            prop_assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
            let read = |name: &str| fs::read(scratch.path().join(&out).join(name)).unwrap();
            outputs.push((read("rows.jsonl"), read("report.json"), read("sessions.jsonl"), read("usage.jsonl")));
        }
        prop_assert!(outputs[0] == outputs[1], "output differs between 1 and 3 threads");
        for (path, (bytes, _)) in &root.files {
            prop_assert!(fs::read(scratch.path().join("home").join(path)).unwrap() == bytes[..], "{} changed", path);
        }
    }
}

/// Everything an analysis writes, as bytes: rows, report, sessions and usage.
type Written = (Vec<u8>, String, String, String);

fn written(rows: Vec<u8>, outputs: &copilot_lens::analysis::Outputs) -> Written {
    let usage = outputs.usage.table(Default::default(), Default::default());
    let json = |value: serde_json::Result<String>| value.unwrap();
    (
        rows,
        json(serde_json::to_string(&outputs.report)),
        json(serde_json::to_string(&outputs.sessions)),
        json(serde_json::to_string(&usage)),
    )
}

/// The analysis of `roots` with its logs parsed and taken back in an order drawn from `seed`:
/// handed in one by one as the page does (`give`), or asked for a few `ahead` as the CLI's
/// threads do (`next_job`), and parsed logs taken back in any order.
fn shuffled(roots: &[MemoryRoot], seed: u64, give: bool, ahead: usize) -> Written {
    // xorshift: enough to draw orders from a seed.
    let mut state = seed | 1;
    let mut draw = |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let mut reader = MemoryRoots(roots.to_vec());
    let planned = Planned::new(reader.listings(), Options::default()).unwrap();
    let mut parsing = planned.read_metadata(&mut reader);
    let mut queue = LogQueue::<Vec<u8>>::new(&parsing);
    let mut to_give: Vec<usize> = (0..queue.tasks().len()).collect();
    for at in (1..to_give.len()).rev() {
        to_give.swap(at, draw(at + 1));
    }
    let (mut jobs, mut parsed): (Vec<LogJob>, Vec<(ParsedLog, Vec<u8>)>) = (Vec::new(), Vec::new());
    let mut rows = JsonlRowWriter::new(Vec::new());
    loop {
        if give {
            if let Some(index) = to_give.pop() {
                jobs.extend(queue.give(&mut parsing, index, ()).unwrap().map(|(job, ())| job));
            }
        } else {
            jobs.extend(std::iter::from_fn(|| queue.next_job(&mut parsing, ahead)));
        }
        // Parse one log in hand, or take one parsed back, whichever is drawn.
        if !jobs.is_empty() && (parsed.is_empty() || draw(2) == 0) {
            let job = jobs.swap_remove(draw(jobs.len()));
            let mut log_rows = JsonlRowWriter::new(Vec::new());
            let log = job.parse(&mut reader, &Options::default(), &mut log_rows);
            parsed.push((log, log_rows.finish().unwrap()));
        } else if !parsed.is_empty() {
            let (log, log_rows) = parsed.swap_remove(draw(parsed.len()));
            let released = queue.take_back(&mut parsing, log, log_rows);
            for log_rows in released.rows {
                rows.write_encoded(&log_rows).unwrap();
            }
            jobs.extend(released.ready.into_iter().map(|(job, ())| job));
        } else if to_give.is_empty() || !give {
            break;
        }
    }
    assert!(queue.is_done(), "every log is added");
    let outputs = parsing.finish(&mut reader, &mut rows);
    written(rows.finish().unwrap(), &outputs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The logs parsed and taken back in any order, sessions copied over homes among them,
    /// give the bytes of the logs parsed one after the other.
    #[test]
    fn logs_parsed_in_any_order_give_the_same_bytes(
        (_, spread) in spread(),
        seed in any::<u64>(),
        give in any::<bool>(),
        ahead in 1usize..6,
    ) {
        let roots: Vec<MemoryRoot> = spread.into_iter().filter(|root| !root.files.is_empty()).collect();
        let mut reader = MemoryRoots(roots.clone());
        let mut rows = JsonlRowWriter::new(Vec::new());
        let outputs = analyze(reader.listings(), &mut reader, Options::default(), &mut rows).unwrap();
        let in_order = written(rows.finish().unwrap(), &outputs);
        let shuffled = shuffled(&roots, seed, give, ahead);
        prop_assert!(in_order.0 == shuffled.0, "rows differ");
        prop_assert_eq!(&in_order.1, &shuffled.1, "report differs");
        prop_assert_eq!(&in_order.2, &shuffled.2, "sessions differ");
        prop_assert_eq!(&in_order.3, &shuffled.3, "usage differs");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// The native tool's threads, sessions copied over homes among them: any number gives the
    /// bytes of one thread, for an analysis and for a usage-only run.
    #[test]
    fn threads_give_the_bytes_of_one_thread_with_copied_sessions((_, spread) in spread(), threads in 2usize..5) {
        let scratch = tempfile::tempdir().unwrap();
        let mut labels = Vec::new();
        for root in spread.iter().filter(|root| !root.files.is_empty()) {
            for (path, (bytes, _)) in &root.files {
                let target = scratch.path().join(&root.label).join(path);
                fs::create_dir_all(target.parent().unwrap()).unwrap();
                fs::write(target, bytes).unwrap();
            }
            labels.push(root.label.as_str());
        }
        let mut outputs = Vec::new();
        for threads in ["1".to_string(), threads.to_string()] {
            let out = format!("out{threads}");
            let args: Vec<&str> = ["analyze"].into_iter().chain(labels.iter().copied()).chain(["--out", &out, "--threads", &threads]).collect();
            let result = common::run(scratch.path(), &args);
            prop_assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
            let read = |name: &str| fs::read(scratch.path().join(&out).join(name)).unwrap();
            outputs.push((read("rows.jsonl"), read("report.json"), read("sessions.jsonl"), read("usage.jsonl")));
        }
        prop_assert!(outputs[0] == outputs[1], "output differs between 1 and {} threads", threads);
        let mut usages = Vec::new();
        for threads in ["1".to_string(), threads.to_string()] {
            for by in ["session", "day"] {
                let args: Vec<&str> = ["usage"].into_iter().chain(labels.iter().copied()).chain(["--by", by, "--json", "--threads", &threads]).collect();
                // A home with nothing that counts is refused: the same for any number of threads.
                let result = common::run(scratch.path(), &args);
                usages.push((result.status.success(), result.stdout));
            }
        }
        prop_assert!(usages[..2] == usages[2..], "usage --json differs between 1 and {} threads", threads);
    }
}

/// A value where a token count belongs: counts up to and past the ceiling, `u64`'s own maximum,
/// negative and fractional numbers, whole numbers written as floats, and other JSON types.
fn counter_value() -> impl Strategy<Value = serde_json::Value> {
    use copilot_lens::usage::counters::MAX_PLAUSIBLE_COUNT as MAX;
    use serde_json::{Value, json};
    prop_oneof![
        any::<u64>().prop_map(Value::from),
        (0..=2 * MAX).prop_map(Value::from),
        (MAX - 3..=MAX + 3).prop_map(Value::from),
        Just(Value::from(u64::MAX)),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("JSON has no NaN or infinity", |v| v.is_finite()).prop_map(Value::from),
        (0u64..4000).prop_map(|quarters| Value::from(quarters as f64 / 4.0)),
        Just(json!(1e30)),
        Just(json!("NaN")),
        Just(json!("1200")),
        any::<bool>().prop_map(Value::from),
        Just(json!({"tokens": 5})),
        Just(json!([1])),
        Just(Value::Null),
    ]
}

/// The count a value reads as, if it can be one: a whole non-negative number up to the ceiling.
fn plausible(value: &serde_json::Value) -> Option<u64> {
    use copilot_lens::usage::counters::MAX_PLAUSIBLE_COUNT as MAX;
    match value {
        serde_json::Value::Null => Some(0),
        serde_json::Value::Number(number) => match (number.as_u64(), number.as_f64()) {
            (Some(count), _) => (count <= MAX).then_some(count),
            (None, Some(v)) => (v.fract() == 0.0 && (0.0..=MAX as f64).contains(&v)).then_some(v as u64),
            _ => None,
        },
        _ => None,
    }
}

/// The counter fields of a shutdown's model metric, each with the usage row column it lands in.
const COUNTER_FIELDS: [&str; 6] =
    ["requests", "inputTokens", "cacheReadTokens", "cacheWriteTokens", "outputTokens", "reasoningTokens"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// One shutdown whose one counter holds any value: the value is counted exactly (in its own
    /// column, the others unchanged), or it is left out (a reasoning count above the output with
    /// the output) and the row, the session and the report say so. Both runs agree, and nothing saturates.
    #[test]
    fn a_counter_is_added_exactly_or_flagged(field in 0..COUNTER_FIELDS.len(), value in counter_value()) {
        let name = COUNTER_FIELDS[field];
        let mut usage = serde_json::json!({"inputTokens": 0, "outputTokens": 7});
        let mut requests = serde_json::json!(1);
        if name == "requests" {
            requests = value.clone();
        } else {
            usage[name] = value.clone();
        }
        let data = serde_json::json!({"modelMetrics": {"gpt-5.4": {"requests": {"count": requests}, "usage": usage}}});
        let line = serde_json::json!({"type": "session.shutdown", "data": data, "id": "s1", "timestamp": "2026-10-01T09:00:00.000Z"});
        let mut root = MemoryRoot::new("home");
        let log = ".copilot/session-state/00000000-0000-4000-8000-0000000000aa/events.jsonl";
        root.insert(log, serde_json::to_vec(&line).unwrap(), Some(0));

        let mut roots = MemoryRoots(vec![root.clone()]);
        let scanned = usage_only::run(Planned::new(roots.listings(), Options::default()).unwrap(), &mut roots);
        let mut roots = MemoryRoots(vec![root]);
        let mut rows = JsonlRowWriter::new(Vec::new());
        let outputs = analyze(roots.listings(), &mut roots, Options::default(), &mut rows).unwrap();
        let table = |usage: &UsageData| usage.table(Default::default(), Default::default()).rows;
        prop_assert_eq!(table(&scanned.usage), table(&outputs.usage), "the two runs differ");
        prop_assert_eq!(serde_json::to_value(&scanned.problems).unwrap(), serde_json::to_value(&outputs.report.diagnostics).unwrap());

        let rows = table(&outputs.usage);
        prop_assert_eq!(rows.len(), 1, "{}", line);
        let row = &rows[0];
        let columns = [row.tokens.requests, row.tokens.input + row.tokens.cache_read + row.tokens.cache_write, row.tokens.cache_read, row.tokens.cache_write, row.tokens.output, row.tokens.reasoning];
        prop_assert!(columns.iter().all(|&count| count <= 2 * copilot_lens::usage::counters::MAX_PLAUSIBLE_COUNT), "saturated: {:?}", row);
        let flagged = row.flags.contains(&"implausible_counter");
        let session_flagged = outputs.usage.ledgers.values().any(|ledger| ledger.flags.contains("implausible_counter"));
        let diagnosed = outputs.report.diagnostics.iter().any(|d| d.line == Some(1) && d.kind == copilot_lens::facts::diagnostics::DiagnosticKind::ImplausibleCounter);
        // Reasoning is part of output: more of it than the 7 output contradicts the record.
        let counted = plausible(&value).filter(|count| name != "reasoningTokens" || *count <= 7);
        match counted {
            Some(count) => {
                // Requests 1, output 7 and 0 elsewhere, but for the one field written.
                let mut expected = [1, 0, 0, 0, 7, 0];
                expected[field] = count;
                // Input includes its cache parts: a cache count above input raises input to it.
                expected[1] = expected[1].max(expected[2] + expected[3]);
                prop_assert_eq!(columns, expected, "{}", line);
                prop_assert!(!flagged && !session_flagged && !diagnosed, "{}", line);
            }
            None => {
                prop_assert!(flagged && session_flagged && diagnosed, "{} not flagged: {:?}", line, row);
                prop_assert_eq!(columns[field], 0, "{}: the value was added", line);
                prop_assert!(row.tokens.reasoning <= row.tokens.output, "{}: reasoning above output", line);
            }
        }
    }
}

/// One step of a VS Code chat session as its mutation log records it.
#[derive(Clone, Debug)]
enum ChatStep {
    /// A new request (text, model, day offset, token form and counts).
    Ask(String, usize, u32, u8, u32, u32),
    /// The request at (index modulo the count) retried: it and those after it are replaced.
    Retry(usize, String),
    /// Tokens arriving later in a Set line on a request.
    SetTokens(usize, u32),
    /// A request's result deleted.
    DeleteResult(usize),
    /// The log compacted: a new initial entry with the whole state.
    Compact,
    /// A damaged line, which must change nothing.
    Damage,
}

fn chat_step() -> impl Strategy<Value = ChatStep> {
    let text = "[a-z ]{1,12}";
    prop_oneof![
        4 => (text, 0..3usize, 0..3u32, 0..3u8, 0..5000u32, 0..500u32)
            .prop_map(|(t, m, d, f, a, b)| ChatStep::Ask(t, m, d, f, a, b)),
        1 => (any::<usize>(), text).prop_map(|(i, t)| ChatStep::Retry(i, t)),
        1 => (any::<usize>(), 0..9000u32).prop_map(|(i, n)| ChatStep::SetTokens(i, n)),
        1 => any::<usize>().prop_map(ChatStep::DeleteResult),
        1 => Just(ChatStep::Compact),
        1 => Just(ChatStep::Damage),
    ]
}

fn chat_request(text: &str, model: usize, day: u32, form: u8, a: u32, b: u32) -> serde_json::Value {
    use serde_json::json;
    let model = ["gpt-5", "claude-sonnet-4.5", "auto"][model];
    let mut request = json!({
        "requestId": format!("r-{text}-{a}"), "timestamp": 1790000000000i64 + i64::from(day) * 86_400_000,
        "modelId": format!("copilot/{model}"), "message": {"text": text, "parts": []},
        "response": [{"value": format!("reply to {text}")},
            {"kind": "toolInvocationSerialized", "toolId": "read", "toolCallId": format!("c{a}"),
             "invocationMessage": {"value": "Reading"}, "resultDetails": {"input": text, "output": [{"value": "ok"}]}}],
        "variableData": {"variables": [{"name": "file"}]},
    });
    let resolved = if model == "auto" { json!("gpt-5-mini") } else { serde_json::Value::Null };
    request["result"] = match form {
        0 => {
            json!({"metadata": {"resolvedModel": resolved, "promptTokens": a, "outputTokens": b, "toolCallRounds": vec![json!({}); (a % 3) as usize + 1]}})
        }
        1 => json!({"metadata": {"resolvedModel": resolved}}),
        _ => {
            json!({"metadata": {"resolvedModel": resolved, "modelTotals": [{"model": "copilot/gpt-5", "inputTokens": a + b, "cachedTokens": a, "outputTokens": b}]}})
        }
    };
    if form == 1 {
        request["promptTokens"] = json!(a);
        request["completionTokens"] = json!(b);
    }
    request
}

/// A session's log as VS Code would write it for `steps`, and its final state.
fn chat_log(steps: &[ChatStep]) -> (Vec<u8>, serde_json::Value) {
    use serde_json::json;
    let session = |requests: &[serde_json::Value]| json!({"version": 3, "sessionId": "vs", "creationDate": 1790000000000i64, "requests": requests, "inputState": {"mode": "agent"}});
    let mut requests: Vec<serde_json::Value> = Vec::new();
    let mut lines = vec![json!({"kind": 0, "v": session(&requests)}).to_string()];
    for step in steps {
        let line = match step {
            ChatStep::Ask(text, model, day, form, a, b) => {
                let request = chat_request(text, *model, *day, *form, *a, *b);
                requests.push(request.clone());
                json!({"kind": 2, "k": ["requests"], "v": [request]})
            }
            ChatStep::Retry(_, _) | ChatStep::SetTokens(..) | ChatStep::DeleteResult(_) if requests.is_empty() => {
                continue;
            }
            ChatStep::Retry(index, text) => {
                let at = index % requests.len();
                let request = chat_request(text, 0, 1, 2, 10, 20);
                requests.truncate(at);
                requests.push(request.clone());
                json!({"kind": 2, "k": ["requests"], "v": [request], "i": at})
            }
            ChatStep::SetTokens(index, count) => {
                let at = index % requests.len();
                requests[at]["promptTokens"] = json!(count);
                json!({"kind": 1, "k": ["requests", at, "promptTokens"], "v": count})
            }
            ChatStep::DeleteResult(index) => {
                let at = index % requests.len();
                requests[at].as_object_mut().unwrap().remove("result");
                json!({"kind": 3, "k": ["requests", at, "result"]})
            }
            ChatStep::Compact => json!({"kind": 0, "v": session(&requests)}),
            ChatStep::Damage => {
                lines.push("{\"kind\":1,\"k\":[\"requests\",".to_string());
                continue;
            }
        };
        lines.push(line.to_string());
    }
    (lines.join("\n").into_bytes(), session(&requests))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A VS Code session's mutation log, replayed, gives what its final state read whole gives:
    /// the same rows (but the damaged lines' own), the same usage.
    #[test]
    fn a_chat_log_replays_to_its_final_state(steps in prop::collection::vec(chat_step(), 0..24)) {
        let (log, state) = chat_log(&steps);
        let folder = ".config/Code/User/workspaceStorage/ab/chatSessions";
        let mut replayed = MemoryRoot::new("log");
        replayed.insert(&format!("{folder}/vs.jsonl"), log, Some(0));
        let mut whole = MemoryRoot::new("snapshot");
        whole.insert(&format!("{folder}/vs.json"), serde_json::to_vec(&state).unwrap(), Some(0));
        let (mut rows, _, usage, _) = counted(vec![replayed]);
        rows.retain(|row| !row.contains("parser: unparseable line"));
        let (snapshot_rows, _, snapshot_usage, _) = counted(vec![whole]);
        prop_assert!(rows == snapshot_rows, "only replayed: {:?}\nonly whole: {:?}", missing(&snapshot_rows, &rows), missing(&rows, &snapshot_rows));
        prop_assert_eq!(usage, snapshot_usage);
    }
}

/// A secret of a kind the report's scrubber knows, made of generated characters.
fn planted_secret() -> impl Strategy<Value = (String, String)> {
    let token = "[A-Za-z0-9]{36}";
    prop_oneof![
        token.prop_map(|t| (format!("ghp_{t}"), format!("ghp_{t}"))),
        "[A-Za-z0-9_]{82}".prop_map(|t| (format!("github_pat_{t}"), format!("github_pat_{t}"))),
        "[A-Za-z0-9._~+/-]{20,60}".prop_map(|t| (format!("Authorization: Bearer {t}"), t)),
        "[A-Z0-9]{16}".prop_map(|t| (format!("AKIA{t}"), format!("AKIA{t}"))),
        // A value of letters alone is a word, not a secret (gitleaks' generic-api-key allowlist).
        ("[A-Z_]{0,10}", "[A-Za-z0-9/+-]{7,39}[0-9]").prop_map(|(name, t)| (format!("{name}API_KEY={t}"), t)),
        "[A-Za-z0-9+/]{40,120}".prop_map(|t| {
            (format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{t}\n-----END OPENSSH PRIVATE KEY-----"), t)
        }),
        "[A-Za-z0-9!$*-]{6,20}".prop_map(|t| (format!("https://mona:{t}@example.com/x"), format!(":{t}@"))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A planted secret never survives scrubbing, whatever text is around it, and scrubbing
    /// again finds nothing more.
    #[test]
    fn the_report_scrubber_leaves_no_planted_secret(
        before in "[a-zA-Z0-9 .,:\n]{0,30}",
        after in "[a-zA-Z0-9 .,:\n]{0,30}",
        secrets in prop::collection::vec(planted_secret(), 1..4),
    ) {
        let text = secrets.iter().fold(before, |text, (planted, _)| format!("{text} {planted} {after}"));
        let (scrubbed, count) = copilot_lens::scrub::scrub(&text);
        for (_, secret) in &secrets {
            prop_assert!(!scrubbed.contains(secret.as_str()), "{secret} survived in {scrubbed}");
        }
        prop_assert!(count >= secrets.len());
        prop_assert_eq!(copilot_lens::scrub::scrub(&scrubbed), (scrubbed.clone(), 0));
    }
}

/// A shutdown's `agentMetrics` as a log may hold it: missing, null, not an object, empty, or
/// agents (the main one, sub-agents named or not, agents no model count knows) whose counters
/// are parts of the shutdown's, or anything a counter can be.
fn agent_metrics() -> impl Strategy<Value = Option<serde_json::Value>> {
    use serde_json::{Value, json};
    let counters = prop_oneof![
        3 => (0u64..3, 0u64..5000, 0u64..3000, 0u64..300, 0u64..400, 0u64..100).prop_map(|(r, i, c, w, o, re)| {
            json!({"requests": {"count": r}, "usage": {"inputTokens": i, "cacheReadTokens": c, "cacheWriteTokens": w,
                "outputTokens": o, "reasoningTokens": re}, "totalNanoAiu": i * 1000})
        }),
        1 => counter_value().prop_map(|value| json!({"requests": {"count": 1}, "usage": {"inputTokens": value.clone(),
            "outputTokens": value}})),
        1 => counter_value(),
    ];
    let model = prop_oneof![Just("gpt-5.4"), Just("claude-haiku-4.5"), Just("a-model-never-counted")];
    let agent_models = prop::collection::btree_map(model, counters, 0..3);
    let id = prop_oneof![Just("main"), Just("agent-explore-1"), Just("agent-task-2"), Just("agent-nobody-knows")];
    let name = prop_oneof![Just(Value::Null), Just(json!("explore")), Just(json!(7))];
    let agent = (name, agent_models).prop_map(|(name, models)| json!({"agentName": name, "modelMetrics": models}));
    prop_oneof![
        1 => Just(None),
        1 => Just(Some(Value::Null)),
        1 => Just(Some(json!("none"))),
        1 => Just(Some(json!({}))),
        4 => prop::collection::btree_map(id, agent, 1..4).prop_map(|agents| Some(json!(agents))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// `--by subagent` loses and adds nothing, whatever the shutdowns' `agentMetrics` say: what
    /// no sub-agent is given is the main agent's, and a share cannot be more than its day and
    /// model counted, so its totals are `--by day`'s, kind by kind.
    #[test]
    fn usage_by_subagent_adds_up_to_usage_by_day(shutdowns in prop::collection::vec((0u32..2, agent_metrics()), 1..4), calls_after in 0u64..3) {
        use serde_json::json;
        let (mut lines, mut totals) = (Vec::new(), [0u64; 4]);
        for (at, (day, agents)) in shutdowns.iter().enumerate() {
            // Cumulative totals: each shutdown adds to the one before.
            totals = [totals[0] + 2, totals[1] + 4000 + 100 * at as u64, totals[2] + 1500, totals[3] + 300];
            let [requests, input, cache_read, output] = totals;
            let metric = json!({"requests": {"count": requests}, "usage": {"inputTokens": input,
                "cacheReadTokens": cache_read, "cacheWriteTokens": 0, "outputTokens": output, "reasoningTokens": 20}});
            let mut data = json!({"shutdownType": "routine", "modelMetrics": {"gpt-5.4": metric, "claude-haiku-4.5": metric}});
            if let Some(agents) = agents {
                data["agentMetrics"] = agents.clone();
            }
            let stamp = format!("2026-10-{:02}T1{at}:00:00.000Z", 1 + day + at as u32);
            lines.push(json!({"type": "session.shutdown", "data": data, "id": format!("s{at}"), "timestamp": stamp}));
        }
        for at in 0..calls_after {
            let usage = json!({"model": "gpt-5.4", "inputTokens": 700, "outputTokens": 70});
            lines.push(json!({"type": "session.usage_record", "data": {"usage": usage}, "id": format!("c{at}"), "timestamp": "2026-10-09T09:00:00.000Z"}));
        }
        let log: Vec<u8> = lines.iter().flat_map(|line| format!("{line}\n").into_bytes()).collect();
        let mut root = MemoryRoot::new("home");
        root.insert(".copilot/session-state/00000000-0000-4000-8000-0000000000ab/events.jsonl", log, Some(0));
        let mut roots = MemoryRoots(vec![root]);
        let outputs = analyze(roots.listings(), &mut roots, Options::default(), &mut JsonlRowWriter::new(Vec::new())).unwrap();
        let by_day = outputs.usage.table(copilot_lens::usage::summary::GroupBy::Day, Default::default());
        let by_subagent = outputs.usage.table(copilot_lens::usage::summary::GroupBy::Subagent, Default::default());
        let figures = |table: &copilot_lens::usage::summary::UsageTable| {
            let totals = table.totals.iter().map(|(kind, row)| {
                (*kind, row.tokens.values(), row.recorded_nano_aiu, row.cost_usd_micros)
            });
            totals.collect::<Vec<_>>()
        };
        prop_assert_eq!(figures(&by_subagent), figures(&by_day), "{:#?}", by_subagent.rows);
        prop_assert_eq!(by_subagent.credits_used, by_day.credits_used);
        // The rows add up to their totals, the sub-agents' none above what was counted.
        let mut summed = [0u64; 7];
        for row in by_subagent.rows.iter().filter(|row| row.kind == copilot_lens::usage::Kind::Counted) {
            let columns = row.tokens.values();
            summed.iter_mut().zip(columns).for_each(|(sum, column)| *sum += column);
        }
        let counted = by_day.totals.get(&copilot_lens::usage::Kind::Counted);
        let counted = counted.map_or([0; 7], |row| row.tokens.values());
        prop_assert_eq!(summed, counted);
    }
}
