#!/usr/bin/env node
// What a first visit costs: every response the page fetches from a cold start (a fresh
// browser profile, nothing cached) until a first analysis is done (body[data-state=done]),
// counted as GitHub Pages sends it (gzip, level 6, for the types it compresses; others as they
// are). Prints a table per file and each WebAssembly module's sections, then the total, and
// exits 1 above the budget; then, not counted, what the page fetches to draw its first view.
//   node scripts/first-load.mjs [--www DIR] [--input FOLDER] [--demo] [--budget BYTES]
//     --www: the built page to measure (www/, after scripts/build-web.sh); --input: the folder
//     picked (fixtures/spec-sample); --demo: press "Try the demo" instead of picking a folder;
//     --budget: the bound (1 MiB, 1,048,576 bytes, as issue 15 set and issue 51 restated).
// The page's full module (pkg/copilot_lens_full_bg.wasm), fetched only when an output the first
// one leaves out is asked for, is listed at the end, not counted.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT, launch, showView, waitEngine, waitForState } from '../tests/e2e/lib.mjs';
import { serve } from './serve.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at < 0 ? fallback : args[at + 1];
};
const www = path.resolve(option('--www', path.join(ROOT, 'www')));
const input = path.resolve(option('--input', path.join(ROOT, 'fixtures/spec-sample')));
const useDemo = args.includes('--demo');
const budget = Number(option('--budget', 2 ** 20));

// What GitHub Pages gzips (by the file's type); images, zips and the rest go as they are.
const GZIPPED = new Set(['.html', '.js', '.mjs', '.css', '.json', '.wasm', '.svg']);
const gzipped = (bytes) => zlib.gzipSync(bytes, { level: 6 }).length;

/** A module's sections as {name, bytes}: custom sections by their own name. */
function wasmSections(bytes) {
  const NAMES = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'data count', 'tag'];
  const leb = (at) => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[at.offset++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (byte < 0x80) return value;
    }
  };
  const sections = [];
  const at = { offset: 8 };
  while (at.offset < bytes.length) {
    const id = bytes[at.offset++];
    const size = leb(at);
    const start = at.offset;
    let name = NAMES[id] || `id ${id}`;
    if (id === 0) {
      const length = leb(at);
      name = `custom "${bytes.subarray(at.offset, at.offset + length).toString('utf8')}"`;
    }
    sections.push({ name, bytes: bytes.subarray(start, start + size) });
    at.offset = start + size;
  }
  return sections;
}

const relativeOf = (address) => decodeURIComponent(new URL(address, 'http://localhost').pathname).replace(/\/$/, '/index.html');
const served = [];
const { server, url } = await serve(www, {
  port: 0,
  log: (method, requestUrl, status) => served.push({ method, relative: relativeOf(requestUrl), status }),
});
// What the page fetched from the moment it was done, by its own clock (the workers fetch only
// at the start): the server's log alone cannot tell, as done is seen here only a little later.
let afterDone = [];

const browser = await launch();
try {
  const foreign = [];
  await browser.context.route('**/*', (route) => {
    const requested = route.request().url();
    if (requested.startsWith(url) || requested.startsWith('data:') || requested.startsWith('blob:')) return route.continue();
    foreign.push(requested);
    return route.abort('blockedbyclient');
  });
  const page = await browser.context.newPage();
  await page.addInitScript(() => {
    new MutationObserver(() => {
      if (window.__doneAt === undefined && document.body && document.body.dataset.state === 'done') window.__doneAt = performance.now();
    }).observe(document, { attributes: true, attributeFilter: ['data-state'], subtree: true });
  });
  await page.goto(url);
  await waitEngine(page);
  if (useDemo) await page.click('#demo');
  else await page.setInputFiles('#pick-folder', input);
  const state = await waitForState(page, ['done', 'error'], 300_000);
  if (state !== 'done') throw new Error(`the analysis ended in ${state}: ${await page.evaluate(() => window.copilotLens.error)}`);
  await showView(page, 'overview');
  // A module the page loads once its first view is drawn (after done) may reach the server after
  // the list below is read: wait until the server has heard nothing new for half a second.
  for (let heard = -1; heard !== served.length; ) {
    heard = served.length;
    await page.waitForTimeout(500);
  }
  afterDone = (await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.startTime >= window.__doneAt).map((e) => e.name))).map(relativeOf);
  if (foreign.length) throw new Error(`requests outside the page's origin: ${foreign.join(', ')}`);
} finally {
  await browser.close();
  await new Promise((resolve) => server.close(resolve));
}

// A file fetched again (each worker loads worker.js and the glue) counts once: GitHub Pages
// sends max-age=600, so the browser answers the second request from its cache (serve.mjs sends
// no-cache, so here the server sees both).
function files(requests) {
  const rows = [];
  for (const request of requests) {
    if (request.status !== 200 || request.method !== 'GET') throw new Error(`${request.method} ${request.relative}: ${request.status}`);
    const seen = rows.find((row) => row.file === request.relative.slice(1));
    if (seen) {
      seen.times++;
      continue;
    }
    const bytes = readFileSync(path.join(www, request.relative));
    const compressed = GZIPPED.has(path.extname(request.relative).toLowerCase());
    rows.push({ file: request.relative.slice(1), raw: bytes.length, sent: compressed ? gzipped(bytes) : bytes.length, bytes, times: 1 });
  }
  return rows;
}

const kb = (n) => (n / 1000).toFixed(1).padStart(9);
function printTable(rows) {
  console.log(`${'file'.padEnd(40)} ${'raw kB'.padStart(9)} ${'gzip kB'.padStart(9)}`);
  for (const row of rows) {
    const again = row.times > 1 ? `  (fetched ${row.times} times, counted once)` : '';
    console.log(`${row.file.padEnd(40)} ${kb(row.raw)} ${row.raw === row.sent ? '  (as is)' : kb(row.sent)}${again}`);
  }
  const total = rows.reduce((n, row) => n + row.sent, 0);
  console.log(`${'total'.padEnd(40)} ${kb(rows.reduce((n, row) => n + row.raw, 0))} ${kb(total)}`);
  return total;
}

const rows = files(served.filter((r) => !afterDone.includes(r.relative)));
console.log(`first load of ${path.relative(process.cwd(), www) || '.'}, ${useDemo ? 'the demo' : `${path.relative(process.cwd(), input)} picked`}, until the analysis is done (kB = 1000 bytes):`);
const total = printTable(rows);
for (const row of rows.filter((r) => r.file.endsWith('.wasm'))) {
  console.log(`\n${row.file} by section:`);
  for (const section of wasmSections(row.bytes)) console.log(`  ${section.name.padEnd(38)} ${kb(section.bytes.length)} ${kb(gzipped(section.bytes))}`);
}
const later = files(served.filter((r) => afterDone.includes(r.relative)));
if (later.length) {
  console.log('\nfetched after that to draw the overview (not counted):');
  printTable(later);
}
const full = path.join(www, 'pkg/copilot_lens_full_bg.wasm');
// A build from before the split (--www, for an A/B) has no full module.
if (existsSync(full) && !served.some((r) => r.relative === '/pkg/copilot_lens_full_bg.wasm')) {
  const bytes = readFileSync(full);
  console.log(`\nloaded when a file to save, the report to share, a team export or the bill is first asked for (not counted):`);
  printTable([{ file: 'pkg/copilot_lens_full_bg.wasm', raw: bytes.length, sent: gzipped(bytes), times: 1 }]);
}
const mib = (n) => (n / 2 ** 20).toFixed(3);
console.log(`\n${mib(total)} MiB gzipped (${total} bytes) against a budget of ${mib(budget)} MiB: ${total <= budget ? 'within' : 'OVER'}`);
process.exitCode = total <= budget ? 0 : 1;
