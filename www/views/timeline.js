// Timeline: every row in a virtualised table. Only the visible slice is in the DOM, and only
// it (plus a margin) is asked of the worker, which keeps the filtered order; so hundreds of
// thousands of rows scroll like a hundred. Beyond MAX_HEIGHT pixels the scrollbar is scaled.
import { add, clear, debounce, fmtCount, fmtInt, fmtTime, h, timeDisplay } from '../dom.js';
import { zoneOffsets } from '../zone.js';

// A row's height in pixels: style.css's --vt-row-height (two lines at phone width), read on resize.
let ROW_HEIGHT = 26;
const MAX_HEIGHT = 8_000_000;
const TEXT_LIMIT = 400;
// Cut texts read again whole per search step at first; then as many as take about STEP_MS.
const FIRST_BUDGET = 200;
const STEP_MS = 150;
const DAY_MS = 86_400_000;
const COLUMNS = [
  ['time', 'time'],
  ['type', 'type'],
  ['session', 'session'],
  ['project', 'project'],
  ['model', 'model'],
  ['tool', 'tool'],
  ['text', 'text'],
];

let state = null;

function emptyFilter() {
  return { turn_types: [], agent: '', session_id: '', project_path: '', model: '', tool_name: '', since: '', until: '', zone_offsets: [], search: '', prompts_only: false, newest_first: true };
}

const zoneName = () => (timeDisplay() === 'local' ? 'local' : 'UTC');

// The browser's zone as the engine takes it, for days in local time (looked up once).
let browserOffsets = null;
function daysZone() {
  if (timeDisplay() !== 'local') return [];
  browserOffsets ||= zoneOffsets(Intl.DateTimeFormat().resolvedOptions().timeZone);
  return browserOffsets;
}

/** Today (`YYYY-MM-DD`) by this page's clock, in the zone times are shown in. */
const today = () => fmtTime(new Date().toISOString()).slice(0, 10);
/** The calendar day `days` before `day`. */
const daysBefore = (day, days) => new Date(Date.parse(`${day}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);
// The presets' first and last day, from today.
const PRESETS = {
  today: (day) => [day, day],
  yesterday: (day) => [daysBefore(day, 1), daysBefore(day, 1)],
  week: (day) => [daysBefore(day, 6), day],
};

/** `text` as nodes, each case-insensitive match of `needle` in a <mark> (text nodes only). */
function highlighted(text, needle) {
  if (!needle) return [text];
  const pattern = new RegExp(needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu');
  const nodes = [];
  let from = 0;
  for (const match of text.matchAll(pattern)) {
    if (!match[0]) break;
    nodes.push(text.slice(from, match.index), h('mark', null, match[0]));
    from = match.index + match[0].length;
  }
  nodes.push(text.slice(from));
  return nodes;
}

/** @param {import('../app.js').ViewContext} ctx */
export async function render(container, ctx) {
  const facets = await ctx.get('facets');
  if (!ctx.alive()) return;
  const sessions = await ctx.get('sessions');
  const names = new Map(sessions.map((s) => [s.session_id, s.display_name]));
  // The engine's words for the turn types and a row's fields.
  const typeLabels = new Map(ctx.engine.facts.turn_type_labels);
  const controls = filterControls(ctx, facets, names);
  const table = rowTable();
  const detail = h('div#tl-detail.tl-detail', { hidden: true });
  add(container, h('h2.view-title', null, 'Timeline'), filterBar(controls, typeLabels), table.element, detail);

  state = {
    ctx,
    filter: emptyFilter(),
    filterKey: '',
    total: 0,
    cache: new Map(),
    inflight: false,
    wanted: null,
    pool: [],
    scroller: table.scroller,
    spacer: table.spacer,
    layer: table.layer,
    count: controls.count,
    detail,
    names,
    typeLabels,
    rowFields: ctx.engine.facts.row_fields,
    controls,
  };
  listen(controls, table.scroller);
  // The same inputs analysed again (a refresh) keep the filters and search.
  const filter = kept && kept.inputs === ctx.inputsKey ? kept.filter : emptyFilter();
  writeControls(filter);
  await setFilter(filter);
}

/** The filter's inputs, one per field of the engine's row filter, and the rows' count. */
function filterControls(ctx, facets, names) {
  const typeBoxes = ctx.engine.facts.turn_types.map((type) => h('input', { type: 'checkbox', value: type, dataset: { type } }));
  const select = (id, label, values) =>
    h(`select#${id}`, { title: label, attrs: { 'aria-label': label } }, h('option', { value: '' }, `all ${label}`), values.map((v) => h('option', { value: v }, v)));
  // Several agents (Copilot CLI, VS Code, ...): whose rows; hidden with one, as the Sessions view's homes.
  const agent = select('tl-agent', 'agents', facets.agents);
  agent.hidden = facets.agents.length < 2;
  const sessionInput = h('input#tl-session', { type: 'search', placeholder: 'session id', attrs: { list: 'tl-sessions' } });
  const sessionList = h('datalist#tl-sessions', null, facets.sessions.map((id) => h('option', { value: id }, names.get(id) || '')));
  const project = select('tl-project', 'projects', facets.projects);
  const model = select('tl-model', 'models', facets.models);
  const tool = select('tl-tool', 'tools', facets.tools);
  const since = h('input#tl-since', { type: 'date', title: `from (${zoneName()} day)` });
  const until = h('input#tl-until', { type: 'date', title: `to (${zoneName()} day)` });
  const preset = h(
    'select#tl-when',
    { title: `days in ${zoneName()} time`, attrs: { 'aria-label': 'When' } },
    h('option', { value: '' }, 'any day'),
    h('option', { value: 'today' }, 'Today'),
    h('option', { value: 'yesterday' }, 'Yesterday'),
    h('option', { value: 'week' }, 'Last 7 days'),
  );
  const search = h('input#tl-search', { type: 'search', placeholder: 'Search the text…' });
  const promptsOnly = h('input#tl-prompts-only', { type: 'checkbox' });
  const newestFirst = h('input#tl-newest-first', { type: 'checkbox', checked: true });
  const reset = h('button.button.small', null, 'Clear filters');
  const count = h('span#tl-count.muted');
  return { typeBoxes, agent, sessionInput, sessionList, project, model, tool, since, until, preset, search, promptsOnly, newestFirst, reset, count };
}

/** The bar the filter's inputs sit in, in the order a person reads them. */
function filterBar(c, typeLabels) {
  return h(
    'div.controls.tl-filters',
    null,
    h('span.type-boxes', null, c.typeBoxes.map((box) => h('label', null, box, ' ', typeLabels.get(box.value)))),
    c.agent,
    c.sessionInput,
    c.sessionList,
    c.project,
    c.model,
    c.tool,
    c.preset,
    h('label', null, 'from ', c.since),
    h('label', null, 'to ', c.until),
    c.search,
    h('label', null, c.promptsOnly, ' prompts only'),
    h('label', null, c.newestFirst, ' newest first'),
    c.reset,
    c.count,
  );
}

/** The rows' table: its head, and the scrolled layer that only the rows in view are drawn into. */
function rowTable() {
  const label = (key, text) => (key === 'time' ? `time (${zoneName()})` : text);
  const head = h('div.vt-head', null, COLUMNS.map(([key, text]) => h(`div.vt-cell.c-${key}`, null, label(key, text))));
  const spacer = h('div.vt-spacer');
  const layer = h('div.vt-layer');
  const scroller = h('div#tl-scroll.vt-scroll', { tabIndex: 0, attrs: { role: 'region', 'aria-label': 'timeline rows' } }, spacer, layer);
  return { element: h('div.vt', null, head, scroller), scroller, spacer, layer };
}

/** A change of any input sets the filter; scrolling, keys and a resize draw the rows again. */
function listen(c, scroller) {
  const readControls = () => {
    const f = emptyFilter();
    f.turn_types = c.typeBoxes.filter((b) => b.checked).map((b) => b.value);
    f.agent = c.agent.value;
    f.session_id = c.sessionInput.value.trim();
    f.project_path = c.project.value;
    f.model = c.model.value;
    f.tool_name = c.tool.value;
    f.since = c.since.value;
    f.until = c.until.value;
    if (f.since || f.until) f.zone_offsets = daysZone();
    f.search = c.search.value;
    f.prompts_only = c.promptsOnly.checked;
    f.newest_first = c.newestFirst.checked;
    setFilter(f);
  };
  c.preset.addEventListener('change', () => {
    [c.since.value, c.until.value] = c.preset.value ? PRESETS[c.preset.value](today()) : ['', ''];
    readControls();
  });
  for (const el of [c.since, c.until]) el.addEventListener('change', () => (c.preset.value = ''));
  for (const el of [...c.typeBoxes, c.agent, c.project, c.model, c.tool, c.since, c.until, c.promptsOnly, c.newestFirst]) el.addEventListener('change', readControls);
  c.sessionInput.addEventListener('change', readControls);
  c.search.addEventListener('input', debounce(readControls, 250));
  c.reset.addEventListener('click', () => {
    writeControls(emptyFilter());
    readControls();
  });
  scroller.addEventListener('scroll', () => draw(), { passive: true });
  scroller.addEventListener('keydown', keyboard);
  new ResizeObserver(() => {
    ROW_HEIGHT = parseFloat(getComputedStyle(scroller).getPropertyValue('--vt-row-height')) || ROW_HEIGHT;
    draw();
  }).observe(scroller);
}

function writeControls(f) {
  const c = state.controls;
  for (const box of c.typeBoxes) box.checked = f.turn_types.includes(box.value);
  c.agent.value = f.agent;
  c.sessionInput.value = f.session_id;
  c.project.value = f.project_path;
  c.model.value = f.model;
  c.tool.value = f.tool_name;
  c.since.value = f.since;
  c.until.value = f.until;
  c.preset.value = '';
  c.search.value = f.search;
  c.promptsOnly.checked = f.prompts_only;
  c.newestFirst.checked = f.newest_first;
}

/**
 * From elsewhere (a transcript's "Show in timeline"): sets the filter and shows it.
 * @param {import('../app.js').ViewContext} ctx
 */
export async function applyFilter(partial, ctx) {
  if (!state || state.ctx !== ctx) return;
  const f = { ...emptyFilter(), ...partial };
  writeControls(f);
  await setFilter(f);
}

/**
 * From a transcript: the rows of `partial`'s filter, scrolled to `position` (in time order), its detail open.
 * @param {import('../app.js').ViewContext} ctx
 */
export async function showRow(partial, position, ctx) {
  await applyFilter({ newest_first: false, ...partial }, ctx);
  const s = state;
  if (!s || s.ctx !== ctx) return;
  const { height } = geometry();
  const full = s.total * ROW_HEIGHT;
  s.scroller.scrollTop = full <= MAX_HEIGHT ? position * ROW_HEIGHT : (position / Math.max(1, s.total)) * height;
  await fetchSlice(position);
  await showDetail(position);
  s.detail.focus({ preventScroll: true });
}

/** The last filter, and the inputs it was set on: a refresh of them opens on it again. */
let kept = null;

async function setFilter(filter) {
  const s = state;
  if (JSON.stringify(filter) === s.filterKey) return;
  kept = { inputs: s.ctx.inputsKey, filter };
  s.filter = filter;
  s.filterKey = JSON.stringify(filter);
  s.cache = new Map();
  s.detail.hidden = true;
  s.count.textContent = 'Filtering…';
  s.countKey = null;
  s.scroller.scrollTop = 0;
  await fetchSlice(0);
}

function geometry() {
  const s = state;
  const viewport = s.scroller.clientHeight || 400;
  const full = s.total * ROW_HEIGHT;
  const height = Math.min(full, MAX_HEIGHT);
  const visible = Math.ceil(viewport / ROW_HEIGHT) + 1;
  let first;
  if (full <= MAX_HEIGHT) first = s.scroller.scrollTop / ROW_HEIGHT;
  else {
    const scrollable = Math.max(1, height - viewport);
    first = (s.scroller.scrollTop / scrollable) * Math.max(0, s.total - viewport / ROW_HEIGHT);
  }
  first = Math.max(0, Math.min(first, Math.max(0, s.total - 1)));
  return { height, visible, first };
}

/** Asks the worker for rows around `first`; one request at a time, the latest wish wins. */
async function fetchSlice(first) {
  const s = state;
  const { visible } = geometry();
  const start = Math.max(0, Math.floor(first) - visible * 2);
  const limit = visible * 6;
  if (s.inflight) {
    s.wanted = first;
    return;
  }
  s.inflight = true;
  const key = s.filterKey;
  const ctx = s.ctx;
  try {
    const page = await ctx.ask({ rows: { filter: s.filter, offset: start, limit, text_limit: TEXT_LIMIT } });
    if (state !== s || !ctx.alive()) return;
    if (key === s.filterKey) {
      if (s.cache.size > 20000) s.cache = new Map();
      page.rows.forEach((row, i) => s.cache.set(start + i, row));
      if (s.countKey !== key || s.total !== page.total) {
        s.total = page.total;
        s.countKey = key;
        s.count.textContent = fmtCount(page.total, 'row');
        s.count.dataset.key = key;
      }
      if (page.unread && s.searching !== key) searchWhole(key, page.unread);
    }
  } catch (error) {
    s.count.textContent = String(error.message || error);
  } finally {
    s.inflight = false;
  }
  if (s.wanted !== null) {
    const next = s.wanted;
    s.wanted = null;
    await fetchSlice(next);
  } else if (key !== s.filterKey) {
    await fetchSlice(0);
  }
  draw(false);
}

/**
 * The search in the long texts the table keeps only the start of: the worker reads them again
 * a part at a time, the rows it finds join the table in their place, the count says how far it
 * is; a new filter ends it (the worker answers in order, each part briefly).
 */
async function searchWhole(key, unread) {
  const s = state;
  const ctx = s.ctx;
  s.searching = key;
  s.count.dataset.searching = '';
  let budget = FIRST_BUDGET;
  let progress = { total: s.total, read: 0, left: unread, unreadable: 0 };
  try {
    while (progress.left && key === s.filterKey && state === s && ctx.alive()) {
      const started = performance.now();
      progress = await ctx.ask({ search_whole: { filter: s.filter, budget } });
      if (key !== s.filterKey || state !== s) return;
      const took = performance.now() - started;
      budget = Math.max(1, Math.round((budget * STEP_MS) / Math.max(took, 1)));
      const done = progress.read / Math.max(1, progress.read + progress.left);
      s.count.textContent = progress.left
        ? `${fmtCount(progress.total, 'row')} · searching long texts ${Math.floor(done * 100)}%`
        : fmtCount(progress.total, 'row') + (progress.unreadable ? ` (${fmtInt(progress.unreadable)} long texts could not be read again)` : '');
      if (progress.total !== s.total) {
        s.total = progress.total;
        s.cache = new Map();
        draw();
      }
    }
  } catch (error) {
    if (key === s.filterKey) s.count.textContent = String(error.message || error);
  } finally {
    if (s.searching === key) {
      s.searching = null;
      delete s.count.dataset.searching;
    }
  }
}

/** The rows from the keyboard: arrows (and Page Up/Down, Home, End) move between rows, Enter opens one. */
function keyboard(event) {
  const s = state;
  const focused = document.activeElement && /** @type {HTMLElement} */ (document.activeElement.closest('.vt-row'));
  const at = focused && focused.dataset.position !== undefined ? Number(focused.dataset.position) : -1;
  if (event.key === 'Enter' && at >= 0) {
    event.preventDefault();
    showDetail(at);
    return;
  }
  const page = Math.max(1, Math.floor(s.scroller.clientHeight / ROW_HEIGHT) - 1);
  const moves = { ArrowDown: at + 1, ArrowUp: at - 1, PageDown: at + page, PageUp: at - page, Home: 0, End: s.total - 1 };
  if (!(event.key in moves) || !s.total) return;
  event.preventDefault();
  focusRow(Math.max(0, Math.min(s.total - 1, moves[event.key])));
}

/** Scrolls the row at `position` into view and focuses it once it is drawn. */
function focusRow(position) {
  const s = state;
  const { first, visible } = geometry();
  if (position < first || position > first + visible - 2) {
    const full = s.total * ROW_HEIGHT;
    const top = Math.max(0, position - Math.floor(visible / 2));
    s.scroller.scrollTop = full <= MAX_HEIGHT ? top * ROW_HEIGHT : (top / Math.max(1, s.total)) * geometry().height;
  }
  draw();
  const row = s.pool.find((el) => !el.hidden && el.dataset.position === String(position));
  if (row) row.focus({ preventScroll: true });
  else requestAnimationFrame(() => focusRow(position));
}

function rowElement() {
  const el = h('div.vt-row', { tabIndex: -1 }, COLUMNS.map(([key]) => h(`div.vt-cell.c-${key}`)));
  el.addEventListener('click', () => showDetail(Number(el.dataset.position)));
  return el;
}

function draw(mayFetch = true) {
  const s = state;
  if (!s || !s.scroller.isConnected) return;
  const { height, visible, first } = geometry();
  s.spacer.style.height = `${height}px`;
  const firstIndex = Math.floor(first);
  const offset = (first - firstIndex) * ROW_HEIGHT;
  s.layer.style.transform = `translateY(${s.scroller.scrollTop - offset}px)`;
  const count = Math.min(visible, Math.max(0, s.total - firstIndex));
  while (s.pool.length < count) {
    const el = rowElement();
    s.pool.push(el);
    s.layer.appendChild(el);
  }
  let missing = false;
  s.pool.forEach((el, i) => {
    const position = firstIndex + i;
    if (i >= count) {
      el.hidden = true;
      return;
    }
    el.hidden = false;
    const row = s.cache.get(position);
    if (el.dataset.position === String(position) && el.dataset.filled === (row ? s.filterKey : '')) return;
    el.dataset.position = String(position);
    el.dataset.filled = row ? s.filterKey : '';
    const cells = el.children;
    if (!row) {
      missing = true;
      for (const cell of cells) cell.textContent = '';
      cells[6].textContent = '…';
      el.className = 'vt-row';
      return;
    }
    el.className = `vt-row t-${row.turn_type}`;
    el.dataset.index = String(row.index);
    cells[0].textContent = fmtTime(row.timestamp_utc);
    cells[1].textContent = s.typeLabels.get(row.turn_type);
    cells[2].textContent = s.names.get(row.session_id) || row.session_id.slice(0, 8);
    cells[2].title = row.session_id;
    cells[3].textContent = row.project_path;
    cells[3].title = row.project_path;
    cells[4].textContent = row.model;
    cells[5].textContent = row.tool_name;
    clear(cells[6]);
    add(cells[6], highlighted(visibleText(row, s.filter.search), s.filter.search));
  });
  if (missing && mayFetch) fetchSlice(first);
  else if (mayFetch) {
    // Prefetch when the cached window is close to running out.
    const ahead = s.cache.has(firstIndex + visible * 3) || firstIndex + visible * 3 >= s.total;
    const behind = s.cache.has(Math.max(0, firstIndex - visible)) || firstIndex - visible < 0;
    if (!ahead || !behind) fetchSlice(first);
  }
}

async function showDetail(position) {
  const s = state;
  const page = await s.ctx.ask({ rows: { filter: s.filter, offset: position, limit: 1, text_limit: 1_000_000 } });
  const row = page.rows[0];
  if (!row) return;
  const text = highlighted(row.text, s.filter.search);
  const steps = matchSteps(s.detail, text.filter((node) => typeof node !== 'string').length);
  add(clear(s.detail), 
    h('div.detail-head', null, h('strong', null, `Row ${fmtInt(position + 1)} of ${fmtInt(s.total)}`), h('button.button.small', { on: { click: () => (s.detail.hidden = true) } }, 'Close')),
    h(
      'dl.facts',
      null,
      s.rowFields.map(([key, label]) => (row[key] === '' ? null : [h('dt', null, label), h('dd.mono', null, shownField(key, row, s))])),
    ),
    row.note_fields ? noteFields(row.note_fields) : null,
    steps && steps.element,
    h('pre.detail-text', { hidden: Boolean(row.note_fields) }, row.text_from ? `(from byte ${fmtInt(row.text_from)}) …` : '', text, row.text_bytes ? ` … (${fmtInt(row.text_bytes)} bytes in all)` : ''),
    row.session_id ? h('button#tl-to-transcript.button.small', { on: { click: () => s.ctx.openSession(row.session_id, row.index) } }, 'Show in the transcript') : null,
  );
  s.detail.hidden = false;
  // On a phone the detail is below the rows: bring it into view, at its first match.
  s.detail.scrollIntoView({ block: 'nearest' });
  if (steps) steps.show(0);
  else s.detail.querySelector('.detail-text mark')?.scrollIntoView({ block: 'nearest' });
}

/** "Next match" through the `count` highlighted matches of a detail's text, saying which is shown; none under two. */
function matchSteps(detail, count) {
  if (count < 2) return null;
  let current = 0;
  const where = h('span#tl-match-at.muted');
  const show = (index) => {
    current = index % count;
    detail.querySelectorAll('.detail-text mark').forEach((mark, i) => {
      mark.classList.toggle('current', i === current);
      if (i === current) mark.scrollIntoView({ block: 'nearest' });
    });
    where.textContent = ` match ${fmtInt(current + 1)} of ${fmtInt(count)}`;
  };
  const next = h('button#tl-next-match.button.small', { on: { click: () => show(current + 1) } }, 'Next match');
  return { element: h('p.match-steps', null, next, where), show };
}

/** A note of `key=value` pairs (the engine's reading of its text) as its lead and labelled values. */
function noteFields(note) {
  return h('div.note-fields', null, h('p', null, note.lead), h('dl.facts', null, note.fields.map(([key, value]) => [h('dt', null, key.replaceAll('_', ' ')), h('dd.mono', null, value)])));
}

/** A row's field as its detail shows it: the time as the page shows times, the kind in words. */
function shownField(key, row, s) {
  if (key === 'timestamp_utc') return fmtTime(row[key]);
  if (key === 'turn_type') return s.typeLabels.get(row[key]);
  return String(row[key]);
}

/**
 * A row's text on one line, from a little before the first match when it is far in: the engine
 * gives a snippet (`text_from`) where the match lies past the start it would give.
 */
function visibleText(row, needle) {
  const line = row.text.replace(/\s+/g, ' ');
  const at = needle ? line.toLowerCase().indexOf(needle.toLowerCase()) : -1;
  const from = at > 200 ? at - 40 : 0;
  return (from || row.text_from ? '…' : '') + line.slice(from, from + 300);
}

export function shown() {
  if (state) draw();
}
