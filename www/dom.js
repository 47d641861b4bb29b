// DOM and formatting helpers. Every text from the data reaches the page through `h()` (text
// nodes and textContent) or a plain attribute value; nothing here parses HTML.

/**
 * h('tag#id.class1.class2', {props}, ...children). Children: strings and numbers become text nodes,
 * nodes are appended, arrays flattened, null/undefined/false skipped.
 * Props: class, dataset, on (event handlers), attrs (setAttribute), and direct properties such
 * as title, type, value, checked, hidden, disabled, colSpan, open, tabIndex.
 */
export function h(spec, props, ...children) {
  const [head, ...classes] = spec.split('.');
  const [tag, id] = head.split('#');
  const el = document.createElement(tag || 'div');
  if (id) el.id = id;
  if (classes.length) el.className = classes.join(' ');
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null) continue;
      if (key === 'class') el.className = [el.className, value].filter(Boolean).join(' ');
      else if (key === 'dataset') Object.assign(el.dataset, value);
      else if (key === 'on') for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
      else if (key === 'attrs') for (const [name, v] of Object.entries(value)) el.setAttribute(name, String(v));
      else el[key] = value;
    }
  }
  append(el, children);
  return el;
}

/**
 * A vendored classic script (www/vendor/) loaded once, on first use, for the global it defines;
 * null when it cannot load. The single-file build carries these inline, already loaded.
 */
const vendorLoads = new Map();
export function vendorScript(file, global) {
  if (window[global]) return Promise.resolve(window[global]);
  if (!vendorLoads.has(file)) {
    vendorLoads.set(
      file,
      new Promise((resolve) => {
        const script = document.createElement('script');
        script.src = new URL(`./vendor/${file}`, import.meta.url).href;
        script.onload = () => resolve(window[global] || null);
        script.onerror = () => {
          vendorLoads.delete(file);
          resolve(null);
        };
        document.head.appendChild(script);
      }),
    );
  }
  return vendorLoads.get(file);
}

export function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

// Every figure the usage, month, overview and sessions views show in text is formatted here, one
// precision per kind: tokens and counts as whole numbers, credits to the hundredth, dollars to
// the cent, all with thousands separators. Chart axes keep Chart.js's numbers (en-US: the same
// separators, one precision for every tick of an axis).
const intFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const hundredthsFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A count (tokens, requests): "12,345". */
export const fmtInt = (n) => (n === null || n === undefined ? '' : intFormat.format(n));

/** A count and its noun, singular for one: "1 row", "1,234 rows". */
export const fmtCount = (n, one, many = `${one}s`) => `${fmtInt(n)} ${n === 1 ? one : many}`;

/** AI credits to the hundredth: "3,600.00". */
export const fmtCredits = (n) => (n === null || n === undefined ? '—' : hundredthsFormat.format(n));

/** Dollars that are an estimate or credits × 0.01, to the cent: "≈ $1,234.56". */
export const fmtUsd = (dollars) => (dollars === null || dollars === undefined ? '—' : `≈ $${hundredthsFormat.format(dollars)}`);

export function fmtBytes(n) {
  if (n === null || n === undefined) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = -1;
  do {
    value /= 1024;
    unit++;
  } while (value >= 1024 && unit < units.length - 1);
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

// Times are shown in UTC, as the data says, or in this browser's zone, as the person chooses;
// only that choice is remembered (localStorage), never any data.
const TIMES_KEY = 'copilot-lens.times';
let timesIn = (() => {
  try {
    return localStorage.getItem(TIMES_KEY) === 'local' ? 'local' : 'utc';
  } catch {
    return 'utc'; // storage refused
  }
})();
const localTime = new Intl.DateTimeFormat('sv-SE', { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });

/** `utc` or `local`: how times are shown. */
export const timeDisplay = () => timesIn;

export function setTimeDisplay(mode) {
  timesIn = mode === 'local' ? 'local' : 'utc';
  try {
    localStorage.setItem(TIMES_KEY, timesIn);
  } catch {
    // kept for this visit only
  }
}

/** "2026-10-01T09:00:00.000Z" as "2026-10-01 09:00:00": in UTC, as the data says, or local. */
export function fmtTime(iso) {
  if (!iso) return '';
  if (timesIn === 'local') {
    const date = new Date(iso);
    if (!Number.isNaN(date.getTime())) return localTime.format(date);
  }
  return iso.replace('T', ' ').replace(/\.\d+Z$/, '').replace(/Z$/, '');
}

export function firstLine(text, max = 200) {
  const line = (text || '').split('\n', 1)[0];
  return line.length > max ? line.slice(0, max) + '…' : line;
}

/**
 * A table from column specs: {label, value(row) -> text|Node, num?: bool, sort?: key}; `row(row)`
 * gives a row's props (its dataset, say), `after(row, columnCount)` a row to put after it, or null.
 */
export function table(columns, rows, { className = '', empty = 'Nothing here.', row: rowProps = null, after = null } = {}) {
  if (!rows.length) return h('p.empty', null, empty);
  return h(
    'table.data' + (className ? '.' + className : ''),
    null,
    h('thead', null, h('tr', null, columns.map((c) => h('th', { class: c.num ? 'num' : '' }, c.label)))),
    h(
      'tbody',
      null,
      rows.map((row) => [
        h(
          'tr',
          rowProps && rowProps(row),
          // data-label: a table shown as cards (class `cards`, at phone width) labels each cell.
          columns.map((c) => h('td', { class: c.num ? 'num' : c.className || '', dataset: { label: c.label } }, c.value(row))),
        ),
        after && after(row, columns.length),
      ]),
    ),
  );
}

/** Offers a Blob as a download with the given file name. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function badge(text, kind = '') {
  return h('span.badge' + (kind ? '.' + kind : ''), null, text);
}

export function section(title, ...children) {
  return h('section.card', null, h('h2', null, title), ...children);
}

export function debounce(fn, ms) {
  let timer = 0;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** el.append without turning null into the text "null". */
export function add(el, ...children) {
  return append(el, children);
}
