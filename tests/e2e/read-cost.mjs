#!/usr/bin/env node
// What Chromium charges for handing a folder's files to JavaScript, apart from any analysis: the
// page reads a picked folder's event logs (8 at once, as engine.js does) and then its other files
// (16 at once), then only the two ends of each event log that the cache's key hashes (the
// least a cached analysis reads of a log), each pass once untimed (the browser learns each File's metadata on first use)
// and once timed, with the machine's processor time. Before them, timed once since only the first
// use costs: every file's size and time alone (what a cache that trusted them would still pay).
// Last, the same for a remembered folder (a FileSystemDirectoryHandle): as many empty files, four
// to a folder, made in the Origin Private File System, walked by the page's own walk (input.js),
// each one's File taken, and each File's size and time.
// Not part of scripts/test.sh.
//   node tests/e2e/read-cost.mjs bench-corpus/2GB
import path from 'node:path';
import { cpuMeter, openPage } from './lib.mjs';

/** The bytes of each end of a file that the cache's key hashes (src/cache/mod.rs, ENDS_BYTES). */
const ENDS = 64 << 10;
/** Files in each folder of the remembered folder made to walk (a session's folder holds four). */
const FILES_A_FOLDER = 4;

const folder = path.resolve(process.argv[2] || 'bench-corpus/2GB');
const { server, browser, page } = await openPage();
try {
  // An input of the test's own, so the app does not start an analysis.
  await page.evaluate(() => {
    const input = Object.assign(document.createElement('input'), { type: 'file', id: 'read-cost', webkitdirectory: true });
    document.body.append(input);
  });
  await page.setInputFiles('#read-cost', folder);
  const pass = (which, atOnce) =>
    page.evaluate(
      async ({ which, atOnce, ENDS }) => {
        const all = [...document.getElementById('read-cost').files];
        const ends = which === 'event log ends';
        const files = all.filter((file) => (file.name === 'events.jsonl') === (which !== 'every other file'));
        const read = (file) =>
          ends && file.size > 2 * ENDS
            ? Promise.all([file.slice(0, ENDS).arrayBuffer(), file.slice(file.size - ENDS).arrayBuffer()]).then(
                ([head, tail]) => ({ byteLength: head.byteLength + tail.byteLength }),
              )
            : file.arrayBuffer();
        let next = 0;
        let bytes = 0;
        const reader = async () => {
          while (next < files.length) {
            const { byteLength } = await read(files[next++]);
            bytes += byteLength;
          }
        };
        const started = performance.now();
        await Promise.all(Array.from({ length: atOnce }, reader));
        return { files: files.length, bytes, seconds: (performance.now() - started) / 1000 };
      },
      { which, atOnce, ENDS },
    );
  const meter = cpuMeter();
  const metadata = await page.evaluate(() => {
    const files = [...document.getElementById('read-cost').files];
    const started = performance.now();
    let sum = 0;
    for (const file of files) sum += file.size + file.lastModified;
    return { files: files.length, seconds: (performance.now() - started) / 1000, sum };
  });
  const cpu = meter.stop();
  console.log(
    `every file's size and time, first use: ${metadata.files} files in ${metadata.seconds.toFixed(2)} s ` +
      `(${((metadata.seconds * 1000) / metadata.files).toFixed(3)} ms a file); the ${cpu.cores} cores ${(cpu.busy * 100).toFixed(0)}% busy`,
  );
  for (const [which, atOnce] of [['event logs', 8], ['every other file', 16], ['event log ends', 16]]) {
    await pass(which, atOnce);
    const meter = cpuMeter();
    const read = await pass(which, atOnce);
    const cpu = meter.stop();
    const mb = read.bytes / 1e6;
    console.log(
      `${which}: ${read.files} files, ${mb.toFixed(0)} MB read ${atOnce} at once in ${read.seconds.toFixed(2)} s ` +
        `(${(mb / read.seconds).toFixed(0)} MB/s, ${((read.seconds * 1000) / read.files).toFixed(3)} ms a file); ` +
        `the ${cpu.cores} cores ${(cpu.busy * 100).toFixed(0)}% busy: ${cpu.coreSeconds.toFixed(1)} core-seconds, ` +
        `${(cpu.coreSeconds / (read.bytes / 1e9)).toFixed(1)} per GB, ${((cpu.coreSeconds * 1000) / read.files).toFixed(2)} ms a file`,
    );
  }
  const handles = await page.evaluate(async ({ count, perFolder }) => {
    const { rootFromDirectoryHandle } = await import('./input.js');
    const top = await (await navigator.storage.getDirectory()).getDirectoryHandle('read-cost', { create: true });
    for (let made = 0; made < count; made += perFolder) {
      const folder = await top.getDirectoryHandle(`s${made}`, { create: true });
      const here = Math.min(perFolder, count - made);
      await Promise.all(Array.from({ length: here }, (_, at) => folder.getFileHandle(`f${at}`, { create: true })));
    }
    const started = performance.now();
    const root = await rootFromDirectoryHandle(top);
    let sum = 0;
    for (const file of root.files) sum += file.size + file.lastModified;
    const seconds = (performance.now() - started) / 1000;
    await (await navigator.storage.getDirectory()).removeEntry('read-cost', { recursive: true });
    return { files: root.files.length, seconds, sum };
  }, { count: metadata.files, perFolder: FILES_A_FOLDER });
  console.log(
    `a remembered folder's walk, each File's size and time: ${handles.files} files in ${handles.seconds.toFixed(2)} s ` +
      `(${((handles.seconds * 1000) / handles.files).toFixed(3)} ms a file)`,
  );
} finally {
  await browser.close();
  await server.close();
}
