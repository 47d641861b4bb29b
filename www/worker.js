// The engine's dedicated Worker: the core compiled to WebAssembly runs here. A folder's files
// are handed over by the page while the analysis runs (see engine.js); Files are read lazily,
// a slice at a time, with FileReaderSync (which exists only in a Worker).
// The messages: {type:'init', module} -> {type:'ready', facts}; {type:'analyze', id, options,
// roots, cache} -> 'serve' (the engine's HandOver), then the page's {type:'give', id, kind, ...}
// (the files, and 'step_given' after each step) as the engine's Need asks, -> 'after-metadata'
// (what it asks for once the metadata is read), 'progress', 'consumed', 'done', 'settled';
// {type:'ask', id, request} -> {type:'result', id, value} (the Answer's value, a Blob for a file);
// {type:'inflate', id, buffer, entries} -> {type:'inflated', id, items} (the second worker's);
// {type:'bill', id, files, user} -> {type:'result', id, value} (usage reports, Files the engine reads);
// {type:'cache', id, op, root} -> {type:'result', id, value} (the page's cache, cache.js: clear,
// forget, contents); an analysis's `cache` is its input's key there, and 'done' says what the cache
// did. Errors -> {type:'error', id, message}, or {type:'crash', message} when the instance trapped.
// The values are the Rust boundary's types (www/types.d.ts, generated from src/page/protocol.rs), the
// messages those of www/messages.d.ts.
/** @typedef {import('./types').EngineFacts} EngineFacts */
/** @typedef {import('./types').HandOver} HandOver */
/** @typedef {import('./types').FileAt} FileAt */
/** @typedef {import('./types').AfterMetadata} AfterMetadata */
/** @typedef {import('./types').Give} Give */
/** @typedef {import('./types').Need} Need */
/** @typedef {import('./types').Request} Request */
/** @typedef {import('./types').Given} Given */
/** @typedef {import('./messages').ToWorker} ToWorker */
/** @typedef {import('./messages').FromWorker} FromWorker */
/** @typedef {import('./messages').CacheDone} CacheDone */
/** @typedef {Extract<ToWorker, { type: 'give' }>} GiveMessage */
import { Engine, engine_facts, inflate, initSync, needs_every_file, never_opened, zips_in_folder } from './pkg/copilot_lens.js';
import { openCache } from './cache.js';

let instance = null;
// The engine's memory in bytes, for tests/e2e/perf.mjs (a worker's module scope is out of its reach).
/** @type {typeof self & { engineMemory: () => number }} */ (self).engineMemory = () => (instance ? instance.memory.buffer.byteLength : 0);
let engine = null;
/** The page's build (its module's hash), which names what it keeps in the cache. */
let build = '';
let lastConsoleError = '';

// A Rust panic is printed by console_error_panic_hook before the trap: keep its text.
const consoleError = console.error.bind(console);
console.error = (...args) => {
  lastConsoleError = args.map(String).join(' ');
  consoleError(...args);
};

/** What the engine says of itself (engine_facts), set at 'init'. @type {EngineFacts} */
let facts = null;

// Resolved once the Files handed over after 'done' are in: the report's sizes and the logs
// that long texts are read again from ('settled' comes later, once the cache is kept too).
let everyFileIn = Promise.resolve();
let filesAreIn = () => {};

/** Says `message` to the page. @param {FromWorker} message @param {Transferable[]} [transfer] */
function say(message, transfer = []) {
  self.postMessage(message, transfer);
}

function fail(id, error) {
  if (error instanceof WebAssembly.RuntimeError) {
    // Without a panic's text, the likeliest cause is memory that could not grow.
    const mib = instance ? Math.round(instance.memory.buffer.byteLength / 2 ** 20) : 0;
    const detail = lastConsoleError.includes('panicked')
      ? lastConsoleError
      : `${error.message || error} (with ${mib} MiB of memory in use: probably out of memory)`;
    engine = null;
    say({ type: 'crash', id, message: detail });
  } else {
    say({ type: 'error', id, message: String((error && error.message) || error) });
  }
}

// What the page hands over during an analysis ({type:'give'} messages), taken in order.
/** @type {GiveMessage[]} */
let given = [];
let wake = null;
// The analysis under way; one that a newer one replaced stops waiting for its files.
let current = 0;

function wakeWaiting() {
  const waiting = wake;
  wake = null;
  if (waiting) waiting();
}

/** @param {GiveMessage} message */
function receiveGiven(message) {
  given.push(message);
  wakeWaiting();
}

/** @param {Extract<ToWorker, { type: 'analyze' }>} message */
async function analyze(message) {
  everyFileIn = new Promise((resolve) => (filesAreIn = resolve));
  try {
    await analyzeUntilSettled(message);
  } finally {
    // A pack still open here is of an analysis that failed or was replaced: cut back.
    if (openPack && openPack.id === message.id) closePack(null);
    filesAreIn();
  }
}

/**
 * Makes the cache entries of the logs analysis `id` parsed without one, 20 ms at a time, the
 * views' questions answered between; false when a newer analysis replaced it meanwhile.
 * @param {Engine} run @param {number} id
 */
async function recordEntries(run, id) {
  for (let began = performance.now(); run.record_entries(1); ) {
    if (performance.now() - began < 20) continue;
    await (self.scheduler?.postTask?.(() => {}, { priority: 'background' }) ?? new Promise((resolve) => setTimeout(resolve)));
    if (current !== id) return false;
    began = performance.now();
  }
  return true;
}

/**
 * The page's cache operations, one at a time (an analysis keeping its entries while the page
 * clears the cache would otherwise interleave with it).
 */
/** @type {Promise<unknown>} */
let cacheQueue = Promise.resolve();
/** @template T @param {() => Promise<T>} work @returns {Promise<T>} */
function serially(work) {
  const run = cacheQueue.then(work);
  cacheQueue = run.catch(() => {});
  return run;
}

/** The pack the analysis `id` holds open (`{id, key, cache, pack}`), until `closePack`. */
let openPack = null;

/**
 * Opens the pack the cache keeps for the input `key` for analysis `id` (`openPack`): returns
 * `{cache, pack}`, or `{unavailable}` saying why it cannot be used.
 * @returns {Promise<{ cache: Awaited<ReturnType<typeof openCache>>, pack: any, unavailable?: undefined } | { unavailable: string, cache?: undefined, pack?: undefined }>}
 */
function keptFor(id, key) {
  return serially(async () => {
    try {
      const cache = await openCache();
      const pack = await cache.open(key);
      openPack = { id, key, cache, pack };
      // Replaced while it opened: the newer analysis waits for this pack.
      if (current !== id) closePack(null);
      return { cache, pack };
    } catch (error) {
      return { unavailable: String(error.message || error) };
    }
  });
}

/**
 * Closes the open pack at once (its file is free for the next analysis), `bytes` its size
 * after the analysis, or null to cut it back to its size before; the index follows.
 */
function closePack(bytes) {
  const open = openPack;
  openPack = null;
  if (!open) return Promise.resolve();
  open.cache.release(open.pack, bytes);
  return serially(() => open.cache.closed(open.key, open.pack, bytes));
}

/** @param {Extract<ToWorker, { type: 'analyze' }>} message */
async function analyzeUntilSettled({ id, options, roots, cache: cacheKey }) {
  const started = performance.now();
  given = [];
  current = id;
  wakeWaiting(); // an earlier analysis still waiting for its files ends
  closePack(null); // and lets its pack go
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
      else fresh.add_listing(root.label, root.paths, root.sizes, root.times);
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
  // What an earlier analysis of the same input kept: the engine takes from it each file whose
  // key (path, size, time, head and tail) still matches.
  const kept = cacheKey ? await keptFor(id, cacheKey) : null;
  if (kept && kept.cache) fresh.use_cache(kept.pack.handle, build, kept.cache.cap);
  let last = 0;
  const progress = (p) => {
    const now = performance.now();
    if (now - last >= 50 || p.file === '') {
      last = now;
      say({ type: 'progress', id, bytes: p.bytes, total: p.total, files: p.files, files_total: p.files_total, file: p.file });
    }
  };
  const timings = {};
  let mark = started;
  const lap = (name) => {
    const now = performance.now();
    timings[name] = (now - mark) / 1000;
    mark = now;
  };
  /** @type {HandOver} */
  const plan = fresh.begin(progress);
  // A debug log: only the full engine reads it.
  if (plan.needs_full_engine) return say({ type: 'full', id });
  lap('plan');
  /** @template {FileAt} F @param {F} file @returns {F} */
  const forPage = (file) => ({ ...file, root: toPage[file.root] });
  /** @param {Give} part */
  const partForPage = (part) => ({
    ...part,
    ...('files' in part && { files: part.files.map(forPage) }),
    ...('logs' in part && { logs: part.logs.map(forPage) }),
    ...('sizes_from' in part && { sizes_from: part.sizes_from.map((root) => toPage[root]) }),
  });
  const steps = plan.steps.map((step) => ({ ...step, parts: step.parts.map(partForPage) }));
  say({ type: 'serve', id, hand_over: { steps } });

  // The page's files, taken as they come; `until` waits for more when `done()` is not yet true.
  const logs = [];
  let nextLog = 0;
  let stepsGiven = 0; // of the hand-over's steps, which the page gives in order
  /** @param {GiveMessage} message */
  const take = (message) => {
    if (message.id !== id) return;
    if (message.kind === 'files') fresh.give_files(toEngine.get(message.root), message.files, message.paths);
    else if (message.kind === 'bytes') for (const item of message.items) fresh.give_bytes(toEngine.get(item.root), item.path, item.bytes);
    else if (message.kind === 'logs') logs.push(...message.items);
    else if (message.kind === 'times') for (const item of message.items) fresh.give_time(toEngine.get(item.root), item.path, item.modified);
    else if (message.kind === 'step_given') stepsGiven = message.step + 1;
  };
  const until = async (done) => {
    for (;;) {
      if (current !== id) throw new Error('a newer analysis replaced this one');
      while (given.length) take(given.shift());
      if (done()) return;
      await new Promise((resolve) => (wake = resolve));
    }
  };
  let waited = 0; // for the page's logs: the part of `logs` not spent parsing
  let consumed = 0; // bytes parsed and not yet said to the page, which reads ahead by them
  const sayConsumed = () => {
    if (consumed) say({ type: 'consumed', id, bytes: consumed });
    consumed = 0;
  };
  let summary = null;
  // The engine says what it needs next, and after which of the hand-over's steps; each step
  // hands it that.
  /** @type {Need} */
  let need;
  for (need = fresh.need(); need.need !== 'done'; need = fresh.need()) {
    if (need.need === 'files') {
      const wanted = need.given;
      await until(() => stepsGiven >= wanted);
      lap('small_files');
      /** @type {AfterMetadata} */
      const asked = fresh.read_metadata();
      say({ type: 'after-metadata', id, times: asked.times.map(forPage), late: asked.late.map(forPage) });
      lap('other_files');
    } else if (need.need === 'logs') {
      // Every log, in the order the page hands them over.
      for (let left = need.left; left > 0; left--) {
        if (nextLog === logs.length) {
          sayConsumed();
          logs.length = nextLog = 0;
          const asked = performance.now();
          await until(() => nextLog < logs.length);
          waited += performance.now() - asked;
        }
        const { index, bytes, file, modified } = logs[nextLog];
        logs[nextLog++] = null;
        fresh.parse_log(index, bytes || file, modified);
        if (bytes) consumed += bytes.byteLength;
        if (consumed >= 1 << 20) sayConsumed();
      }
      sayConsumed();
      lap('logs');
      timings.logs_waiting = waited / 1000;
    } else if (need.need === 'last_files') {
      const wanted = need.given;
      await until(() => stepsGiven >= wanted);
      lap('last_files');
      summary = fresh.finish();
      lap('joins');
    } else {
      throw new Error(`the engine needs ${need.need}, which this worker cannot give`);
    }
  }
  engine = fresh;
  // What the cache did (the engine's numbers), or why it was not used.
  /** @type {CacheDone} */
  const cache = !kept ? null : kept.unavailable ? { unavailable: kept.unavailable } : fresh.cache_report();
  say({
    type: 'done',
    id,
    summary,
    warnings,
    seconds: (performance.now() - started) / 1000,
    timings,
    memory: instance.memory.buffer.byteLength,
    cache,
  });
  // Once every file is in (the logs' Files among them), the new logs' cache entries and the
  // pack's index: the views ask meanwhile; a failure costs only the next run's time.
  const wanted = need.given;
  await until(() => stepsGiven >= wanted);
  filesAreIn();
  if (openPack && openPack.id === id) {
    let bytes = null;
    try {
      if (!(await recordEntries(fresh, id))) return;
      bytes = fresh.finish_cache();
    } catch (error) {
      console.warn(`the cache was not kept: ${error.message || error}`);
    }
    await closePack(bytes).catch((error) => console.warn(`the cache's index was not kept: ${error.message || error}`));
  }
  say({ type: 'settled', id, seconds: (performance.now() - started) / 1000 });
}

/**
 * The page's cache (cache.js): `clear` drops it all, `forget` what the inputs naming `root`
 * kept, `contents` says what it holds; where it cannot be used, `{unavailable}` says why.
 */
async function cacheOperation({ op, root }) {
  let cache;
  try {
    cache = await openCache();
  } catch (error) {
    return { unavailable: String(error.message || error) };
  }
  return serially(async () => {
    if (op === 'clear') await cache.clear();
    else if (op === 'forget') await cache.forgetRoot(root);
    return cache.contents();
  });
}

/** @param {Request} request */
function answer(request) {
  return engine.ask(request).value;
}

/** @typedef {Extract<Request, { export: unknown } | { share_report: unknown } | { team_export: unknown }>} FileRequest */

/** A file of the outputs catalogue (an export or the report to share), as a Blob. */
function exportFile(/** @type {FileRequest} */ request) {
  const what = 'share_report' in request ? null : ('export' in request ? request.export : request.team_export).what;
  const file = facts.outputs.find((output) => (what === null ? output.made_from === 'choices' : output.name === what));
  if (!file) throw new Error(`unknown export ${what}`);
  const type = file.mime + ';charset=utf-8';
  let parts;
  if (file.in_parts) {
    // In parts, so a large export never needs one huge string.
    parts = [];
    const count = answer('row_count');
    for (let offset = 0; offset === 0 || offset < count; offset += facts.rows_per_part) {
      parts.push(answer({ export_rows: { what: file.name, offset, limit: facts.rows_per_part } }));
    }
  } else {
    parts = [answer(request)];
  }
  return new Blob(parts, { type });
}

self.onmessage = async (event) => {
  /** @type {ToWorker} */
  const message = event.data;
  try {
    switch (message.type) {
      case 'init':
        instance = initSync({ module: message.module });
        build = message.build || '';
        facts = engine_facts();
        say({ type: 'ready', facts });
        break;
      case 'give':
        receiveGiven(message);
        break;
      case 'analyze':
        await analyze(message);
        break;
      case 'ask': {
        const { request } = message;
        if (needs_every_file(request)) await everyFileIn;
        if (!engine) throw new Error('run the analysis first');
        const isFile = typeof request === 'object' && ('export' in request || 'share_report' in request || 'team_export' in request);
        say({ type: 'result', id: message.id, value: isFile ? exportFile(request) : answer(request) });
        break;
      }
      case 'inflate': {
        const buffer = new Uint8Array(message.buffer);
        // Each entry's bytes from its local header, which the engine reads.
        const items = message.entries.map(({ at, span, packed, size, crc32 }) => {
          try {
            return inflate(buffer.subarray(at, at + span), packed, size, crc32);
          } catch (error) {
            if (error instanceof WebAssembly.RuntimeError) throw error;
            return null;
          }
        });
        say({ type: 'inflated', id: message.id, items }, items.filter(Boolean).map((bytes) => bytes.buffer));
        break;
      }
      case 'bill': {
        if (!engine) throw new Error('run the analysis first');
        // The reports are read a slice at a time by the engine: an organisation's is large.
        say({ type: 'result', id: message.id, value: engine.reconcile_bill(message.files, message.user || null) });
        break;
      }
      case 'cache':
        say({ type: 'result', id: message.id, value: await cacheOperation(message) });
        break;
      case 'zips-in-folder':
        say({ type: 'result', id: message.id, value: zips_in_folder(message.paths) });
        break;
      case 'never-opened':
        say({ type: 'result', id: message.id, value: never_opened(message.paths) });
        break;
      case 'crash-test':
        setTimeout(() => {
          throw new Error('worker crash requested by a test');
        });
        break;
      default:
        throw new Error(`unknown message ${/** @type {{ type: string }} */ (message).type}`);
    }
  } catch (error) {
    fail(message.id, error);
  }
};
