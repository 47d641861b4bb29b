// Sessions: a sortable, filterable list; opening one shows its transcript (transcript.js).
import { add, badge, clear, debounce, fmtInt, fmtTime, fmtUsd, h, timeDisplay } from '../dom.js';
import { creditsUsedText, estimatedShareText } from './month.js';
import { PRECREATED, modelsShown, renderTranscript } from './transcript.js';

const LIMIT = 1000;
// A session Copilot also keeps on github.com (the engine's `synced`).
const SYNCED = 'also on github.com';

const started = (s) => s.first_event || s.created_at || '';
const tokens = (s) => (s.usage ? s.usage.total : -1);
// The one money figure: credits used by the Month's rule (Engine.session_credits), joined in at render.
const credits = (s) => (s.credits_used ? s.credits_used.credits : -1);

const COLUMNS = [
  { key: 'name', label: 'session', sort: (s) => s.display_name.toLowerCase() },
  { key: 'project', label: 'project', sort: (s) => s.project_path },
  { key: 'branch', label: 'branch', sort: (s) => s.git_branch },
  { key: 'started', label: 'started', sort: started },
  { key: 'last', label: 'last event', sort: (s) => s.last_event || s.updated_at || '' },
  { key: 'prompts', label: 'prompts', sort: (s) => s.prompts, num: true },
  { key: 'tool_calls', label: 'tool calls', sort: (s) => s.tool_calls, num: true },
  { key: 'denials', label: 'denials', sort: (s) => s.denials, num: true },
  { key: 'models', label: 'models', sort: (s) => s.models.join(',') },
  { key: 'tokens', label: 'tokens', sort: tokens, num: true },
  { key: 'credits', label: 'credits used', sort: credits, num: true },
  { key: 'status', label: 'status', sort: (s) => statusText(s) },
];

function statusText(s) {
  return [s.agent,s.events_log ? '' : 'no event log', s.precreated_unused ? PRECREATED : '', s.synced ? SYNCED : '', s.shutdown, s.bad_lines ? 'bad lines' : ''].join(' ');
}

function status(s, agents) {
  return [
    agents > 1 ? badge(s.agent, 'agent') : null,
    s.events_log ? null : badge('no event log', 'warn'),
    s.precreated_unused ? badge(PRECREATED, 'info') : null,
    s.synced ? badge(SYNCED, 'info') : null,
    s.shutdown && s.shutdown !== 'routine' ? badge(s.shutdown === 'none' ? 'did not end cleanly' : s.shutdown) : null,
    s.denials ? badge(`${s.denials} denied`, 'warn') : null,
    s.bad_lines ? badge(`${s.bad_lines} bad lines`, 'warn') : null,
    s.usage && s.usage.source !== 'counted' ? badge(`usage ${s.usage.source}`, 'info') : null,
  ];
}

/** The project, on its remote machine when it is one (`ssh-remote+mybox: /home/me/app`). */
function projectLabel(s) {
  return s.remote ? `${s.remote}: ${s.project_path}` : s.project_path;
}

/** The project as usage groups it (`ssh-remote+mybox:/home/me/app`): the Overview's bars name it so. */
function usageProject(s) {
  return s.remote ? `${s.remote}:${s.project_path}` : s.project_path;
}

/** The last event: its time alone when on the day the session started (the whole in its title), for the table to fit. */
function lastEventCell(s) {
  const [first, last] = [fmtTime(started(s)), fmtTime(s.last_event || s.updated_at)];
  const sameDay = first && last && first.slice(0, 10) === last.slice(0, 10);
  return h('td.when', { title: last }, sameDay ? last.slice(11) : last);
}

function cells(s, ctx, agents) {
  const tds = [
    h('td.c-name', null, h('button.link', { on: { click: () => open(s.session_id, ctx) }, title: s.session_id }, s.display_name)),
    // Cut from the start: a path's end is what tells projects apart.
    h('td.mono.clip.clip-start', { title: projectLabel(s) }, h('bdi', null, projectLabel(s))),
    h('td.mono.clip', { title: s.git_branch }, s.git_branch),
    h('td.when', null, fmtTime(started(s))),
    lastEventCell(s),
    h('td.num', null, fmtInt(s.prompts)),
    h('td.num', null, fmtInt(s.tool_calls)),
    h('td.num', null, fmtInt(s.denials)),
    h('td.models', null, modelsShown(s).join('\n')),
    h('td.num', null, s.usage ? fmtInt(s.usage.total) : '—'),
    h('td.num.c-credits', { title: s.credits_used ? `${fmtUsd(s.credits_used.usd)}, ${estimatedShareText(s.credits_used)}` : '', dataset: { credits: s.credits_used ? s.credits_used.credits : 0 } }, s.credits_used ? creditsUsedText(s.credits_used) : '—'),
    h('td', null, status(s, agents)),
  ];
  // Named for the cards the table becomes at phone width (style.css).
  tds.forEach((td, i) => (td.dataset.label = COLUMNS[i].label));
  return tds;
}

let view = null;

/** @param {import('../app.js').ViewContext} ctx */
export async function render(container, ctx) {
  const [records, byId] = await Promise.all([ctx.get('sessions'), ctx.get('session_credits')]);
  if (!ctx.alive()) return;
  const list = records.map((s) => ({ ...s, credits_used: byId[s.session_id] || null }));
  const state = { sort: 'started', desc: true, text: '', project: '', home: '', agent: '', all: false };
  const filter = h('input#session-filter', { type: 'search', placeholder: 'Filter: name, id, project, branch, model, prompt…' });
  // The sessions one of whose prompts holds the filter's text (the engine's answer to it).
  let withPrompt = { text: '', ids: new Set() };
  const { project, home, agent, agents } = sessionSelects(list);
  const count = h('span.muted');
  const tbody = h('tbody');
  const more = h('p');
  const headers = columnHeaders();
  const listBox = h(
    'div#session-list',
    null,
    h('h2.view-title', null, 'Sessions'),
    h('div.controls', null, filter, project, home, agent, count),
    h('div.table-wrap', null, h('table.data.sessions-table.cards', null, h('thead', null, h('tr', null, headers)), tbody)),
    more,
    h('p.muted', null, 'Credits used: ~ where some are estimated at the published rates, for calls Copilot recorded no credits for.'),
  );
  const transcript = h('div#transcript', { hidden: true });
  add(container, listBox, transcript);
  view = { container, listBox, transcript, ctx, filterProject: null };

  const draw = () => {
    const rows = sessionsShown(list, state, withPrompt);
    clear(tbody);
    const shown = state.all ? rows : rows.slice(0, LIMIT);
    for (const s of shown) tbody.appendChild(h('tr', { dataset: { session: s.session_id } }, cells(s, ctx, agents.length)));
    count.textContent = `${fmtInt(rows.length)} of ${fmtInt(list.length)} sessions`;
    clear(more);
    if (shown.length < rows.length) {
      add(more, `Showing ${fmtInt(shown.length)}. `, h('button.link', { on: { click: () => ((state.all = true), draw()) } }, 'Show all'));
    }
    for (const th of headers) {
      th.classList.toggle('sorted', th.dataset.key === state.sort);
      th.dataset.dir = th.dataset.key === state.sort ? (state.desc ? 'desc' : 'asc') : '';
    }
  };
  sortOnClick(headers, state, draw);
  const askPrompts = debounce(async (text) => {
    const ids = text ? await ctx.ask({ sessions_with_prompt: { search: text } }) : [];
    if (!ctx.alive() || text !== state.text) return;
    withPrompt = { text, ids: new Set(ids) };
    draw();
  }, 200);
  filter.addEventListener('input', () => {
    state.text = filter.value;
    draw();
    askPrompts(state.text);
  });
  project.addEventListener('change', () => ((state.project = project.value), draw()));
  home.addEventListener('change', () => ((state.home = home.value), draw()));
  agent.addEventListener('change', () => ((state.agent = agent.value), draw()));
  view.filterProject = (path) => {
    project.value = path;
    state.project = path;
    transcript.hidden = true;
    listBox.hidden = false;
    draw();
  };
  draw();
}

/** The list's project, home and agent filters (the last two only when there are several), and the agents. */
function sessionSelects(list) {
  const labels = new Map(list.filter((s) => s.project_path).map((s) => [usageProject(s), projectLabel(s)]));
  const projects = [...labels.keys()].sort();
  const project = h('select#session-project', { attrs: { 'aria-label': 'Project' } }, h('option', { value: '' }, 'all projects'), projects.map((p) => h('option', { value: p }, labels.get(p))));
  // Several homes (machines, or the same data given twice): which holds the session.
  const homes = [...new Set(list.flatMap((s) => s.homes || []))].sort();
  const home = h('select#session-home', { hidden: homes.length < 2 }, h('option', { value: '' }, 'all homes'), homes.map((p) => h('option', { value: p }, p)));
  // Several agents (Copilot CLI, VS Code, ...): whose session it is.
  const agents = [...new Set(list.map((s) => s.agent).filter(Boolean))].sort();
  const agent = h('select#session-agent', { hidden: agents.length < 2, attrs: { 'aria-label': 'Agent' } }, h('option', { value: '' }, 'all agents'), agents.map((a) => h('option', { value: a }, a)));
  return { project, home, agent, agents };
}

/** The columns' headers, each a sort key. */
function columnHeaders() {
  // Times follow "Times in": the column says which.
  const label = (c) => (c.key === 'started' ? `started (${timeDisplay() === 'local' ? 'local' : 'UTC'})` : c.label);
  return COLUMNS.map((c) =>
    h('th', { class: c.num ? 'num sortable' : 'sortable', dataset: { key: c.key }, tabIndex: 0 }, label(c)),
  );
}

/** The sessions passing the filters (a text in a field, or in a prompt as the engine found), sorted. */
function sessionsShown(list, state, withPrompt) {
  const needle = state.text.toLowerCase();
  let rows = list.filter(
    (s) =>
      (!state.project || usageProject(s) === state.project) &&
      (!state.home || (s.homes || []).includes(state.home)) &&
      (!state.agent || s.agent === state.agent) &&
      (!needle ||
        [s.name, s.session_id, s.project_path, s.remote, s.git_branch, modelsShown(s).join(' '), s.client_name].some((v) => (v || '').toLowerCase().includes(needle)) ||
        (withPrompt.text === state.text && withPrompt.ids.has(s.session_id))),
  );
  const column = COLUMNS.find((c) => c.key === state.sort);
  rows = rows
    .map((s) => [column.sort(s), s])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0) * (state.desc ? -1 : 1))
    .map(([, s]) => s);
  return rows;
}

/** A header clicked (or Enter on it) sorts by its column, again to turn the order round. */
function sortOnClick(headers, state, draw) {
  for (const th of headers) {
    const sortBy = () => {
      if (state.sort === th.dataset.key) state.desc = !state.desc;
      else {
        state.sort = th.dataset.key;
        state.desc = COLUMNS.find((c) => c.key === th.dataset.key).num || th.dataset.key === 'started' || th.dataset.key === 'last';
      }
      draw();
    };
    th.addEventListener('click', sortBy);
    th.addEventListener('keydown', (e) => e.key === 'Enter' && sortBy());
  }
}

/**
 * Shows the list filtered to one project (the Overview's project bars open it so).
 * @param {import('../app.js').ViewContext} ctx
 */
export function showProject(path, ctx) {
  if (view && view.ctx === ctx) view.filterProject(path);
}

/**
 * Shows one session's transcript (the Sessions view must be rendered), at a row if given.
 * @param {import('../app.js').ViewContext} ctx
 */
export async function open(sessionId, ctx, index = null) {
  if (!view || view.ctx !== ctx) return;
  const { listBox, transcript } = view;
  listBox.hidden = true;
  transcript.hidden = false;
  clear(transcript);
  const back = h('button#transcript-back.button.small', { on: { click: () => ((transcript.hidden = true), (listBox.hidden = false)) } }, '← All sessions');
  // When the list is shown again (the Sessions tab), the transcript stays until Back.
  add(transcript, back);
  await renderTranscript(transcript, ctx, sessionId, index);
}

export function shown() {}
