// The engine's dedicated Worker: the core compiled to WebAssembly runs here, reading the
// dropped files lazily (Blob slices through FileReaderSync, which exists only in a Worker).
// Protocol (all messages are plain objects; see ARCHITECTURE.md, "www/"):
//   in:  {type:'init', module}                      -> {type:'ready'}
//        {type:'stage', root, files, paths}         (a big folder's files, in parts, first)
//        {type:'analyze', id, options, roots}       -> {type:'progress', id, ...}*, then
//                                                      {type:'done', id, summary, warnings, memory}
//        {type:'call', id, method, args}            -> {type:'result', id, value}
//        {type:'export', id, what, session_id}      -> {type:'result', id, value: Blob}
//        {type:'crash-test'}                        -> the worker fails on purpose (tests)
//   out on failure: {type:'error', id, message}; {type:'crash', message} when the WebAssembly
//   instance trapped (a panic): the page then ends this worker and starts a fresh one.
import { Engine, initSync, wantedPaths } from './pkg/copilot_lens.js';

let instance = null;
let engine = null;
let lastConsoleError = '';

// A Rust panic is printed by console_error_panic_hook before the trap: keep its text.
const consoleError = console.error.bind(console);
console.error = (...args) => {
  lastConsoleError = args.map(String).join(' ');
  consoleError(...args);
};

const ROWS_PER_PART = 20000;
// Reading ahead: a browser pays about half a millisecond for each file it opens, whatever its
// size, but opens several at once when asked asynchronously. So small files the analysis will
// read are fetched first, AHEAD_AT_ONCE at a time, up to AHEAD_BUDGET bytes in all; the rest is
// read lazily, a slice at a time, while the analysis runs.
const AHEAD_AT_ONCE = 16;
const AHEAD_MAX_FILE = 512 * 1024;
const AHEAD_BUDGET = 96 * 1024 * 1024;
// Event logs are read ahead of the parser this many at a time; a log larger than
// LOG_AHEAD_MAX is read by the engine a slice at a time instead of whole.
const LOGS_AHEAD = 16;
const LOG_AHEAD_MAX = 32 * 1024 * 1024;
const CALLS = new Set(['summary', 'rows', 'facets', 'sessions', 'inventory', 'report', 'usage', 'row_count']);

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

// Files handed over in parts before an analysis ({type:'stage'}), by root index.
let staged = new Map();

async function readAhead(id, roots) {
  const picks = [];
  let budget = AHEAD_BUDGET;
  for (const root of roots) {
    if (root.kind !== 'files') continue;
    const wanted = wantedPaths(root.paths);
    // The files other than event logs (each is read whole; the logs are read ahead of the
    // parser during the run).
    root.files.forEach((file, index) => {
      if (wanted[index] !== 1 || file.size > AHEAD_MAX_FILE || file.size > budget) return;
      budget -= file.size;
      picks.push([root, index]);
    });
  }
  if (!picks.length) return;
  let next = 0;
  let done = 0;
  let last = 0;
  const total = picks.length;
  const one = async () => {
    while (next < picks.length) {
      const [root, index] = picks[next++];
      try {
        root.files[index] = new Uint8Array(await root.files[index].arrayBuffer());
      } catch {
        // left as a File: the analysis reads it itself and reports what fails
      }
      done++;
      const now = performance.now();
      if (now - last >= 50) {
        last = now;
        self.postMessage({ type: 'progress', id, phase: 'ahead', files: done, files_total: total });
      }
    }
  };
  await Promise.all(Array.from({ length: AHEAD_AT_ONCE }, one));
}

async function analyze({ id, options, roots }) {
  roots = roots.map((root) => {
    if (root.kind !== 'staged') return root;
    const parts = staged.get(root.root) || { files: [], paths: [] };
    return { kind: 'files', label: root.label, files: parts.files, paths: parts.paths };
  });
  staged = new Map();
  const started = performance.now();
  for (const root of roots) {
    if (root.kind === 'files') root.modified = root.files.map((file) => file.lastModified || 0);
  }
  await readAhead(id, roots);
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
  let added = 0;
  for (const root of roots) {
    try {
      if (root.kind === 'zip') fresh.add_zip(root.label, root.file);
      else fresh.add_files(root.label, root.files, root.paths, root.modified);
      added++;
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError) throw error;
      warnings.push({ root: root.label, message: String(error.message || error) });
    }
  }
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
  const logs = fresh.begin(progress);
  // The logs are parsed in order, each read ahead (LOGS_AHEAD at a time, asynchronously, which
  // a browser does in parallel) while the ones before it are parsed. A log in a zip, or too big
  // to hold whole, is left for the engine to read from its root itself.
  const sources = roots.map((root) => (root.kind === 'files' ? new Map(root.paths.map((p, index) => [p, root.files[index]])) : null));
  const fetchLog = (log) => {
    const file = sources[log.root] && sources[log.root].get(log.path);
    if (!file || file instanceof Uint8Array) return Promise.resolve(file);
    if (file.size > LOG_AHEAD_MAX) return Promise.resolve(undefined);
    return file.arrayBuffer().then((buffer) => new Uint8Array(buffer), () => undefined);
  };
  const ahead = [];
  for (let index = 0; index < Math.min(LOGS_AHEAD, logs.length); index++) ahead.push(fetchLog(logs[index]));
  for (let index = 0; index < logs.length; index++) {
    const bytes = await ahead.shift();
    if (index + LOGS_AHEAD < logs.length) ahead.push(fetchLog(logs[index + LOGS_AHEAD]));
    fresh.parse_log(bytes);
  }
  const summary = fresh.finish();
  engine = fresh;
  self.postMessage({
    type: 'done',
    id,
    summary,
    warnings,
    seconds: (performance.now() - started) / 1000,
    memory: instance.memory.buffer.byteLength,
  });
}

function exportFile({ id, what, session_id }) {
  if (!engine) throw new Error('run the analysis first');
  const types = { jsonl: 'application/x-ndjson', csv: 'text/csv', json: 'application/json', md: 'text/markdown' };
  const type = (types[what.split('.').pop()] || 'text/plain') + ';charset=utf-8';
  let parts;
  if (what === 'rows.jsonl' || what === 'rows.csv') {
    // In parts, so a large export never needs one huge string.
    parts = [];
    const count = engine.row_count();
    for (let offset = 0; offset === 0 || offset < count; offset += ROWS_PER_PART) {
      parts.push(engine.export_rows(what, offset, ROWS_PER_PART));
    }
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
        self.postMessage({ type: 'ready' });
        break;
      case 'stage': {
        if (!staged.has(message.root)) staged.set(message.root, { files: [], paths: [] });
        const parts = staged.get(message.root);
        parts.files.push(...message.files);
        parts.paths.push(...message.paths);
        break;
      }
      case 'analyze':
        await analyze(message);
        break;
      case 'call': {
        if (!CALLS.has(message.method)) throw new Error(`unknown call ${message.method}`);
        if (!engine) throw new Error('run the analysis first');
        const value = engine[message.method](...(message.args || []));
        self.postMessage({ type: 'result', id: message.id, value });
        break;
      }
      case 'export':
        exportFile(message);
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
