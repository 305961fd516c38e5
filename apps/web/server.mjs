#!/usr/bin/env node
// Loopback static server for the keras_bert question-answering web demo.
//
// No dependencies. Binds 127.0.0.1 only and sends the cross-origin isolation
// headers (COOP/COEP/CORP) that LiteRT.js needs for its multithreaded WASM
// (SharedArrayBuffer is only available to cross-origin isolated pages).
//
//   node apps/web/server.mjs [--port 8765]      (--port 0 picks a free port)
//
// Routes:
//   /                      -> apps/web/            (the app; node_modules and e2e are not served)
//   /models/               -> apps/models/         (the shipped int8 model and vocab.txt)
//   /vendor/litertjs/      -> apps/web/node_modules/@litertjs/core/        (JS + WASM, never a CDN)
//   /vendor/litertjs-wasm-utils/ -> apps/web/node_modules/@litertjs/wasm-utils/

import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const WEB_DIR = path.dirname(fileURLToPath(import.meta.url));
const APPS_DIR = path.dirname(WEB_DIR);
export const DEFAULT_PORT = 8765;
export const HOST = '127.0.0.1';
// Bounds on what one client can hold (docs/reliability.md): a request's headers must arrive
// within HEADERS_TIMEOUT_MS and the whole request within REQUEST_TIMEOUT_MS (checked every
// second), idle keep-alive connections close after 5 s, and at most MAX_CONNECTIONS are open.
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
export const MAX_CONNECTIONS = 512;

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.tflite': 'application/octet-stream',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

/** Security / isolation headers sent with every response. */
const BASE_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

/** Default mounts, most specific first: [urlPrefix, directory, options]. */
function defaultMounts() {
  return [
    { prefix: '/models/', dir: path.join(APPS_DIR, 'models') },
    { prefix: '/vendor/litertjs/', dir: path.join(WEB_DIR, 'node_modules', '@litertjs', 'core') },
    { prefix: '/vendor/litertjs-wasm-utils/', dir: path.join(WEB_DIR, 'node_modules', '@litertjs', 'wasm-utils') },
    // The app itself; development-only folders are hidden.
    { prefix: '/', dir: WEB_DIR, hidden: ['node_modules', 'e2e', 'server.mjs', 'package.json', 'package-lock.json'] },
  ];
}

function send(res, status, body, extraHeaders = {}, method = 'GET') {
  const buf = Buffer.from(body, 'utf8');
  res.writeHead(status, {
    ...BASE_HEADERS,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': buf.length,
    ...extraHeaders,
  });
  res.end(method === 'HEAD' ? undefined : buf);
}

/**
 * Map a URL path to a file inside one of the mounts, or return null.
 * Rejects traversal (`..`, encoded or not), NUL bytes, backslashes and dotfiles.
 */
export function resolvePath(urlPath, mounts) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return { error: 400, message: 'Bad request: malformed URL encoding.' };
  }
  if (decoded.includes('\0') || decoded.includes('\\')) {
    return { error: 400, message: 'Bad request: invalid characters in path.' };
  }
  const segments = decoded.split('/');
  if (segments.some((s) => s === '..' || s === '.' || (s.startsWith('.') && s.length > 0))) {
    return { error: 403, message: 'Forbidden: path traversal or hidden file.' };
  }
  for (const mount of mounts) {
    if (!decoded.startsWith(mount.prefix)) continue;
    let rel = decoded.slice(mount.prefix.length);
    const first = rel.split('/')[0];
    if (mount.hidden && mount.hidden.includes(first)) {
      return { error: 404, message: `Not found: ${urlPath}` };
    }
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    const root = path.resolve(mount.dir);
    const file = path.resolve(root, rel);
    if (file !== root && !file.startsWith(root + path.sep)) {
      return { error: 403, message: 'Forbidden: path outside the served folder.' };
    }
    return { file };
  }
  return { error: 404, message: `Not found: ${urlPath}` };
}

/**
 * Start the server.
 * @param {{port?: number, extraMounts?: {prefix: string, dir: string}[], quiet?: boolean}} opts
 *   port 0 picks a free port. extraMounts (used by tests) are tried before the default ones.
 * @returns {Promise<{server: import('node:http').Server, port: number, url: string, close: () => Promise<void>}>}
 */
export function startServer({ port = DEFAULT_PORT, extraMounts = [], quiet = true } = {}) {
  const mounts = [...extraMounts, ...defaultMounts()];
  const server = createServer({
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: 1000,
    keepAliveTimeout: 5000,
  }, async (req, res) => {
    const method = req.method || 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      send(res, 405, 'Method not allowed.', { Allow: 'GET, HEAD' }, method);
      return;
    }
    let urlPath;
    try {
      urlPath = new URL(req.url, `http://${HOST}`).pathname;
    } catch {
      send(res, 400, 'Bad request.', {}, method);
      return;
    }
    const resolved = resolvePath(urlPath, mounts);
    if (resolved.error) {
      send(res, resolved.error, resolved.message, {}, method);
      if (!quiet) console.log(`${resolved.error} ${method} ${urlPath}`);
      return;
    }
    let st;
    try {
      st = await stat(resolved.file);
    } catch {
      st = null;
    }
    if (!st || !st.isFile()) {
      send(res, 404, `Not found: ${urlPath}`, {}, method);
      if (!quiet) console.log(`404 ${method} ${urlPath}`);
      return;
    }
    const type = MIME[path.extname(resolved.file).toLowerCase()] || 'application/octet-stream';
    res.writeHead(200, { ...BASE_HEADERS, 'Content-Type': type, 'Content-Length': st.size });
    if (method === 'HEAD') {
      res.end();
      return;
    }
    const stream = createReadStream(resolved.file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
    if (!quiet) console.log(`200 ${method} ${urlPath}`);
  });

  server.maxConnections = MAX_CONNECTIONS;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      const actual = server.address().port;
      resolve({
        server,
        port: actual,
        url: `http://${HOST}:${actual}/`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}

function parseArgs(argv) {
  const opts = { port: DEFAULT_PORT, quiet: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port' || a.startsWith('--port=')) {
      const v = a.includes('=') ? a.split('=')[1] : argv[++i];
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) {
        throw new Error(`--port must be an integer 0..65535, got ${JSON.stringify(v)}`);
      }
      opts.port = n;
    } else if (a === '--exit_with_stdin') {
      opts.exitWithStdin = true;
    } else if (a === '--verbose' || a === '-v') {
      opts.quiet = false;
    } else if (a === '--help' || a === '-h') {
      opts.help = true;
    } else {
      throw new Error(`unknown argument ${a}`);
    }
  }
  return opts;
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isMain) {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`server.mjs: ${e.message}`);
    process.exit(2);
  }
  if (opts.help) {
    console.log('usage: node apps/web/server.mjs [--port N] [--verbose] [--exit_with_stdin]   ' +
      '(127.0.0.1 only; --port 0 = free port; --exit_with_stdin: stop when stdin closes)');
    process.exit(0);
  }
  startServer(opts).then(
    ({ url, close }) => {
      console.log(`keras_bert QA demo: ${url}`);
      console.log('Serving on 127.0.0.1 only. Press Ctrl+C to stop.');
      const stop = () => close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      if (opts.exitWithStdin) {
        // Started by a parent (apps/demo.py) that holds our stdin: when it ends, however it
        // ends (Ctrl+C, SIGTERM, SIGKILL), the pipe closes and the server stops with it.
        process.stdin.on('end', stop);
        process.stdin.on('close', stop);
        process.stdin.on('error', stop);
        process.stdin.resume();
      }
    },
    (e) => {
      console.error(`server.mjs: could not listen on ${HOST}:${opts.port}: ${e.message}`);
      process.exit(1);
    },
  );
}
