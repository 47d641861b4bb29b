// The engine's dedicated Worker: the core compiled to WebAssembly runs here. A folder's files
// are handed over by the page while the analysis runs (see engine.js); Files are read lazily,
// a slice at a time, with FileReaderSync (which exists only in a Worker).
// Protocol (all messages are plain objects; see ARCHITECTURE.md, "www/"):
//   in:  {type:'init', module}                      -> {type:'ready', facts} (engine_facts())
//        {type:'analyze', id, options, roots}       -> {type:'serve', id, files, small, logs}
//          roots: [{kind:'zip', label, file} | {kind:'listing', label, paths}]; logs: [[root,
//          path, entry | null, index, given]] (see Engine.begin)
//        {type:'give', id, kind, ...}               the page's files, in this order:
//          kind 'files' {root, files, paths} (the `files` first, then any other), 'bytes'
//          {items: [{root, path, bytes}]} (the `small` ones), 'small-given', 'logs' {items:
//          [{index, bytes | file}]} (every log once, in any order: its bytes, or the File of a
//          log larger than log_given_whole_max_bytes, read here in windows, or neither for one
//          the engine reads from its root), 'times' {items: [{root, path, modified}]} (in parts, once
//          asked), 'all-given'; after 'done', 'files' again (the Files not read: their sizes
//          for the report, the logs for their long texts), then 'rest-given'
//                                                   -> {type:'times', id, files} (after the
//                                                      small files), {type:'progress', id, ...}*,
//                                                      {type:'consumed', id, bytes} (the bytes
//                                                      of the logs parsed since the last), then
//                                                      {type:'done', id, summary, warnings, memory,
//                                                       seconds, timings}, then {type:'settled',
//                                                       id, seconds} once the rest is in
//        {type:'call', id, method, args}            -> {type:'result', id, value}
//        {type:'export', id, what, session_id}      -> {type:'result', id, value: Blob}
//        {type:'export', id, what:'report.html', options} (the report to share: Engine.share_report)
//        {type:'export', id, what:'team.csv'|'team.jsonl', options} (Engine.team_export)
//          (an export, the report and whole texts are answered once the rest is in)
//        {type:'inflate', id, buffer, entries: [{at, packed, size, crc32}]}
//                                                   -> {type:'inflated', id, items: [bytes | null]}
//                                                      (zip entries' data, `packed` bytes at `at`
//                                                      of `buffer`; null where one fails: the
//                                                      engine reads it again and says why; the
//                                                      page runs a second worker for this)
//        {type:'zips-in-folder', id, paths}         -> {type:'result', id, value: {zips, holds_data}}
//          (a folder's zips read as roots of their own; see zips_in_folder)
//        {type:'crash-test'}                        -> the worker fails on purpose (tests)
//   out on failure: {type:'error', id, message}; {type:'crash', message} when the WebAssembly
//   instance trapped (a panic): the page then ends this worker and starts a fresh one.
import { Engine, engine_facts, inflate, initSync, zips_in_folder } from './pkg/copilot_lens.js';

let instance = null;
let engine = null;
let lastConsoleError = '';

// A Rust panic is printed by console_error_panic_hook before the trap: keep its text.
const consoleError = console.error.bind(console);
console.error = (...args) => {
  lastConsoleError = args.map(String).join(' ');
  consoleError(...args);
};

// The report to share is made with the person's choices, so it is not in the outputs catalogue.
const SHARED_REPORT = 'report.html';
const CALLS = new Set(['summary', 'rows', 'facets', 'sessions', 'inventory', 'report', 'usage', 'month', 'row_count']);
// What the engine says of itself (engine_facts): the long-text bytes its table keeps (rows
// asked for with more, or whole (0), are read again from their logs), the export parts, the
// outputs catalogue, the home folders. Set at 'init'.
let facts = null;

// Resolved once the Files handed over after 'done' are in: the report's sizes and the logs
// that long texts are read again from.
let settled = Promise.resolve();

function needsEveryFile({ type, method, args }) {
  if (type === 'export') return true;
  if (method === 'report') return true;
  const textLimit = method === 'rows' ? (args || [])[3] : 1;
  return !(textLimit > 0 && textLimit <= facts.table_keeps_text);
}

function fail(id, error) {
  if (error instanceof WebAssembly.RuntimeError) {
    // Without a panic's text, the likeliest cause is memory that could not grow.
    const mib = instance ? Math.round(instance.memory.buffer.byteLength / 2 ** 20) : 0;
    const detail = lastConsoleError.includes('panicked')
      ? lastConsoleError
      : `${error.message || error} (with ${mib} MiB of memory in use: probably out of memory)`;
    engine = null;
    self.postMessage({ type: 'crash', id, message: detail });
  } else {
    self.postMessage({ type: 'error', id, message: String((error && error.message) || error) });
  }
}

// What the page hands over during an analysis ({type:'give'} messages), taken in order.
let given = [];
let wake = null;
// The analysis under way; one that a newer one replaced stops waiting for its files.
let current = 0;

function wakeWaiting() {
  const waiting = wake;
  wake = null;
  if (waiting) waiting();
}

function receiveGiven(message) {
  given.push(message);
  wakeWaiting();
}

async function analyze(message) {
  let settle;
  settled = new Promise((resolve) => (settle = resolve));
  try {
    await analyzeUntilSettled(message);
  } finally {
    settle();
  }
}

async function analyzeUntilSettled({ id, options, roots }) {
  const started = performance.now();
  given = [];
  current = id;
  wakeWaiting(); // an earlier analysis still waiting for its files ends
  if (engine) {
    try {
      engine.free();
    } catch {
      // an engine left by a failed run; its memory goes with the instance anyway
    }
    engine = null;
  }
  const warnings = [];
  const settings = { ...(options || {}) };
  if (settings.rates_file) {
    settings.rates = new FileReaderSync().readAsText(settings.rates_file);
    delete settings.rates_file;
  }
  const fresh = new Engine(settings);
  // A root that cannot be opened (a broken zip) is left out and reported; the page serves
  // files by its own root indexes, the engine numbers the roots it took.
  const toPage = [];
  const toEngine = new Map();
  for (const [index, root] of roots.entries()) {
    try {
      if (root.kind === 'zip') fresh.add_zip(root.label, root.file);
      else fresh.add_listing(root.label, root.paths);
      toEngine.set(index, toPage.length);
      toPage.push(index);
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError) throw error;
      warnings.push({ root: root.label, message: String(error.message || error) });
    }
  }
  const added = toPage.length;
  if (!added) {
    fresh.free();
    throw new Error(warnings.map((w) => `${w.root}: ${w.message}`).join('; ') || 'nothing to analyse');
  }
  let last = 0;
  const progress = (p) => {
    const now = performance.now();
    if (now - last >= 50 || p.file === '') {
      last = now;
      self.postMessage({ type: 'progress', id, bytes: p.bytes, total: p.total, files: p.files, files_total: p.files_total, file: p.file });
    }
  };
  const timings = {};
  let mark = started;
  const lap = (name) => {
    const now = performance.now();
    timings[name] = (now - mark) / 1000;
    mark = now;
  };
  const plan = fresh.begin(progress);
  const forPage = ([root, path]) => [toPage[root], path];
  self.postMessage({
    type: 'serve',
    id,
    files: plan.files.map(forPage),
    small: plan.small.map(forPage),
    logs: plan.logs.map((log, index) => [...forPage([log.root, log.path]), log.entry || null, index, log.given]),
  });

  // The page's files, taken as they come; `until` waits for more when `done()` is not yet true.
  const logs = [];
  let nextLog = 0;
  let smallGiven = false;
  let allGiven = false;
  let restGiven = false;
  const take = (message) => {
    if (message.id !== id) return;
    if (message.kind === 'files') fresh.give_files(toEngine.get(message.root), message.files, message.paths);
    else if (message.kind === 'bytes') for (const item of message.items) fresh.give_bytes(toEngine.get(item.root), item.path, item.bytes);
    else if (message.kind === 'small-given') smallGiven = true;
    else if (message.kind === 'logs') logs.push(...message.items);
    else if (message.kind === 'times') for (const item of message.items) fresh.give_time(toEngine.get(item.root), item.path, item.modified);
    else if (message.kind === 'all-given') allGiven = true;
    else if (message.kind === 'rest-given') restGiven = true;
  };
  const until = async (done) => {
    for (;;) {
      if (current !== id) throw new Error('a newer analysis replaced this one');
      while (given.length) take(given.shift());
      if (done()) return;
      await new Promise((resolve) => (wake = resolve));
    }
  };
  await until(() => smallGiven);
  lap('small_files');
  const needTimes = fresh.read_metadata();
  self.postMessage({ type: 'times', id, files: needTimes.map(forPage) });
  lap('other_files');
  let waited = 0; // for the page's logs: the part of `logs` not spent parsing
  let consumed = 0; // bytes parsed and not yet said to the page, which reads ahead by them
  const sayConsumed = () => {
    if (consumed) self.postMessage({ type: 'consumed', id, bytes: consumed });
    consumed = 0;
  };
  for (let parsed = 0; parsed < plan.logs.length; parsed++) {
    if (nextLog === logs.length) {
      sayConsumed();
      logs.length = nextLog = 0;
      const asked = performance.now();
      await until(() => nextLog < logs.length);
      waited += performance.now() - asked;
    }
    const { index, bytes, file } = logs[nextLog];
    logs[nextLog++] = null;
    fresh.parse_log(index, bytes || file);
    if (bytes) consumed += bytes.byteLength;
    if (consumed >= 1 << 20) sayConsumed();
  }
  sayConsumed();
  lap('logs');
  timings.logs_waiting = waited / 1000;
  await until(() => allGiven);
  lap('last_files');
  const summary = fresh.finish();
  lap('joins');
  engine = fresh;
  self.postMessage({
    type: 'done',
    id,
    summary,
    warnings,
    seconds: (performance.now() - started) / 1000,
    timings,
    memory: instance.memory.buffer.byteLength,
  });
  await until(() => restGiven);
  self.postMessage({ type: 'settled', id, seconds: (performance.now() - started) / 1000 });
}

function exportFile({ id, what, session_id, options }) {
  if (!engine) throw new Error('run the analysis first');
  if (what === SHARED_REPORT) {
    const value = new Blob([engine.share_report(options)], { type: 'text/html;charset=utf-8' });
    self.postMessage({ type: 'result', id, value });
    return;
  }
  const file = facts.outputs.find((output) => output.name === what);
  if (!file) throw new Error(`unknown export ${what}`);
  const type = file.mime + ';charset=utf-8';
  let parts;
  if (what === 'rows.jsonl' || what === 'rows.csv') {
    // In parts, so a large export never needs one huge string.
    parts = [];
    const count = engine.row_count();
    for (let offset = 0; offset === 0 || offset < count; offset += facts.rows_per_part) {
      parts.push(engine.export_rows(what, offset, facts.rows_per_part));
    }
  } else if (what === 'team.csv' || what === 'team.jsonl') {
    parts = [engine.team_export(what, options)];
  } else {
    parts = [engine.export(what, session_id || '')];
  }
  self.postMessage({ type: 'result', id, value: new Blob(parts, { type }) });
}

self.onmessage = async (event) => {
  const message = event.data;
  try {
    switch (message.type) {
      case 'init':
        instance = initSync({ module: message.module });
        facts = engine_facts();
        self.postMessage({ type: 'ready', facts });
        break;
      case 'give':
        receiveGiven(message);
        break;
      case 'analyze':
        await analyze(message);
        break;
      case 'call': {
        if (!CALLS.has(message.method)) throw new Error(`unknown call ${message.method}`);
        if (needsEveryFile(message)) await settled;
        if (!engine) throw new Error('run the analysis first');
        const value = engine[message.method](...(message.args || []));
        self.postMessage({ type: 'result', id: message.id, value });
        break;
      }
      case 'export':
        await settled;
        exportFile(message);
        break;
      case 'inflate': {
        const packed = new Uint8Array(message.buffer);
        const items = message.entries.map(({ at, packed: length, size, crc32 }) => {
          try {
            return inflate(packed.subarray(at, at + length), size, crc32);
          } catch (error) {
            if (error instanceof WebAssembly.RuntimeError) throw error;
            return null;
          }
        });
        self.postMessage({ type: 'inflated', id: message.id, items }, items.filter(Boolean).map((bytes) => bytes.buffer));
        break;
      }
      case 'zips-in-folder':
        self.postMessage({ type: 'result', id: message.id, value: zips_in_folder(message.paths) });
        break;
      case 'crash-test':
        setTimeout(() => {
          throw new Error('worker crash requested by a test');
        });
        break;
      default:
        throw new Error(`unknown message ${message.type}`);
    }
  } catch (error) {
    fail(message.id, error);
  }
};
