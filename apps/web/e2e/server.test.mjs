// Tests of the loopback server (no browser needed): headers, MIME types, routes, traversal.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startServer } from '../server.mjs';

/** Raw GET (no URL normalisation, unlike fetch) -> {status, headers, body}. */
function get(port, rawPath, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: rawPath, method }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('server.mjs', () => {
  let srv;
  before(async () => {
    srv = await startServer({ port: 0 });
  });
  after(async () => {
    await srv.close();
  });

  test('binds 127.0.0.1 on a free port and prints a loopback URL', () => {
    assert.equal(srv.server.address().address, '127.0.0.1');
    assert.ok(srv.port > 0);
    assert.equal(srv.url, `http://127.0.0.1:${srv.port}/`);
  });

  test('index page with COOP/COEP/CORP headers', async () => {
    const r = await get(srv.port, '/');
    assert.equal(r.status, 200);
    assert.match(r.headers['content-type'], /^text\/html/);
    assert.equal(r.headers['cross-origin-opener-policy'], 'same-origin');
    assert.equal(r.headers['cross-origin-embedder-policy'], 'require-corp');
    assert.equal(r.headers['cross-origin-resource-policy'], 'same-origin');
    assert.match(r.body.toString(), /importmap/);
  });

  test('MIME types for wasm, js, models, calibrator, vocab and data', async () => {
    const cases = [
      ['/vendor/litertjs/wasm/litert_wasm_internal.wasm', 'application/wasm'],
      ['/vendor/litertjs/dist/index.js', 'text/javascript'],
      ['/vendor/litertjs-wasm-utils/dist/bundle.js', 'text/javascript'],
      ['/app.js', 'text/javascript'],
      ['/style.css', 'text/css'],
      ['/data/passages.json', 'application/json'],
      ['/models/squad_minilm_int8.tflite', 'application/octet-stream'],
      ['/models/squad_minilm_dynamic_int8.tflite', 'application/octet-stream'],
      ['/models/vocab.txt', 'text/plain'],
      // "Ask a whole document": the bundled article, the sentence embedder, the calibrator and
      // the module that loads them.
      ['/data/articles.json', 'application/json'],
      ['/models/minilm_embedder_dynamic_int8.tflite', 'application/octet-stream'],
      ['/models/answer_calibrator.json', 'application/json'],
      ['/models/SHA256SUMS', 'application/octet-stream'],
      ['/src/embedder_model.js', 'text/javascript'],
      ['/src/retrieval/document_qa.js', 'text/javascript'],
    ];
    for (const [p, type] of cases) {
      const r = await get(srv.port, p, 'HEAD');
      assert.equal(r.status, 200, p);
      assert.ok(r.headers['content-type'].startsWith(type), `${p}: ${r.headers['content-type']}`);
      assert.equal(r.headers['cross-origin-embedder-policy'], 'require-corp', p);
    }
  });

  test('missing files are a clear 404', async () => {
    const r = await get(srv.port, '/models/missing.tflite');
    assert.equal(r.status, 404);
    assert.match(r.body.toString(), /Not found: \/models\/missing\.tflite/);
  });

  test('path traversal and hidden or development files are refused', async () => {
    for (const p of [
      '/../../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/models/..%2f..%2fweb%2fserver.mjs',
      '/vendor/litertjs/%2e%2e/%2e%2e/%2e%2e/%2e%2e/.git/config',
      '/models/%2e%2e%5c%2e%2e%5csetup.py',
      '/.git/config',
      '/node_modules/playwright-core/package.json',
      '/e2e/browser.test.mjs',
      '/server.mjs',
      '/%00',
      '/%E0%A4%A',
    ]) {
      const r = await get(srv.port, p);
      assert.ok([400, 403, 404].includes(r.status), `${p} -> ${r.status}`);
      assert.doesNotMatch(r.body.toString(), /root:|\[core\]|startServer/, p);
    }
  });

  test('only GET and HEAD', async () => {
    const r = await get(srv.port, '/', 'POST');
    assert.equal(r.status, 405);
  });
});
