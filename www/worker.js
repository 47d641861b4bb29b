// The engine's dedicated Worker: the core compiled to WebAssembly runs here, reading the
// dropped files lazily (Blob slices through FileReaderSync, which exists only in a Worker).
// Protocol (all messages are plain objects; see ARCHITECTURE.md, "www/"):
//   in:  {type:'init', module}                      -> {type:'ready'}
//        {type:'analyze', id, options, roots}       -> {type:'progress', id, ...}*, then
//                                                      {type:'done', id, summary, warnings, memory}
//        {type:'call', id, method, args}            -> {type:'result', id, value}
//        {type:'export', id, what, session_id}      -> {type:'result', id, value: Blob}
//        {type:'crash-test'}                        -> the worker fails on purpose (tests)
//   out on failure: {type:'error', id, message}; {type:'crash', message} when the WebAssembly
//   instance trapped (a panic): the page then ends this worker and starts a fresh one.
import { Engine, initSync } from './pkg/copilot_lens.js';

let wasm = null;
let engine = null;
let lastConsoleError = '';

// A Rust panic is printed by console_error_panic_hook before the trap: keep its text.
const consoleError = console.error.bind(console);
console.error = (...args) => {
  lastConsoleError = args.map(String).join(' ');
  consoleError(...args);
};

const ROWS_PER_PART = 20000;
const CALLS = new Set(['summary', 'rows', 'facets', 'sessions', 'inventory', 'report', 'usage', 'row_count']);

function fail(id, error) {
  if (error instanceof WebAssembly.RuntimeError) {
    const detail = lastConsoleError.includes('panicked') ? lastConsoleError : String(error.message || error);
    engine = null;
    self.postMessage({ type: 'crash', id, message: detail });
  } else {
    self.postMessage({ type: 'error', id, message: String((error && error.message) || error) });
  }
}

function analyze({ id, options, roots }) {
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
  const started = performance.now();
  const summary = fresh.run(progress);
  engine = fresh;
  self.postMessage({
    type: 'done',
    id,
    summary,
    warnings,
    seconds: (performance.now() - started) / 1000,
    memory: wasm.memory.buffer.byteLength,
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

self.onmessage = (event) => {
  const message = event.data;
  try {
    switch (message.type) {
      case 'init':
        wasm = initSync({ module: message.module });
        self.postMessage({ type: 'ready' });
        break;
      case 'analyze':
        analyze(message);
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
