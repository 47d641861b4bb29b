// Exports: files made in the worker from the analysis, offered as Blob downloads. The list is
// the engine's outputs catalogue: the same names and bytes as the CLI's files.
import { add, fmtBytes, h, section } from '../dom.js';

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
        ctx.engine.facts.outputs.filter((file) => file.name !== 'session.md').map(({ name, what }) =>
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
