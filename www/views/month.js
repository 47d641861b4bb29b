// Month: one billing month's AI credits against the monthly allowance and the person's budget. GitHub bills Copilot in
// AI credits (1 credit = 0.01 USD) that reset at 00:00 UTC on the 1st of each month, so the month
// is UTC's whatever the display time zone. The engine's `month(day, today, allowance)` gives the
// days, the pace's projection and the run-out day (src/usage/month.rs); the core has no clock,
// so "today" is this page's (in UTC; `?today=YYYY-MM-DD` fixes it for tests). Where the credits
// went: the top sessions, projects and models of the month from the usage table.
import { chartFigure, chartLibrary, chartReady, chartTable } from '../charts.js';
import { add, badge, clear, debounce, fmtCredits, fmtInt, fmtUsd, h, section, table } from '../dom.js';

const ALLOWANCE_KEY = 'copilot-lens.allowance';
// The person's own limit for the month, beside the plan's allowance (the CLI's --budget-month).
const BUDGET_KEY = 'copilot-lens.budget-month';
const TOP = 5;
let chart = null;

function load(key) {
  try {
    return localStorage.getItem(key) || '';
  } catch {
    return ''; // storage refused (a private window, a file:// page with storage off)
  }
}

function save(key, text) {
  try {
    if (text) localStorage.setItem(key, text);
    else localStorage.removeItem(key);
  } catch {
    // remembered for this page only
  }
}

/**
 * The allowance the person keeps in this browser, as typed; null when none. The engine reads
 * it as the CLI's --allowance (`usage::month::parse_allowance`): 500, 1,500, 1500.5.
 */
export const savedAllowance = () => load(ALLOWANCE_KEY).trim() || null;

function tile(metric, label, value, text, note) {
  return h(
    'div.tile',
    { dataset: { metric, value: value === null || value === undefined ? '' : String(value) } },
    h('div.tile-value', null, text),
    h('div.tile-label', null, label),
    note ? h('div.tile-note', null, note) : null,
  );
}

/** "2026-11" as "November 2026" (the month's name in English, as the rest of the page). */
function monthName(month) {
  const [year, number] = month.split('-').map(Number);
  return new Date(Date.UTC(year, number - 1, 1)).toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/**
 * Credits used as the headline says them, with the CLI's `~` where some are estimated; a home on
 * its own key only says so, not "0.00".
 */
export function creditsUsedText(used) {
  if (used.credits === 0 && used.own_key_tokens > 0) return `${fmtInt(used.own_key_tokens)} tokens on your own key, no Copilot charge`;
  return `${used.estimated > 0 ? '~' : ''}${fmtCredits(used.credits)}`;
}

/**
 * How much of credits used is estimated rather than recorded by Copilot, in words: "all as
 * Copilot recorded them", "99% estimated at the published rates". A share that rounds to 0 or 100
 * but is not says "1%" or "99%", so a mixed figure never reads as a pure one.
 */
export function estimatedShareText(used) {
  if (!(used.estimated > 0)) return `all ${FROM_TEXT.recorded}`;
  if (!(used.recorded > 0)) return `all ${FROM_TEXT.estimated}`;
  const percent = Math.min(99, Math.max(1, Math.round((used.estimated / (used.recorded + used.estimated)) * 100)));
  return `${percent}% ${FROM_TEXT.estimated}`;
}

/**
 * The parts of a total beside the session totals, in words ("12,345 from unfinished sessions (at
 * least) included"); none when the total is all session totals.
 * @param {Record<string, string>} words the engine's words for each kind of figure
 * @param {(figure: number) => string} format
 */
export function includedParts(words, format, partial, recovered) {
  const parts = [['partial', partial], ['recovered', recovered]].filter(([, figure]) => figure);
  return parts.length ? `${parts.map(([kind, figure]) => `${format(figure)} ${words[kind]}`).join(' and ')} included` : null;
}

/** A row's credits with the CLI's marker: `~` where some are estimated. */
function creditsText(credits, from) {
  if (credits === null || credits === undefined) return '—';
  return from === 'recorded' ? fmtCredits(credits) : `~${fmtCredits(credits)}`;
}

const FROM_TEXT = {
  recorded: 'as Copilot recorded them',
  estimated: 'estimated at the published rates',
  both: 'partly as recorded, partly estimated',
};

/** Usage rows added up by `key` (all kinds: the month counts partial and recovered figures too). */
function topBy(rows, key) {
  const groups = new Map();
  for (const row of rows) {
    const id = key(row);
    const group = groups.get(id) || { id, credits: 0, priced: false, recorded: false, estimated: false, requests: 0, total: 0, models: new Set(), flags: new Set() };
    if (row.credits !== null && row.credits !== undefined) {
      group.credits += row.credits;
      group.priced = true;
    }
    if (row.credits_from === 'recorded' || row.credits_from === 'both') group.recorded = true;
    if (row.credits_from === 'estimated' || row.credits_from === 'both') group.estimated = true;
    group.requests += row.requests;
    group.total += row.total;
    group.models.add(row.model);
    for (const flag of row.flags) group.flags.add(flag);
    groups.set(id, group);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, credits: g.priced ? Math.round(g.credits * 100) / 100 : null, credits_from: g.recorded && g.estimated ? 'both' : g.recorded ? 'recorded' : 'estimated', models: [...g.models].sort(), flags: [...g.flags].sort() }))
    .sort((a, b) => (b.credits || 0) - (a.credits || 0) || b.total - a.total || (a.id < b.id ? -1 : 1))
    .slice(0, TOP);
}

/** What the pace says, in words. */
function outlook(m) {
  const lines = [];
  const pace = m.used / Number(m.as_of.slice(8, 10));
  if (m.projected !== null) {
    lines.push(h('p#month-projection', null, `At the pace so far (${fmtCredits(pace)} credits a day over ${fmtInt(Number(m.as_of.slice(8, 10)))} days), about ${fmtCredits(m.projected)} credits by the month's end (${m.month}-${String(m.days_in_month).padStart(2, '0')}).`));
  } else {
    lines.push(h('p#month-projection', null, `The month is over: ${fmtCredits(m.used)} credits used in all.`));
  }
  let runOut;
  if (m.allowance === null) runOut = 'Give a monthly allowance to see the day it would run out.';
  else if (m.runs_out_on && m.used >= m.allowance) runOut = `The allowance of ${fmtCredits(m.allowance)} credits ran out on ${m.runs_out_on}.`;
  else if (m.runs_out_on) runOut = `At this pace the allowance of ${fmtCredits(m.allowance)} credits runs out on ${m.runs_out_on}.`;
  else if (m.finished) runOut = `The allowance of ${fmtCredits(m.allowance)} credits lasted the month: ${fmtCredits(m.allowance - m.used)} left over.`;
  else runOut = `At this pace the allowance of ${fmtCredits(m.allowance)} credits lasts the month: about ${fmtCredits(m.allowance - m.projected)} left at its end.`;
  lines.push(h('p#month-runout', { class: m.runs_out_on ? 'warn-text' : '' }, runOut));
  if (m.budget !== undefined) lines.push(h('p#month-budget-pace', { class: m.budget_crossed_on ? 'warn-text' : '' }, budgetWords(m)));
  return lines;
}

/** Where the month stands against the person's own budget, by the allowance's rule. */
function budgetWords(m) {
  const budget = `your budget of ${fmtCredits(m.budget)} credits`;
  if (m.budget_crossed_on && m.used >= m.budget) return `The credits crossed ${budget} on ${m.budget_crossed_on}.`;
  if (m.budget_crossed_on) return `At this pace the credits cross ${budget} on ${m.budget_crossed_on}.`;
  if (m.finished) return `The month stayed within ${budget}: ${fmtCredits(m.budget - m.used)} under it.`;
  return `At this pace the month stays within ${budget}: about ${fmtCredits(m.budget - m.projected)} under it at its end.`;
}

async function drawChart(canvas, m) {
  if (chart) chart.destroy();
  chart = null;
  const Chart = await chartLibrary();
  // Another month or allowance may have replaced the canvas meanwhile.
  if (!canvas.isConnected) return;
  const labels = [];
  for (let day = 1; day <= m.days_in_month; day++) labels.push(`${m.month}-${String(day).padStart(2, '0')}`);
  const known = m.days.length;
  const cumulative = labels.map((_, i) => (i < known ? m.days[i].cumulative : null));
  /** @type {object[]} */
  const datasets = [
    { type: 'line', label: 'credits used (cumulative)', data: cumulative, borderColor: '#4e79a7', backgroundColor: '#4e79a7', pointRadius: 2, stack: 'used', order: 1 },
  ];
  if (m.projected !== null && known) {
    // The pace so far, from the as-of day to the month's end: day n holds n times the pace.
    const pace = m.used / known;
    datasets.push({
      type: 'line',
      label: 'projection at this pace',
      data: labels.map((_, i) => (i + 1 >= known ? (i + 1 === known ? m.used : pace * (i + 1)) : null)),
      borderColor: '#4e79a7',
      borderDash: [6, 4],
      pointRadius: 0,
      stack: 'projection',
      order: 2,
    });
  }
  if (m.allowance !== null) {
    datasets.push({ type: 'line', label: 'allowance', data: labels.map(() => m.allowance), borderColor: '#e15759', borderWidth: 1.5, pointRadius: 0, stack: 'allowance', order: 0 });
  }
  if (m.budget !== undefined) {
    datasets.push({ type: 'line', label: 'your budget', data: labels.map(() => m.budget), borderColor: '#b07aa1', borderDash: [2, 3], borderWidth: 1.5, pointRadius: 0, stack: 'budget', order: 0 });
  }
  datasets.push(
    { type: 'bar', label: 'that day, as recorded', data: labels.map((_, i) => (i < known ? m.days[i].recorded : null)), backgroundColor: 'rgba(89,161,79,0.55)', stack: 'day', order: 3 },
    { type: 'bar', label: 'that day, estimated', data: labels.map((_, i) => (i < known ? m.days[i].estimated : null)), backgroundColor: 'rgba(242,142,43,0.55)', stack: 'day', order: 3 },
  );
  chartTable(canvas, 'day (UTC)', labels, datasets, fmtCredits);
  if (!chartReady(Chart, canvas)) return;
  chart = new Chart(canvas, {
    data: { labels, datasets },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: { stacked: true, ticks: { callback: (_, i) => labels[i].slice(8) } },
        y: { stacked: true, beginAtZero: true, title: { display: true, text: 'AI credits' } },
      },
      plugins: {
        legend: { position: 'bottom' },
        tooltip: {
          callbacks: {
            title: (items) => `${labels[items[0].dataIndex]} (UTC)`,
            label: (c) => (c.parsed.y === null ? null : `${c.dataset.label}: ${fmtCredits(c.parsed.y)}`),
          },
        },
      },
    },
  });
}

/** @param {import('../app.js').ViewContext} ctx */
export async function render(container, ctx) {
  if (chart) chart.destroy();
  chart = null;
  const [byMonth, sessions] = await Promise.all([ctx.get({ usage: { by: 'month', since: '', until: '', agent: '' } }), ctx.get('sessions')]);
  if (!ctx.alive()) return;
  const today = ctx.today();
  const months = [...new Set(byMonth.rows.map((r) => r.month))].sort().reverse();
  add(container, h('h2.view-title', null, 'Month'));
  if (ctx.zone && ctx.zone !== 'UTC') {
    add(container, notInUtc(ctx.zone));
    return;
  }
  // The current UTC month is always offered; it opens first once it has usage, and until then
  // the latest month that has, saying so (as the report to share picks its month).
  const todayMonth = today.slice(0, 7);
  const opened = months.includes(todayMonth) || !months.length ? todayMonth : months[0];
  if (!months.includes(todayMonth)) months.unshift(todayMonth);
  months.sort().reverse();
  const inputs = monthInputs(ctx, months, opened);
  const { select, allowance, budget, plan, billInput, billUser, billFiles } = inputs;
  const out = h('div#month-out');
  const billOut = h('div#month-bill');
  add(container, ...monthControls(inputs, today), latestNote(opened, todayMonth), out, billOut);

  const names = new Map(sessions.map((s) => [s.session_id, s.display_name]));
  const sessionLink = (id) =>
    h('button.link', { on: { click: () => ctx.openSession(id) }, title: id }, names.get(id) && names.get(id) !== id ? `${names.get(id)} (${id.slice(0, 8)})` : id);

  let shown = 0;
  // The seat's allowance in GitHub's report (`monthly_quota`), taken when none is typed.
  let reportQuota = null;
  const update = async () => {
    const ask = ++shown;
    const month = select.value;
    const first = `${month}-01`;
    const typed = allowance.value.trim();
    const fromReport = !typed && reportQuota !== null;
    const asked = typed || (fromReport ? String(reportQuota) : null);
    const m = await ctx.ask({ month: { month: first, today, allowance: asked, budget: budget.value.trim() || null } });
    const last = `${month}-${String(m.days_in_month).padStart(2, '0')}`;
    const [bySession, byProject, byModel] = await Promise.all([
      ctx.get({ usage: { by: 'session', since: first, until: last, agent: '' } }),
      ctx.get({ usage: { by: 'project', since: first, until: last, agent: '' } }),
      ctx.get({ usage: { by: 'model', since: first, until: last, agent: '' } }),
    ]);
    if (!ctx.alive() || ask !== shown) return;
    container.dataset.month = JSON.stringify(m);
    const quotaNote = fromReport
      ? h('p#month-quota.muted', null, `Allowance: ${fmtCredits(reportQuota)} credits, your seat's monthly quota in GitHub's report (total_monthly_quota). Type one above to use another.`)
      : null;
    add(clear(out), quotaNote, ...monthShown(m, bySession, byProject, byModel, sessionLink, ctx.engine.facts.sources));
    await drawChart(out.querySelector('#chart-month'), m);
  };
  const show = () =>
    update().catch((e) => {
      if (ctx.alive()) add(clear(out), h('p.error-inline', null, String(e.message || e)));
    });
  select.addEventListener('change', show);
  plan.addEventListener('change', () => {
    if (!plan.value) return;
    allowance.value = plan.value;
    save(ALLOWANCE_KEY, plan.value);
    show();
  });
  const showBill = () =>
    renderBill(billOut, ctx, billUser.value.trim(), billFiles)
      .then((bill) => {
        const quota = bill?.monthly_quota ?? null;
        if (quota === reportQuota) return;
        reportQuota = quota;
        if (!allowance.value.trim()) show();
      })
      .catch((e) => {
        if (ctx.alive()) add(clear(billOut), h('p#month-bill-error.error-inline', null, String(e.message || e)));
      });
  billInput.addEventListener('change', async () => {
    ctx.addBills([...billInput.files]);
    billInput.value = '';
    await showBill();
    // The result is far below the control on a phone: bring it to where the person looks.
    if (ctx.alive()) billOut.scrollIntoView({ block: 'start' });
  });
  billUser.addEventListener('change', showBill);
  await showBill();
  const typed = debounce(() => {
    save(ALLOWANCE_KEY, allowance.value.trim());
    show();
  }, 250);
  allowance.addEventListener('input', typed);
  allowance.addEventListener('change', typed);
  const budgetTyped = debounce(() => {
    save(BUDGET_KEY, budget.value.trim());
    show();
  }, 250);
  budget.addEventListener('input', budgetTyped);
  budget.addEventListener('change', budgetTyped);
  await update();
}

/** Why the month is not shown when the days were grouped in another zone than UTC. */
function notInUtc(zone) {
  return h(
    'div#month-zone.warning',
    null,
    `This analysis grouped the days in ${zone}, but Copilot's billing month is UTC's (credits reset at 00:00 UTC on the 1st). `,
    'Choose "Days in UTC" in the options and analyse again to see the month.',
  );
}

/** The month's inputs: the month, the allowance (typed or a plan's), GitHub's usage report and whose rows of it. */
/** Why another month than the current one opened: none of its usage is here yet. */
function latestNote(opened, todayMonth) {
  if (opened === todayMonth) return null;
  return h('p#month-latest.muted', null, `No usage in ${monthName(todayMonth)} (UTC) yet: showing ${monthName(opened)}, the latest month with usage. Pick ${monthName(todayMonth)} above to see it.`);
}

/** A plan's product name ("Copilot Pro+"), as plans.json gives it, else its name. */
const planTitle = (plans, name) => new Map(plans.titles || []).get(name) || name;

function monthInputs(ctx, months, opened) {
  const select = h('select#month-select', null, months.map((m) => h('option', { value: m }, `${monthName(m)} (${m})`)));
  select.value = opened;
  const allowance = h('input#month-allowance', { type: 'text', placeholder: 'none', value: load(ALLOWANCE_KEY), attrs: { inputmode: 'decimal', 'aria-label': 'monthly allowance in AI credits' } });
  const budget = h('input#month-budget', { type: 'text', placeholder: 'none', value: load(BUDGET_KEY), attrs: { inputmode: 'decimal', 'aria-label': 'your own budget for the month in AI credits' } });
  // The plans the CLI's --plan knows (src/usage/plans.json, through the engine: no copy here).
  const plans = Object.entries((ctx.plans && ctx.plans.plans) || {});
  const plan = h('select#month-plan', { attrs: { 'aria-label': 'plan' } }, h('option', { value: '' }, 'plan…'), plans.map(([name, credits]) => h('option', { value: String(credits) }, `${planTitle(ctx.plans, name)} (${fmtCredits(credits)})`)));
  const billInput = h('input#month-bill-input', { type: 'file', accept: '.csv,text/csv', multiple: true, attrs: { 'aria-label': "GitHub's usage report (CSV)" } });
  const billUser = h('input#month-bill-user', { type: 'text', placeholder: 'signed-in login', attrs: { 'aria-label': 'whose rows of the report' } });
  // The control forgets its files once read (to take the next): the reports loaded are said here.
  const billFiles = h('span#month-bill-files.muted');
  return { select, allowance, budget, plan, billInput, billUser, billFiles };
}

/** The inputs laid out, and what the month is (UTC's). */
function monthControls({ select, allowance, budget, plan, billInput, billUser, billFiles }, today) {
  return [
    h(
      'div.controls',
      null,
      h('label', null, 'Billing month ', select),
      h('label', null, 'Monthly allowance ', allowance, ' credits'),
      plan,
      h('label', null, 'Your budget ', budget, ' credits'),
      h('span.muted', null, '(empty: none; remembered in this browser)'),
    ),
    h(
      'div.controls',
      null,
      h('label', null, "GitHub's usage report (CSV, from the billing settings; read here, never uploaded) ", billInput),
      h('label', null, 'for ', billUser),
      billFiles,
    ),
    h(
      'p#month-utc.muted',
      null,
      `The month is UTC's, the billing clock: Copilot's credits reset at 00:00 UTC on the 1st of each month, whatever the display time zone. Today is ${today} in UTC by this page's clock. 1 credit = 0.01 USD.`,
    ),
  ];
}

const fromCell = (r) => (r.credits_from === 'recorded' ? badge('recorded', 'ok') : badge(r.credits_from === 'both' ? 'partly est.' : 'est.', 'info'));

/** Each surface's credits in the month `m`, as recorded and estimated, by its source's name. */
function surfaceShares(m, sources) {
  if (!m.by_agent) return null;
  const title = (agent) => sources.find((source) => source.agent === agent)?.title || agent;
  const shares = m.by_agent.map((share) => `${title(share.agent)}: ${fmtCredits(share.recorded)} ${FROM_TEXT.recorded}, ${fmtCredits(share.estimated)} ${FROM_TEXT.estimated}`);
  return h('p#month-surfaces.muted', null, `By surface: ${shares.join('; ')}.`);
}

/** The month `m`: its headline, tiles, outlook, chart and top sessions, projects and models. */
function monthShown(m, bySession, byProject, byModel, sessionLink, sources) {
  const sessionRows = topBy(bySession.rows, (r) => r.session_id);
  const projectRows = topBy(byProject.rows, (r) => r.project_path);
  const modelRows = topBy(byModel.rows, (r) => r.model);
  const creditColumns = [
    { label: 'credits', value: (r) => creditsText(r.credits, r.credits_from), num: true },
    { label: 'from', value: fromCell },
    { label: 'share of used', value: (r) => (m.used > 0 && r.credits !== null ? `${((r.credits / m.used) * 100).toFixed(1)}%` : '—'), num: true },
    { label: 'requests', value: (r) => fmtInt(r.requests), num: true },
    { label: 'tokens', value: (r) => fmtInt(r.total), num: true },
    { label: 'flags', value: (r) => r.flags.filter((f) => f !== 'long_context').map((f) => badge(f, f === 'differs' || f === 'no_rate' ? 'warn' : 'info')) },
  ];
  return [
    h('p#month-headline.headline', null, `${monthName(m.month).split(' ')[0]}: ${fmtCredits(m.used)} credits${m.finished ? '' : ' so far'} (${fmtUsd(m.used * 0.01)})`),
    monthTiles(m),
    h('div.month-outlook', null, outlook(m)),
    h(
      'p.muted',
      null,
      `${monthName(m.month)}, as of ${m.as_of} (UTC): ${fmtCredits(m.used)} credits used: ${fmtCredits(m.recorded)} ${FROM_TEXT.recorded}, ${fmtCredits(m.estimated)} ${FROM_TEXT.estimated} (for the calls Copilot recorded nothing of). `,
      'The pace is the credits used so far over the days of the month so far, this one included.',
    ),
    surfaceShares(m, sources),
    section(
      `${monthName(m.month)}: credits by day (UTC), cumulative`,
      chartFigure('chart-month', `AI credits by day in ${m.month}, cumulative, with the projection`, 'month-chart'),
    ),
    h(
      'div',
      null,
      section(
        `Top ${TOP} sessions by credits`,
        table([{ label: 'session', value: (r) => sessionLink(r.id) }, { label: 'models', value: (r) => r.models.join(', ') }, ...creditColumns], sessionRows, { className: 'month-sessions cards', empty: 'No session used credits this month.' }),
      ),
      section(
        `Top ${TOP} projects by credits`,
        table([{ label: 'project', value: (r) => r.id || '(no project known)' }, { label: 'models', value: (r) => r.models.join(', ') }, ...creditColumns], projectRows, { className: 'month-projects cards', empty: 'No project used credits this month.' }),
      ),
      section(
        `Top ${TOP} models by credits`,
        table([{ label: 'model', value: (r) => r.id }, ...creditColumns], modelRows, { className: 'month-models cards', empty: 'No model used credits this month.' }),
      ),
    ),
    h('p.muted', null, '~ and est.: estimated at the published rates where Copilot recorded no credits; recorded: as Copilot recorded them. BYOK calls (on your own model key) cost no Copilot credits; Auto\'s estimate has its 10% discount.', ` Rates: ${bySession.rates}`),
  ];
}

/** The month's numbers as tiles: used, in dollars, of the allowance, recorded, estimated, projected, when it runs out. */
function monthTiles(m) {
  const share = m.allowance ? m.used / m.allowance : null;
  return h(
    'div#month-tiles.tiles',
    null,
    tile('used', `credits used${m.finished ? '' : ` by ${m.as_of}`}`, m.used, fmtCredits(m.used), m.allowance !== null ? `of ${fmtCredits(m.allowance)} allowed` : 'no allowance given'),
    tile('usd', 'dollars (credits × 0.01)', m.used * 0.01, fmtUsd(m.used * 0.01)),
    tile('share', 'of the allowance', share, share === null ? '—' : `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`, share !== null && share >= 1 ? 'used up' : null),
    tile('recorded', 'as Copilot recorded them', m.recorded, fmtCredits(m.recorded)),
    tile('estimated', 'estimated at the published rates', m.estimated, fmtCredits(m.estimated), 'for what Copilot recorded nothing of'),
    tile('projected', "projected by the month's end", m.projected, m.projected === null ? '—' : fmtCredits(m.projected), m.projected === null ? 'the month is over' : 'at the pace so far'),
    tile('runs_out_on', m.runs_out_on && m.used >= (m.allowance ?? Infinity) ? 'the allowance ran out' : 'the allowance runs out', m.runs_out_on, m.runs_out_on || '—', m.allowance === null ? 'no allowance given' : m.runs_out_on ? (m.used >= m.allowance ? null : 'at this pace') : 'not this month'),
  );
}

let billChart = null;

async function drawBillChart(canvas, bill) {
  if (billChart) billChart.destroy();
  billChart = null;
  const Chart = await chartLibrary();
  if (!canvas.isConnected) return;
  const byDay = new Map();
  for (const row of bill.rows) {
    const day = byDay.get(row.day) || { billed: 0, local: 0 };
    day.billed += row.billed_credits;
    day.local += row.local_credits;
    byDay.set(row.day, day);
  }
  const labels = [...byDay.keys()].sort();
  const datasets = [
    { label: 'billed by GitHub', data: labels.map((d) => byDay.get(d).billed), backgroundColor: 'rgba(78,121,167,0.8)' },
    { label: 'this machine', data: labels.map((d) => byDay.get(d).local), backgroundColor: 'rgba(140,149,159,0.8)' },
  ];
  chartTable(canvas, 'day (UTC)', labels, datasets, fmtCredits);
  if (!chartReady(Chart, canvas)) return;
  billChart = new Chart(canvas, {
    type: 'bar',
    data: { labels, datasets },
    options: { responsive: true, maintainAspectRatio: false, animation: false, scales: { y: { beginAtZero: true, title: { display: true, text: 'AI credits' } } }, plugins: { legend: { position: 'bottom' } } },
  });
}

/**
 * GitHub's usage report against this machine (Engine.reconcile_bill, the CLI's `usage --bill`):
 * billed against local by day, the discrepancies first, what never runs here, and why they differ.
 */
async function renderBill(out, ctx, user, filesLabel) {
  const facts = ctx.engine.facts;
  const bills = ctx.bills();
  if (bills.length) add(clear(out), h('p.muted', null, `Reading GitHub's usage report…${ctx.engine.fullEngineNote}`));
  const bill = bills.length ? await ctx.reconcileBill(bills, user) : null;
  if (!ctx.alive()) return null;
  out.dataset.bill = bill ? JSON.stringify(bill) : '';
  filesLabel.textContent = bill ? `loaded: ${bill.file}` : '';
  const never = h('ul#month-never', null, facts.never_in_local_files.map((item) => h('li', null, item)));
  const why = section('Why this differs from your GitHub bill', h('p', null, "Never in this machine's files:"), never);
  if (!bill) {
    add(clear(out), why, h('p.muted', null, "Add GitHub's usage report (or drop it with the folder) to compare it day by day with this machine."));
    return null;
  }
  const differing = bill.rows.filter((row) => row.status !== 'matched');
  const figure = (credits, requests) => (requests === undefined || requests === null ? fmtCredits(credits) : `${requests} req`);
  // A status in words, as the engine gives them (the JSON keeps its name).
  const statusWords = (status) => facts.bill_statuses.find(([name]) => name === status)?.[1] || status;
  const statusBadge = (row) => badge(statusWords(row.status), row.status === 'matched' ? 'ok' : 'warn');
  add(
    clear(out),
    section(
      "Billed by GitHub against this machine",
      h('p#month-bill-headline.headline', null, bill.headline),
      h('p#month-bill-totals', null, `${bill.file} (${bill.format}) for ${bill.user}, ${bill.from} to ${bill.to} (UTC days): ${fmtCredits(bill.totals.billed_credits)} credits billed, ${fmtCredits(bill.totals.local_credits)} here, difference ${fmtCredits(bill.totals.difference)}.`),
      // What the reader said of the reports: rows left out by line, a report given twice, dates day first.
      bill.notes.length ? h('ul#month-bill-notes', null, bill.notes.map((note) => h('li', null, note))) : null,
      chartFigure('chart-bill', 'Credits billed by GitHub against this machine, by day'),
      table(
        [
          { label: 'day', value: (r) => r.day },
          { label: 'model', value: (r) => (r.auto ? `${r.model} (Auto)` : r.model) },
          { label: 'billed', value: (r) => figure(r.billed_credits, r.billed_requests), num: true },
          { label: 'here', value: (r) => figure(r.local_credits, r.local_requests), num: true },
          { label: 'from', value: (r) => r.local_from || '—' },
          { label: 'difference', value: (r) => (r.billed_requests === undefined ? fmtCredits(r.difference) : `${r.difference} req`), num: true },
          { label: 'status', value: statusBadge },
        ],
        bill.rows,
        { className: 'month-bill-rows cards', empty: 'No day of the report to compare.' },
      ),
      bill.not_local.length
        ? table([{ label: 'runs on GitHub', value: (r) => `${r.model} (${r.sku})` }, { label: 'credits', value: (r) => figure(r.credits, r.requests), num: true }], bill.not_local, { className: 'month-bill-not-local cards' })
        : null,
      bill.estimate_ratio.length
        ? table(
            [{ label: 'model', value: (r) => r.model }, { label: 'billed', value: (r) => fmtCredits(r.billed_credits), num: true }, { label: 'estimated', value: (r) => fmtCredits(r.estimated_credits), num: true }, { label: 'billed / estimated', value: (r) => r.ratio.toFixed(3), num: true }],
            bill.estimate_ratio,
            { className: 'month-bill-ratio' },
          )
        : null,
      h('p.muted', null, facts.bill_statuses.map(([, words, meaning]) => `${words}: ${meaning}`).join('; ')),
    ),
    add(why, differing.length ? h('div', null, h('p', null, 'Where they differ:'), h('ul#month-differs', null, differing.map((r) => h('li', null, `${r.day} ${r.model}: billed ${figure(r.billed_credits, r.billed_requests)}, here ${figure(r.local_credits, r.local_requests)}${r.local_from ? `, ${r.local_from}` : ''} (${statusWords(r.status)})`)))) : h('p', null, 'Every day and model of the report matches.')),
  );
  await drawBillChart(out.querySelector('#chart-bill'), bill);
  return bill;
}
