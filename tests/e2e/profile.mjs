#!/usr/bin/env node
// A CPU profile of the page's analysis of one folder (headless Chromium, the DevTools protocol's
// sampling profiler in the engine's worker and on the main thread): each thread's functions by
// the time spent in them, the most first, and the profiles as .cpuprofile files (DevTools opens
// them). Not part of scripts/test.sh. For WebAssembly functions by name, profile a build whose
// module keeps its names (wasm-bindgen's output before wasm-opt):
//   cp -r www /tmp/www-named
//   wasm-bindgen --target web --no-typescript --out-dir /tmp/www-named/pkg \
//     target/wasm32-unknown-unknown/web/copilot_lens.wasm
//   COPILOT_LENS_WWW=/tmp/www-named node tests/e2e/profile.mjs bench-corpus/600MB [--out DIR] [--top N] [--cached]
// --cached profiles a second analysis of the folder, from the page's cache (the first, unprofiled, fills it).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openPage, waitForState } from './lib.mjs';

const input = path.resolve(process.argv[2] || 'bench-corpus/600MB');
const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const out = option('--out', '/tmp/copilot-lens-profile');
const top = Number(option('--top', 40));
const cached = process.argv.includes('--cached');

/** Self time by function (WebAssembly's without their hash suffix), the most first. */
function byFunction(profile) {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const spent = new Map();
  profile.samples.forEach((id, at) => {
    const frame = frames.get(id);
    const place = frame.functionName ? '' : `:${frame.lineNumber + 1}`;
    const name = `${(frame.functionName || '(anonymous)').replace(/::h[0-9a-f]{16}$/, '')} ${frame.url.split('/').pop()}${place}`;
    spent.set(name, (spent.get(name) || 0) + (profile.timeDeltas[at] || 0));
  });
  return [...spent.entries()].sort((a, b) => b[1] - a[1]);
}

function report(name, profile) {
  writeFileSync(path.join(out, `${name}.cpuprofile`), JSON.stringify(profile));
  const functions = byFunction(profile);
  const total = functions.reduce((sum, [, micros]) => sum + micros, 0);
  const idle = functions.find(([fn]) => fn.startsWith('(idle)'))?.[1] || 0;
  console.log(`\n== ${name}: ${(total / 1e6).toFixed(2)} s sampled, ${((total - idle) / 1e6).toFixed(2)} s busy`);
  for (const [fn, micros] of functions.slice(0, top)) {
    console.log(`${(micros / 1000).toFixed(0).padStart(8)} ms ${((100 * micros) / total).toFixed(1).padStart(5)}%  ${fn}`);
  }
}

mkdirSync(out, { recursive: true });
const { server, browser, page } = await openPage();
try {
  // The workers are reached through the page's session: attached (not flattened), each is
  // spoken to by messages carrying its session id.
  const cdp = await browser.context.newCDPSession(page);
  const attached = [];
  const pending = new Map();
  let nextId = 1;
  cdp.on('Target.attachedToTarget', (event) => attached.push(event));
  cdp.on('Target.receivedMessageFromTarget', (event) => {
    const message = JSON.parse(event.message);
    if (pending.has(message.id)) pending.get(message.id)(message);
    pending.delete(message.id);
  });
  const toWorker = (sessionId, method, params = {}) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) });
    });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  await page.waitForTimeout(500);
  if (cached) {
    await page.setInputFiles('#pick-folder', input, { timeout: 10 * 60_000 });
    if ((await waitForState(page, ['done', 'error'], 30 * 60_000)) !== 'done') throw new Error('the first analysis failed');
    // The worker keeps the cache after done: until it is kept, a second analysis finds none.
    await page.waitForFunction(() => window.copilotLens.settled !== null, null, { timeout: 10 * 60_000 });
    await page.evaluate(() => (document.body.dataset.state = 'profiling')); // not 'done' until the second is
  }
  const workers = attached.filter((event) => event.targetInfo.url.endsWith('/worker.js')).map((event) => event.sessionId);
  for (const worker of workers) {
    await toWorker(worker, 'Profiler.enable');
    await toWorker(worker, 'Profiler.setSamplingInterval', { interval: 500 });
    await toWorker(worker, 'Profiler.start');
  }
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.start');
  await page.setInputFiles('#pick-folder', input, { timeout: 10 * 60_000 });
  const state = await waitForState(page, ['done', 'error'], 30 * 60_000);
  if (state !== 'done') throw new Error(await page.evaluate(() => window.copilotLens.error));
  const timings = await page.evaluate(() => window.copilotLens.timings);
  console.log(`${input}: ${Object.entries(timings).map(([step, s]) => `${step} ${s.toFixed(2)}`).join(', ')} (s, from the change event)`);
  for (const [at, worker] of workers.entries()) {
    const { result } = await toWorker(worker, 'Profiler.stop');
    report(`worker-${at + 1}`, result.profile);
  }
  report('main', (await cdp.send('Profiler.stop')).profile);
  console.log(`\nprofiles in ${out}`);
} finally {
  await browser.close();
  server.close();
}
