// The page's cache of earlier analyses, in the Origin Private File System (per origin, never
// uploaded), used by the engine's worker only. An input (what the person gave: a remembered
// folder, a picked folder, a zip, or several at once; its key is their ids, one a line) keeps
// one file, its pack, which the engine reads and writes itself during an analysis through the
// file's sync access handle (it alone knows what the pack holds and checks it: its format,
// version and each file's key). An index says which file is whose, its size and when it was
// last used; past the cap the least recently used inputs go. Where OPFS is missing or refused
// (file://, a private window, another tab holding the cache) the analysis runs without it and
// says why.

const FOLDER = 'copilot-lens-cache';
const INDEX = 'index.json';
// 2: the engine reads and writes the packs in place (format 1's were read whole; they go).
const INDEX_FORMAT = 2;
// The cap: a fifth of what the browser grants this origin, at most 2 GiB (256 MiB when the
// browser does not say). A pack is read an entry at a time, so its size is disk, not memory.
const CAP_SHARE = 0.2;
const CAP_MAX_BYTES = 2 * 1024 * 1024 * 1024;
const CAP_UNKNOWN_BYTES = 256 * 1024 * 1024;

/** Why the cache cannot be used here, or null when it can. */
export function unavailableWhy() {
  if (typeof navigator === 'undefined' || !navigator.storage || typeof navigator.storage.getDirectory !== 'function') {
    return 'this browser has no Origin Private File System';
  }
  if (typeof FileSystemFileHandle === 'undefined' || typeof FileSystemFileHandle.prototype.createSyncAccessHandle !== 'function') {
    return 'this browser cannot write files in a worker';
  }
  return null;
}

/** The bytes of a file of the cache folder, read whole, or null when it is not there. */
async function readFile(folder, name) {
  let handle;
  try {
    handle = await folder.getFileHandle(name);
  } catch {
    return null;
  }
  const access = await handle.createSyncAccessHandle();
  try {
    const bytes = new Uint8Array(access.getSize());
    access.read(bytes, { at: 0 });
    return bytes;
  } finally {
    access.close();
  }
}

async function writeFile(folder, name, bytes) {
  const access = await (await folder.getFileHandle(name, { create: true })).createSyncAccessHandle();
  try {
    access.truncate(0);
    access.write(bytes, { at: 0 });
    access.flush();
  } finally {
    access.close();
  }
}

async function removeFile(folder, name) {
  try {
    await folder.removeEntry(name);
  } catch {
    // already gone
  }
}

/**
 * The cache, opened for one operation at a time (the worker runs one analysis at once). Throws
 * with a sentence saying why when it cannot be used.
 */
export async function openCache() {
  const why = unavailableWhy();
  if (why) throw new Error(why);
  let folder;
  try {
    folder = await (await navigator.storage.getDirectory()).getDirectoryHandle(FOLDER, { create: true });
  } catch (error) {
    throw new Error(`the browser refused its private file system (${error.name || error.message || error})`);
  }
  let cap = CAP_UNKNOWN_BYTES;
  try {
    const { quota } = await navigator.storage.estimate();
    if (quota > 0) cap = Math.min(CAP_MAX_BYTES, Math.floor(quota * CAP_SHARE));
  } catch {
    // the default cap
  }
  return new Cache(folder, cap);
}

class Cache {
  constructor(folder, cap) {
    this.folder = folder;
    this.cap = cap;
  }

  /** The index: {format, next, inputs: {key: {file, bytes, used}}}; an unreadable one is empty. */
  async index() {
    const bytes = await readFile(this.folder, INDEX);
    if (bytes) {
      try {
        const index = JSON.parse(new TextDecoder().decode(bytes));
        if (index && index.format === INDEX_FORMAT && index.inputs && Number.isSafeInteger(index.next)) return index;
        // Another format's packs cannot be read: they go with their index.
        await this.clear();
      } catch {
        // written by something else: started again below
      }
    }
    return { format: INDEX_FORMAT, next: 1, inputs: {} };
  }

  async saveIndex(index) {
    await writeFile(this.folder, INDEX, new TextEncoder().encode(JSON.stringify(index)));
  }

  /**
   * Opens input `id`'s pack for an analysis, made empty if it has none: `{file, handle, size}`,
   * the handle held (the file locked) until `release`. It becomes the most recently used.
   */
  async open(id) {
    const index = await this.index();
    const entry = index.inputs[id] || (index.inputs[id] = { file: `${index.next++}.bin`, bytes: 0 });
    entry.used = Date.now();
    await this.saveIndex(index);
    const handle = await (await this.folder.getFileHandle(entry.file, { create: true })).createSyncAccessHandle();
    return { file: entry.file, handle, size: handle.getSize() };
  }

  /**
   * Lets an input's pack go at once: `bytes` is its size after the analysis, or null for an
   * analysis that ended before its end, whose pack is cut back to its size before it.
   */
  release(pack, bytes) {
    try {
      if (bytes === null) pack.handle.truncate(pack.size);
    } catch {
      // a damaged pack is dropped by the next analysis
    }
    try {
      pack.handle.close();
    } catch {
      // closed already
    }
  }

  /**
   * The index after an input's pack was let go (`release`): its size, then the least recently
   * used inputs dropped until all fit under the cap. Returns their ids.
   */
  async closed(id, pack, bytes) {
    const index = await this.index();
    const entry = index.inputs[id];
    // Cleared or forgotten while it was open.
    if (!entry || entry.file !== pack.file) {
      await removeFile(this.folder, pack.file);
      return [];
    }
    if (bytes !== null) entry.bytes = bytes;
    const byAge = Object.entries(index.inputs).sort(([, a], [, b]) => a.used - b.used);
    let total = byAge.reduce((sum, [, input]) => sum + input.bytes, 0);
    const dropped = [];
    for (const [other, input] of byAge) {
      if (total <= this.cap) break;
      if (other === id) continue;
      total -= input.bytes;
      delete index.inputs[other];
      await removeFile(this.folder, input.file);
      dropped.push(other);
    }
    await this.saveIndex(index);
    return dropped;
  }

  /** Drops what every input naming `root` (one of the `\n`-separated ids of a key) kept. */
  async forgetRoot(root) {
    const index = await this.index();
    for (const [id, entry] of Object.entries(index.inputs)) {
      if (!id.split('\n').includes(root)) continue;
      delete index.inputs[id];
      await removeFile(this.folder, entry.file);
    }
    await this.saveIndex(index);
  }

  /** Drops everything, files the index does not name too. */
  async clear() {
    const names = [];
    for await (const name of this.folder.keys()) names.push(name);
    for (const name of names) await removeFile(this.folder, name);
  }

  /** The inputs kept and their sizes, most recently used first (for tests and the page). */
  async contents() {
    const index = await this.index();
    const inputs = Object.entries(index.inputs).sort(([, a], [, b]) => b.used - a.used);
    return { cap: this.cap, inputs: inputs.map(([id, entry]) => ({ id, bytes: entry.bytes })) };
  }
}
