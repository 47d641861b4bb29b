// Inventory: per home and agent, what Copilot can use (MCP servers, skills, custom agents,
// instructions, plugins) joined with what the logs say it used, then what the logs mention
// (projects, scratch directories, models, tools, standing permission grants, accounts).
// Filters: home, agent, the servers' and the skills' verdicts, and a text filter.
import { add, badge, clear, fmtBytes, fmtInt, fmtTime, h, section, table } from '../dom.js';

// A verdict in a person's words; one without its own, with its underscores as spaces.
const VERDICT_WORDS = {
  used_not_configured: 'used; no configuration found here',
  used_not_found: 'used; not found here',
};
const words = (name) => VERDICT_WORDS[name] || name.replaceAll('_', ' ');

// How a verdict shows: what is used or built in is fine, what sits unused wants a look, what
// failed to start is bad, what was used but is not (or no longer) set up is a note. Any other
// verdict shows plain.
const VERDICT_KIND = {
  configured_and_used: 'ok',
  configured_never_used: 'warn',
  used_not_configured: 'info',
  built_in: 'ok',
  failed_to_start: 'bad',
  used: 'ok',
  never_used: 'warn',
  used_not_found: 'info',
};
const verdict = (item) => badge(words(item.verdict), VERDICT_KIND[item.verdict] || '');

// A home-relative path that may break after each `/`, never inside a name.
const pathText = (path) => path.split('/').flatMap((name, i) => (i ? ['/', h('wbr'), name] : [name]));
const paths = (list) => list.map((path) => h('div', null, pathText(path)));
const lastUsed = (item) => (item.last_used ? fmtTime(item.last_used) : '—');
const failedStarts = (m) => (m.failed_to_start ? badge(fmtInt(m.failed_to_start), 'bad') : '0');

// A server's tools, with their calls and failures, in a row below it shown on demand.
function toolsToggle(server) {
  const n = server.tools_used.length;
  if (!n) return '';
  const toggle = (event) => {
    const button = event.currentTarget;
    const row = button.closest('tr').nextElementSibling;
    row.hidden = !row.hidden;
    button.setAttribute('aria-expanded', String(!row.hidden));
  };
  return h('button.link.tools-toggle', { attrs: { 'aria-expanded': 'false' }, on: { click: toggle } }, n === 1 ? '1 tool' : `${fmtInt(n)} tools`);
}

function toolsRow(server, columnCount) {
  if (!server.tools_used.length) return null;
  return h(
    'tr.tools-used',
    { hidden: true },
    h(
      'td',
      { colSpan: columnCount },
      table(
        [
          { label: `tool of ${server.name}`, value: (t) => t.name, className: 'mono' },
          { label: 'calls', value: (t) => fmtInt(t.calls), num: true },
          { label: 'failures', value: (t) => fmtInt(t.failures), num: true },
        ],
        server.tools_used,
        { className: 'compact', row: (t) => ({ dataset: { tool: t.name } }) },
      ),
    ),
  );
}

function brings(plugin) {
  return [
    ...plugin.skills.map((name) => h('div', null, h('span.muted', null, 'skill '), h('span.mono', null, name))),
    ...plugin.custom_agents.map((name) => h('div', null, h('span.muted', null, 'agent '), h('span.mono', null, name))),
    ...plugin.mcp_servers.map((name) => h('div', null, h('span.muted', null, 'MCP server '), h('span.mono', null, name))),
  ];
}

// One section per list of an agent's inventory: its key there, what names an item (the rows'
// data-id, for the tests), its title, the columns, the texts the text filter looks at, and which
// verdict filter applies to it.
const SECTIONS = [
  {
    key: 'mcp_servers',
    id: (m) => m.name,
    title: 'MCP servers',
    wide: true,
    filter: 'server',
    columns: [
      { label: 'server', value: (m) => m.name, className: 'mono nowrap' },
      { label: 'type', value: (m) => m.type, className: 'nowrap' },
      { label: 'command or host', value: (m) => m.command || m.url_host, className: 'mono keep-names' },
      // `tools` as written in the configuration; null where it names none.
      { label: 'allowed tools', value: (m) => (m.tools ? m.tools.join(', ') : '—'), className: 'mono keep-names' },
      { label: 'args · env · headers', value: (m) => `${m.args} · ${m.env} · ${m.headers}`, num: true },
      { label: 'configured in', value: (m) => paths(m.configured_in), className: 'mono keep-names' },
      { label: 'plugin', value: (m) => m.plugin || '', className: 'mono nowrap' },
      { label: 'calls', value: (m) => fmtInt(m.calls), num: true },
      { label: 'failures', value: (m) => fmtInt(m.failures), num: true },
      { label: 'last used', value: lastUsed, className: 'nowrap' },
      { label: 'connected', value: (m) => fmtInt(m.connected), num: true },
      { label: 'failed starts', value: failedStarts, num: true },
      { label: 'verdict', value: verdict, className: 'nowrap' },
      { label: 'tools used', value: toolsToggle, className: 'nowrap' },
    ],
    after: toolsRow,
    legend:
      'args · env · headers: how many arguments, environment variables and headers the configuration gives the server. Only the count is read: their values are never kept or shown. Built in: the agent’s own server, which no file configures.',
    text: (m) => [m.name, m.type, m.command, m.url_host, ...(m.tools || []), ...m.configured_in, m.plugin, words(m.verdict), ...m.tools_used.map((t) => t.name)],
  },
  {
    key: 'skills',
    id: (s) => s.name,
    title: 'Skills',
    wide: true,
    filter: 'skill',
    columns: [
      { label: 'skill', value: (s) => s.name, className: 'mono nowrap' },
      { label: 'description', value: (s) => s.description },
      // No path: invoked, but no SKILL.md of that name in the home.
      { label: 'from', value: (s) => (s.path ? h('span', { title: `${fmtBytes(s.bytes)}, modified ${fmtTime(s.modified)}` }, pathText(s.path)) : '—'), className: 'mono keep-names' },
      { label: 'plugin', value: (s) => s.plugin || '', className: 'mono nowrap' },
      { label: 'invocations', value: (s) => fmtInt(s.invocations), num: true },
      { label: 'by the person', value: (s) => fmtInt(s.by_person), num: true },
      { label: 'by the model', value: (s) => fmtInt(s.by_model), num: true },
      { label: 'last used', value: lastUsed, className: 'nowrap' },
      { label: 'verdict', value: verdict, className: 'nowrap' },
    ],
    text: (s) => [s.name, s.description, s.path, s.plugin, words(s.verdict)],
  },
  {
    key: 'custom_agents',
    id: (a) => a.name,
    title: 'Custom agents',
    wide: true,
    columns: [
      { label: 'agent', value: (a) => a.name, className: 'mono nowrap' },
      { label: 'description', value: (a) => a.description },
      { label: 'file', value: (a) => pathText(a.path), className: 'mono keep-names' },
      { label: 'plugin', value: (a) => a.plugin || '', className: 'mono' },
      { label: 'size', value: (a) => fmtBytes(a.bytes), num: true },
      { label: 'modified', value: (a) => fmtTime(a.modified), className: 'nowrap' },
      { label: 'uses', value: (a) => fmtInt(a.uses), num: true },
    ],
    text: (a) => [a.name, a.description, a.path, a.plugin],
  },
  {
    key: 'instructions',
    id: (i) => i.path,
    title: 'Instructions',
    wide: true,
    columns: [
      { label: 'file', value: (i) => pathText(i.path), className: 'mono keep-names' },
      { label: 'first line', value: (i) => i.first_line },
      { label: 'size', value: (i) => fmtBytes(i.bytes), num: true },
      { label: 'modified', value: (i) => fmtTime(i.modified), className: 'nowrap' },
    ],
    text: (i) => [i.path, i.first_line],
  },
  {
    key: 'plugins',
    id: (p) => p.name,
    title: 'Plugins',
    wide: true,
    columns: [
      { label: 'plugin', value: (p) => [h('div.mono', null, p.name), h('div.mono.muted', null, pathText(p.path))], className: 'keep-names' },
      { label: 'version', value: (p) => p.version, className: 'mono nowrap' },
      { label: 'marketplace', value: (p) => p.marketplace, className: 'mono' },
      { label: 'description', value: (p) => p.description },
      { label: 'brings', value: brings },
      { label: 'modified', value: (p) => fmtTime(p.modified), className: 'nowrap' },
    ],
    text: (p) => [p.name, p.version, p.marketplace, p.description, p.path, ...p.skills, ...p.custom_agents, ...p.mcp_servers],
  },
  {
    key: 'projects',
    title: 'Projects',
    columns: [
      { label: 'path', value: (p) => p.path, className: 'mono path' },
      { label: 'remote', value: (p) => p.remote || '', className: 'mono' },
      { label: 'sessions', value: (p) => fmtInt(p.sessions), num: true },
      { label: 'first seen', value: (p) => fmtTime(p.first_seen), className: 'nowrap' },
      { label: 'last seen', value: (p) => fmtTime(p.last_seen), className: 'nowrap' },
    ],
    text: (p) => [p.path, p.remote],
  },
  {
    key: 'scratch_directories',
    title: 'Temporary work folders',
    columns: [
      { label: 'path', value: (p) => p.path, className: 'mono path' },
      { label: 'remote', value: (p) => p.remote || '', className: 'mono' },
      { label: 'sessions', value: (p) => fmtInt(p.sessions), num: true },
    ],
    text: (p) => [p.path, p.remote],
  },
  {
    key: 'models',
    title: 'Models',
    columns: [
      { label: 'model', value: (m) => m.model },
      { label: 'sessions', value: (m) => fmtInt(m.sessions), num: true },
    ],
    text: (m) => [m.model],
  },
  {
    key: 'tools',
    title: 'Tools',
    order: (a, b) => b.calls - a.calls,
    columns: [
      { label: 'tool', value: (t) => t.name, className: 'mono' },
      { label: 'calls', value: (t) => fmtInt(t.calls), num: true },
      { label: 'failures', value: (t) => fmtInt(t.failures), num: true },
    ],
    text: (t) => [t.name],
  },
  {
    key: 'permission_grants',
    title: 'Standing permission grants',
    wide: true,
    columns: [
      { label: 'file', value: (g) => g.file, className: 'mono nowrap' },
      { label: 'location', value: (g) => g.location || '(everywhere)', className: 'mono path' },
      { label: 'list', value: (g) => g.list, className: 'nowrap' },
      // The grant in words; the file's entry (its JSON) as the title.
      { label: 'grant', value: (g) => h('span', { title: g.entry }, g.words) },
    ],
    text: (g) => [g.file, g.location, g.list, g.words, g.entry],
  },
  {
    key: 'accounts',
    title: 'Accounts',
    columns: [
      { label: 'host', value: (a) => a.host, className: 'mono' },
      { label: 'login', value: (a) => a.login },
    ],
    text: (a) => [a.host, a.login],
  },
];

// The verdict filters: the verdicts the data holds, and for servers those that ever failed to
// start (also ones that started another time).
const ANY_FAILED_START = 'any_failed_start';
const VERDICT_FILTERS = {
  server: { label: 'servers', title: 'MCP servers', matches: (m, wanted) => (wanted === ANY_FAILED_START ? m.failed_to_start > 0 : m.verdict === wanted) },
  skill: { label: 'skills', title: 'Skills', matches: (s, wanted) => s.verdict === wanted },
};

function verdictSelect(id, kind, items) {
  const counts = new Map();
  for (const item of items) counts.set(item.verdict, (counts.get(item.verdict) || 0) + 1);
  const options = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([value, n]) => [value, `${words(value)} (${fmtInt(n)})`]);
  const failed = items.filter((m) => m.failed_to_start > 0).length;
  if (kind === 'server' && failed) options.push([ANY_FAILED_START, `any failed start (${fmtInt(failed)})`]);
  return h(
    `select#${id}`,
    { hidden: !items.length, attrs: { 'aria-label': `${VERDICT_FILTERS[kind].title} by verdict` } },
    h('option', { value: '' }, `all ${VERDICT_FILTERS[kind].label}`),
    options.map(([value, label]) => h('option', { value }, label)),
  );
}

/** @param {import('../app.js').ViewContext} ctx */
export async function render(container, ctx) {
  const inventory = await ctx.get('inventory');
  if (!ctx.alive()) return;
  const parts = inventory.homes.flatMap((home) => home.agents.map((agent) => ({ home: home.home, agent })));
  const homes = inventory.homes.map((home) => home.home);
  const agents = [...new Set(parts.map((p) => p.agent.agent))].sort();
  const all = (key) => parts.flatMap((p) => p.agent[key]);

  const home = h('select#inv-home', { hidden: homes.length < 2, attrs: { 'aria-label': 'Home' } }, h('option', { value: '' }, 'all homes'), homes.map((name) => h('option', { value: name }, name)));
  const agent = h('select#inv-agent', { hidden: agents.length < 2, attrs: { 'aria-label': 'Agent' } }, h('option', { value: '' }, 'all agents'), agents.map((name) => h('option', { value: name }, name)));
  const server = verdictSelect('inv-server-verdict', 'server', all('mcp_servers'));
  const skill = verdictSelect('inv-skill-verdict', 'skill', all('skills'));
  const text = h('input#inv-filter', { type: 'search', placeholder: 'Filter: name, path, text…', attrs: { 'aria-label': 'Filter the inventory' } });
  const out = h('div#inventory-parts');
  add(
    container,
    h('h2.view-title', null, 'Inventory'),
    h('div.controls', null, home, agent, server, skill, text),
    out,
    h('p.muted', null, `Synced sessions in all: ${fmtInt(inventory.synced_sessions)}.`),
  );

  const draw = () => {
    const needle = text.value.toLowerCase();
    const wanted = { server: server.value, skill: skill.value };
    const filtering = Boolean(needle || wanted.server || wanted.skill);
    const keep = (section, item) =>
      (!needle || section.text(item).some((v) => (v || '').toLowerCase().includes(needle))) &&
      (!section.filter || !wanted[section.filter] || VERDICT_FILTERS[section.filter].matches(item, wanted[section.filter]));
    clear(out);
    if (!parts.length) add(out, h('p.empty', null, 'No home found.'));
    for (const part of parts) {
      if ((home.value && part.home !== home.value) || (agent.value && part.agent.agent !== agent.value)) continue;
      const found = part.agent;
      const cards = [];
      const none = [];
      for (const s of SECTIONS) {
        const list = s.order ? [...found[s.key]].sort(s.order) : found[s.key];
        const shown = list.filter((item) => keep(s, item));
        // An empty list, or one the filters empty, is named in a line rather than a card.
        if (!shown.length) {
          none.push(list.length ? `${s.title} (0 of ${fmtInt(list.length)})` : s.title);
          continue;
        }
        const title = `${s.title} (${shown.length === list.length ? fmtInt(list.length) : `${fmtInt(shown.length)} of ${fmtInt(list.length)}`})`;
        const legend = s.legend ? h('p.muted.inv-legend', null, s.legend) : null;
        const card = section(title, table(s.columns, shown, { className: `inv-${s.key} cards`, row: s.id && ((item) => ({ dataset: { id: s.id(item) } })), after: s.after }), legend);
        card.dataset.section = s.key;
        if (s.wide) card.classList.add('wide');
        cards.push(card);
      }
      add(
        out,
        h(
          'div.inv-part',
          { dataset: { home: part.home, agent: found.agent } },
          h('h3.home-title', null, `Home: ${part.home}`, h('span.muted', null, ` · ${found.agent} · ${fmtInt(found.sessions)} sessions · ${fmtInt(found.synced_sessions)} also on github.com`)),
          none.length ? h('p.muted.inv-none', null, `${filtering ? 'Nothing matches in' : 'None found'}: ${none.join(', ')}.`) : null,
          h('div.grid2', null, cards),
        ),
      );
    }
  };
  for (const select of [home, agent, server, skill]) select.addEventListener('change', draw);
  text.addEventListener('input', draw);
  draw();
}
