// The page: input, the engine worker, progress, and the views. The stable surface for tests:
// document.body.dataset.state is idle | working | done | error, and when done,
// window.copilotLens.summary is {files, sessions, rows, usage_rows, bad_lines, total_tokens};
// window.copilotLens.handedOver is {paths, files}: the paths listed to the
// worker and the Files (or their bytes) posted to it; window.copilotLens.settled is set (seconds
// from the start) once the Files the analysis did not read are in too (the report's sizes,
// whole long texts), and the page's cache is kept.
import { clear, download, fmtBytes, fmtCredits, fmtInt, h, setTimeDisplay, timeDisplay } from './dom.js';
import { Cancelled, EngineClient, WorkerCrash, embeddedDemo } from './engine.js';
import { canRemember, forgetFolder, mayRead, rememberFolder, rememberedFolder, rememberedId } from './remember.js';
import {
  describeRoots,
  rootFromDirectoryHandle,
  rootsFromDataTransfer,
  rootsFromFiles,
  rootsFromFolderInput,
  useLayout,
  whatIsIn,
} from './input.js';
import { drawWhere } from './where.js';
import { zoneOffsets } from './zone.js';

// Each view's module is fetched when first shown: the overview's once a first analysis is done,
// with the chart library it draws with (scripts/first-load.mjs counts what a first visit costs
// until done).
const VIEWS = {
  overview: () => import('./views/overview.js'),
  usage: () => import('./views/usage.js'),
  month: () => import('./views/month.js'),
  sessions: () => import('./views/sessions.js'),
  timeline: () => import('./views/timeline.js'),
  inventory: () => import('./views/inventory.js'),
  diagnostics: () => import('./views/diagnostics.js'),
  exports: () => import('./views/exports.js'),
};
const loadedViews = {};
/** The view's module, fetched once. */
const view = (id) => (loadedViews[id] ??= VIEWS[id]());

/** An element of index.html by its id (most are inputs). @type {{ (id: 'progress-bar'): HTMLProgressElement, (id: string): HTMLInputElement }} */
const $ = (id) => /** @type {any} */ (document.getElementById(id));
const body = document.body;

const lens = {
  state: 'idle',
  summary: null,
  warnings: [],
  seconds: null,
  timings: null,
  memory: null,
  settled: null,
  /** What the page's cache did in the last analysis (the worker's `cache`). */
  cache: null,
  error: null,
  engineReady: false,
  crashWorkerForTest: () => engine.crashForTest(),
};
window.copilotLens = lens;

let currentRoots = [];
let analysisGen = 0;
let ctx = null;
let activeView = 'overview';

function setState(state) {
  lens.state = state;
  body.dataset.state = state;
  $('progress').hidden = state !== 'working';
  $('error').hidden = state !== 'error';
  $('tabs').hidden = state !== 'done';
  $('views').hidden = state !== 'done';
  for (const el of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#input-panel button, #input-panel input'))) {
    if (el.id !== 'rerun') el.disabled = state === 'working';
  }
  $('rerun').disabled = state === 'working' || !currentRoots.length;
  foldInput(state === 'done');
  mainActionLabel();
}

// ---- the input panel ---------------------------------------------------------------------------

/** After an analysis the panel folds to one line saying what is in; a button opens it again. */
function foldInput(folded) {
  $('input-collapsed').hidden = !folded;
  $('input-body').hidden = folded;
  $('input-expand').setAttribute('aria-expanded', 'false');
  if (!folded) return;
  $('inputs-line').hidden = true;
  $('input-summary').textContent = `Analysed: ${whatIsIn(currentRoots)}`;
  const home = currentRoots.find((root) => root.wholeHome);
  $('pick-hint').hidden = !home;
  if (home) {
    const folders = (engine.facts?.sources || []).map((source) => `${source.title}'s ${source.own_folder} folder`).join(' or ');
    const skipped = home.skipped ? ` (${fmtInt(home.skipped)} of its other files were left unread)` : '';
    $('pick-hint').textContent = `${home.label} is a whole home folder: only its Copilot folders were read${skipped}. Next time, open its ${folders} itself: the browser then lists only those files and it starts sooner.`;
  }
}

/** The main action opens the first source's folder; after an analysis it adds one (the
 *  other sources', or another). */
function mainActionLabel() {
  const sources = engine.facts?.sources;
  if (!sources) return;
  const [first, ...others] = sources;
  const folders = others.map((source) => `${source.title}'s ${source.own_folder} folder`);
  const remembered = !$('remembered').hidden;
  if (lens.state === 'done') $('open-copilot').textContent = `Add a folder (${[...folders, 'or another'].join(', ')})`;
  else $('open-copilot').textContent = remembered ? `Open another ${first.own_folder} folder` : `Open your ${first.own_folder} folder`;
}

/** The tagline's sources, from the engine: each one's own folder. */
function nameSources(sources) {
  const folders = sources.map((source) => `${source.title}'s ${source.own_folder} folder`);
  $('tagline-sources').textContent = new Intl.ListFormat('en', { type: 'conjunction' }).format(folders);
}

function showError(title, message) {
  $('error-title').textContent = title;
  $('error-message').textContent = message;
  $('retry').hidden = !currentRoots.length;
  lens.error = message;
  setState('error');
}

// ---- engine ------------------------------------------------------------------------------------

let progressStarted = 0;

function onProgress(p) {
  // Sizes are learnt as the files are handed over, so the bar follows the files.
  const fraction = p.files_total > 0 ? Math.min(1, p.files / p.files_total) : 0;
  $('progress-bar').value = fraction;
  const seconds = (performance.now() - progressStarted) / 1000;
  $('progress-text').textContent =
    `${fmtInt(p.files)} of ${fmtInt(p.files_total)} files (${Math.round(fraction * 100)}%) · ` +
    `${fmtBytes(p.bytes)} read · ${seconds.toFixed(1)} s`;
  $('progress-file').textContent = p.file ? `Reading ${p.file}` : 'Joining and deduplicating…';
}

function onCrash(error) {
  if (lens.state === 'working') return; // the running analysis reports it
  showError('The engine stopped', `${error.message}. A fresh engine has been started.`);
}

function onSettled() {
  if (lens.state === 'done') lens.settled = (performance.now() - progressStarted) / 1000;
}

const engine = new EngineClient({ onProgress, onCrash, onSettled });

function startEngine() {
  $('engine-status').textContent = 'Loading the engine…';
  engine.start().then(
    () => {
      useLayout(engine.facts);
      drawWhere($('where-steps'), engine.facts);
      nameSources(engine.facts.sources);
      mainActionLabel();
      lens.engineReady = true;
      body.dataset.engine = 'ready';
      $('engine-status').textContent = 'Engine ready (WebAssembly, in a worker).';
    },
    (error) => {
      body.dataset.engine = 'failed';
      $('engine-status').textContent = 'The engine did not load.';
      showError('The engine did not load', String(error.message || error));
    },
  );
}

// ---- analysis ----------------------------------------------------------------------------------

function options() {
  // Today (UTC) by this page's clock: usage after tomorrow is flagged implausible_date.
  const opts = { include_thinking: $('opt-thinking').checked, timezone: $('opt-timezone').value, today: todayUtc() };
  if (opts.timezone !== 'UTC') opts.zone_offsets = zoneOffsets(opts.timezone);
  const rates = $('opt-rates').files[0];
  if (rates) opts.rates_file = rates;
  // The engine's memory limit in MiB (default 3072): `?memory-limit-mib=N` lowers it.
  const limit = Number(new URLSearchParams(location.search).get('memory-limit-mib'));
  if (limit > 0) opts.memory_limit_mib = limit;
  return opts;
}

/**
 * Today in UTC (YYYY-MM-DD) by this page's clock: the billing month's "today" (the core has no
 * clock). `?today=YYYY-MM-DD` fixes it, for tests only.
 */
function todayUtc() {
  const fixed = new URLSearchParams(location.search).get('today');
  if (fixed && /^\d{4}-\d{2}-\d{2}$/.test(fixed) && !Number.isNaN(Date.parse(fixed + 'T00:00:00Z'))) return fixed;
  return new Date().toISOString().slice(0, 10);
}

/** The same input analysed again with the model's reasoning (the transcript's offer). */
function analyseWithThinking() {
  $('opt-thinking').checked = true;
  return analyse(currentRoots);
}

/**
 * The inputs' key in the page's cache: each root's id, one a line. A remembered folder has an
 * id of its own; another folder is known by its name, a zip by its name and size (the engine
 * checks every file it takes from the cache against the file itself, its size and time or its
 * bytes, so a name is enough).
 */
function cacheKey(roots) {
  const idOf = (root) => root.cacheId || (root.kind === 'zip' ? `zip:${root.label}:${root.file.size}` : `folder:${root.label}`);
  return roots.map(idOf).join('\n');
}

const TITLE = document.title;
/** @type {Promise<typeof import('./live.js')> | null} */
let live = null;

/** The tab's title says today's AI credits (UTC, the Month view's figure) of the analysis `shown`. */
async function showToday(shown) {
  const today = todayUtc();
  const day = (await shown.ask({ month: { month: today, today, allowance: null, budget: null } })).days.find((d) => d.day === today);
  if (shown === ctx) document.title = `${fmtCredits(day ? day.recorded + day.estimated : 0)} cr today · ${TITLE}`;
}

/**
 * The cache line: what the last analysis took from the cache and kept, or why it could not; after
 * a refresh, what changed (`changes`), with the cache's counts as its title.
 */
function showCache(cache, seconds, changes = null) {
  lens.cache = cache;
  $('cache-line').hidden = !cache;
  $('cache-status').title = '';
  if (!cache) return;
  let text;
  if (cache.unavailable) text = `Not cached: ${cache.unavailable}.`;
  else if (cache.from_cache > 0 || cache.grown > 0) {
    const grown = cache.grown === 0 ? ''
      : ` (${fmtInt(cache.grown)} grown ${cache.grown === 1 ? 'log parsed from where it ended' : 'logs parsed from where they ended'})`;
    const unopened = cache.unread === 0 ? '' : ` (${fmtInt(cache.unread)} not opened)`;
    text = `Analysed again in ${seconds.toFixed(1)} s: ${fmtInt(cache.changed)} ${cache.changed === 1 ? 'file' : 'files'} changed${grown}, ${fmtInt(cache.from_cache)} from the cache${unopened}.`;
  } else if (cache.changed > 0) text = `Analysed in ${seconds.toFixed(1)} s${cache.kept ? "; kept in this browser's cache for the next time" : ''}.`;
  else text = `Analysed in ${seconds.toFixed(1)} s; nothing kept in the cache (a zip's logs are read again each time).`;
  if (changes && !cache.unavailable) {
    $('cache-status').title = text;
    text = `Refreshed in ${seconds.toFixed(1)} s: ${changes}`;
  }
  if (cache.problem) text += ` ${cache.problem}`;
  $('cache-status').textContent = text;
  $('clear-cache').hidden = Boolean(cache.unavailable);
}

/** Analyses `newRoots`, with the roots already in when `add`. */
async function analyse(newRoots, add = false) {
  if (newRoots.bills && newRoots.bills.length) {
    lens.bills = newRoots.bills;
    // A report given alone, after the analysis: the Month view shows it, nothing is read again.
    if (!newRoots.length && lens.state === 'done') {
      clear($('view-month')).dataset.rendered = '';
      return showView('month');
    }
  }
  const roots = add ? [...currentRoots, ...newRoots] : newRoots;
  if (!roots.length) return;
  // A refresh (the remembered folder again, by Refresh or its timer) says what changed since:
  // the sessions as they were.
  const refresh = roots.length === 1 && Boolean(roots[0].cacheId) && ctx && lens.state === 'done' && ctx.inputsKey === cacheKey(roots);
  const before = refresh ? await ctx.get('sessions').catch(() => null) : null;
  const gen = ++analysisGen;
  currentRoots = roots;
  lens.summary = null;
  lens.settled = null;
  showCache(null);
  lens.error = null;
  $('inputs-line').hidden = false;
  $('inputs-line').textContent = `Input: ${describeRoots(roots)}`;
  $('progress-bar').value = 0;
  $('progress-text').textContent = 'Listing…';
  $('progress-file').textContent = '';
  progressStarted = performance.now();
  setState('working');
  const opts = options();
  try {
    const result = await engine.analyze(roots, opts, cacheKey(roots));
    if (gen !== analysisGen) return;
    // Seconds: the worker's steps, and the whole run as this page saw it.
    lens.timings = { ...result.timings, total: (performance.now() - progressStarted) / 1000 };
    lens.summary = result.summary;
    lens.warnings = result.warnings;
    lens.seconds = result.seconds;
    lens.memory = result.memory;
    lens.handedOver = engine.handedOver;
    ctx = makeContext(gen, result, opts);
    // A refresh follows an analysis of the same remembered folder, which loaded live.js.
    showCache(result.cache, lens.timings.total, before && live && (await live).changedWords(before, await ctx.get('sessions')));
    if (gen !== analysisGen) return;
    for (const id of Object.keys(VIEWS)) clear($(`view-${id}`)).dataset.rendered = '';
    setState('done');
    showView(activeView in VIEWS ? activeView : 'overview');
    showToday(ctx);
    // A remembered folder's refresh on a timer (www/live.js, loaded when one is analysed).
    const refreshable = roots.length === 1 && Boolean(roots[0].cacheId);
    if (refreshable || live) {
      live ||= import('./live.js');
      live.then((l) => l.follow({ refreshable, analyseAgain: (handle, cacheId) => lens.state === 'done' && analyseHandle(handle, { cacheId }), cache: result.cache, seconds: lens.timings.total }));
    }
  } catch (error) {
    if (gen !== analysisGen) return;
    if (error instanceof Cancelled) {
      setState('idle');
      $('inputs-line').textContent = 'Cancelled. Drop or pick something to start again.';
    } else if (error instanceof WorkerCrash) {
      showError('The engine stopped', `${error.message}. A fresh engine has been started.`);
    } else {
      showError('The analysis failed', String(error.message || error));
    }
  }
}

/** What a view is given: the analysis done, and how to ask the engine about it. @typedef {ReturnType<typeof makeContext>} ViewContext */

function makeContext(gen, result, { timezone: zone, include_thinking: thinkingIncluded }) {
  const cache = new Map();
  const context = {
    gen,
    summary: result.summary,
    warnings: result.warnings,
    /** What the page's cache did, or why it was not used (the worker's `cache`). */
    cache: result.cache,
    seconds: result.seconds,
    timings: result.timings,
    memory: result.memory,
    roots: currentRoots,
    /** The inputs' key: the same on a refresh of them, when views keep their filters. */
    inputsKey: cacheKey(currentRoots),
    /** The zone the analysis grouped its days in (the billing month needs UTC's). */
    zone,
    /** Whether the analysis kept the model's reasoning (thinking rows), and how to run it again with it. */
    thinkingIncluded,
    analyseWithThinking,
    today: todayUtc,
    engine,
    /**
     * The answer's value to a request.
     * @template {import('./types').Request} R
     * @param {R} request
     */
    ask: (request) => engine.ask(request),
    /** GitHub's usage reports given (Files), and their reconciliation (read in the worker). */
    bills: () => lens.bills || [],
    addBills(files) {
      lens.bills = [...(lens.bills || []), ...files];
    },
    reconcileBill: (files, user) => engine.reconcileBill(files, user),
    /** The plans the CLI's --plan knows (src/usage/plans.json). */
    plans: engine.facts.plans,
    /**
     * The answer's value to a request, kept for this analysis.
     * @template {import('./types').Request} R
     * @param {R} request
     * @returns {Promise<import('./messages').AnswerTo<R>>}
     */
    get(request) {
      const key = JSON.stringify(request);
      if (!cache.has(key)) {
        const promise = engine.ask(request);
        promise.catch(() => cache.delete(key));
        cache.set(key, promise);
      }
      return cache.get(key);
    },
    alive: () => gen === analysisGen && lens.state === 'done',
    download,
    /** A session's transcript, at the row of table index `index` when given. */
    async openSession(id, index = null) {
      await showView('sessions');
      await (await view('sessions')).open(id, context, index);
    },
    /** The Sessions view's list, filtered to one project. */
    async openProject(project) {
      await showView('sessions');
      (await view('sessions')).showProject(project, context);
    },
    async showTimeline(filter) {
      await showView('timeline');
      await (await view('timeline')).applyFilter(filter, context);
    },
    /** The timeline filtered as asked, scrolled to the row at `position` and showing it. */
    async showTimelineRow(filter, position) {
      await showView('timeline');
      await (await view('timeline')).showRow(filter, position, context);
    },
  };
  return context;
}

// ---- views -------------------------------------------------------------------------------------

function showView(id) {
  activeView = id;
  for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('#tabs button'))) {
    const on = button.dataset.view === id;
    button.setAttribute('aria-selected', String(on));
    button.tabIndex = on ? 0 : -1;
    button.classList.toggle('active', on);
  }
  for (const name of Object.keys(VIEWS)) $(`view-${name}`).hidden = name !== id;
  const container = $(`view-${id}`);
  if (!ctx) return Promise.resolve();
  if (container.dataset.rendered !== String(ctx.gen)) {
    container.dataset.rendered = String(ctx.gen);
    const shown = ctx;
    container.dataset.ready = '';
    rendering[id] = view(id)
      .then((module) => module.render(container, shown))
      .then(
        () => {
          if (shown === ctx) container.dataset.ready = String(shown.gen);
          scrollBoxes ||= import('./scroll-boxes.js').then((module) => module.watchScrollBoxes($('views')));
        },
        (error) => {
          if (shown !== ctx) return;
          container.appendChild(h('p.error-inline', null, `This view failed: ${error.message || error}`));
          container.dataset.ready = String(shown.gen);
        },
      );
  } else {
    const shown = ctx;
    view(id).then((module) => module.shown?.(container, shown));
  }
  return rendering[id];
}
const rendering = {};
/** The views' scroll boxes made reachable by keyboard, once a first view is drawn (not in the first download). */
let scrollBoxes = null;

// Times in UTC or this browser's zone: every view is drawn again in the other.
{
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local';
  $('opt-times-local').textContent = `${zone} (this browser)`;
  $('opt-times').value = timeDisplay();
  $('opt-times').addEventListener('change', (/** @type {InputChange} */ event) => {
    setTimeDisplay(event.target.value);
    for (const name of Object.keys(VIEWS)) clear($(`view-${name}`)).dataset.rendered = '';
    if (ctx && activeView) showView(activeView);
  });
}

for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('#tabs button'))) {
  button.addEventListener('click', () => showView(button.dataset.view));
}
// The tabs as a keyboard expects them: arrows, Home and End move between them and show the view.
$('tabs').addEventListener('keydown', (event) => {
  const tabs = [.../** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('#tabs button'))];
  const at = tabs.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
  if (at < 0) return;
  const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  const tab = tabs[(to + tabs.length) % tabs.length];
  tab.focus();
  showView(tab.dataset.view);
});

// ---- input -------------------------------------------------------------------------------------

for (const [id, add] of /** @type {Array<[string, boolean]>} */ ([['pick-folder', false], ['add-folder', true]])) {
  $(id).addEventListener('change', (/** @type {InputChange} */ event) => {
    const roots = rootsFromFolderInput(event.target.files);
    event.target.value = '';
    analyse(roots, add);
  });
}

// The main action: first a word on what the browser is about to ask, then its folder picker
// (File System Access where there is one, else <input webkitdirectory>).
$('open-copilot').addEventListener('click', () => {
  $('before-prompt').hidden = false;
  $('before-prompt').dataset.adding = String(lens.state === 'done');
  $('before-prompt-go').focus();
});
$('before-prompt-cancel').addEventListener('click', () => {
  $('before-prompt').hidden = true;
  $('open-copilot').focus();
});
$('before-prompt-go').addEventListener('click', async () => {
  const add = $('before-prompt').dataset.adding === 'true';
  $('before-prompt').hidden = true;
  if (typeof window.showDirectoryPicker !== 'function') return $(add ? 'add-folder' : 'pick-folder').click();
  let handle;
  try {
    handle = await window.showDirectoryPicker({ mode: 'read' });
  } catch {
    return; // the user closed the picker
  }
  let cacheId = null;
  if ($('remember-folder').checked && !add) {
    await forgetRemembered();
    cacheId = await rememberFolder(handle).then(rememberedId, () => null);
    offerRemembered();
  }
  analyseHandle(handle, { add, cacheId });
});

$('input-expand').addEventListener('click', () => {
  const open = $('input-body').hidden;
  $('input-body').hidden = !open;
  $('input-expand').setAttribute('aria-expanded', String(open));
});

// Start over: nothing in, the start screen.
$('start-over').addEventListener('click', () => {
  analysisGen += 1;
  currentRoots = [];
  ctx = null;
  lens.summary = null;
  lens.bills = [];
  for (const id of Object.keys(VIEWS)) clear($(`view-${id}`)).dataset.rendered = '';
  $('inputs-line').hidden = true;
  setState('idle');
  $('open-copilot').focus();
  // Nothing shown: no figure in the tab's title, no refresh on a timer.
  document.title = TITLE;
  if (live) live.then((l) => l.follow({ refreshable: false }));
});

$('pick-files').addEventListener('change', (/** @type {InputChange} */ event) => {
  const roots = rootsFromFiles([...event.target.files]);
  event.target.value = '';
  analyse(roots);
});

/**
 * Lists a directory handle's folder and analyses it, with the roots already in when `add`;
 * `cacheId` is a remembered folder's.
 */
async function analyseHandle(handle, { add = false, cacheId = null } = {}) {
  $('inputs-line').hidden = false;
  $('inputs-line').textContent = `Listing ${handle.name}…`;
  const root = await rootFromDirectoryHandle(
    handle,
    (n) => {
      $('inputs-line').textContent = `Listing ${handle.name}: ${fmtInt(n)} files…`;
    },
    (paths) => engine.neverOpened(paths),
  );
  if (cacheId) root.cacheId = cacheId;
  await analyse([root], add);
  // Analysed once here, the remembered folder is refreshed with one click (from the cache).
  $('refresh-folder').hidden = !cacheId || lens.state !== 'done';
}

/** Analyses the remembered folder again, once the browser allows reading it. */
async function reopenRemembered() {
  const handle = await rememberedFolder();
  if (!handle) return offerRemembered();
  if (await mayRead(handle).catch(() => false)) analyseHandle(handle, { cacheId: rememberedId() });
  else {
    $('inputs-line').hidden = false;
    $('inputs-line').textContent = `The browser did not allow reading ${handle.name}: open it again with the button above.`;
  }
}

/** Forgets the remembered folder, and what the page's cache kept of it. */
async function forgetRemembered() {
  const id = await forgetFolder().catch(() => null);
  $('refresh-folder').hidden = true;
  if (id) await engine.cache('forget', id).catch(() => {});
}

/** Offers the folder remembered from a visit before, if any. */
async function offerRemembered() {
  const handle = await rememberedFolder();
  $('remembered').hidden = !handle;
  if (handle) $('reopen-folder').textContent = `Analyse ${handle.name} again`;
  // The remembered folder is the main button; opening another is then the second choice.
  $('open-copilot').classList.toggle('primary', !handle);
  $('open-copilot').classList.toggle('big', !handle);
  mainActionLabel();
  $('remember-folder').checked = Boolean(handle);
  return handle;
}

if (typeof window.showDirectoryPicker === 'function') {
  $('remember-line').hidden = !canRemember();
  $('reopen-folder').addEventListener('click', reopenRemembered);
  $('refresh-folder').addEventListener('click', reopenRemembered);
  $('forget-folder').addEventListener('click', async () => {
    await forgetRemembered();
    offerRemembered();
  });
  $('remember-folder').addEventListener('change', async (/** @type {InputChange} */ event) => {
    if (!event.target.checked) {
      await forgetRemembered();
      offerRemembered();
    }
  });
  offerRemembered();
}

const dropZone = $('drop-zone');
for (const type of ['dragenter', 'dragover']) {
  document.addEventListener(type, (event) => {
    event.preventDefault();
    dropZone.classList.add('over');
  });
}
document.addEventListener('dragleave', (event) => {
  if (!event.relatedTarget) dropZone.classList.remove('over');
});
document.addEventListener('drop', async (event) => {
  event.preventDefault();
  dropZone.classList.remove('over');
  if (lens.state === 'working' || !event.dataTransfer) return;
  $('inputs-line').hidden = false;
  $('inputs-line').textContent = 'Listing the dropped items…';
  try {
    const roots = await rootsFromDataTransfer(event.dataTransfer, (n) => {
      $('inputs-line').textContent = `Listing the dropped items: ${fmtInt(n)} files…`;
    });
    analyse(roots);
  } catch (error) {
    showError('The dropped items could not be listed', String(error.message || error));
  }
});

$('demo').addEventListener('click', async () => {
  try {
    let blob = embeddedDemo();
    if (!blob) {
      const response = await fetch('demo/copilot-demo.zip');
      if (!response.ok) throw new Error(`demo/copilot-demo.zip: ${response.status}`);
      blob = await response.blob();
    }
    const file = new File([blob], 'copilot-demo.zip', { type: 'application/zip', lastModified: Date.UTC(2026, 10, 29, 12) });
    analyse([{ kind: 'zip', label: file.name, file, count: 1 }]);
  } catch (error) {
    showError('The demo could not be loaded', String(error.message || error));
  }
});

$('clear-cache').addEventListener('click', async () => {
  const after = await engine.cache('clear').catch((error) => ({ unavailable: String(error.message || error) }));
  $('cache-status').textContent = after.unavailable ? `Not cleared: ${after.unavailable}.` : 'The cache is cleared: the next analysis reads every file.';
  $('clear-cache').hidden = true;
});

$('cancel').addEventListener('click', () => {
  engine.cancel().catch(() => {});
});

$('start-again').addEventListener('click', () => {
  setState('idle');
  startEngine();
});

$('retry').addEventListener('click', () => analyse(currentRoots));

$('rerun').addEventListener('click', () => analyse(currentRoots));

// The zone the usage days are grouped in: UTC, as the command-line tool, or this browser's.
{
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone && zone !== 'UTC') $('opt-timezone').appendChild(h('option', { value: zone }, `${zone} (this browser)`));
}
$('build-kind').textContent = document.getElementById('embedded-wasm') ? 'This is the single-file build.' : '';

setState('idle');
startEngine();
