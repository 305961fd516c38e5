// Shared helpers for the browser tests and the latency script: start the loopback server,
// launch Debian's Chromium headless through playwright-core (never `npx playwright install`).

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../server.mjs';

export const E2E_DIR = path.dirname(fileURLToPath(import.meta.url));
export const WEB_DIR = path.dirname(E2E_DIR);
export const REPO_ROOT = path.resolve(WEB_DIR, '..', '..');
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

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

// A WebGPU adapter without a GPU: Chromium's SwiftShader (Vulkan on the CPU). It checks the
// app's WebGPU path end to end; its speed says nothing about a real GPU.
export const WEBGPU_ARGS = [
  ...CHROMIUM_ARGS.filter((a) => a !== '--disable-gpu'),
  '--enable-unsafe-webgpu',
  '--enable-unsafe-swiftshader',
];

export function chromiumMissingMessage() {
  return existsSync(CHROMIUM_PATH)
    ? null
    : `Chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` ` +
        '(or set CHROMIUM_PATH). Never use `npx playwright install`.';
}

/**
 * Start the server on a free port and a fresh Chromium profile.
 * @returns {Promise<{server, context, requests: string[], close: () => Promise<void>}>}
 */
export async function launch({ extraMounts = [], viewport = { width: 1280, height: 900 }, webgpu = false } = {}) {
  const server = await startServer({ port: 0, extraMounts });
  const profile = mkdtempSync(path.join(tmpdir(), 'kb-qa-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: webgpu ? WEBGPU_ARGS : CHROMIUM_ARGS,
      viewport,
      serviceWorkers: 'block',
    });
  } catch (e) {
    await server.close();
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  return {
    server,
    context,
    requests,
    close: async () => {
      await context.close().catch(() => {});
      await server.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Requests that left the loopback address (data:/blob: URLs are not network requests). */
export function externalRequests(urls) {
  return urls.filter((u) => {
    const url = new URL(u);
    if (url.protocol === 'data:' || url.protocol === 'blob:') return false;
    return url.hostname !== '127.0.0.1';
  });
}

/** Open the app and wait until startup (passages, vocab, model) has finished. */
export async function openApp(context, baseUrl, query = '') {
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e));
  await page.goto(baseUrl + query);
  const ready = await page.evaluate(() => window.__qa.ready());
  return { page, ready, pageErrors };
}
