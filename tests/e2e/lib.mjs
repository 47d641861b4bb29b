// Shared pieces of the browser tests: Debian's Chromium driven by npm playwright-core, the
// page served from www/ by scripts/serve.mjs, the native CLI for the expected numbers, a zip
// writer, and network recording.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { createHash } from 'node:crypto';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

// The native CLI's runs here are cold ones: no user's cache is read or written.
process.env.COPILOT_LENS_CACHE = 'off';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Another build's CLI and page (COPILOT_LENS_CLI, COPILOT_LENS_WWW), to time one against another.
export const CLI = process.env.COPILOT_LENS_CLI || path.join(ROOT, 'target/release/copilot-lens');
const WWW = process.env.COPILOT_LENS_WWW || path.join(ROOT, 'www');
export const SHOTS = process.env.SHOTS_DIR || '/tmp/copilot-lens-shots';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A Chromium with a fresh user-data-dir; close() removes it. */
export async function launch({ downloads = true, scripts = true, offline = false, timezoneId } = {}) {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'copilot-lens-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    acceptDownloads: downloads,
    javaScriptEnabled: scripts,
    offline,
    ...(timezoneId ? { timezoneId } : {}),
    viewport: { width: 1400, height: 1000 },
  });
  // The downloads a page asks for (a link with a download name clicked), so that a download
  // the browser never reports is told apart from one the page never made (run.mjs's download).
  await context.addInitScript(() => {
    window.__downloadsAsked = [];
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function () {
      if (this.download) window.__downloadsAsked.push(this.download);
      return click.call(this);
    };
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Serves www/ on a free port, logging every request the server sees. */
export async function startServer() {
  const requests = [];
  const { server, url } = await serve(WWW, {
    port: 0,
    log: (method, url, status) => requests.push({ method, url, status, at: Date.now() }),
  });
  return { url, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * Records every request the browser makes (pages and workers), and refuses any that leaves
 * `origin` (data: and blob: URLs are the page's own). `mark()` starts a new period.
 */
export async function recordNetwork(context, origin) {
  const log = [];
  const foreign = [];
  let period = 'load';
  context.on('request', (request) => log.push({ url: request.url(), period, at: Date.now() }));
  await context.route('**/*', (route) => {
    const url = route.request().url();
    const own = url.startsWith('data:') || url.startsWith('blob:') || (origin && url.startsWith(origin));
    if (!own) {
      foreign.push(url);
      return route.abort('blockedbyclient');
    }
    return route.continue();
  });
  return {
    log,
    foreign,
    mark(name) {
      period = name;
    },
    during(name) {
      return log.filter((entry) => entry.period === name);
    },
  };
}

/**
 * What the native CLI says of a root it refuses (status 2), less its `copilot-lens: ` prefix;
 * given by its name, as the page names a dropped file.
 */
export function nativeRefusal(input) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'copilot-lens-native-'));
  const run = spawnSync(CLI, ['analyze', path.basename(input), '--out', out], { cwd: path.dirname(input), encoding: 'utf8' });
  rmSync(out, { recursive: true, force: true });
  if (run.status !== 2) throw new Error(`${input}: the CLI ended with ${run.status}, not 2: ${run.stderr}`);
  return run.stderr.replace(/^copilot-lens: /, '').trimEnd();
}

/**
 * Runs the native CLI: `analyze` into a temp dir and `usage --json`; returns the outputs.
 * `byName`: the input is given by its name from the folder holding it, as the page names a
 * picked folder, so that the homes' labels (and the outputs naming them) are the page's.
 */
export function native(input, { includeThinking = false, byName = false } = {}) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'copilot-lens-native-'));
  const started = process.hrtime.bigint();
  // Several roots (an array) are given in that order; by name, from the first one's folder.
  const inputs = [input].flat();
  const roots = byName ? inputs.map((one) => path.basename(one)) : inputs;
  const cwd = byName ? path.dirname(inputs[0]) : undefined;
  const args = ['analyze', ...roots, '--out', out];
  if (includeThinking) args.push('--include-thinking');
  const stderr = execFileSync(CLI, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // `usage` refuses a root with no session log nor store (a home of skills alone): no usage.
  const usageRun = spawnSync(CLI, ['usage', ...roots, '--json'], { cwd, encoding: 'utf8' });
  if (usageRun.status !== 0 && usageRun.status !== 2) throw new Error(`${input}: usage ended with ${usageRun.status}: ${usageRun.stderr}`);
  // No usage: no credits used either.
  const usage = usageRun.status === 0 ? JSON.parse(usageRun.stdout) : { totals: {}, grand_total: { total: 0 }, credits_used: { credits: 0 } };
  const read = (name) => readFileSync(path.join(out, name), 'utf8');
  const rowsPath = path.join(out, 'rows.jsonl');
  const rowsSize = statSync(rowsPath).size;
  const report = JSON.parse(read('report.json'));
  const sessions = read('sessions.jsonl').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const result = {
    seconds,
    stderr,
    // As a string when it fits one (V8 strings stop at 512 MiB); the CSV's hash always.
    rowsJsonl: rowsSize < 256 * 1024 * 1024 ? read('rows.jsonl') : null,
    rowsCsvSha: csvShaFromRowsJsonl(rowsPath),
    usageCsv: read('usage.csv'),
    sessionsJsonl: read('sessions.jsonl'),
    inventoryJson: read('inventory.json'),
    report,
    sessions,
    usage,
    summary: {
      files: report.totals.files_found,
      sessions: report.totals.sessions,
      rows: report.totals.rows,
      usage_rows: read('usage.jsonl').split('\n').filter(Boolean).length,
      bad_lines: report.totals.bad_lines,
      total_tokens: usage.grand_total.total,
    },
    prompts: sessions.reduce((n, s) => n + s.prompts, 0),
    toolCalls: sessions.reduce((n, s) => n + s.tool_calls, 0),
  };
  rmSync(out, { recursive: true, force: true });
  return result;
}

// ---- CSV as the csv crate writes it (QuoteStyle::Necessary, \n terminators) ------------------

function csvField(value) {
  // A text that would open as a formula is written as text, a ' before it (src/csv_cells.rs).
  const text = typeof value === 'string' && /^[=+\-@\t\r\0]/.test(value) ? `'${value}` : String(value);
  return /[",\r\n]/.test(text) || text === '' ? (text === '' ? '' : `"${text.replaceAll('"', '""')}"`) : text;
}

const ROW_COLUMNS = ['agent', 'timestamp_utc', 'session_id', 'project_path', 'git_branch', 'client_name', 'model', 'tool_name', 'tool_use_id', 'turn_type', 'text', 'source', 'source_line'];

/** SHA-256 (hex, 16 digits) of csvFromRowsJsonl(bytes), a line at a time. */
export function csvShaFromRowsJsonl(file) {
  const hash = createHash('sha256');
  hash.update(ROW_COLUMNS.join(',') + '\n');
  const addRow = (line) => {
    const row = JSON.parse(line);
    hash.update(ROW_COLUMNS.map((c) => csvField(row[c])).join(',') + '\n');
  };
  // Read in parts: the rows of a big corpus are more than one Buffer holds.
  const fd = openSync(file, 'r');
  const part = Buffer.alloc(64 * 1024 * 1024);
  let carry = Buffer.alloc(0);
  try {
    for (;;) {
      const count = readSync(fd, part, 0, part.length, null);
      if (count === 0) break;
      const bytes = Buffer.concat([carry, part.subarray(0, count)]);
      let start = 0;
      for (let end = bytes.indexOf(10, start); end >= 0; end = bytes.indexOf(10, start)) {
        if (end > start) addRow(bytes.toString('utf8', start, end));
        start = end + 1;
      }
      carry = Buffer.from(bytes.subarray(start));
    }
  } finally {
    closeSync(fd);
  }
  if (carry.length) addRow(carry.toString('utf8'));
  return hash.digest('hex').slice(0, 16);
}

/** The rows CSV the page should export, made independently from the native rows.jsonl. */
export function csvFromRowsJsonl(jsonl) {
  const lines = [ROW_COLUMNS.join(',')];
  for (const line of jsonl.split('\n')) {
    if (!line) continue;
    const row = JSON.parse(line);
    lines.push(ROW_COLUMNS.map((c) => csvField(row[c])).join(','));
  }
  return lines.join('\n') + '\n';
}

// ---- a zip writer (store or deflate), for the drop test ----------------------------------------

const CRC_TABLE = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Zips every file below `dir` under the top folder `top` (DOS time fixed at 2026-10-01 09:05). */
/** The files under `dir`, as sorted paths relative to it with `/` between names. */
export function filesUnder(dir) {
  const files = [];
  const walk = (relative) => {
    for (const name of readdirSync(path.join(dir, relative)).sort()) {
      const rel = relative ? `${relative}/${name}` : name;
      if (statSync(path.join(dir, rel)).isDirectory()) walk(rel);
      else files.push(rel);
    }
  };
  walk('');
  return files;
}

export function zipDirectory(dir, top) {
  const files = filesUnder(dir);
  const time = (9 << 11) | (5 << 5);
  const date = ((2026 - 1980) << 9) | (10 << 5) | 1;
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const rel of files) {
    const data = readFileSync(path.join(dir, rel));
    const packed = zlib.deflateRawSync(data);
    const name = Buffer.from(`${top}/${rel}`, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, packed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

// ---- the machine's processor -------------------------------------------------------------------

/** The processor time of the whole machine (every process, every core) from /proc/stat. */
function cpuTimes() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const idle = fields[3] + fields[4];
  return { total: fields.reduce((a, b) => a + b, 0), idle };
}

/**
 * Measures how busy the machine's cores were from now until `stop()`: `{busy}` (0..1 of all
 * cores) and `{coreSeconds}` spent by every process, browser included.
 */
export function cpuMeter() {
  const start = cpuTimes();
  const started = process.hrtime.bigint();
  return {
    stop() {
      const end = cpuTimes();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const busy = 1 - (end.idle - start.idle) / Math.max(1, end.total - start.total);
      const cores = os.cpus().length;
      return { busy, coreSeconds: busy * seconds * cores, seconds, cores };
    },
  };
}

// ---- page helpers ------------------------------------------------------------------------------

export async function waitForState(page, states, timeout = 120_000) {
  const wanted = Array.isArray(states) ? states : [states];
  await page.waitForFunction((list) => list.includes(document.body.dataset.state), wanted, { timeout });
  return page.evaluate(() => document.body.dataset.state);
}

/** A fresh browser on the page served from www/ (or COPILOT_LENS_WWW), its engine ready. */
export async function openPage() {
  const server = await startServer();
  const browser = await launch();
  const page = await browser.context.newPage();
  await page.goto(server.url);
  await waitEngine(page);
  return { server, browser, page };
}

export async function waitEngine(page) {
  await page.waitForFunction(() => document.body.dataset.engine === 'ready', null, { timeout: 60_000 });
}

/** Shows a view and waits until it has rendered for the current analysis. */
export async function showView(page, view) {
  await page.click(`#tabs button[data-view="${view}"]`);
  await page.waitForFunction((v) => {
    const el = document.getElementById(`view-${v}`);
    return el && !el.hidden && el.dataset.ready && el.dataset.ready === el.dataset.rendered;
  }, view);
}

/**
 * Clicks `selector`, which starts an analysis of a page that was done, and waits for that
 * analysis to end (its cache report replaces the marker set before the click); returns the state.
 */
export async function clickToEnd(page, selector, timeout = 120_000) {
  await page.evaluate(() => (window.copilotLens.cache = 'before the click'));
  await page.click(selector);
  await page.waitForFunction(() => window.copilotLens.cache !== 'before the click' && ['done', 'error'].includes(document.body.dataset.state), null, { timeout });
  return page.evaluate(() => document.body.dataset.state);
}

export function assert(condition, message) {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

export function assertEqual(actual, expected, message) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message}\n  got:      ${a.slice(0, 2000)}\n  expected: ${e.slice(0, 2000)}`);
}

const AXE = readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as it is (WCAG 2.1 A and AA rules), as
 * `[{id, impact, help, targets}]`; `within`, a selector, keeps to what is inside it. Evaluated
 * through the DevTools protocol, so the page's CSP (no inline script) is not loosened for it.
 */
export async function accessibilityProblems(page, within = null) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE);
  const results = await page.evaluate(
    (selector) =>
      window.axe.run(selector ? { include: [selector] } : document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] }),
    within,
  );
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
}
