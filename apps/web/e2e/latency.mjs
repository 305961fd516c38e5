#!/usr/bin/env node
// In-browser latency of a QA model per 384-token window (LiteRT.js, Chromium headless).
//
//   node apps/web/e2e/latency.mjs [--threads 1,2] [--runs 30] [--warmup 5] [--out file.json]
//                                 [--model path/to/model.tflite] [--accelerator wasm|webgpu]
//
// --model defaults to the shipped model; another file is served from its own folder (with the
// SHA256SUMS beside it, if any).
// For each thread count it compiles the model with cpuOptions.numThreads = N, runs `warmup`
// untimed windows, then times `runs` calls of model.run on one real window (question + bundled
// passage, padded to 384 tokens: every window costs the same) and prints JSON:
//   {"threads": {"1": {"p50": ms, "p90": ms, ...}, "2": {...}}, "runs": 30, ...}
// Percentiles use linear interpolation (numpy.percentile's default).

import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromiumMissingMessage, externalRequests, launch, openApp } from './harness.mjs';

function parseArgs(argv) {
  const o = { threads: [1, 2], runs: 30, warmup: 5, out: null, model: null, accelerator: 'wasm' };
  for (let i = 0; i < argv.length; i++) {
    const [k, inline] = argv[i].split('=');
    const v = inline ?? argv[++i];
    if (k === '--threads') o.threads = v.split(',').map(Number);
    else if (k === '--runs') o.runs = Number(v);
    else if (k === '--warmup') o.warmup = Number(v);
    else if (k === '--out') o.out = v;
    else if (k === '--model') o.model = v;
    else if (k === '--accelerator') o.accelerator = v;
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!o.threads.every((t) => Number.isInteger(t) && t > 0)) throw new Error('--threads: positive integers');
  if (!(o.runs > 0) || !(o.warmup >= 0)) throw new Error('--runs > 0 and --warmup >= 0');
  if (!['wasm', 'webgpu'].includes(o.accelerator)) throw new Error('--accelerator: wasm or webgpu');
  if (o.model && !existsSync(o.model)) throw new Error(`--model: ${o.model} does not exist`);
  return o;
}

export function percentile(values, q) {
  const s = [...values].sort((a, b) => a - b);
  const pos = (s.length - 1) * (q / 100);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

const round = (x) => Math.round(x * 10) / 10;

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const missing = chromiumMissingMessage();
  if (missing) throw new Error(missing);
  const mounts = opts.model ? [{ prefix: '/measured/', dir: path.dirname(path.resolve(opts.model)) }] : [];
  const env = await launch({ extraMounts: mounts, webgpu: opts.accelerator === 'webgpu' });
  try {
    const query = new URLSearchParams({ accelerator: opts.accelerator });
    if (opts.model) query.set('model', `/measured/${encodeURIComponent(path.basename(opts.model))}`);
    const { page, ready } = await openApp(env.context, env.server.url, `?${query}`);
    if (!ready.ok) throw new Error(`model failed to load: ${ready.error}`);
    const info = await page.evaluate(() => ({ ...window.__qa.info(), hardwareConcurrency: navigator.hardwareConcurrency }));
    const result = {
      threads: {},
      runs: opts.runs,
      warmup: opts.warmup,
      unit: 'ms per 384-token window (model.run only)',
      model: opts.model ?? 'apps/models/squad_minilm_dynamic_int8.tflite',
      accelerator: info.accelerator,
      acceleratorNote: info.acceleratorNote,
      runtime: 'LiteRT.js @litertjs/core 2.5.3, ' + (info.accelerator === 'webgpu' ? 'WebGPU' : 'WASM (XNNPACK)') + ', ' +
        (info.threaded ? 'threaded build' : info.jspi ? 'JSPI build' : 'single-threaded build'),
      crossOriginIsolated: info.crossOriginIsolated,
      browser: `Chromium ${env.context.browser()?.version() ?? ''} headless`.trim(),
      hardwareConcurrency: info.hardwareConcurrency,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cpuCount: os.cpus().length,
    };
    for (const t of opts.threads) {
      const r = await page.evaluate((a) => window.__qa.benchmark(a), { threads: t, runs: opts.runs, warmup: opts.warmup });
      result.threads[String(t)] = {
        p50: round(percentile(r.ms, 50)),
        p90: round(percentile(r.ms, 90)),
        mean: round(r.ms.reduce((a, b) => a + b, 0) / r.ms.length),
        min: round(Math.min(...r.ms)),
        max: round(Math.max(...r.ms)),
        effectiveThreads: r.threads,
      };
    }
    const ext = externalRequests(env.requests);
    if (ext.length) throw new Error(`requests left 127.0.0.1: ${ext.join(', ')}`);
    const json = JSON.stringify(result, null, 2);
    console.log(json);
    if (opts.out) writeFileSync(opts.out, json + '\n');
  } finally {
    await env.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((e) => {
    console.error(`latency.mjs: ${e.message}`);
    process.exit(1);
  });
}
