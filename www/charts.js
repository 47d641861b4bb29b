// Chart.js (vendored in www/vendor, a global) themed for the page's colour scheme.

import { h } from './dom.js';

/**
 * Whether a chart can be drawn on `canvas`: the library loaded (else a note takes the canvas's
 * place), its colours set for the light or dark scheme.
 */
export function chartReady(canvas) {
  if (!window.Chart) {
    canvas.replaceWith(h('p.empty', null, 'The chart library did not load.'));
    return false;
  }
  const dark = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
  window.Chart.defaults.color = dark ? '#c9d1d9' : '#333';
  window.Chart.defaults.borderColor = dark ? 'rgba(255,255,255,0.12)' : 'rgba(0,0,0,0.1)';
  return true;
}
