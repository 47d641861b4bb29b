// Turns what the user gives (a dropped DataTransfer, a picked folder or files, a directory
// handle) into roots for the engine. Only listings are made here, never file contents: File
// objects go to the worker, which reads them lazily.
//   - a folder is one root, its paths relative to it;
//   - a .zip is one root;
//   - loose files together are one root, their names as paths.
// Inside a home folder only the folders the native tool walks are listed (the rest of a home is
// none of our business); elsewhere, trees that never hold Copilot data are skipped.

// The folders of a home that hold the sources' files, and the data folders among them, as the
// engine says (engine_facts; the native tool walks the same). Until the engine has said, a home
// is listed whole: the engine still reads only its own files, it only takes longer.
let layout = { home: [], files: [], data: [], walkRules: [], sources: [] };

/** Takes the folder lists and walk rules from the engine's facts. */
export function useLayout(facts) {
  layout = { home: facts.home_folders, files: facts.home_files, data: facts.data_folders, walkRules: facts.walk_rules, sources: facts.sources };
}

// Below some folders only some child folders are walked (VS Code's user data is mostly other
// extensions' storage and caches): a rule's `dir` matches the last parts of a folder's path,
// `*` any one part, as the engine's `WalkRule::applies_to` does.
function walkOnly(folder) {
  const have = folder.split('/');
  const rule = layout.walkRules.find(({ dir }) => {
    const want = dir.split('/');
    const end = have.slice(-want.length);
    return end.length === want.length && want.every((part, i) => part === '*' || part === end[i]);
  });
  return rule ? rule.only : null;
}

/** Would a walk from a folder named `top` reach `path` (a file's, relative to it)? */
function walkReaches(top, path) {
  const parts = path.split('/');
  let folder = top;
  for (const part of parts.slice(0, -1)) {
    const only = walkOnly(folder);
    if (only && !only.includes(part)) return false;
    folder = folder ? `${folder}/${part}` : part;
  }
  return true;
}

/** Folders skipped when walking a folder that is not a home. */
const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '__pycache__', '.venv', '.tox', '.gradle', '.m2', '.npm', '.cargo', '.rustup']);

// A file named like another kind of archive is given to the engine as a zip too: it tells what
// the file is by its first bytes and says so (a .tar.gz is to be extracted), as the native tool does.
const isArchive = (file) => /\.(zip|tar|tgz|gz|bz2|tbz2?|xz|txz|zst|7z|rar)$/i.test(file.name);

// File metadata (size, lastModified) is not touched here: for a picked file Chromium fetches it
// from the browser process on first use, about 0.15 ms a file, so the worker does it.
/** @returns {import('./messages').FilesRoot} */
function filesRoot(label, entries) {
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { kind: 'files', label, files: entries.map((e) => e.file), paths: entries.map((e) => e.path), count: entries.length };
}

/** @returns {import('./messages').ZipRoot} */
function zipRoot(file) {
  return { kind: 'zip', label: file.name, file, count: 1 };
}

/** Is a root-relative path inside a home's Copilot folders, or one of the files at its top? */
function inHomeFolders(path) {
  return layout.home.some((folder) => path.startsWith(folder + '/')) || layout.files.includes(path);
}

/**
 * Keeps only the home folders if the listing is a home's, as the native tool does; the root
 * says it was a whole home, and how many of its files were left out, unread and never posted.
 */
function homeRoot(label, entries, skipped) {
  const isHome = entries.some((e) => layout.data.some((folder) => e.path.startsWith(folder + '/')));
  const kept = isHome ? entries.filter((e) => inHomeFolders(e.path)) : entries;
  const root = filesRoot(label, kept);
  root.wholeHome = isHome;
  root.skipped = skipped + entries.length - kept.length;
  return root;
}

/** Files of one <input webkitdirectory> pick: one root named after the picked folder. */
export function rootsFromFolderInput(fileList) {
  const byTop = new Map();
  let skipped = 0;
  for (const file of fileList) {
    const relative = file.webkitRelativePath || file.name;
    const slash = relative.indexOf('/');
    const top = slash >= 0 ? relative.slice(0, slash) : '';
    const path = slash >= 0 ? relative.slice(slash + 1) : relative;
    if ((path.split('/').some((part) => SKIP_DIRS.has(part)) && !inHomeFolders(path)) || !walkReaches(top, path)) {
      skipped += 1;
      continue;
    }
    if (!byTop.has(top)) byTop.set(top, []);
    byTop.get(top).push({ file, path });
  }
  return [...byTop].map(([top, entries]) => homeRoot(top || 'folder', entries, skipped));
}

/** GitHub's usage report (a CSV given beside the data): reconciled in the Month view, never a root. */
const isBill = (file) => /\.csv$/i.test(file.name);

/**
 * Files of <input multiple> (or dropped loose files): each zip (or other archive) is a root, the
 * rest one root; CSV files are GitHub's usage reports, kept apart as the roots' `bills`.
 */
export function rootsFromFiles(files) {
  /** @type {import('./messages').PickedRoots} */
  const roots = [];
  const loose = [];
  for (const file of files.filter((file) => !isBill(file))) {
    if (isArchive(file)) roots.push(zipRoot(file));
    else loose.push({ file, path: file.name });
  }
  if (loose.length) roots.push(filesRoot(loose.length === 1 ? loose[0].file.name : `${loose.length} files`, loose));
  roots.bills = files.filter(isBill);
  return roots;
}

// ---- directory entries (drag and drop) -------------------------------------------------------

function readEntries(reader) {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

async function listDirectoryEntry(directory) {
  const reader = directory.createReader();
  const all = [];
  // readEntries gives at most 100 entries a call; call until it gives none.
  for (;;) {
    const batch = await readEntries(reader);
    if (!batch.length) break;
    all.push(...batch);
  }
  return all;
}

const WALK_AT_ONCE = 64;

/** Runs the tasks given to it, at most `count` at once. */
function limiter(count) {
  let running = 0;
  const waiting = [];
  return async (task) => {
    if (running >= count) await new Promise((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}

function entryFile(entry) {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/**
 * Walks a dropped directory entry (or anything shaped like one: isFile, isDirectory, name,
 * file(), createReader()) into one root. `onCount` is told how many files are listed so far.
 * `open(child, path, atOnce)` gives a file's File (or what stands for it), through `atOnce`.
 */
/** @param {(count: number) => void} [onCount] */
export async function rootFromDirectoryEntry(directory, onCount = () => {}, open = (child, path, atOnce) => atOnce(() => entryFile(child))) {
  const entries = [];
  const problems = [];
  const top = await listDirectoryEntry(directory);
  // A home (it holds one of the Copilot folders) is walked only in its Copilot folders.
  const hasFolder = async (path) => {
    let list = top;
    for (const part of path.split('/')) {
      const next = list.find((e) => e.isDirectory && e.name === part);
      if (!next) return false;
      if (part !== path.split('/').pop()) list = await listDirectoryEntry(next).catch(() => []);
    }
    return true;
  };
  let homeWanted = null;
  for (const folder of layout.data) {
    if (await hasFolder(folder)) homeWanted = layout.home;
  }
  // Each listing and File is a round trip to the browser, WALK_AT_ONCE under way at once (one
  // at a time, 12,000 files took 12 s); filesRoot sorts the paths.
  const atOnce = limiter(WALK_AT_ONCE);
  const walk = async (prefix, children) => {
    const only = walkOnly(prefix ? `${directory.name}/${prefix.slice(0, -1)}` : directory.name);
    const visit = async (child) => {
      const path = prefix + child.name;
      if (child.isDirectory) {
        if (only && !only.includes(child.name)) return;
        if (homeWanted) {
          const wanted = homeWanted.some((folder) => folder === path || folder.startsWith(path + '/') || path.startsWith(folder + '/'));
          if (!wanted) return;
        } else if (SKIP_DIRS.has(child.name)) {
          return;
        }
        let grandchildren;
        try {
          grandchildren = await atOnce(() => listDirectoryEntry(child));
        } catch (error) {
          problems.push(`${path}: cannot list (${error.message || error})`);
          return;
        }
        await walk(path + '/', grandchildren);
      } else if (child.isFile) {
        if (homeWanted && !inHomeFolders(path)) return;
        try {
          entries.push({ file: await open(child, path, atOnce), path });
        } catch (error) {
          problems.push(`${path}: cannot open (${error.message || error})`);
        }
        if (entries.length % 500 === 0) onCount(entries.length);
      }
    };
    await Promise.all(children.map(visit));
  };
  await walk('', top);
  onCount(entries.length);
  const root = filesRoot(directory.name, entries);
  root.problems = problems.sort();
  root.wholeHome = Boolean(homeWanted);
  return root;
}

/** How many paths a walk asks `neverOpened` about at once (a round trip to the worker each). */
const ASKED_AT_ONCE = 512;

/**
 * Opens a walk's files but those `neverOpened(paths)` (the engine's `never_opened`) names:
 * their handles stand for them. The paths are asked in batches as the walk lists them, so
 * the Files are got while the walk goes on (a walk that listed first and got the Files after
 * took a third longer).
 */
function openingAllBut(neverOpened) {
  let batch = [];
  const ask = () => {
    const asked = batch;
    batch = [];
    if (!asked.length) return;
    neverOpened(asked.map((item) => item.path))
      .catch(() => [])
      .then((later) => {
        const skip = new Set(later);
        asked.forEach((item, index) => item.resolve(skip.has(index) ? item.handle : item.atOnce(() => item.handle.getFile())));
      });
  };
  return async (child, path, atOnce) => {
    const handle = await entryFile(child);
    return new Promise((resolve) => {
      if (!batch.length) setTimeout(ask);
      batch.push({ handle, path, atOnce, resolve });
      if (batch.length >= ASKED_AT_ONCE) ask();
    });
  };
}

/**
 * Walks a FileSystemDirectoryHandle (showDirectoryPicker) into one root. A File got from a
 * handle knows its size and time (a picked one asks the browser for them), so the root gives
 * them: the engine then takes from the cache each small file that did not change, unread.
 * Each File costs a round trip to the browser, whose process does most of a walk's work, so
 * the walk gets the Files of only the files an analysis may open (`openingAllBut`): the
 * others stay handles, without a size or time (NaN), until the engine asks for them after
 * the analysis.
 */
/** @param {(count: number) => void} [onCount] @param {(paths: string[]) => Promise<number[]>} [neverOpened] */
export async function rootFromDirectoryHandle(handle, onCount = () => {}, neverOpened = async () => []) {
  const adapt = (dir) => ({
    name: dir.name,
    isDirectory: true,
    isFile: false,
    createReader() {
      let done = false;
      return {
        readEntries: (resolve, reject) => {
          if (done) return resolve([]);
          done = true;
          (async () => {
            const list = [];
            for await (const child of dir.values()) {
              list.push(
                child.kind === 'directory'
                  ? adapt(child)
                  : { name: child.name, isFile: true, isDirectory: false, file: (ok) => ok(child) },
              );
            }
            return list;
          })().then(resolve, reject);
        },
      };
    },
  });
  const root = await rootFromDirectoryEntry(adapt(handle), onCount, openingAllBut(neverOpened));
  /** @param {File | FileSystemFileHandle} file @returns {file is File} */
  const got = (file) => typeof (/** @type {FileSystemFileHandle} */ (file)).getFile !== 'function';
  root.sizes = root.files.map((file) => (got(file) ? file.size : NaN));
  root.times = root.files.map((file) => (got(file) ? file.lastModified : NaN));
  return root;
}

/**
 * A drop: each dropped folder a root, each zip a root, the other files one root. Entries must
 * be taken from the DataTransfer synchronously, before the first await.
 */
export async function rootsFromDataTransfer(dataTransfer, onCount) {
  const directories = [];
  const files = [];
  const items = dataTransfer.items ? [...dataTransfer.items] : [];
  for (const item of items) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry ? item.webkitGetAsEntry() : null;
    if (entry && entry.isDirectory) directories.push(entry);
    else {
      const file = item.getAsFile();
      if (file) files.push(file);
    }
  }
  if (!items.length && dataTransfer.files) files.push(...dataTransfer.files);
  /** @type {import('./messages').PickedRoots} */
  const roots = [];
  for (const directory of directories) roots.push(await rootFromDirectoryEntry(directory, onCount));
  const loose = rootsFromFiles(files);
  roots.push(...loose);
  roots.bills = loose.bills;
  return roots;
}

export function describeRoots(roots) {
  const kind = (root) => (/\.zip$/i.test(root.label) ? 'zip' : 'archive');
  return roots.map((root) => (root.kind === 'zip' ? `${root.label} (${kind(root)})` : `${root.label} (${root.count} files)`)).join(', ');
}

/** The sources whose folders a folder root holds (in a home, or as the folder itself), by title. */
function sourcesIn(root) {
  const holds = (path, entry) => path.startsWith(entry + '/') || path === entry || path.includes('/' + entry + '/');
  return layout.sources
    .filter((source) =>
      root.paths.some((path) => source.folders.some((folder) => path.startsWith(folder.path + '/')) || source.own_folder_holds.some((entry) => holds(path, entry))),
    )
    .map((source) => source.title);
}

/** What is in, one part a root: "copilot-home (Copilot CLI) + User (VS Code) + backup.zip". */
export function whatIsIn(roots) {
  return roots
    .map((root) => {
      if (root.kind === 'zip') return root.label;
      const titles = sourcesIn(root);
      return titles.length ? `${root.label} (${titles.join(' and ')})` : root.label;
    })
    .join(' + ');
}
