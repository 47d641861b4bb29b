// The page at phone width (390 × 844, issue 27): every view and a transcript fit the screen and
// no text is squeezed. run.mjs registers these tests (names starting "phone:").
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { CLI, ROOT, SHOTS, assert, assertEqual, launch, native, showView, waitForState } from './lib.mjs';

export const PHONE = { width: 390, height: 844 };
/** Text in a box narrower than this, wrapped onto several lines or cut, is squeezed. */
const NARROWEST_TEXT = 100;

/**
 * What does not fit a phone-wide page: the document's scroll width; elements whose right edge
 * is past the viewport outside any box that scrolls or clips (overflow-x not visible: the box
 * is checked itself); and squeezed text: a text whose block (its nearest non-inline ancestor)
 * is under NARROWEST_TEXT pixels wide and that wraps onto more than one line or is cut with an
 * ellipsis. Text on one line in a narrow box (a badge, a number, a short label) is not
 * squeezed; hidden elements are not looked at.
 */
export async function phoneProblems(page) {
  await page.evaluate(() => window.scrollTo(0, window.scrollY));
  return page.evaluate((narrowest) => {
    const width = document.documentElement.clientWidth;
    const name = (el) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${[...el.classList].map((c) => '.' + c).join('')}`;
    const where = (el) => {
      const box = el.closest('section.view, #transcript, .card');
      return box && box !== el ? `${name(box)} > ${name(el)}` : name(el);
    };
    const clipped = (el) => {
      for (let p = el.parentElement; p && p !== document.documentElement; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== 'visible') return true;
      }
      return false;
    };
    const wide = [];
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if ((!r.width && !r.height) || r.right <= width + 0.5 || clipped(el)) continue;
      // Only the outermost: the elements inside a too-wide one are not named again.
      if (wide.some((w) => w.el.contains(el))) continue;
      wide.push({ el, text: `${where(el)} ends at ${Math.round(r.right)} px` });
    }
    const squeezed = [];
    const range = document.createRange();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node; (node = walker.nextNode()); ) {
      const text = node.textContent.trim();
      if (!text) continue;
      let block = node.parentElement;
      while (block.parentElement && ['inline', 'contents'].includes(getComputedStyle(block).display)) block = block.parentElement;
      if (!block.checkVisibility({ visibilityProperty: true }) || block.clientWidth >= narrowest) continue;
      range.selectNodeContents(node);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
      const style = getComputedStyle(block);
      const cut = style.textOverflow === 'ellipsis' && block.scrollWidth > block.clientWidth + 1;
      if (lines > 1 || cut) squeezed.push(`${where(block)} ${block.clientWidth} px wide, ${cut ? 'cut' : `${lines} lines`}: "${text.slice(0, 40)}"`);
    }
    return { scrollWidth: document.documentElement.scrollWidth, width, wide: wide.map((w) => w.text), squeezed: [...new Set(squeezed)] };
  }, NARROWEST_TEXT);
}

/** Asserts the page as it is now fits the phone; `label` says where. */
export async function assertFits(page, label) {
  const found = await phoneProblems(page);
  assert(found.scrollWidth <= PHONE.width, `${label}: the page is ${found.scrollWidth} px wide, not at most ${PHONE.width}`);
  assertEqual(found.wide.slice(0, 8), [], `${label}: no element past the screen's right edge outside a scroll box`);
  assertEqual(found.squeezed.slice(0, 8), [], `${label}: no text squeezed into a box under ${NARROWEST_TEXT} px`);
}

/** Whether the element matching `selector` is wholly on the screen, left to right, and shown. */
async function onScreen(page, selector) {
  return page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return el.checkVisibility() && r.width > 0 && r.left >= 0 && r.right <= document.documentElement.clientWidth;
  });
}

/** A screenshot of the phone-wide page, the whole page when `full` (cut at 6000 pixels). */
async function phoneShot(page, name, full = true) {
  const height = full ? Math.min(6000, await page.evaluate(() => document.documentElement.scrollHeight)) : 0;
  await page.screenshot({ path: path.join(SHOTS, name), ...(full ? { fullPage: true, clip: { x: 0, y: 0, width: PHONE.width, height } } : {}) });
}

/**
 * The session of `rowsJsonl` with the most rows other than prompts, replies and tools (notes,
 * permissions): [its id, its notes, its rows].
 */
function sessionWithMostNotes(rowsJsonl) {
  const counts = new Map();
  for (const line of rowsJsonl.split('\n').filter(Boolean)) {
    const row = JSON.parse(line);
    if (!row.session_id) continue;
    const count = counts.get(row.session_id) || { notes: 0, rows: 0 };
    count.rows++;
    if (!['user', 'assistant', 'tool_use', 'tool_result', 'thinking'].includes(row.turn_type)) count.notes++;
    counts.set(row.session_id, count);
  }
  const [id, { notes, rows }] = [...counts].sort((a, b) => b[1].notes - a[1].notes || (a[0] < b[0] ? -1 : 1))[0];
  return [id, notes, rows];
}

/** At most this many pixels a row on average: a transcript's notes on one or two lines, not a letter a line. */
const TRANSCRIPT_ROW_PX = 100;

/**
 * Every view of the analysed page fits the phone (screenshots `<prefix>-<view>.png`), its main
 * figures on screen; then a transcript, of `session` ([id, notes, rows]), fits too and is not
 * over TRANSCRIPT_ROW_PX a row: what it measured is returned.
 */
async function checkEveryView(page, { prefix, views, session: [session, notes, rows], month = null, mcpServer = null }) {
  for (const view of views) {
    await showView(page, view);
    if (view === 'month' && month) {
      await page.selectOption('#month-select', month);
      await page.waitForSelector(`#view-month[data-month*='"month":"${month}"']`);
    }
    await page.waitForTimeout(150);
    if (view === 'overview') await page.waitForFunction(() => document.querySelectorAll('#view-overview canvas').length > 0 || !document.querySelector('#view-overview .chart-box'));
    await phoneShot(page, `${prefix}-${view}.png`);
    await assertFits(page, `${prefix} ${view}`);
  }
  // What was off-screen at phone width: a session's credits, a timeline row's text, the Month's
  // credits, an MCP server's verdict.
  await showView(page, 'sessions');
  assert(await onScreen(page, '#view-sessions tbody tr td.c-credits'), `${prefix}: a session's credits used are on the screen`);
  await showView(page, 'timeline');
  await page.waitForSelector('#tl-scroll .vt-row[data-index]');
  assert(await onScreen(page, '#tl-scroll .vt-row[data-index] .c-text'), `${prefix}: a timeline row's text is on the screen`);
  const textWidth = await page.$eval('#tl-scroll .vt-row[data-index] .c-text', (el) => el.clientWidth);
  assert(textWidth >= 300, `${prefix}: a timeline row's text is ${textWidth} px wide, the width of the screen`);
  await page.click('#tl-scroll .vt-row[data-index]');
  await page.waitForSelector('#tl-detail:not([hidden]) .detail-text');
  await assertFits(page, `${prefix} timeline row detail`);
  if (month) {
    await showView(page, 'month');
    assert(await onScreen(page, '#view-month .month-sessions tbody tr td[data-label="credits"]'), `${prefix}: the Month's top session's credits are on the screen`);
  }
  if (mcpServer) {
    await showView(page, 'inventory');
    const verdict = `#view-inventory table.inv-mcp_servers tr[data-id="${mcpServer}"] td[data-label="verdict"]`;
    assert(await onScreen(page, verdict), `${prefix}: the MCP server ${mcpServer}'s verdict is on the screen`);
  }

  await showView(page, 'sessions');
  await page.click(`#view-sessions tbody tr[data-session="${session}"] td.c-name button`);
  await page.waitForFunction((id) => document.getElementById('transcript').dataset.loaded === id, session);
  await phoneShot(page, `${prefix}-transcript.png`);
  await assertFits(page, `${prefix} transcript of ${session}`);
  const height = Math.round(await page.$eval('#conversation', (el) => el.getBoundingClientRect().height));
  assert(height <= rows * TRANSCRIPT_ROW_PX, `${prefix}: the transcript of ${rows} rows is ${height} px tall, over ${TRANSCRIPT_ROW_PX} px a row`);
  await page.click('#transcript-back');
  return `the transcript of ${session} (${rows} rows, of them ${notes} notes) ${height} px tall below its header`;
}

async function phonePage(browser, url, colorScheme = 'light') {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.setViewportSize(PHONE);
  await page.emulateMedia({ colorScheme });
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.engine === 'ready', null, { timeout: 60_000 });
  return { page, errors };
}

/** The phone tests, registered with run.mjs's `test`; `serverUrl()` is its page's address. */
export function phoneTests(test, { views, serverUrl, pick }) {
  test('phone: the demo at 390 × 844 in every view and a transcript, light and dark: nothing wider than the screen, no text squeezed, the main figures on screen; chart labels shortened', async () => {
    const demo = path.join(ROOT, 'www/demo/copilot-demo.zip');
    const session = sessionWithMostNotes(native(demo).rowsJsonl);
    const browser = await launch();
    try {
      const { page, errors } = await phonePage(browser, serverUrl());
      await assertFits(page, 'the start screen');
      await phoneShot(page, 'phone-start.png');
      await page.click('#demo');
      assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the demo is analysed');
      const transcript = await checkEveryView(page, { prefix: 'phone-demo', views, session, month: '2026-11' });

      // The project chart's axis shows the paths' last parts; its data (the tooltips) keeps them whole.
      await showView(page, 'overview');
      const project = await page.$eval('#chart-project', (canvas) => {
        const chart = window.Chart.getChart(canvas);
        return { labels: chart.data.labels, ticks: chart.scales.y.ticks.map((t) => t.label), left: chart.chartArea.left, width: chart.width };
      });
      assert(project.width <= PHONE.width, `the project chart is ${project.width} px wide`);
      project.ticks.forEach((tick, i) => {
        const whole = project.labels[i];
        assert(tick === whole || (tick.length <= 20 && tick.startsWith('…') && whole.endsWith(tick.slice(1))), `project tick "${tick}" is "${whole}" or its end`);
      });
      assert(project.labels.some((label) => label.length > 20), 'the demo has a project path longer than a tick');

      // Dark from the start: the charts take the scheme's colours when they are drawn.
      const dark = await phonePage(browser, serverUrl(), 'dark');
      await dark.page.click('#demo');
      assertEqual(await waitForState(dark.page, ['done', 'error']), 'done', 'the demo is analysed in the dark scheme');
      for (const view of ['overview', 'sessions']) {
        await showView(dark.page, view);
        await dark.page.waitForTimeout(150);
        await phoneShot(dark.page, `phone-demo-dark-${view}.png`);
        await assertFits(dark.page, `dark ${view}`);
      }
      assertEqual([...errors, ...dark.errors], [], 'no page errors');
      return `${views.length} views, a row's detail and ${transcript} fit 390 px; project ticks ${JSON.stringify(project.ticks.slice(0, 3))}`;
    } finally {
      await browser.close();
    }
  });

  test('phone: a real CLI home (fixtures/real-cli-1.0.102) and the inventory fixture at 390 × 844: every view and a transcript fit; the MCP verdict is on screen', async () => {
    const browser = await launch();
    const notes = [];
    try {
      for (const [name, folder] of [
        ['real-cli', path.join(ROOT, 'fixtures/real-cli-1.0.102')],
        ['inventory', path.join(ROOT, 'fixtures/inventory/home')],
      ]) {
        const expected = native(folder);
        const session = sessionWithMostNotes(expected.rowsJsonl);
        const mcpServer = JSON.parse(expected.inventoryJson).homes.flatMap((home) => home.agents.flatMap((agent) => agent.mcp_servers))[0]?.name ?? null;
        if (name === 'inventory') assert(mcpServer, 'the inventory fixture lists an MCP server');
        const { page, errors } = await phonePage(browser, serverUrl());
        await pick(page, folder);
        const transcript = await checkEveryView(page, { prefix: `phone-${name}`, views, session, mcpServer });
        assertEqual(errors, [], `${name}: no page errors`);
        notes.push(`${name}: ${transcript}${mcpServer ? `, the verdict of ${mcpServer} on screen` : ''}`);
        await page.close();
      }
      return notes.join('; ');
    } finally {
      await browser.close();
    }
  });

  test('phone: the report (copilot-lens report on the demo) at 390 px is no wider than the screen', async () => {
    const demo = path.join(ROOT, 'www/demo/copilot-demo.zip');
    const out = path.join(SHOTS, 'phone-report.html');
    execFileSync(CLI, ['report', demo, '--out', out], { stdio: 'ignore' });
    const browser = await launch({ scripts: false, offline: true });
    try {
      const page = await browser.context.newPage();
      await page.setViewportSize(PHONE);
      await page.goto(`file://${out}`);
      await phoneShot(page, 'phone-report.png');
      await assertFits(page, 'the report');
      return `${await page.evaluate(() => document.documentElement.scrollHeight)} px tall`;
    } finally {
      await browser.close();
    }
  });
}
