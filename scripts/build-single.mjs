#!/usr/bin/env node
// Makes dist/copilot-lens.html: the page in one file that works opened from disk (file://) with
// no server and no network. Everything www/ serves goes inside: the ES modules joined into one
// inline module (each wrapped in a function scope; imports become bindings), the worker and
// the wasm-bindgen glue as a classic worker script started from a blob: URL, the styles, the
// chart library, and the WebAssembly module (the full one: a file opened from disk has nothing to
// load later) and the demo zip as base64 data blocks (which are not scripts). Its Content-Security-Policy allows exactly these inline scripts and styles by
// their SHA-256 hashes, no network at all (connect-src 'none'), and blob: workers only.
//   node scripts/build-single.mjs [OUT]        (after scripts/build-web.sh)
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WWW = path.join(ROOT, 'www');
const out = path.resolve(process.argv[2] || path.join(ROOT, 'dist/copilot-lens.html'));
const read = (relative, encoding = 'utf8') => readFileSync(path.join(WWW, relative), encoding);

/**
 * Script text safe inside a <script> element: no end tag, no comment opener, no start tag. Each
 * `<` of those is written `\x3C`, which means `<` in a JavaScript string, template or regular
 * expression alike (marked's HTML patterns hold them).
 */
function scriptSafe(text, name) {
  const safe = text.replace(/<(?=\/script|!--|script)/gi, '\\x3C');
  if (/<\/script|<!--|<script/i.test(safe)) throw new Error(`${name}: still holds an end tag or a comment opener`);
  return safe;
}

// ---- the modules, joined -----------------------------------------------------------------------

const IMPORT = /^import\s+(\{[\s\S]*?\}|\*\s+as\s+\w+)\s+from\s+'([^']+)';?[ \t]*$/gm;
// A module fetched when first needed (a view not shown first): here it is already in the bundle.
// A JSDoc type (`{import('./types').Request}`, `Promise<import('./messages').AnswerTo<R>>`: a
// type's name follows it, capitalized) is no import.
const DYNAMIC_IMPORT = /\bimport\('([^']+)'\)(?!\.[A-Z])/g;
const EXPORT = /^export\s+(?:async\s+function|function|class|const|let)\s+(\w+)/gm;

/** `entry` and what it imports, joined; an import of one of `globals` is dropped (its names are the script's globals). */
function bundle(entry, globals = []) {
  const order = [];
  const ids = new Map();
  const visit = (file, stack = []) => {
    if (ids.has(file) || globals.includes(file)) return;
    if (stack.includes(file)) throw new Error(`import cycle: ${[...stack, file].join(' -> ')}`);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(IMPORT)) visit(path.resolve(path.dirname(file), match[2]), [...stack, file]);
    ids.set(file, `__module${ids.size}`);
    order.push(file);
    for (const match of source.matchAll(DYNAMIC_IMPORT)) lazy.push(path.resolve(path.dirname(file), match[1]));
  };
  const lazy = [];
  visit(entry);
  while (lazy.length) visit(lazy.shift());
  const parts = [];
  for (const file of order) {
    let source = readFileSync(file, 'utf8');
    const exported = [...source.matchAll(EXPORT)].map((match) => match[1]);
    source = source.replace(IMPORT, (_, what, from) => {
      if (globals.includes(path.resolve(path.dirname(file), from))) return '';
      const id = ids.get(path.resolve(path.dirname(file), from));
      if (what.startsWith('*')) return `const ${what.split(/\s+/).pop()} = ${id};`;
      const names = what
        .slice(1, -1)
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean)
        .map((name) => name.replace(/\s+as\s+/, ': '));
      return `const { ${names.join(', ')} } = ${id};`;
    });
    source = source.replace(DYNAMIC_IMPORT, (_, from) => `Promise.resolve(${ids.get(path.resolve(path.dirname(file), from))})`);
    source = source.replace(/^export\s+(?=async\s+function|function|class|const|let)/gm, '');
    if (/^export\s/m.test(source)) throw new Error(`${file}: an export form this joiner does not know`);
    const name = path.relative(WWW, file);
    parts.push(`// ---- ${name}\nconst ${ids.get(file)} = (() => {\n${source}\nreturn { ${exported.join(', ')} };\n})();\n`);
  }
  return parts.join('\n');
}

// ---- the worker ----------------------------------------------------------------------------------

function workerScript() {
  let glue = read('pkg/copilot_lens.js');
  glue = glue.replace(/^export\s+(?=class|function|async\s+function|const|let)/gm, '');
  glue = glue.replace(/^export\s*\{[^}]*\};?\s*$/gm, '');
  glue = glue.replaceAll('import.meta.url', 'self.location.href');
  if (/^\s*(export|import)\s/m.test(glue)) throw new Error('pkg/copilot_lens.js: an import or export is left');
  // worker.js and the modules it imports, joined as the page's are; the glue's names are globals.
  const worker = bundle(path.join(WWW, 'worker.js'), [path.join(WWW, 'pkg/copilot_lens.js')]);
  return `// wasm-bindgen glue (pkg/copilot_lens.js) and worker.js with its modules (in a block of their own), as one classic worker script.\n${glue}\n{\n${worker}\n}\n`;
}

// ---- the page ------------------------------------------------------------------------------------

const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const base64 = (relative) => read(relative, null).toString('base64').replace(/.{1,120}/g, '$&\n');

const styles = read('style.css');
const chart = scriptSafe(read('vendor/chart.umd.min.js'), 'chart.umd.min.js');
const marked = scriptSafe(read('vendor/marked.umd.js'), 'marked.umd.js');
const app = scriptSafe(bundle(path.join(WWW, 'app.js')), 'app bundle');
const worker = scriptSafe(workerScript(), 'worker');

const csp = [
  "default-src 'none'",
  `script-src ${sha256(chart)} ${sha256(marked)} ${sha256(app)} 'wasm-unsafe-eval'`,
  'worker-src blob:',
  `style-src ${sha256(styles)}`,
  'img-src data: blob:',
  "connect-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

let html = read('index.html');
const replace = (pattern, replacement, what) => {
  if (!pattern.test(html)) throw new Error(`index.html: ${what} not found`);
  html = html.replace(pattern, () => replacement);
};
replace(/<meta http-equiv="Content-Security-Policy" content="[^"]*">/, `<meta http-equiv="Content-Security-Policy" content="${csp}">`, 'the CSP meta tag');
replace(/<link rel="stylesheet" href="style.css">/, `<style>${styles}</style>`, 'the stylesheet link');
// The chart and Markdown libraries inline, before the app: charts.js and markdown.js then find them loaded.
replace(/<script type="module" src="app.js"><\/script>/, `<script>${chart}</script>\n<script>${marked}</script>\n<script type="module">${app}</script>`, 'the app module');
const blocks =
  `<script type="text/plain" id="embedded-worker">${worker}</script>\n` +
  `<script type="application/octet-stream" id="embedded-wasm">\n${base64('pkg/copilot_lens_full_bg.wasm')}</script>\n` +
  `<script type="application/octet-stream" id="embedded-demo">\n${base64('demo/copilot-demo.zip')}</script>\n`;
replace(/<\/body>/, `${blocks}</body>`, '</body>');

mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, html);
console.log(`single file: ${path.relative(process.cwd(), out)} (${(Buffer.byteLength(html) / 1e6).toFixed(1)} MB)`);
