// Usage: the day / month / session / model / home / agent tables of the `usage` command (`--by`;
// the other groupings add the agents up, `--agent` keeps one), with their flags, the total the
// headline gives with its parts, the sessions whose usage nothing counts, and those whose figures
// leave out counters that cannot be token counts.
import { add, badge, clear, fmtCredits, fmtInt, fmtUsd, h, section, table } from '../dom.js';
import { includedParts } from './month.js';

const WARN_FLAGS = new Set(['no_rate', 'implausible_counter', 'implausible_date', 'differs', 'ambiguous_resume']);
const PLAIN_FLAGS = new Set(['long_context', 'byok', 'auto', 'compaction']);

/**
 * The flags column: each flag in the engine's words, its name in `data-flag` and its meaning
 * in the title; the legend below the table says the meanings for touch and keyboard too.
 * @param {import('../types').UsageView} data
 */
function flagsColumn(data) {
  const known = new Map(data.flag_legend.map((flag) => [flag.name, flag]));
  const flags = (row) =>
    row.flags.map((name) => {
      const flag = known.get(name);
      const shown = badge(flag ? flag.words : name, WARN_FLAGS.has(name) ? 'warn' : PLAIN_FLAGS.has(name) ? '' : 'info');
      shown.dataset.flag = name;
      shown.title = flag ? flag.meaning : '';
      return shown;
    });
  return { label: 'flags', value: flags };
}

/** What the flags shown mean, in a list anyone can read (not only a hover title). */
function flagLegend(data) {
  if (!data.flag_legend.length) return null;
  return h('dl.legend.flag-legend', null, data.flag_legend.map((flag) => [h('dt', null, flag.words), h('dd', null, flag.meaning)]));
}

// Credits first after the names: the money is the figure read first, on a phone too.
const numbers = [
  { label: 'credits', value: credits, num: true },
  { label: 'requests', value: (r) => fmtInt(r.requests), num: true },
  { label: 'input', value: (r) => fmtInt(r.input), num: true },
  { label: 'cache read', value: (r) => fmtInt(r.cache_read), num: true },
  { label: 'cache write', value: (r) => fmtInt(r.cache_write), num: true },
  { label: 'output', value: (r) => fmtInt(r.output), num: true },
  { label: 'reasoning', value: (r) => fmtInt(r.reasoning), num: true },
  { label: 'total', value: (r) => fmtInt(r.total), num: true },
];

const CREDITS_FROM = {
  recorded: 'as Copilot recorded them',
  estimated: 'estimated at the published rates: Copilot recorded none',
  both: 'partly as Copilot recorded them, partly estimated where it recorded none',
};

/** AI credits used, as the CLI shows them: `~` where some are estimated. */
function credits(row) {
  if (row.credits === null || row.credits === undefined) return '—';
  const text = (row.credits_from === 'recorded' ? '' : '~') + fmtCredits(row.credits);
  const recorded = row.recorded_nano_aiu === null || row.recorded_nano_aiu === undefined ? '' : `; recorded ${fmtCredits(row.recorded_nano_aiu / 1e9)}`;
  const estimate = row.cost_ai_credits === null || row.cost_ai_credits === undefined ? '' : `; estimate ${fmtCredits(row.cost_ai_credits)}`;
  return h('span', { title: `${CREDITS_FROM[row.credits_from] || row.credits_from}${recorded}${estimate}`, dataset: { from: row.credits_from } }, text);
}

/**
 * The total the headline gives, one row, with the credits of each of its parts (from session
 * totals, unfinished sessions, deleted ones) as columns where there is more than one; below it,
 * what the upper reading of an ambiguous resume would add, which the total leaves out.
 * @param {import('../types').UsageView} data
 */
function totalsSection(data) {
  const words = data.kind_words;
  const parts = Object.keys(data.totals).filter((kind) => kind !== 'ambiguous_resume');
  const partColumns = parts.length > 1 ? parts.map((kind) => ({ label: words[kind], value: (r) => (r.label === 'total' ? credits(data.totals[kind]) : ''), num: true })) : [];
  const rows = Object.keys(data.totals).length ? [{ ...data.grand_total, label: 'total' }] : [];
  if (data.totals.ambiguous_resume) rows.push({ ...data.totals.ambiguous_resume, label: words.ambiguous_resume });
  const columns = [{ label: 'figure', value: (r) => r.label }, ...numbers, ...partColumns, flagsColumn(data)];
  const card = section(
    'Totals',
    table(columns, rows, { className: 'usage-totals', empty: 'No token counts.' }),
    h('p.muted', null, 'The total is the headline\'s: the shutdowns\' session totals, the lower bounds of sessions still running or never shut down, and the store\'s rows of deleted sessions. A resumed session whose CLI version cannot tell whether its counters restarted is counted at the lower reading; the upper one would add the row below the total.'),
  );
  // Its columns are wider than a narrow window: scrolled, it must be reachable by keyboard.
  card.tabIndex = 0;
  card.setAttribute('aria-label', 'Totals');
  return card;
}

/** @param {import('../app.js').ViewContext} ctx */
export async function render(container, ctx) {
  /** @type {import('../types').Grouping[]} */
  const groupings = ctx.engine.facts.groupings;
  const by = h('select#usage-by', null, groupings.map(({ name }) => h('option', { value: name }, name)));
  const since = h('input#usage-since', { type: 'date' });
  const until = h('input#usage-until', { type: 'date' });
  const sessions = await ctx.get('sessions');
  if (!ctx.alive()) return;
  // Several agents (Copilot CLI, VS Code, ...): one agent's figures; hidden with one, as the
  // Sessions view's homes.
  const agents = [...new Set(sessions.map((s) => s.agent).filter(Boolean))].sort();
  const agent = h('select#usage-agent', { hidden: agents.length < 2, attrs: { 'aria-label': 'Agent' } }, h('option', { value: '' }, 'all agents'), agents.map((a) => h('option', { value: a }, a)));
  const out = h('div');
  const controls = h(
    'div.controls',
    null,
    h('label', null, 'Group by ', by),
    agent,
    h('label', null, 'From ', since),
    h('label', null, 'to ', until),
  );
  const days = ctx.zone && ctx.zone !== 'UTC'
    ? `Days are grouped in ${ctx.zone}, as chosen in Options (the command line's --timezone ${ctx.zone}).`
    : 'Days are UTC days, as the counting rules and the command line count them; Options > "Days in" regroups them in another zone.';
  add(container, h('h2.view-title', null, 'Usage'), h('p#usage-days.muted', null, days), controls, out);

  const names = new Map(sessions.map((s) => [s.session_id, s.name]));
  const sessionLink = (id) =>
    h('button.link', { on: { click: () => ctx.openSession(id) }, title: id }, names.get(id) ? `${names.get(id)} (${id.slice(0, 8)})` : id);

  const update = async () => {
    const grouping = by.value;
    const data = await ctx.ask({ usage: { by: grouping, since: since.value, until: until.value, agent: agent.value } });
    if (!ctx.alive()) return;
    // The group's column, as the engine names it (none for the model's, which every row has).
    const { column } = groupings.find(({ name }) => name === grouping);
    const shown = { session_id: (r) => sessionLink(r.session_id), project_path: (r) => r.project_path || '(no project)', client: (r) => r.client || '(none named)' };
    const mono = column === 'home' || column === 'project_path' || column === 'client';
    const group = column ? [{ label: grouping, value: shown[column] || ((r) => r[column]), ...(mono ? { className: 'mono' } : {}) }] : [];
    const columns = [...group, { label: 'model', value: (r) => r.model }, ...numbers, flagsColumn(data)];
    const used = data.credits_used;
    const parts = includedParts(data.kind_words, fmtCredits, used.partial, used.recovered);
    const headline =
      used.credits === 0 && used.own_key_tokens > 0
        ? `${fmtInt(used.own_key_tokens)} tokens on your own key, no Copilot charge`
        : `Credits used: ${fmtCredits(used.credits)} (${fmtUsd(used.usd)}): ${fmtCredits(used.recorded)} as Copilot recorded them, ${fmtCredits(used.estimated)} estimated${parts ? `; ${parts}` : ''}`;
    add(clear(out), 
      h('p#usage-credits-used.headline', { dataset: { credits: String(used.credits) } }, headline),
      section(
        `Usage by ${grouping}${agent.value ? ` of ${agent.value}` : ''}`,
        table(columns, data.rows, { className: 'usage-table', empty: 'No token counts in this range.' }),
        agents.length > 1 && !agent.value && grouping !== 'agent' ? h('p.muted', null, 'The agents are added up; group by agent to split them.') : null,
      ),
      totalsSection(data),
      h('p.muted', null, 'Credits (1 credit = 0.01 USD): as Copilot recorded them; ~ where some are estimated at the published rates, for what it recorded nothing of. The Month view has the billing month against an allowance.'),
      flagLegend(data),
      section(
        `Sessions whose usage is unknown (${fmtInt(data.unknown_usage_sessions.length)})`,
        data.unknown_usage_sessions.length
          ? h('ul.plain', null, data.unknown_usage_sessions.map((id) => h('li', null, sessionLink(id))))
          : h('p.empty', null, 'None: every session with an event log has counted, partial or recovered figures.'),
      ),
      data.implausible_counter_sessions.length
        ? section(
            `Sessions with counters left out (${fmtInt(data.implausible_counter_sessions.length)})`,
            h('p.muted', null, 'These logs hold counters that cannot be token counts; they were left out, never added, and their rows carry a flag saying so.'),
            h('ul#usage-implausible.plain', null, data.implausible_counter_sessions.map((id) => h('li', null, sessionLink(id)))),
          )
        : null,
      data.counter_problems.length
        ? section(
            `Counter lines to check (${fmtInt(data.counter_problems.length)})`,
            table(
              [
                { label: 'file', value: (d) => h('code', null, d.file) },
                { label: 'line', value: (d) => (d.line === undefined ? '—' : fmtInt(d.line)), num: true },
                { label: 'kind', value: (d) => d.kind },
                { label: 'what it means', value: (d) => d.message },
              ],
              data.counter_problems,
              { className: 'usage-counter-lines' },
            ),
          )
        : null,
      h('p.muted', null, `Rates: ${data.rates}`),
    );
  };
  for (const el of [by, agent, since, until]) el.addEventListener('change', () => update().catch((e) => add(clear(out), h('p.error-inline', null, String(e.message || e)))));
  await update();
}
