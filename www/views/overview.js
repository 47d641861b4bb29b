// Overview: totals and the charts (Chart.js from www/vendor): tokens and cost per day stacked by
// model (by agent when there are several), by model, and the projects ranked by credits used
// (the one money figure; a bar opens the project's sessions). The day and model charts show the
// counted figures (the totals); partial and recovered figures are in the Usage view.
import { chartFigure, chartLibrary, chartReady, chartTable, shortTicks } from '../charts.js';
import { add, fmtCount, fmtCredits, fmtInt, fmtUsd, h, section } from '../dom.js';
import { creditsUsedText, estimatedShareText, includedParts } from './month.js';

const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac', '#86bcb6', '#d37295'];
let charts = [];

export function colorFor(models) {
  const sorted = [...new Set(models)].sort();
  return (model) => PALETTE[sorted.indexOf(model) % PALETTE.length];
}

const counted = (row) => !row.flags.includes('partial') && !row.flags.includes('recovered');

export function tile(metric, label, value, text, note) {
  return h('div.tile', { dataset: { metric, value: String(value) } }, h('div.tile-value', null, text), h('div.tile-label', null, label), note ? h('div.tile-note', null, note) : null);
}

/** Every day from the first to the last, so gaps show as gaps. */
function dayRange(days) {
  if (!days.length) return [];
  const sorted = [...days].sort();
  const out = [];
  const end = Date.parse(sorted[sorted.length - 1] + 'T00:00:00Z');
  for (let t = Date.parse(sorted[0] + 'T00:00:00Z'); t <= end && out.length < 3660; t += 86400000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

/** Draws `config` on `canvas`, its figures as the table under it (a row per `labelHeading`). */
function makeChart(Chart, canvas, config, labelHeading, format) {
  chartTable(canvas, labelHeading, config.data.labels, config.data.datasets, format);
  if (!chartReady(Chart, canvas)) return;
  config.options = { responsive: true, maintainAspectRatio: false, animation: false, ...config.options };
  charts.push(new Chart(canvas, config));
}

/** The projects the chart shows, the most credits first. */
const TOP_PROJECTS = 20;
const NO_PROJECT = '(no project)';

/**
 * The one money figure: credits used by the Month's rule (recorded else estimated, partial and
 * recovered included, BYOK 0; usage::credits), marked `~` where some are estimated, with the
 * dollars and the share estimated beside. A home that used only the person's own key shows 0.00
 * and says why under it.
 * @param {import('../types').UsageView} byDay
 */
function moneyTile(byDay) {
  const used = byDay.credits_used;
  if (used.credits === 0 && used.own_key_tokens > 0) {
    return tile('credits_used', 'credits used', 0, fmtCredits(0), `${fmtInt(used.own_key_tokens)} tokens on your own key: no Copilot charge`);
  }
  const parts = includedParts(byDay.kind_words, fmtCredits, used.partial, used.recovered);
  return tile('credits_used', 'credits used', used.credits, creditsUsedText(used), `${fmtUsd(used.usd)}, ${estimatedShareText(used)}${parts ? `; ${parts}` : ''}`);
}

/** @param {import('../app.js').ViewContext} ctx */
export async function render(container, ctx) {
  for (const chart of charts) chart.destroy();
  charts = [];
  const [sessions, byDay, byProject, byModel, byAgent] = await Promise.all([
    ctx.get('sessions'),
    ctx.get({ usage: { by: 'day', since: '', until: '', agent: '' } }),
    ctx.get({ usage: { by: 'project', since: '', until: '', agent: '' } }),
    ctx.get({ usage: { by: 'model', since: '', until: '', agent: '' } }),
    ctx.get({ usage: { by: 'agent', since: '', until: '', agent: '' } }),
  ]);
  if (!ctx.alive()) return;
  // Several agents with counted figures: the days stack by agent, each agent's days its own table.
  const agents = [...new Set(byAgent.rows.filter(counted).map((r) => r.agent))].sort();
  const agentDays = agents.length > 1 ? await Promise.all(agents.map((a) => ctx.get({ usage: { by: 'day', since: '', until: '', agent: a } }))) : [];
  if (!ctx.alive()) return;
  const s = ctx.summary;
  const tiles = overviewTiles(s, sessions, byDay);

  const warnings = ctx.warnings.length
    ? h('div.warning', null, 'Some inputs could not be used: ', ctx.warnings.map((w) => h('div.mono', null, `${w.root}: ${w.message}`)))
    : null;

  const dayRows = byDay.rows.filter(counted);
  const models = [...new Set(byModel.rows.filter(counted).map((r) => r.model))].sort();
  const color = colorFor(models);
  const days = dayRange(dayRows.map((r) => r.day));
  const stackBy = agents.length > 1 ? 'agent' : 'model';
  /** @type {Array<[string, import('../types').UsageRow[]]>} */
  const series =
    stackBy === 'agent'
      ? agents.map((a, i) => [a, agentDays[i].rows.filter(counted)])
      : models.map((model) => [model, dayRows.filter((r) => r.model === model)]);
  const seriesColor = stackBy === 'agent' ? colorFor(agents) : color;
  const perDay = (field, scale = 1) =>
    series.map(([label, rows]) => {
      const values = new Map();
      for (const r of rows) values.set(r.day, (values.get(r.day) || 0) + (r[field] || 0) / scale);
      return { label, data: days.map((d) => values.get(d) || 0), backgroundColor: seriesColor(label), stack: 's' };
    });

  // The projects by credits used, as the engine ranks them (the Usage view's order by project).
  const projects = byProject.project_credits.filter(([, used]) => used.credits > 0).slice(0, TOP_PROJECTS);

  const modelRows = byModel.rows.filter(counted);

  add(container, 
    h('h2.view-title', null, 'Overview'),
    coverage(sessions),
    warnings,
    tiles,
    overviewSections(stackBy, dayRows, projects, modelRows),
    h('p.muted.rates-source', null, `Credits are as Copilot recorded them; where it recorded none, estimated at the published rates (none for calls on your own key, Auto's 10% off): ${byDay.rates}`),
  );

  const Chart = await chartLibrary();
  if (!ctx.alive()) return;
  if (dayRows.length) drawDayCharts(Chart, container, days, perDay);
  if (projects.length) drawProjectChart(Chart, container, ctx, projects);
  if (modelRows.length) drawModelChart(Chart, container, modelRows);
}

/** Which days the data covers: its sessions' first and last events, as UTC days. */
function coverage(sessions) {
  const times = sessions.flatMap((r) => [r.first_event || r.created_at, r.last_event || r.updated_at]).filter(Boolean).sort();
  if (!times.length) return null;
  return h('p#overview-covers.muted', null, `From ${times[0].slice(0, 10)} to ${times[times.length - 1].slice(0, 10)} (UTC days): ${fmtCount(sessions.length, 'session')}.`);
}

/** The totals: sessions, prompts, tool calls, tokens, and the credits used. */
function overviewTiles(s, sessions, byDay) {
  const prompts = sessions.reduce((n, r) => n + r.prompts, 0);
  const toolCalls = sessions.reduce((n, r) => n + r.tool_calls, 0);
  return h(
    'div.tiles',
    null,
    tile('sessions', 'sessions', s.sessions, fmtInt(s.sessions), `${fmtInt(sessions.filter((r) => !r.events_log).length)} without an event log`),
    tile('prompts', 'prompts', prompts, fmtInt(prompts)),
    tile('tool_calls', 'tool calls', toolCalls, fmtInt(toolCalls)),
    tile('total_tokens', 'tokens', s.total_tokens, fmtInt(s.total_tokens), includedParts(byDay.kind_words, fmtInt, byDay.totals.partial?.total, byDay.totals.recovered?.total)),
    moneyTile(byDay),
  );
}

/** The charts' places, each with what it shows when there is nothing to chart. */
function overviewSections(stackBy, dayRows, projects, modelRows) {
  return h(
    'div.grid2',
    null,
    section(`Tokens per day, by ${stackBy}`, dayRows.length ? chartFigure('chart-tokens-day', `Tokens per day, by ${stackBy}`) : h('p.empty', null, 'No token counts in this data.')),
    section(`Credits per day, by ${stackBy}`, dayRows.length ? chartFigure('chart-credits-day', `Credits per day, by ${stackBy}`) : h('p.empty', null, 'No token counts in this data.')),
    section(
      'Credits used by project',
      projects.length ? [chartFigure('chart-project', 'Credits used by project'), h('p.muted', null, 'A bar opens the project\'s sessions.')] : h('p.empty', null, 'No credits used in this data.'),
    ),
    section('Tokens and credits by model', modelRows.length ? chartFigure('chart-model', 'Tokens and credits by model') : h('p.empty', null, 'No token counts in this data.')),
  );
}

/** Tokens and credits per day, stacked by `perDay`'s series. */
function drawDayCharts(Chart, container, days, perDay) {
  makeChart(Chart, container.querySelector('#chart-tokens-day'), {
    type: 'bar',
    data: { labels: days, datasets: perDay('total') },
    options: { scales: { x: { stacked: true }, y: { stacked: true } }, plugins: { legend: { position: 'bottom' } } },
  }, 'day (UTC)', fmtInt);
  makeChart(Chart, container.querySelector('#chart-credits-day'), {
    type: 'bar',
    data: { labels: days, datasets: perDay('credits') },
    options: {
      scales: { x: { stacked: true }, y: { stacked: true, title: { display: true, text: 'AI credits' } } },
      plugins: { legend: { position: 'bottom' }, tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${fmtCredits(c.parsed.y)} credits (${fmtUsd(c.parsed.y * 0.01)})` } } },
    },
  }, 'day (UTC)', fmtCredits);
}

/** The projects by credits used, a bar opening the project's sessions. */
function drawProjectChart(Chart, container, ctx, projects) {
  const paths = projects.map(([path]) => path);
  const canvas = container.querySelector('#chart-project');
  canvas.dataset.projects = JSON.stringify(paths);
  const open = (index) => paths[index] && ctx.openProject(paths[index]);
  makeChart(Chart, canvas, {
    type: 'bar',
    data: {
      labels: paths.map((p) => p || NO_PROJECT),
      datasets: [{ label: 'credits used', data: projects.map(([, used]) => used.credits), backgroundColor: PALETTE[0] }],
    },
    options: {
      indexAxis: 'y',
      scales: { x: { title: { display: true, text: 'AI credits' } }, y: { ticks: shortTicks } },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            title: (items) => paths[items[0].dataIndex] || NO_PROJECT,
            label: (c) => `${fmtCredits(c.parsed.x)} credits (${fmtUsd(projects[c.dataIndex][1].usd)})`,
          },
        },
      },
      // The sessions of a project that has a path (those without one have no filter).
      onClick: (_, bars) => bars.length && open(bars[0].index),
      onHover: (event, bars) => (event.native.target.style.cursor = bars.length && paths[bars[0].index] ? 'pointer' : ''),
    },
  }, 'project', fmtCredits);
}

/** Tokens and credits by model, on two axes. */
function drawModelChart(Chart, container, modelRows) {
  makeChart(Chart, container.querySelector('#chart-model'), {
    type: 'bar',
    data: {
      labels: modelRows.map((r) => r.model),
      datasets: [
        { label: 'tokens', data: modelRows.map((r) => r.total), backgroundColor: '#4e79a7', yAxisID: 'y' },
        { label: 'credits', data: modelRows.map((r) => r.credits || 0), backgroundColor: '#f28e2b', yAxisID: 'credits' },
      ],
    },
    options: {
      scales: { x: { ticks: shortTicks }, y: { title: { display: true, text: 'tokens' } }, credits: { position: 'right', grid: { drawOnChartArea: false }, title: { display: true, text: 'AI credits' } } },
      plugins: { legend: { position: 'bottom' } },
    },
  }, 'model', (value, series) => (series.yAxisID === 'credits' ? fmtCredits(value) : fmtInt(value)));
}
