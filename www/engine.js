// The page's side of the engine Worker: compiles the WebAssembly module once (it is handed to
// every worker, so a restarted worker fetches nothing), starts the worker, and turns its messages
// into promises. Cancel and crash both end the worker and start a fresh one.

// Handing a folder's files to the worker as the engine's hand-over says (protocol::HandOver:
// the steps, in order, and how each part goes over). A browser pays for every file it opens or
// hands to a worker, about a tenth of a millisecond each, so files read as bytes are read many
// at once, the logs a few at once ahead of the parser (at most LOG_BUDGET bytes read and not
// yet parsed; a log larger than the engine's log_given_whole_max_bytes goes over as a File,
// which the worker reads in windows), and Files go over in parts.
const SMALL_AT_ONCE = 16;
const LOGS_AT_ONCE = 8;
const LOG_BUDGET = 64 * 1024 * 1024;
const FILES_PER_PART = 64;
// A zip's logs are read in the archive's order, many entries a read: a read for each entry
// costs a millisecond or more, and a zip can hold 200,000 sessions. Entries closer than
// RUN_GAP bytes share a read of at most RUN_BYTES (unless one entry is larger), RUNS_AT_ONCE
// reads at a time; the engine takes the logs in any order.
const RUN_BYTES = 4 * 1024 * 1024;
const RUN_GAP = 1024 * 1024;
const RUNS_AT_ONCE = 2;

// The values are the Rust boundary's types (www/types.d.ts, generated from src/page/protocol.rs).
/** @typedef {import('./types').EngineFacts} EngineFacts */
/** @typedef {import('./types').FileAt} FileAt */
/** @typedef {import('./types').AfterMetadata} AfterMetadata */
/** @typedef {import('./types').Give} Give */
/** @typedef {import('./types').HandOver} HandOver */
/** @typedef {import('./types').LogToGive} LogToGive */
/** @typedef {import('./types').Request} Request */
/** @typedef {import('./types').Given} Given */
/** @typedef {import('./messages').FromWorker} FromWorker */
/** @typedef {import('./messages').Asked} Asked */
/** @typedef {import('./messages').PageRoot} PageRoot */
/** @typedef {import('./messages').RootListing} RootListing */

export class Cancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'Cancelled';
  }
}

export class WorkerCrash extends Error {
  constructor(message) {
    super(message);
    this.name = 'WorkerCrash';
  }
}

function embedded(id) {
  return document.getElementById(id);
}

function base64Bytes(text) {
  const binary = atob(text.replace(/\s+/g, ''));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The embedded demo of the single-file build, if this is that build. */
export function embeddedDemo() {
  const block = embedded('embedded-demo');
  return block ? new Blob([base64Bytes(block.textContent)], { type: 'application/zip' }) : null;
}

/**
 * The module's bytes' SHA-256 (its start, in hex), which names the build in the page's cache:
 * entries another build made are not read. Empty where the browser cannot hash.
 */
async function buildOf(bytes) {
  try {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await bytes));
    return [...digest.slice(0, 8)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  } catch {
    return '';
  }
}

// The engine's two modules (scripts/build-web.sh): the first, which the page loads, and the full
// one, with the outputs rarely asked for (`EngineFacts.full_engine`), loaded when one is.
const FIRST_MODULE = 'copilot_lens_bg.wasm';
const FULL_MODULE = 'copilot_lens_full_bg.wasm';

/** The module `file` of pkg/ (or the one the single-file build embeds), compiled, and its build's name. */
async function compileModule(file) {
  const block = embedded('embedded-wasm');
  if (block) {
    const bytes = base64Bytes(block.textContent);
    return Promise.all([WebAssembly.compile(bytes), buildOf(bytes)]);
  }
  const url = new URL(`./pkg/${file}`, import.meta.url);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot load the engine (${response.status} ${url})`);
  if (WebAssembly.compileStreaming && response.headers.get('content-type') === 'application/wasm') {
    const copy = response.clone();
    return Promise.all([WebAssembly.compileStreaming(response), buildOf(copy.arrayBuffer())]);
  }
  const bytes = await response.arrayBuffer();
  return Promise.all([WebAssembly.compile(bytes), buildOf(bytes)]);
}

/** @returns {{ url: string | URL, options: WorkerOptions }} */
function workerUrl() {
  const block = embedded('embedded-worker');
  if (block) return { url: URL.createObjectURL(new Blob([block.textContent], { type: 'text/javascript' })), options: {} };
  return { url: new URL('./worker.js', import.meta.url), options: { type: 'module' } };
}

export class EngineClient {
  /**
   * @param {{ onProgress?: (progress: Extract<FromWorker, { type: 'progress' }>) => void, onCrash?: (error: WorkerCrash) => void, onSettled?: (settled: Extract<FromWorker, { type: 'settled' }>) => void }} [handlers]
   */
  constructor({ onProgress, onCrash, onSettled } = {}) {
    this.onProgress = onProgress || (() => {});
    this.onCrash = onCrash || (() => {});
    this.onSettled = onSettled || (() => {});
    /** The last analysis's arguments, run again when the full module replaces the first. */
    this.lastAnalysis = null;
    /** The full module's loading and analysis, while under way (`withFullEngine`). */
    this.upgrading = null;
    this.server = null;
    this.module = null;
    this.build = '';
    this.worker = null;
    this.inflater = null;
    this.ready = null;
    this.pending = new Map();
    this.nextId = 1;
  }

  /** Compiles the module (once) and starts a worker; resolves when it is ready. */
  start() {
    if (this.ready) return this.ready;
    this.ready = (async () => {
      if (!this.module) [this.module, this.build] = await compileModule(FIRST_MODULE);
      const { url, options } = workerUrl();
      const worker = new Worker(url, options);
      this.worker = worker;
      /** @type {Promise<void>} */
      const started = new Promise((resolve, reject) => {
        worker.onmessage = (event) => {
          if (event.data.type === 'ready') {
            /** What the engine says of itself: folders, limits, the enumerations, the outputs. @type {EngineFacts} */
            this.facts = event.data.facts;
            resolve();
          } else if (event.data.type === 'error' || event.data.type === 'crash') reject(new Error(event.data.message));
        };
        worker.onerror = (event) => reject(new Error(event.message || 'the engine worker failed to start'));
        worker.postMessage({ type: 'init', module: this.module, build: this.build });
      });
      await started;
      // Started with the engine, so that nothing is fetched once the page has loaded.
      this.inflater = new Inflater(this.module);
      await this.inflater.ready;
      worker.onmessage = (event) => this.receive(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        this.crash(event.message || 'the engine worker stopped with an error');
      };
      worker.onmessageerror = () => this.crash('a message from the engine worker could not be read');
    })();
    this.ready.catch(() => {
      this.ready = null;
    });
    return this.ready;
  }

  /** @param {FromWorker} message */
  receive(message) {
    if (message.type === 'progress') {
      this.onProgress(message);
      return;
    }
    if (message.type === 'serve' || message.type === 'consumed' || message.type === 'after-metadata') {
      const entry = this.pending.get(message.id);
      if (!entry) return;
      if (message.type === 'consumed') entry.server.consumed(message.bytes);
      else if (message.type === 'after-metadata') entry.server.afterMetadata({ times: message.times, late: message.late });
      else entry.server.serve(message.hand_over).catch((error) => this.crash(`handing the files over failed: ${error.message || error}`));
      return;
    }
    if (message.type === 'crash') {
      this.crash(message.message);
      return;
    }
    if (message.type === 'settled') {
      this.onSettled(message);
      return;
    }
    const entry = this.pending.get(message.id);
    if (!entry) return;
    this.pending.delete(message.id);
    if (message.type === 'done' && entry.server) entry.server.done();
    if (message.type === 'error') entry.reject(new Error(message.message));
    else entry.resolve(message);
  }

  /** Ends the worker, fails what was asked of it, and starts a fresh one. */
  restart(error) {
    if (this.worker) this.worker.terminate();
    if (this.inflater) this.inflater.end();
    this.inflater = null;
    this.worker = null;
    this.ready = null;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const entry of pending) entry.reject(error);
    return this.start();
  }

  crash(message) {
    const error = new WorkerCrash(message);
    this.restart(error).catch(() => {});
    this.onCrash(error);
  }

  cancel() {
    return this.restart(new Cancelled());
  }

  /** @param {Asked} message @param {Transferable[]} [transfer] @returns {Promise<any>} */
  async send(message, transfer) {
    await this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id }, transfer || []);
    });
  }

  /**
   * roots: [{kind:'zip', label, file} | {kind:'files', label, files, paths}]. The worker gets
   * the folders' paths first; their files follow as it asks for them. `cacheKey` names the
   * input in the page's cache (cache.js), null for none.
   */
  async analyze(roots, options, cacheKey = null) {
    await this.start();
    this.lastAnalysis = [roots, options, cacheKey];
    roots = await this.withFolderZips(roots);
    const worker = this.worker;
    const id = this.nextId++;
    const listing = roots.map((root) =>
      root.kind === 'zip'
        ? { kind: 'zip', label: root.label, file: root.file }
        : { kind: 'listing', label: root.label, paths: root.paths, sizes: root.sizes, times: root.times },
    );
    const done = await new Promise((resolve, reject) => {
      const alive = () => this.worker === worker && this.server === server;
      // What the worker is given of the folders' files (each once), for the page to say and tests to check.
      const handed = (this.handedOver = { paths: listing.reduce((n, root) => n + (root.paths?.length || 0), 0), files: 0 });
      /** @param {Given} message @param {Transferable[]} [transfer] */
      const post = (message, transfer) => {
        if (!alive()) return false;
        if (message.kind === 'files') handed.files += message.files.length;
        else if (message.kind === 'bytes' || message.kind === 'logs') handed.files += /** @type {Array<{ bytes?: Uint8Array, file?: Blob }>} */ (message.items).filter((item) => item.bytes || item.file).length;
        return worker.postMessage({ type: 'give', id, ...message }, transfer || []);
      };
      const server = new FileServer(roots, post, alive, this.inflater, this.facts.log_given_whole_max_bytes);
      this.server = server; // a newer analysis stops this one's hand-over
      this.pending.set(id, { resolve, reject, server });
      worker.postMessage({ type: 'analyze', id, options, roots: listing, cache: cacheKey });
    });
    return done.type === 'full' ? this.withFullEngine() : done;
  }

  /**
   * A folder's zips outside its homes (a home's backup dropped in a folder) are roots of their
   * own, as the native tool reads them; the engine says which, and whether the folder is still
   * a root itself.
   */
  async withFolderZips(roots) {
    const expanded = [];
    for (const root of roots) {
      if (root.kind !== 'files') {
        expanded.push(root);
        continue;
      }
      const { zips, holds_data: holdsData } = (await this.send({ type: 'zips-in-folder', paths: root.paths })).value;
      if (holdsData || !zips.length) expanded.push(root);
      if (!zips.length) continue;
      const fileAt = new Map(root.paths.map((path, index) => [path, root.files[index]]));
      for (const path of zips) expanded.push({ kind: 'zip', label: `${root.label}/${path}`, file: fileAt.get(path), count: 1 });
    }
    return expanded;
  }

  /** The indices of a folder's `paths` whose files no analysis opens (the engine's `never_opened`). */
  async neverOpened(paths) {
    await this.start();
    return [...(await this.send({ type: 'never-opened', paths })).value];
  }

  /**
   * The page's cache: `clear` drops it, `forget` what the inputs naming `root` kept, `contents`
   * says what it holds; each answers `{cap, inputs: [{id, bytes}]}`, or `{unavailable}`.
   */
  async cache(op, root = null) {
    return (await this.send({ type: 'cache', op, root })).value;
  }

  /**
   * The answer's value to a request of the finished analysis (a Blob for a file).
   * @template {Request} R
   * @param {R} request
   * @returns {Promise<import('./messages').AnswerTo<R>>}
   */
  async ask(request) {
    return (await this.send({ type: 'ask', request })).value;
  }

  /** GitHub's usage reports (Files) reconciled with this analysis (the engine reads them a slice at a time). */
  async reconcileBill(files, user) {
    await this.withFullEngine();
    return (await this.send({ type: 'bill', files, user: user || '' })).value;
  }

  /**
   * The full engine, for an output the first module leaves out: its module is compiled, the
   * worker started again with it, and the last analysis run again there (the page's cache
   * serving it: both modules keep the first one's build name, as they read and write the same
   * entries). Resolves with that analysis.
   */
  async withFullEngine() {
    await this.start();
    if (this.facts.full_engine) return;
    this.upgrading ||= (async () => {
      try {
        [this.module] = await compileModule(FULL_MODULE);
        await this.restart(new Cancelled());
        if (this.lastAnalysis) return await this.analyze(...this.lastAnalysis);
      } finally {
        this.upgrading = null;
      }
    })();
    return this.upgrading;
  }

  /** What making an output the first module leaves out costs the first time, for a status line. */
  get fullEngineNote() {
    return this.facts?.full_engine ? '' : ' (the first time, the rest of the engine is loaded and the analysis run again)';
  }

  /** A file of the outputs catalogue, as a Blob; a session's file is the session `sessionId`'s. */
  async exportFile(what, sessionId) {
    await this.withFullEngine();
    return this.ask({ export: { what, session_id: sessionId || '' } });
  }

  /** The catalogue's file of one session: its name, and the name it is saved as for `sessionId`. */
  sessionFile(sessionId) {
    const file = this.facts.outputs.find((output) => output.made_from === 'session');
    return { name: file.name, saveAs: file.save_as.replace('{session_id}', sessionId) };
  }

  /** The report to share (a Blob): options as a ShareAsked. */
  async shareReport(options) {
    await this.withFullEngine();
    return this.ask({ share_report: options });
  }

  /** A team export (a Blob), team.csv or team.jsonl: options as a TeamAsked without `what`. */
  async teamExport(what, options) {
    await this.withFullEngine();
    return this.ask({ team_export: { what, ...options } });
  }

  crashForTest() {
    if (this.worker) this.worker.postMessage({ type: 'crash-test' });
  }
}

/**
 * A zip's log entries in runs that one read each covers, in the archive's order.
 * @param {LogToGive[]} logs
 */
function runsOf(logs, zipSize) {
  const sorted = [...logs].sort((a, b) => a.entry.header_start - b.entry.header_start);
  const runs = [];
  let run = null;
  for (const log of sorted) {
    const { header_start: start, span } = log.entry;
    const end = Math.min(zipSize, start + span);
    if (run && start - run.end <= RUN_GAP && end - run.start <= RUN_BYTES) {
      run.end = Math.max(run.end, end);
      run.logs.push(log);
    } else {
      run = { start, end, logs: [log] };
      runs.push(run);
    }
  }
  return runs;
}

/**
 * The second worker (worker.js again, on the same module), which inflates a zip's logs: the
 * engine's worker parses at about the speed a worker inflates, so the two run side by side.
 * It checks each entry's size and CRC-32.
 */
class Inflater {
  constructor(module) {
    const { url, options } = workerUrl();
    this.worker = new Worker(url, options);
    this.pending = new Map();
    this.nextId = 1;
    let started;
    let failed;
    this.ready = new Promise((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    this.worker.onmessage = (event) => {
      const { type, id, items, message } = event.data;
      if (type === 'ready') started();
      const entry = this.pending.get(id);
      if (!entry) return;
      this.pending.delete(id);
      if (type === 'inflated') entry.resolve(items);
      else entry.reject(new Error(message));
    };
    this.worker.onerror = (event) => {
      event.preventDefault();
      const error = new Error(event.message || 'the inflating worker failed');
      failed(error);
      this.failAll(error);
    };
    this.worker.postMessage({ type: 'init', module });
  }

  /**
   * The entries' bytes (`{at, span, packed, size, crc32}`: `span` bytes of `buffer` from `at`
   * hold its local header and data), null where one fails.
   */
  inflate(buffer, entries) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'inflate', id, buffer, entries }, [buffer]);
    });
  }

  failAll(error) {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const entry of pending) entry.reject(error);
  }

  end() {
    this.worker.terminate();
    this.failAll(new Cancelled());
  }
}

/**
 * Lets the page draw and take input before going on: scheduler.yield where the browser has it
 * (setTimeout waits at least 4 ms once nested, 0.6 s over 150 parts); after done, at background
 * priority, as scheduler.yield's turn comes before the worker's answers to the views.
 * @param {boolean} afterDone
 */
function nextTask(afterDone) {
  const scheduler = globalThis.scheduler;
  return (afterDone ? scheduler?.postTask?.(() => {}, { priority: 'background' }) : scheduler?.yield?.()) ?? new Promise((resolve) => setTimeout(resolve));
}

/**
 * Serves one analysis: the folders' files, as the engine's hand-over says (what, in which
 * order, and how), each step said to the worker once it is given.
 */
class FileServer {
  /**
   * @param {PageRoot[]} roots
   * @param {(message: Given, transfer?: Transferable[]) => false | void} post
   * @param {() => boolean} alive
   * @param {Inflater} inflater
   * @param {number} wholeLogMax
   */
  constructor(roots, post, alive, inflater, wholeLogMax) {
    this.roots = roots;
    this.inflater = inflater;
    this.wholeLogMax = wholeLogMax;
    this.post = post;
    this.alive = alive;
    this.byPath = roots.map((root) => (root.kind === 'zip' ? new Map() : new Map(root.paths.map((path, index) => [path, root.files[index]]))));
    // Paths handed over so far, by root: each file goes over once, as bytes or as a File.
    this.handed = roots.map(() => new Set());
    // Log bytes read and not yet parsed, and the readers waiting for that to fall.
    this.held = 0;
    this.waiting = [];
    /** @type {LogToGive[]} the logs the engine asked for */
    this.logs = [];
    /** @type {Promise<AfterMetadata>} what the worker asks for once it has read the metadata */
    this.metadataRead = new Promise((resolve) => (this.afterMetadata = resolve));
    this.analysisDone = new Promise((resolve) => (this.done = resolve));
    this.isDone = false;
    this.analysisDone.then(() => (this.isDone = true));
  }

  /**
   * Each step once the one before is given (and, if it says so, once the analysis is done),
   * its parts side by side.
   * @param {HandOver} handOver
   */
  async serve({ steps }) {
    for (const [step, { after_done: afterDone, parts }] of steps.entries()) {
      if (afterDone) await this.analysisDone;
      await Promise.all(parts.map((part) => this.give(part)));
      if (!this.alive()) return;
      this.post({ kind: 'step_given', step });
    }
  }

  /** @param {Give} part */
  async give(part) {
    switch (part.how) {
      case 'files':
        return this.giveInParts(part.files);
      case 'bytes':
        return this.giveBytes(part.files);
      case 'bytes_up_to':
        return this.giveBytes(part.files, part.max_bytes);
      case 'logs':
        return this.giveLogs(part.logs);
      case 'times':
        return this.giveTimes((await this.metadataRead).times);
      case 'late_metadata':
        return this.giveBytes((await this.metadataRead).late);
      case 'files_after_done':
        return this.giveFilesAfterDone(part.sizes_from, part.files);
      default:
        throw new Error(`the engine asks for a hand-over this page cannot make: ${/** @type {any} */ (part).how}`);
    }
  }

  /**
   * The Files not handed over yet of the logs, read again for their long texts, and of the
   * roots `sizesFrom`, for the report's sizes of the files not read. (The browser charges this
   * thread for each File handed over, as much as the analysis' own reads: the engine asks for
   * these after it is done.) And `sizedLater`, the files a walk got no File for.
   * @param {number[]} sizesFrom
   * @param {FileAt[]} sizedLater
   */
  async giveFilesAfterDone(sizesFrom, sizedLater) {
    await this.giveInParts(sizedLater);
    const logs = this.roots.map(() => new Set());
    for (const { root, path } of this.logs) logs[root].add(path);
    for (const [root, files] of this.byPath.entries()) {
      const wanted = (path) => !this.handed[root].has(path) && (sizesFrom.includes(root) || logs[root].has(path));
      await this.giveInParts([...files.keys()].filter(wanted).map((path) => ({ root, path })));
    }
  }

  /**
   * The modification times of the files the worker asks for (the rows at their file's time).
   * A File's time costs the browser a round trip on this thread, so only these are asked, and
   * in parts, letting the page draw in between.
   */
  /** @param {FileAt[]} asked */
  async giveTimes(asked) {
    const known = asked.filter(({ root, path }) => this.byPath[root].has(path));
    await this.inParts(known, (part) => {
      const items = part.map(({ root, path }) => ({ root, path, modified: this.byPath[root].get(path).lastModified || 0 }));
      this.post({ kind: 'times', items });
    });
  }

  /** The worker has parsed a log of `bytes`. */
  consumed(bytes) {
    this.held -= bytes;
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }

  /** @param {FileAt[]} wanted */
  giveFiles(wanted) {
    const byRoot = new Map();
    for (const { root, path } of wanted) {
      if (this.handed[root].has(path)) continue;
      this.handed[root].add(path);
      if (!byRoot.has(root)) byRoot.set(root, { files: [], paths: [] });
      byRoot.get(root).files.push(this.byPath[root].get(path));
      byRoot.get(root).paths.push(path);
    }
    for (const [root, { files, paths }] of byRoot) this.post({ kind: 'files', root, files, paths });
  }

  /**
   * Reads files, SMALL_AT_ONCE at once, and hands their bytes over in batches; with `max`, a
   * file longer than `max` bytes goes over as a File instead (a slice a byte longer tells).
   * @param {FileAt[]} wanted
   * @param {number} [max]
   */
  async giveBytes(wanted, max) {
    let next = 0;
    let batch = [];
    const flush = () => {
      if (!batch.length) return;
      this.post({ kind: 'bytes', items: batch }, batch.map((item) => item.bytes.buffer));
      batch = [];
    };
    const reader = async () => {
      while (next < wanted.length && this.alive()) {
        const { root, path } = wanted[next++];
        const file = await this.fileOf(root, path);
        if (!file) continue;
        try {
          const bytes = new Uint8Array(await (max === undefined ? file : file.slice(0, max + 1)).arrayBuffer());
          if (bytes.byteLength > max) {
            this.giveFiles([{ root, path }]);
            continue;
          }
          this.handed[root].add(path);
          batch.push({ root, path, bytes });
          if (batch.length >= 64) flush();
        } catch {
          this.giveFiles([{ root, path }]); // the engine reads it itself and reports what fails
        }
      }
    };
    await Promise.all(Array.from({ length: SMALL_AT_ONCE }, reader));
    flush();
  }

  /** Waits while LOG_BUDGET bytes of logs are read and not yet parsed. */
  async roomForLogs() {
    while (this.held >= LOG_BUDGET && this.alive()) await new Promise((resolve) => this.waiting.push(resolve));
  }

  /**
   * Hands every log over, in any order (the engine takes them back in theirs): those it reads
   * from its root at once, a zip's in the archive's order, a folder's read a few at once.
   */
  /** @param {LogToGive[]} logs */
  async giveLogs(logs) {
    this.logs = logs;
    const fromRoot = logs.filter((log) => !log.given).map(({ index }) => ({ index }));
    if (fromRoot.length) this.post({ kind: 'logs', items: fromRoot });
    const given = logs.filter((log) => log.given);
    const zips = this.roots.map((root, index) => given.filter((log) => log.root === index && log.entry));
    await Promise.all([this.giveFolderLogs(given.filter((log) => !log.entry)), ...zips.map((zipped, root) => zipped.length && this.giveZipLogs(root, zipped))]);
  }

  /**
   * A folder's logs, a few read at once, each handed over once read: the bytes, or the File
   * of a log too large to hand over whole (the worker reads it in windows). A picked File's
   * size costs this thread a round trip to the browser (2 s for 9,500 logs), so a log is read
   * first and its size known from its bytes; a log too large for one buffer goes over as a File.
   */
  /** @param {LogToGive[]} logs */
  async giveFolderLogs(logs) {
    // Those whose entries in the cache may stand for them go first, unread, as Files, whose
    // size and time the engine compares (LogCache in src/page/protocol.rs), many a message. Handed
    // over again after done, as a log read here is, for its size in the report.
    const file = ({ root, path }) => this.byPath[root].get(path);
    const unread = logs.filter((log) => log.cache === 'unread');
    await this.inParts(unread, (part) => this.post({ kind: 'logs', items: part.map((log) => ({ index: log.index, file: file(log) })) }));
    logs = logs.filter((log) => log.cache !== 'unread');
    let next = 0;
    const reader = async () => {
      while (next < logs.length && this.alive()) {
        await this.roomForLogs();
        if (next >= logs.length) break;
        const { root, path, index, cache } = logs[next++];
        const file = this.byPath[root].get(path);
        /** @type {import('./types').LogGiven} */
        let item = { index, file }; // the engine reads it itself and reports what fails
        // One the cache keeps is read whole too: the browser charges per read, not per byte,
        // so its two ends alone would cost more (LogCache in src/page/protocol.rs).
        try {
          const bytes = new Uint8Array(await file.arrayBuffer());
          if (bytes.byteLength <= this.wholeLogMax) {
            // Its time is part of its key in the cache (a File's costs a round trip).
            item = cache === 'looked_up' ? { index, bytes, modified: file.lastModified } : { index, bytes };
            this.held += bytes.byteLength;
          }
        } catch {
          // as above
        }
        this.post({ kind: 'logs', items: [item] }, item.bytes ? [item.bytes.buffer] : []);
      }
    };
    await Promise.all(Array.from({ length: LOGS_AT_ONCE }, reader));
  }

  /**
   * A zip's logs, read in runs in the archive's order and inflated by the second worker: one
   * read and two messages for many entries. An entry that cannot be read or inflated is left
   * to the engine, which reads it again and reports what fails, as the CLI does.
   */
  /** @param {LogToGive[]} logs */
  async giveZipLogs(root, logs) {
    const zip = /** @type {import('./messages').ZipRoot} */ (this.roots[root]).file;
    const runs = runsOf(logs, zip.size);
    let next = 0;
    const reader = async () => {
      while (next < runs.length && this.alive()) {
        await this.roomForLogs();
        if (next >= runs.length) break;
        const { start, end, logs: entries } = runs[next++];
        const items = [];
        const wanted = [];
        let inflated = [];
        try {
          const buffer = await zip.slice(start, end).arrayBuffer();
          for (const { index, entry } of entries) {
            const { header_start: at, span, packed, size, crc32 } = entry;
            wanted.push({ index, at: at - start, span, packed, size, crc32 });
          }
          if (wanted.length) inflated = await this.inflater.inflate(buffer, wanted.map(({ index, ...entry }) => entry));
        } catch {
          items.length = wanted.length = 0;
          for (const { index } of entries) items.push({ index });
        }
        wanted.forEach(({ index }, at) => {
          const bytes = inflated[at];
          items.push(bytes ? { index, bytes } : { index });
          if (bytes) this.held += bytes.byteLength;
        });
        this.post({ kind: 'logs', items }, items.filter((item) => item.bytes).map((item) => item.bytes.buffer));
      }
    };
    await Promise.all(Array.from({ length: RUNS_AT_ONCE }, reader));
  }

  /** Hands Files over in parts: the browser fetches each File's metadata when it is posted. */
  /** @param {FileAt[]} files */
  giveInParts(files) {
    return this.inParts(files, async (part) => this.giveFiles(await this.opened(part)));
  }

  /**
   * The File of a folder's file: a remembered folder's walk left the files no analysis opens as
   * their handles (`rootFromDirectoryHandle`), whose File is got here when it is asked for;
   * undefined for one that is gone since.
   */
  async fileOf(root, path) {
    const held = this.byPath[root].get(path);
    if (typeof held?.getFile !== 'function') return held;
    const file = await held.getFile().catch(() => undefined);
    if (file) this.byPath[root].set(path, file);
    return file;
  }

  /**
   * Those of `wanted` whose File is in (`fileOf`).
   * @param {FileAt[]} wanted
   */
  async opened(wanted) {
    const files = await Promise.all(wanted.map(({ root, path }) => this.fileOf(root, path)));
    return wanted.filter((_, index) => files[index]);
  }

  /**
   * Calls `each` with FILES_PER_PART items at a time, letting the page draw in between: work
   * on Files costs this thread a round trip to the browser for each one.
   */
  async inParts(items, each) {
    for (let at = 0; at < items.length && this.alive(); at += FILES_PER_PART) {
      await each(items.slice(at, at + FILES_PER_PART));
      await nextTask(this.isDone);
    }
  }
}
