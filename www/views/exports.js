// Exports: files made in the worker from the analysis, offered as Blob downloads. The list is
// the engine's outputs catalogue: the same names and bytes as the CLI's files.
import { add, fmtBytes, h, section } from '../dom.js';
import { savedAllowance } from './month.js';

/** @param {import('../app.js').ViewContext} ctx */
export async function render(container, ctx) {
  const sessions = await ctx.get('sessions');
  if (!ctx.alive()) return;
  // The catalogue's files of one session and of the person's choices (the report to share).
  const { outputs } = ctx.engine.facts;
  const sessionFile = ctx.engine.sessionFile('').name;
  const shared = outputs.find((file) => file.made_from === 'choices').name;
  const status = h('p#export-status.muted', { attrs: { 'aria-live': 'polite' } });
  const run = (what, sessionId, name) => save(ctx, status, name, async () => ({ blob: await ctx.engine.exportFile(what, sessionId) }));
  const sessionSelect = h(
    'select#export-session',
    { attrs: { 'aria-label': 'Session' } },
    [...sessions]
      .filter((s) => s.events_log || s.prompts)
      .sort((a, b) => (b.first_event || b.created_at || '').localeCompare(a.first_event || a.created_at || ''))
      .map((s) => h('option', { value: s.session_id }, `${s.display_name} · ${s.session_id.slice(0, 8)} · ${s.project_path}`)),
  );
  const report = reportSection(ctx, status, shared, sessionSelect);
  const team = teamSection(ctx, status, outputs);
  add(container, 
    h('h2.view-title', null, 'Exports'),
    h('p.muted', null, 'Made here, from the analysis in this page; nothing is sent anywhere.'),
    section(
      'Whole analysis',
      h(
        'ul.exports',
        null,
        outputs.filter((file) => file.made_from === 'analysis').map(({ name, what }) =>
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
        h('button.button', { dataset: { export: sessionFile }, on: { click: () => run(sessionFile, sessionSelect.value, ctx.engine.sessionFile(sessionSelect.value).saveAs) } }, sessionFile),
      ),
    ),
    team,
    report,
    status,
  );
}

/** The team exports (`team.csv`, `team.jsonl`), with the login, machine and whether to share project paths. */
function teamSection(ctx, status, outputs) {
  const teamUser = h('input#team-user', { type: 'text', placeholder: 'the login in the logs', attrs: { 'aria-label': 'Login' } });
  const teamMachine = h('input#team-machine', { type: 'text', placeholder: 'the folder name', attrs: { 'aria-label': 'Machine' } });
  const teamShare = h('input#team-share-projects', { type: 'checkbox' });
  const makeTeamExport = (name) =>
    save(ctx, status, name, async () => {
      // The page's clock, to the second, as the CLI's --exported-at takes it.
      const options = { user: teamUser.value || null, machine: teamMachine.value || null, share_projects: teamShare.checked, exported_at: new Date().toISOString() };
      return { blob: await ctx.engine.teamExport(name, options) };
    });
  return section(
    'For a team',
    h('p.muted', null, 'Your usage per day, agent, model, project and machine, with your login and machine, for a team to read with everyone\'s in DuckDB, BigQuery or Spark (the guide\'s chapter on team exports shows how). No prompt, reply or tool output is in it; projects are short names unless you share them. The same bytes as copilot-lens usage --export. Parquet is made only by the command-line tool: its writer would make this page\'s first download larger.'),
    h(
      'div.controls',
      null,
      h('label', null, 'Login ', teamUser),
      h('label', null, 'Machine ', teamMachine),
      h('label', null, teamShare, ' Include project paths'),
      outputs.filter((file) => file.made_from === 'team').map(({ name }) => h('button.button', { dataset: { export: name }, on: { click: () => makeTeamExport(name) } }, name)),
    ),
  );
}

/** The report to share (`shared`): its month, its choices, and the transcripts in it (of `sessionSelect`'s sessions). */
function reportSection(ctx, status, shared, sessionSelect) {
  const shortNames = h('input#report-short-names', { type: 'checkbox' });
  const reportMonth = h('input#report-month', { type: 'month', attrs: { 'aria-label': 'Month to report' } });
  const withSystemPrompt = h('input#report-system-prompt', { type: 'checkbox' });
  const transcriptSelect = h('select#report-sessions', { multiple: true, size: 4, attrs: { 'aria-label': 'Sessions whose transcripts go in the report' } }, [...sessionSelect.options].map((option) => h('option', { value: option.value }, option.textContent)));
  const makeReport = () =>
    save(ctx, status, shared, async () => {
      const sessions = [...transcriptSelect.selectedOptions].map((option) => option.value);
      const asked = { today: ctx.today(), month: reportMonth.value || null, since: null, until: null, allowance: savedAllowance(), short_project_names: shortNames.checked, sessions, with_system_prompt: withSystemPrompt.checked };
      const blob = await ctx.engine.shareReport(asked);
      // The report names itself by its period, as the CLI names it in a folder.
      const savedAs = (await blob.text()).match(/<meta name="file-name" content="([^"]+)">/)?.[1] || shared;
      return { blob, savedAs, note: sessions.length ? `, with ${sessions.length} transcript(s), secrets scrubbed` : '' };
    });
  return section(
    'A report to share',
    h('p.muted', null, 'One HTML file that opens anywhere, with scripts off: a summary, the top sessions, projects and models by credits, the usage tables and charts of one billing month. Prompts, replies, tool output and file contents are left out, but for the transcripts you choose, whose secrets are scrubbed.'),
    h(
      'div.controls',
      null,
      h('label', null, 'Month ', reportMonth, ' (blank: the latest with usage)'),
      h('label', null, shortNames, ' Replace project paths by short names'),
      h('label', null, withSystemPrompt, ' Keep system prompts in the transcripts'),
      h('label', { attrs: { for: 'report-sessions' } }, 'Transcripts to include (none by default)'),
      transcriptSelect,
      h('button#make-report.button', { dataset: { export: shared }, on: { click: makeReport } }, 'Export a report'),
    ),
  );
}

/**
 * Makes a file in the worker and offers it as a download, saying in `status` that it is being
 * made (and that the full engine loads first, when it does), then its name and size, or why it failed.
 * @param {any} ctx
 * @param {HTMLElement} status
 * @param {string} name the file as asked for
 * @param {() => Promise<{ blob: Blob, savedAs?: string, note?: string }>} make
 */
async function save(ctx, status, name, make) {
  status.textContent = `Making ${name}…${ctx.engine.fullEngineNote}`;
  try {
    const { blob, savedAs = name, note = '' } = await make();
    ctx.download(blob, savedAs);
    status.textContent = `${savedAs}: ${fmtBytes(blob.size)}${note}.`;
  } catch (error) {
    status.textContent = `${name} failed: ${error.message || error}`;
  }
}
