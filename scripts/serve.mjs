#!/usr/bin/env node
// A small static server for www/ on localhost (no dependencies): the right MIME types (the
// WebAssembly module must be application/wasm to compile while it downloads), the page's
// Content-Security-Policy as a header too (a <meta> policy does not reach the Worker), no
// directory listings, nothing outside the folder.
//   node scripts/serve.mjs [DIR] [--port N] [--host H]     (port 0 picks a free one)
import { createServer } from 'node:http';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; img-src 'self' data: blob:; " +
  "style-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.zip': 'application/zip',
  '.md': 'text/markdown; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** Starts serving `root`; resolves to {server, url}. `log(method, path, status)` sees every request. */
export function serve(root, { port = 8000, host = '127.0.0.1', log = () => {} } = {}) {
  const base = path.resolve(root);
  const server = createServer(async (request, response) => {
    let status = 200;
    try {
      const url = new URL(request.url, 'http://localhost');
      let relative = decodeURIComponent(url.pathname);
      if (relative.endsWith('/')) relative += 'index.html';
      const file = path.resolve(base, '.' + relative);
      if (!(file === base || file.startsWith(base + path.sep))) throw Object.assign(new Error('outside'), { status: 403 });
      if (request.method !== 'GET' && request.method !== 'HEAD') throw Object.assign(new Error('method'), { status: 405 });
      const stat = await fs.stat(file).catch(() => null);
      if (!stat || !stat.isFile()) throw Object.assign(new Error('not found'), { status: 404 });
      response.writeHead(200, {
        'Content-Type': TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream',
        'Content-Length': stat.size,
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': 'no-cache',
      });
      if (request.method === 'HEAD') response.end();
      else createReadStream(file).pipe(response);
    } catch (error) {
      status = error.status || 500;
      response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end(`${status}\n`);
    } finally {
      log(request.method, request.url, status);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: bound } = server.address();
      resolve({ server, url: `http://${host}:${bound}/` });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const at = args.indexOf(name);
    if (at < 0) return fallback;
    const value = args[at + 1];
    args.splice(at, 2);
    return value;
  };
  const port = Number(option('--port', process.env.PORT || 8000));
  const host = option('--host', '127.0.0.1');
  const root = args[0] || 'www';
  const { url } = await serve(root, { port, host });
  console.log(`copilot-lens: serving ${root}/ at ${url}  (Ctrl-C to stop)`);
}
