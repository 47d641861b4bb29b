// An edit tool's patch or diff (apply_patch's `*** Begin Patch`, a unified `diff --git`) shown as
// a diff: each line marked as added, removed, a hunk or a file header. Text only, through h().
import { h } from './dom.js';

/** Whether a text reads as a patch or a unified diff. */
export function looksLikeDiff(text) {
  return /^(\*\*\* Begin Patch|diff --git |--- \S|@@ )/m.test(text) && /^(\+(?!\+\+ )|-(?!-- ))/m.test(text);
}

/** The line's kind by its first characters. */
function kind(line) {
  if (/^(\*\*\* |diff --git |index |--- |\+\+\+ )/.test(line)) return 'head';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'same';
}

/** The diff, a line a row; `lines` of them at most (the rest is for "show all"). */
export function diffView(text, lines = Infinity) {
  const all = text.split('\n');
  const shown = all.slice(0, lines);
  const counts = { add: 0, del: 0 };
  for (const line of all) {
    const k = kind(line);
    if (k === 'add' || k === 'del') counts[k]++;
  }
  return h(
    'pre.diff',
    { attrs: { 'aria-label': `diff: ${counts.add} lines added, ${counts.del} removed` } },
    shown.map((line) => h(`span.d-${kind(line)}`, null, line + '\n')),
  );
}
