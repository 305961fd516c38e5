#!/usr/bin/env node
// Times the WebAssembly SIMD kernels of experiments/simd_ceiling/kernels.wat in Chromium
// headless (the browser the app runs in), one thread: the per-core ceiling of the instructions
// LiteRT.js's XNNPACK kernels are built from. experiments/simd_ceiling.py runs it beside the
// native kernels and checks the checksums.
//
//   node apps/web/e2e/simd_ceiling.mjs --wasm kernels.wasm [--iterations 1000000] [--calls 50]
//
// Prints JSON: {"kernels": {"i8_relaxed_dot": {"seconds": s, "checksum": c}, ...}, "browser": ...}
// (seconds for `calls` calls of `iterations` iterations each, the best of 3 such rounds after one
// untimed call; checksum: one call's result).

import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromiumMissingMessage, launch } from './harness.mjs';

function parseArgs(argv) {
  const o = { wasm: null, iterations: 1000000, calls: 50 };
  for (let i = 0; i < argv.length; i++) {
    const [k, inline] = argv[i].split('=');
    const v = inline ?? argv[++i];
    if (k === '--wasm') o.wasm = v;
    else if (k === '--iterations') o.iterations = Number(v);
    else if (k === '--calls') o.calls = Number(v);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!o.wasm || !existsSync(o.wasm)) throw new Error(`--wasm: ${o.wasm} does not exist (build it with experiments/simd_ceiling.py)`);
  if (!(Number.isInteger(o.iterations) && o.iterations > 0 && Number.isInteger(o.calls) && o.calls > 0)) {
    throw new Error('--iterations and --calls: positive integers');
  }
  return o;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const missing = chromiumMissingMessage();
  if (missing) throw new Error(missing);
  const env = await launch();
  try {
    const page = await env.context.newPage();
    await page.goto(env.server.url);
    const bytes = readFileSync(opts.wasm).toString('base64');
    const kernels = await page.evaluate(async ({ bytes, iterations, calls }) => {
      const binary = Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0));
      const { instance } = await WebAssembly.instantiate(binary);
      const out = {};
      for (const name of ['i8_relaxed_dot', 'f32_relaxed_madd']) {
        const kernel = instance.exports[name];
        const checksum = kernel(iterations);
        let best = Infinity;
        for (let round = 0; round < 3; round++) {
          const t0 = performance.now();
          for (let c = 0; c < calls; c++) kernel(iterations);
          best = Math.min(best, (performance.now() - t0) / 1000);
        }
        out[name] = { seconds: best, checksum };
      }
      return out;
    }, { bytes, iterations: opts.iterations, calls: opts.calls });
    const result = {
      kernels,
      iterations: opts.iterations,
      calls: opts.calls,
      browser: `Chromium ${env.context.browser()?.version() ?? ''} headless`.trim(),
    };
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    await env.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    process.stderr.write(`simd_ceiling: ${e.message}\n`);
    process.exit(1);
  });
}
