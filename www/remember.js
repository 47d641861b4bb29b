// A folder opened with the File System Access API can be remembered for the next visit: only
// its handle is kept (in this browser's IndexedDB, never its data), and the browser asks the
// person again for permission before it is read. Browsers without the API never see this.

const DB = 'copilot-lens';
const STORE = 'folders';
const KEY = 'last';

function database() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function transact(mode, work) {
  const db = await database();
  try {
    return await new Promise((resolve, reject) => {
      const store = db.transaction(STORE, mode).objectStore(STORE);
      const request = work(store);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  } finally {
    db.close();
  }
}

/** Whether this browser can keep a folder's handle. */
export const canRemember = () => typeof window.showDirectoryPicker === 'function' && typeof indexedDB !== 'undefined';

// The remembered folder's id, its name in the page's cache (cache.js): a handle has none of
// its own, and the folder's name alone could be another folder's.
const ID_KEY = 'copilot-lens.remembered-id';

/** The remembered folder's id in the page's cache, or null. */
export const rememberedId = () => localStorage.getItem(ID_KEY);

export async function rememberFolder(handle) {
  await transact('readwrite', (store) => store.put(handle, KEY));
  localStorage.setItem(ID_KEY, `remembered:${crypto.randomUUID()}`);
}

/** Forgets the folder; returns the id it had, whose cache goes too. */
export async function forgetFolder() {
  const id = rememberedId();
  localStorage.removeItem(ID_KEY);
  await transact('readwrite', (store) => store.delete(KEY));
  return id;
}

/** The remembered folder's handle, or null (none kept, or storage refused). */
export async function rememberedFolder() {
  if (!canRemember()) return null;
  try {
    return (await transact('readonly', (store) => store.get(KEY))) || null;
  } catch {
    return null;
  }
}

/** Asks the browser (and through it the person) to read the folder again; true when allowed. */
export async function mayRead(handle) {
  const options = { mode: 'read' };
  if ((await handle.queryPermission(options)) === 'granted') return true;
  return (await handle.requestPermission(options)) === 'granted';
}
