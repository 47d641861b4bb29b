#!/usr/bin/env node
// The README's picture, docs/screenshot.png: the page on its demo data, the Overview once its
// charts are drawn, in a 1280 × 900 window (after scripts/build-web.sh).
//   node scripts/screenshot.mjs [OUT]
import path from 'node:path';
import { ROOT, openPage, showView, waitForState } from '../tests/e2e/lib.mjs';

const out = path.resolve(process.argv[2] || path.join(ROOT, 'docs/screenshot.png'));
const { server, browser, page } = await openPage();
try {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.click('#demo');
  if ((await waitForState(page, ['done', 'error'])) !== 'done') throw new Error('the demo did not analyse');
  await showView(page, 'overview');
  await page.waitForFunction(() => [...document.querySelectorAll('#view-overview canvas')].every((canvas) => canvas.width > 0));
  await page.screenshot({ path: out });
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
} finally {
  await browser.close();
  await server.close();
}
