// Chart.js (vendored in www/vendor, a global) loaded on first use and themed for the page's
// colour scheme. No chart is drawn before an analysis is done, so the library is not part of
// the page's first download (scripts/first-load.mjs); the single-file build carries it inline.

import { add, clear, h, table, vendorScript } from './dom.js';

/** The chart library, loaded once; null when it cannot load. */
export const chartLibrary = () => vendorScript('chart.umd.min.js', 'Chart');

/**
 * Whether a chart can be drawn on `canvas` with `Chart` (null when the library did not load:
 * a note takes the canvas's place), its colours set for the light or dark scheme.
 */
export function chartReady(Chart, canvas) {
  if (!Chart) {
    canvas.replaceWith(h('p.empty', null, 'The chart library did not load.'));
    return false;
  }
  const dark = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
  Chart.defaults.color = dark ? '#c9d1d9' : '#333';
  Chart.defaults.borderColor = dark ? 'rgba(255,255,255,0.12)' : 'rgba(0,0,0,0.1)';
  return true;
}

/**
 * A long category label (a project's path, a model) cut to `max` characters for an axis: a path
 * keeps its last parts ("…/code/octo-world"), other text its start. The tooltip keeps the whole.
 */
export function shortLabel(text, max) {
  const label = String(text);
  if (label.length <= max) return label;
  // The most last parts of a path that fit after "…", the separator kept.
  let cut = -1;
  for (let at = label.length; (at = Math.max(label.lastIndexOf('/', at - 1), label.lastIndexOf('\\', at - 1))) > 0; ) {
    if (label.length - at + 1 > max) break;
    cut = at;
  }
  if (cut > 0) return `…${label.slice(cut)}`;
  if (/[/\\]/.test(label)) return `…${label.slice(-(max - 1))}`;
  return `${label.slice(0, max - 1)}…`;
}

/** Ticks of a category axis with its labels shortened: 20 characters on a phone-wide chart, 40 wider. */
export const shortTicks = {
  callback(value) {
    return shortLabel(this.getLabelForValue(value), this.chart.width < 500 ? 20 : 40);
  },
};

/**
 * A chart's place: its canvas named `name` for a screen reader, and under it the same figures as
 * a table (`chartTable` fills it once the chart has its data), for a screen reader and for the
 * exact numbers.
 */
export function chartFigure(id, name, className = '') {
  return h(
    'figure.chart-figure',
    null,
    h('div.chart-box' + (className ? '.' + className : ''), null, h('canvas', { id, attrs: { role: 'img', 'aria-label': name } })),
    h('details.chart-table', null, h('summary', null, `${name}: the figures as a table`), h('div.table-wrap')),
  );
}

/**
 * Fills the table under `canvas`'s chart: a row per label (`labelHeading` its column), a column
 * per series, each value by `format(value, series)` (a series' gap: —).
 */
export function chartTable(canvas, labelHeading, labels, datasets, format) {
  const wrap = canvas.closest('figure')?.querySelector('.chart-table .table-wrap');
  if (!wrap) return;
  const columns = [
    { label: labelHeading, value: (/** @type {number} */ i) => String(labels[i]) },
    ...datasets.map((set) => ({ label: set.label, value: (/** @type {number} */ i) => (set.data[i] === null || set.data[i] === undefined ? '—' : format(set.data[i], set)), num: true })),
  ];
  add(clear(wrap), table(columns, labels.map((_, i) => i), { className: 'chart-figures' }));
}
