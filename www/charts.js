// Chart.js (vendored in www/vendor, a global) loaded on first use and themed for the page's
// colour scheme. No chart is drawn before an analysis is done, so the library is not part of
// the page's first download (scripts/first-load.mjs); the single-file build carries it inline.

import { h, vendorScript } from './dom.js';

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
