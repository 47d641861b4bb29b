// Exports: files made in the worker from the analysis, offered as Blob downloads.
import { add, fmtBytes, h, section } from '../dom.js';

const FILES = [
  ['rows.jsonl', 'The timeline, one JSON object a line (as copilot-lens analyze writes it).'],
  ['rows.csv', 'The timeline as CSV, with a header row.'],
  ['usage.csv', 'Tokens and cost per day and model.'],
  ['usage.json', 'The same, as JSON.'],
  ['sessions.jsonl', 'One record per session.'],
  ['inventory.json', 'Projects, models, tools, MCP servers, skills, grants, accounts.'],
  ['report.json', 'Every file found and what happened to it.'],
];

export async function render(container, ctx) {
  const sessions = await ctx.get('sessions', 'sessions');
  if (!ctx.alive()) return;
  const status = h('p#export-status.muted', { attrs: { 'aria-live': 'polite' } });
  const run = async (what, sessionId, name) => {
    status.textContent = `Making ${name}…`;
    try {
      const blob = await ctx.engine.exportFile(what, sessionId);
      ctx.download(blob, name);
      status.textContent = `${name}: ${fmtBytes(blob.size)}.`;
    } catch (error) {
      status.textContent = `${name} failed: ${error.message || error}`;
    }
  };
  const sessionSelect = h(
    'select#export-session',
    null,
    [...sessions]
      .filter((s) => s.events_log || s.prompts)
      .sort((a, b) => (b.first_event || b.created_at || '').localeCompare(a.first_event || a.created_at || ''))
      .map((s) => h('option', { value: s.session_id }, `${s.name || '(unnamed)'} · ${s.session_id.slice(0, 8)} · ${s.project_path}`)),
  );
  add(container, 
    h('h2.view-title', null, 'Exports'),
    h('p.muted', null, 'Made here, from the analysis in this page; nothing is sent anywhere.'),
    section(
      'Whole analysis',
      h(
        'ul.exports',
        null,
        FILES.map(([name, what]) =>
          h('li', null, h('button.button', { dataset: { export: name }, on: { click: () => run(name, '', name) } }, name), h('span.muted', null, ' ' + what)),
        ),
      ),
    ),
    section(
      'One session as Markdown',
      h(
        'div.controls',
        null,
        sessionSelect,
        h('button.button', { dataset: { export: 'session.md' }, on: { click: () => run('session.md', sessionSelect.value, `session-${sessionSelect.value}.md`) } }, 'session.md'),
      ),
    ),
    status,
  );
}
