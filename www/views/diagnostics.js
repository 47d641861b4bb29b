// Diagnostics: the problems found (report.diagnostics: where, which kind, why), every file found
// and what happened to it, lines per event type, unknown types, bad lines, the store's WAL
// frames, the roots and homes and what could not be listed.
import { add, badge, clear, fmtBytes, fmtInt, h, section, table } from '../dom.js';
import { tile } from './overview.js';

const LIMIT = 1000;

/** The worker's steps, in seconds: " (small files 1.2 s, other files 0.3 s, ...)". */
function stepsText(timings) {
  if (!timings) return '';
  const names = { small_files: 'small files', other_files: 'other files', logs: 'event logs', last_files: 'last files', joins: 'joins' };
  const parts = Object.entries(names)
    .filter(([key]) => typeof timings[key] === 'number')
    .map(([key, name]) => `${name} ${timings[key].toFixed(2)} s`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

// The analysis's own figures, for whoever checks the tool: what it read and made, how long and how
// much memory it took (the Overview keeps what a person asks: what, when, cost).
function analysisFigures(ctx, t) {
  const s = ctx.summary;
  const labels = new Map(ctx.engine.facts.turn_type_labels);
  return section(
    'This analysis',
    h(
      'div#diag-tiles.tiles',
      null,
      tile('rows', 'timeline rows', s.rows, fmtInt(s.rows)),
      tile('files', 'files found', s.files, fmtInt(s.files), `${fmtInt(t.files_read)} read`),
      tile('bad_lines', 'bad lines', s.bad_lines, fmtInt(s.bad_lines), s.bad_lines ? 'listed below' : null),
    ),
    h('p#diag-run.muted', null, `Analysed in ${ctx.seconds.toFixed(2)} s in the worker${stepsText(ctx.timings)}; engine memory ${fmtInt(Math.round(ctx.memory / 1048576))} MiB.`),
    h('p.muted', null, 'Rows by kind: ', Object.entries(t.rows_by_turn_type).map(([k, v]) => `${labels.get(k) || k} ${fmtInt(v)}`).join(', ')),
  );
}

function statusBadge(status) {
  return badge(status, status === 'error' ? 'bad' : status === 'read' ? 'ok' : '');
}

/** @param {import('../app.js').ViewContext} ctx */
export async function render(container, ctx) {
  const report = await ctx.get('report');
  if (!ctx.alive()) return;
  const t = report.totals;
  const { skipped, unknown } = linesByEventType(report);
  const badLines = h('div', null, h('p.muted', null, 'Looking for bad lines…'));
  add(container, 
    h('h2.view-title', null, 'Diagnostics'),
    analysisFigures(ctx, t),
    inputProblems(ctx),
    cacheNote(ctx),
    formatDriftSection(report),
    problemsSection(report),
    h(
      'div.grid2',
      null,
      totalsSection(t),
      rootsSection(report),
      eventTypesSection(t, skipped, unknown),
      unknownTypesSection(report, unknown),
      section('Bad lines', badLines),
      walSection(report),
    ),
    errorFilesSection(report),
    filesSection(report),
  );

  // Bad lines are rows too (with the mark the core gives them): ask the worker.
  const badLine = ctx.engine.facts.bad_line_mark;
  const page = await ctx.ask({ rows: { filter: { marks: [badLine] }, offset: 0, limit: 500, text_limit: 600 } });
  if (!ctx.alive()) return;
  const bad = page.rows.filter((r) => r.mark === badLine);
  add(clear(badLines), 
    table(
      [
        { label: 'where', value: (r) => `${r.source}:${r.source_line}`, className: 'mono path' },
        { label: 'what', value: (r) => r.text, className: 'mono' },
      ],
      bad,
      { empty: 'No bad lines.' },
    ),
  );
}

/** Lines per event type, over every event log: those skipped by rule, and those of unknown types. */
function linesByEventType(report) {
  const skipped = new Map();
  const unknown = new Map();
  for (const file of report.files) {
    if (!file.lines) continue;
    for (const [type, n] of Object.entries(file.lines.skipped_by_rule)) skipped.set(type, (skipped.get(type) || 0) + n);
    for (const [type, n] of Object.entries(file.lines.unknown_types)) unknown.set(type, (unknown.get(type) || 0) + n);
  }
  return { skipped, unknown };
}

/** The inputs left out (the worker's warnings) and what a folder's walk could not open, if any. */
function inputProblems(ctx) {
  const walkProblems = ctx.roots.flatMap((root) => (root.problems || []).map((message) => ({ root: root.label, message })));
  return ctx.warnings.length || walkProblems.length
    ? section('Inputs that could not be used', table([{ label: 'input', value: (w) => w.root }, { label: 'problem', value: (w) => w.message, className: 'mono' }], [...ctx.warnings, ...walkProblems]))
    : null;
}

/** The page's cache is never a reason for a failure: where it could not be used, why. */
function cacheNote(ctx) {
  return ctx.cache && (ctx.cache.unavailable || ctx.cache.problem)
    ? section('The cache', h('p#cache-note', null, ctx.cache.unavailable ? `Not used: ${ctx.cache.unavailable}. Every file was read.` : ctx.cache.problem))
    : null;
}

/** The problems found: where, which kind, why. */
/**
 * The kinds of event a newer Copilot wrote that this version does not read, per version, with a
 * summary to copy and send to the project: names and counts only, never a line's content.
 */
function formatDriftSection(report) {
  const drifts = report.format_drift || [];
  if (!drifts.length) return null;
  const summary = drifts
    .map((d) => `${d.message}, in ${d.logs} ${d.logs === 1 ? 'log' : 'logs'}: ${Object.entries(d.event_types).map(([kind, lines]) => `${kind} (${lines})`).join(', ')}`)
    .join('\n');
  const copied = h('span#format-drift-copied.muted', { attrs: { 'aria-live': 'polite' } });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(summary);
      copied.textContent = ' Copied.';
    } catch {
      copied.textContent = ' The browser refused the clipboard: select the text above and copy it.';
    }
  };
  return section(
    'Kinds of event this version does not read',
    h('p.muted', null, 'Copilot wrote them; their lines were counted, not read. The summary below holds their names and counts only: sending it to the project helps it learn them.'),
    h('pre#format-drift-summary.mono', null, summary),
    h('button.button.small', { on: { click: copy } }, 'Copy the summary'),
    copied,
  );
}

function problemsSection(report) {
  return report.diagnostics.length
    ? section(
        `Problems (${fmtInt(report.diagnostics.length)})`,
        table(
          [
            { label: 'home', value: (d) => (d.home === undefined ? '' : report.homes[d.home]?.label ?? ''), className: 'mono' },
            { label: 'file', value: (d) => (d.line ? `${d.file}:${d.line}` : d.file), className: 'mono path' },
            { label: 'kind', value: (d) => d.kind },
            { label: 'message', value: (d) => d.message },
          ],
          report.diagnostics.slice(0, LIMIT),
          { className: 'problems-table cards' },
        ),
      )
    : null;
}

function totalsSection(t) {
  return section(
    'Totals',
    h(
      'dl.facts',
      null,
      Object.entries(t)
        .filter(([, v]) => typeof v === 'number')
        .map(([k, v]) => [h('dt', null, k.replaceAll('_', ' ')), h('dd', { dataset: { total: k } }, fmtInt(v))]),
    ),
  );
}

/** The roots, the homes in each and what could not be listed, and the trees never read. */
function rootsSection(report) {
  return section(
    'Roots',
    table(
      [
        { label: 'root', value: (r) => r.label, className: 'mono' },
        { label: 'homes', value: (r) => report.homes.filter((home) => report.roots[home.root] === r).map((home) => h('div.mono', null, `${home.path || '(the root itself)'} · ${home.layout}`)) },
        { label: 'files listed', value: (r) => fmtInt(r.files_listed), num: true },
        { label: 'outside Copilot', value: (r) => `${fmtInt(r.outside_files)} (${fmtBytes(r.outside_bytes)})`, num: true },
        { label: 'problems', value: (r) => r.problems.map((p) => h('div.mono', null, `${p.path}: ${p.message}`)) },
      ],
      report.roots,
    ),
    report.excluded_trees.length
      ? [
          h('h3', null, 'Trees never read'),
          table(
            [
              { label: 'tree', value: (e) => e.tree, className: 'mono' },
              { label: 'files', value: (e) => fmtInt(e.files), num: true },
              { label: 'size', value: (e) => fmtBytes(e.bytes), num: true },
            ],
            report.excluded_trees,
          ),
        ]
      : null,
  );
}

function eventTypesSection(t, skipped, unknown) {
  return section(
    'Lines per event type',
    h('p.muted', null, `${fmtInt(t.event_lines)} event lines: ${fmtInt(t.event_lines_with_rows)} gave rows, ${fmtInt(t.event_lines_skipped)} skipped by rule, ${fmtInt(t.event_lines_unknown_type)} of unknown types, ${fmtInt(t.bad_lines)} bad.`),
    table(
      [
        { label: 'event type', value: (r) => r[0], className: 'mono' },
        { label: 'lines', value: (r) => fmtInt(r[1]), num: true },
        { label: 'why', value: (r) => r[2] },
      ],
      [...[...skipped].map(([k, v]) => [k, v, 'skipped by rule']), ...[...unknown].map(([k, v]) => [k, v, badge('unknown type', 'warn')])].sort((a, b) => b[1] - a[1]),
      { empty: 'No event lines skipped.' },
    ),
  );
}

/** The event logs holding event types this tool does not know. */
function unknownTypesSection(report, unknown) {
  const unknownFiles = report.files.filter((f) => f.lines && Object.keys(f.lines.unknown_types).length);
  return section(
    `Unknown event types (${unknown.size})`,
    unknownFiles.length
      ? table(
          [
            { label: 'file', value: (f) => f.path, className: 'mono path' },
            { label: 'types', value: (f) => Object.entries(f.lines.unknown_types).map(([k, v]) => `${k} ×${v}`).join(', '), className: 'mono' },
          ],
          unknownFiles,
        )
      : h('p.empty', null, 'None: every event type is known.'),
  );
}

/** The session store's write-ahead log frames, and its tables' rows. */
function walSection(report) {
  const walFiles = report.files.filter((f) => f.wal);
  return section(
    'Session store write-ahead log',
    table(
      [
        { label: 'file', value: (f) => f.path, className: 'mono path' },
        { label: 'frames', value: (f) => fmtInt(f.wal.frames), num: true },
        { label: 'applied', value: (f) => fmtInt(f.wal.frames_applied), num: true },
        { label: 'commits', value: (f) => fmtInt(f.wal.commits), num: true },
        { label: 'ignored', value: (f) => fmtInt(f.wal.frames_ignored), num: true },
        { label: 'torn bytes', value: (f) => fmtInt(f.wal.torn_bytes), num: true },
        { label: 'stopped', value: (f) => f.wal.stopped || '' },
      ],
      walFiles,
      { empty: 'No write-ahead log.' },
    ),
    report.files
      .filter((f) => f.tables)
      .map((f) => h('p.muted', null, `${f.path} tables: `, Object.entries(f.tables).map(([k, v]) => `${k} ${fmtInt(v)}`).join(', '))),
  );
}

function errorFilesSection(report) {
  const errorFiles = report.files.filter((f) => f.status === 'error');
  return errorFiles.length
    ? section(
        `Files with errors (${errorFiles.length})`,
        table(
          [
            { label: 'file', value: (f) => f.path, className: 'mono path' },
            { label: 'message', value: (f) => f.message || '', className: 'mono' },
          ],
          errorFiles,
        ),
      )
    : null;
}

function filesSection(report) {
  const statuses = [...new Set(report.files.map((f) => f.status))].sort();
  const kinds = [...new Set(report.files.map((f) => f.kind))].sort();
  const status = h('select#diag-status', { attrs: { 'aria-label': 'Status' } }, h('option', { value: '' }, 'every status'), statuses.map((s) => h('option', { value: s }, s)));
  const kind = h('select#diag-kind', { attrs: { 'aria-label': 'Kind' } }, h('option', { value: '' }, 'every kind'), kinds.map((k) => h('option', { value: k }, k)));
  const text = h('input#diag-filter', { type: 'search', placeholder: 'path contains…' });
  const out = h('div');
  let all = false;
  const draw = () => {
    const files = report.files.filter(
      (f) => (!status.value || f.status === status.value) && (!kind.value || f.kind === kind.value) && (!text.value || f.path.includes(text.value)),
    );
    const shown = all ? files : files.slice(0, LIMIT);
    add(clear(out), 
      h('p.muted', null, `${fmtInt(files.length)} of ${fmtInt(report.files.length)} files`),
      table(
        [
          { label: 'home', value: (f) => report.homes[f.home]?.label ?? '', className: 'mono' },
          { label: 'path', value: (f) => f.path, className: 'mono path' },
          { label: 'kind', value: (f) => f.kind },
          { label: 'status', value: (f) => statusBadge(f.status) },
          { label: 'size', value: (f) => fmtBytes(f.size), num: true },
          { label: 'rows', value: (f) => fmtInt(f.rows), num: true },
          { label: 'copies dropped', value: (f) => (f.rows_deduplicated ? fmtInt(f.rows_deduplicated) : ''), num: true },
          { label: 'lines', value: (f) => (f.lines ? `${fmtInt(f.lines.lines)} (${fmtInt(f.lines.bad_lines)} bad)` : ''), num: true },
          { label: 'message', value: (f) => f.message || '', className: 'mono' },
        ],
        shown,
        { className: 'files-table' },
      ),
      shown.length < files.length ? h('button.link', { on: { click: () => ((all = true), draw()) } }, `Show all ${fmtInt(files.length)}`) : null,
    );
  };
  for (const el of [status, kind]) el.addEventListener('change', draw);
  text.addEventListener('input', draw);
  draw();
  return section('Every file found', h('div.controls', null, status, kind, text), out);
}
