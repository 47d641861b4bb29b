// The page's side of the engine Worker: compiles the WebAssembly module once (it is handed to
// every worker, so a restarted worker fetches nothing), starts the worker, and turns its messages
// into promises. Cancel and crash both end the worker and start a fresh one.

const STAGE = 128;

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

async function compileModule() {
  const block = embedded('embedded-wasm');
  if (block) return WebAssembly.compile(base64Bytes(block.textContent));
  const url = new URL('./pkg/copilot_lens_bg.wasm', import.meta.url);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot load the engine (${response.status} ${url})`);
  if (WebAssembly.compileStreaming && response.headers.get('content-type') === 'application/wasm') {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

function workerUrl() {
  const block = embedded('embedded-worker');
  if (block) return { url: URL.createObjectURL(new Blob([block.textContent], { type: 'text/javascript' })), options: {} };
  return { url: new URL('./worker.js', import.meta.url), options: { type: 'module' } };
}

export class EngineClient {
  constructor({ onProgress, onCrash } = {}) {
    this.onProgress = onProgress || (() => {});
    this.onCrash = onCrash || (() => {});
    this.module = null;
    this.worker = null;
    this.ready = null;
    this.pending = new Map();
    this.nextId = 1;
  }

  /** Compiles the module (once) and starts a worker; resolves when it is ready. */
  start() {
    if (this.ready) return this.ready;
    this.ready = (async () => {
      if (!this.module) this.module = await compileModule();
      const { url, options } = workerUrl();
      const worker = new Worker(url, options);
      this.worker = worker;
      await new Promise((resolve, reject) => {
        worker.onmessage = (event) => {
          if (event.data.type === 'ready') resolve();
          else if (event.data.type === 'error' || event.data.type === 'crash') reject(new Error(event.data.message));
        };
        worker.onerror = (event) => reject(new Error(event.message || 'the engine worker failed to start'));
        worker.postMessage({ type: 'init', module: this.module });
      });
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

  receive(message) {
    if (message.type === 'progress') {
      this.onProgress(message);
      return;
    }
    if (message.type === 'crash') {
      this.crash(message.message);
      return;
    }
    const entry = this.pending.get(message.id);
    if (!entry) return;
    this.pending.delete(message.id);
    if (message.type === 'error') entry.reject(new Error(message.message));
    else entry.resolve(message);
  }

  /** Ends the worker, fails what was asked of it, and starts a fresh one. */
  restart(error) {
    if (this.worker) this.worker.terminate();
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

  async send(message, transfer) {
    await this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id }, transfer || []);
    });
  }

  /**
   * roots: [{kind:'zip', label, file} | {kind:'files', label, files, paths}]. Files go over in
   * parts: cloning a File makes Chromium fetch its size and time from the browser process, on
   * this thread, about 0.1 ms each; in parts of STAGE the page keeps its frames.
   */
  async analyze(roots, options, onStage = () => {}) {
    await this.start();
    const total = roots.reduce((n, r) => n + (r.kind === 'files' ? r.files.length : 0), 0);
    if (total <= STAGE) return this.send({ type: 'analyze', roots, options });
    const worker = this.worker;
    const staged = [];
    let sent = 0;
    for (const [index, root] of roots.entries()) {
      if (root.kind !== 'files') {
        staged.push(root);
        continue;
      }
      for (let at = 0; at < root.files.length; at += STAGE) {
        if (this.worker !== worker) throw new Cancelled();
        worker.postMessage({ type: 'stage', root: index, files: root.files.slice(at, at + STAGE), paths: root.paths.slice(at, at + STAGE) });
        sent += Math.min(STAGE, root.files.length - at);
        onStage(sent, total);
        await new Promise((resolve) => setTimeout(resolve));
      }
      staged.push({ kind: 'staged', label: root.label, root: index });
    }
    if (this.worker !== worker) throw new Cancelled();
    return this.send({ type: 'analyze', roots: staged, options });
  }

  async call(method, ...args) {
    return (await this.send({ type: 'call', method, args })).value;
  }

  async exportFile(what, sessionId) {
    return (await this.send({ type: 'export', what, session_id: sessionId || '' })).value;
  }

  crashForTest() {
    if (this.worker) this.worker.postMessage({ type: 'crash-test' });
  }
}
