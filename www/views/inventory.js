// Inventory: per home, projects, scratch directories, synced sessions, models, tools, MCP
// servers, skills, standing permission grants and accounts.
import { add, fmtInt, fmtTime, h, section, table } from '../dom.js';

function wide(title, ...children) {
  const card = section(title, ...children);
  card.classList.add('wide');
  return card;
}

export async function render(container, ctx) {
  const inventory = await ctx.get('inventory', 'inventory');
  if (!ctx.alive()) return;
  add(container, h('h2.view-title', null, 'Inventory'));
  if (!inventory.homes.length) add(container, h('p.empty', null, 'No home found.'));
  for (const home of inventory.homes) {
    for (const agent of home.agents) {
      add(container, 
        h('h3.home-title', null, `Home: ${home.home}`, h('span.muted', null, ` · ${agent.agent} · ${fmtInt(agent.sessions)} sessions · ${fmtInt(agent.synced_sessions)} synced`)),
        h(
          'div.grid2',
          null,
          section(
            `Projects (${agent.projects.length})`,
            table(
              [
                { label: 'path', value: (p) => p.path, className: 'mono path' },
                { label: 'sessions', value: (p) => fmtInt(p.sessions), num: true },
                { label: 'first seen', value: (p) => fmtTime(p.first_seen), className: 'nowrap' },
                { label: 'last seen', value: (p) => fmtTime(p.last_seen), className: 'nowrap' },
              ],
              agent.projects,
            ),
          ),
          section(
            `Scratch directories (${agent.scratch_directories.length})`,
            table(
              [
                { label: 'path', value: (p) => p.path, className: 'mono path' },
                { label: 'sessions', value: (p) => fmtInt(p.sessions), num: true },
              ],
              agent.scratch_directories,
            ),
          ),
          section(
            `Models (${agent.models.length})`,
            table(
              [
                { label: 'model', value: (m) => m.model },
                { label: 'sessions', value: (m) => fmtInt(m.sessions), num: true },
              ],
              agent.models,
            ),
          ),
          section(
            `Tools (${agent.tools.length})`,
            table(
              [
                { label: 'tool', value: (t) => t.name, className: 'mono' },
                { label: 'calls', value: (t) => fmtInt(t.calls), num: true },
                { label: 'failures', value: (t) => fmtInt(t.failures), num: true },
              ],
              [...agent.tools].sort((a, b) => b.calls - a.calls),
            ),
          ),
          section(
            `MCP servers (${agent.mcp_servers.length})`,
            table(
              [
                { label: 'server', value: (m) => m.name, className: 'mono' },
                { label: 'used in sessions', value: (m) => (m.used_in_sessions ? 'yes' : 'no') },
                { label: 'connected', value: (m) => fmtInt(m.connected), num: true },
                { label: 'failed to start', value: (m) => fmtInt(m.failed_to_start), num: true },
              ],
              agent.mcp_servers,
            ),
          ),
          section(`Skills (${agent.skills.length})`, agent.skills.length ? h('ul.plain', null, agent.skills.map((s) => h('li.mono', null, s))) : h('p.empty', null, 'None.')),
          wide(
            `Standing permission grants (${agent.permission_grants.length})`,
            table(
              [
                { label: 'file', value: (g) => g.file, className: 'mono nowrap' },
                { label: 'location', value: (g) => g.location || '(everywhere)', className: 'mono path' },
                { label: 'list', value: (g) => g.list, className: 'nowrap' },
                { label: 'entry', value: (g) => g.entry, className: 'mono' },
              ],
              agent.permission_grants,
            ),
          ),
          section(
            `Accounts (${agent.accounts.length})`,
            table(
              [
                { label: 'host', value: (a) => a.host, className: 'mono' },
                { label: 'login', value: (a) => a.login },
              ],
              agent.accounts,
            ),
          ),
        ),
      );
    }
  }
  add(container, h('p.muted', null, `Synced sessions in all: ${fmtInt(inventory.synced_sessions)}.`));
}
