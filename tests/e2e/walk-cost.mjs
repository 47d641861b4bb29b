#!/usr/bin/env node
// A remembered folder's walk alone, this page's against another build's (`--against WWW`), in
// turns in one browser: the folder's tree (its paths, as empty files) is made in each page's
// Origin Private File System, then each page's own walk (input.js rootFromDirectoryHandle, with
// the engine's facts and, where the build has it, its never_opened) lists it, round after round.
// Prints each walk's wall time and the processor time of all Chromium's processes meanwhile (the
// browser process does most of a walk's work), then the means. Not part of scripts/test.sh.
//   node tests/e2e/walk-cost.mjs bench-corpus/2GB --against /path/to/other/www [--rounds 8]
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, launch } from './lib.mjs';
import { serve } from '../../scripts/serve.mjs';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { against: { type: 'string' }, rounds: { type: 'string', default: '8' } } });
const folder = path.resolve(positionals[0] || 'bench-corpus/2GB');
if (!values.against) throw new Error('--against WWW: the other build to walk with');
const builds = [
  ['this page', path.join(ROOT, 'www')],
  ['against', path.resolve(values.against)],
];

/** Seconds of processor time all Chromium's processes have used so far. */
function chromiumCpu() {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chromium')) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // a process that ended meanwhile
    }
  }
  return ticks / 100;
}

const paths = readdirSync(folder, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile())
  .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
const browser = await launch();
const servers = [];
try {
  const pages = [];
  for (const [name, www] of builds) {
    const { server, url } = await serve(www, { port: 0 });
    servers.push(server);
    const page = await browser.context.newPage();
    await page.goto(url);
    const made = await page.evaluate(async (paths) => {
      const top = await (await navigator.storage.getDirectory()).getDirectoryHandle('walk-cost', { create: true });
      const folders = new Map([['', Promise.resolve(top)]]);
      const folderOf = (at) => {
        if (!folders.has(at)) {
          const cut = at.lastIndexOf('/');
          folders.set(at, folderOf(at.slice(0, Math.max(cut, 0))).then((parent) => parent.getDirectoryHandle(at.slice(cut + 1), { create: true })));
        }
        return folders.get(at);
      };
      let next = 0;
      const maker = async () => {
        while (next < paths.length) {
          const parts = paths[next++].split('/');
          await (await folderOf(parts.slice(0, -1).join('/'))).getFileHandle(parts[parts.length - 1], { create: true });
        }
      };
      await Promise.all(Array.from({ length: 16 }, maker));
      return paths.length;
    }, paths);
    console.log(`${name} (${www}): ${made} empty files made in its origin private file system`);
    pages.push([name, page]);
  }
  const runs = new Map(builds.map(([name]) => [name, []]));
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const [name, page] of round % 2 ? [...pages].reverse() : pages) {
      const cpuBefore = chromiumCpu();
      const walked = await page.evaluate(async () => {
        const input = await import('./input.js');
        const engine = await import('./pkg/copilot_lens.js');
        await engine.default();
        input.useLayout(engine.engine_facts());
        const neverOpened = engine.never_opened ? async (paths) => [...engine.never_opened(paths)] : undefined;
        const top = await (await navigator.storage.getDirectory()).getDirectoryHandle('walk-cost');
        const started = performance.now();
        const root = await input.rootFromDirectoryHandle(top, () => {}, neverOpened);
        const later = (root.sizes || []).filter((size) => Number.isNaN(size)).length;
        return { seconds: (performance.now() - started) / 1000, files: root.files.length, later };
      });
      const cpu = chromiumCpu() - cpuBefore;
      runs.get(name).push({ ...walked, cpu });
      console.log(`round ${round + 1} ${name.padEnd(9)} ${walked.seconds.toFixed(2)} s, Chromium's CPU ${cpu.toFixed(1)} s: ${walked.files} files, ${walked.later} without their File`);
    }
  }
  for (const [name, list] of runs) {
    const mean = (key) => list.reduce((sum, run) => sum + run[key], 0) / list.length;
    console.log(`${name.padEnd(9)} mean ${mean('seconds').toFixed(2)} s, Chromium's CPU ${mean('cpu').toFixed(1)} s, over ${list.length} walks`);
  }
} finally {
  await browser.close();
  for (const server of servers) server.close();
}
