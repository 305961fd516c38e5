#!/usr/bin/env node
// In-browser cost of one question over a whole document (issue 55), LiteRT.js in Chromium
// headless: reading every window against the shipped retrieve-then-read pipeline.
//
//   node apps/web/e2e/document_latency.mjs [--threads 2] [--rounds 3] [--warmup 1]
//                                          [--settle-ms 0] [--out file.json]
//
// The Chromium counterpart of benchmarks/suites/document_qa.py, on the bundled article
// (apps/web/data/articles.json, the Rhine) and its suggested questions (`questions` and
// `questions_without_answer`, 7), through the page's own code paths (app.js's window.__qa):
//
// - "read every window": the app's passage mode given the whole article (`__qa.ask`: every
//   384-token window, stride 128, the best span);
// - "shipped": the document mode (`__qa.askDocument`: the embedder and
//   /models/answer_calibrator.json, its ranker and passage count, rank fusion of BM25 and the
//   embedder, top 5 as shipped), after `__qa.prepareDocument` has cut and embedded the article
//   once; that one-time cost is timed on its own (and the loading of the calibrator and embedder
//   beside it).
//
// Both models are set to --threads threads first. `warmup` untimed questions of each candidate,
// then `rounds` rounds; in each, every question once per candidate, the candidates alternating
// which goes first. A question's time is the page's own wall time for it (performance.now() in
// app.js: tokenizing, every model call, decoding, the page's yields between windows), with
// `--settle-ms` of untimed pause before each. Prints JSON (and writes it to --out):
//   {"candidates": {"read every window": {"p50": ms, "mean": ms, "min": ms, "ms": [..], ...},
//    "shipped": {...}}, "ratio": {"p50": x, "mean": x}, "oneTime": {"documentMs": ms, ...}, ...}
// Percentiles use linear interpolation (numpy.percentile's default). Exits 3 (and says how to
// install it) when Chromium is missing, 1 on any other failure.

import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromiumMissingMessage, externalRequests, launch, openApp, WEB_DIR } from './harness.mjs';
import { percentile } from './latency.mjs';

export const READ_EVERY_WINDOW = 'read every window';
export const SHIPPED = 'shipped';
const ARTICLES = path.join(WEB_DIR, 'data', 'articles.json');

function parseArgs(argv) {
  const o = { threads: 2, rounds: 3, warmup: 1, settleMs: 0, out: null };
  for (let i = 0; i < argv.length; i++) {
    const [k, inline] = argv[i].split('=');
    const v = inline ?? argv[++i];
    if (k === '--threads') o.threads = Number(v);
    else if (k === '--rounds') o.rounds = Number(v);
    else if (k === '--warmup') o.warmup = Number(v);
    else if (k === '--settle-ms') o.settleMs = Number(v);
    else if (k === '--out') o.out = v;
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!(Number.isInteger(o.threads) && o.threads > 0)) throw new Error('--threads: a positive integer');
  if (!(Number.isInteger(o.rounds) && o.rounds > 0)) throw new Error('--rounds: a positive integer');
  if (!(Number.isInteger(o.warmup) && o.warmup >= 0)) throw new Error('--warmup: 0 or more');
  if (!(o.settleMs >= 0)) throw new Error('--settle-ms: 0 or more');
  return o;
}

const round = (x) => Math.round(x * 10) / 10;
const ratio = (a, b) => Math.round((100 * a) / b) / 100;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** p50, mean, min, max of `ms` (rounded to 0.1 ms) and the values themselves. */
export function summarize(ms) {
  return {
    p50: round(percentile(ms, 50)),
    mean: round(ms.reduce((a, b) => a + b, 0) / ms.length),
    min: round(Math.min(...ms)),
    max: round(Math.max(...ms)),
    ms: ms.map(round),
  };
}

/**
 * The order of the timed calls: for each round, each question once per candidate, the
 * candidates alternating which goes first from one question to the next.
 * @returns {Array<{round: number, question: number, candidate: string}>}
 */
export function schedule(rounds, questions, candidates) {
  const calls = [];
  let turn = 0;
  for (let r = 0; r < rounds; r++) {
    for (let q = 0; q < questions; q++, turn++) {
      const shift = turn % candidates.length;
      for (const c of [...candidates.slice(shift), ...candidates.slice(0, shift)]) {
        calls.push({ round: r, question: q, candidate: c });
      }
    }
  }
  return calls;
}

/** One question, timed inside the page: {ms, windows, readMs, answer}. */
async function askOnce(page, candidate, question, context) {
  if (candidate === READ_EVERY_WINDOW) {
    const r = await page.evaluate(([q, c]) => window.__qa.ask(q, c), [question, context]);
    return { ms: r.wallMs, windows: r.windows, readMs: r.ms, answer: r.answer };
  }
  const r = await page.evaluate(([q, c]) => window.__qa.askDocument(q, c), [question, context]);
  if (r.documentMs > 0) throw new Error('the shipped pipeline embedded the document again during a question');
  return { ms: r.wallMs, windows: r.windows, readMs: r.readMs, answer: r.noAnswer ? null : r.answer };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const missing = chromiumMissingMessage();
  if (missing) {
    console.error(`document_latency.mjs: ${missing}`);
    process.exit(3);
  }
  const article = JSON.parse(readFileSync(ARTICLES, 'utf8'))[0];
  const questions = [...article.questions, ...article.questions_without_answer];
  const context = article.context;
  const env = await launch();
  try {
    const { page, ready, pageErrors } = await openApp(env.context, env.server.url, `?threads=${opts.threads}`);
    if (!ready.ok) throw new Error(`model failed to load: ${ready.error}`);
    await page.evaluate((n) => window.__qa.setThreads(n), opts.threads);
    const oneTime = await page.evaluate((c) => window.__qa.prepareDocument(c), context);
    if (!oneTime.fresh) throw new Error('the document was embedded before it was timed');
    const info = await page.evaluate(() => ({ ...window.__qa.info(), hardwareConcurrency: navigator.hardwareConcurrency }));
    const candidates = [READ_EVERY_WINDOW, SHIPPED];
    const log = (text) => process.stderr.write(`document_latency: ${text}\n`);
    log(`${context.length} characters, ${oneTime.passages} passages, embedded in ` +
      `${oneTime.documentMs.toFixed(0)} ms; ${info.threads} reader threads, ${info.embedder?.threads} embedder threads`);
    if (info.threads !== opts.threads || info.embedder?.threads !== opts.threads) {
      log(`warning: ${opts.threads} threads asked for, the page uses ${info.threads} (reader) and ` +
        `${info.embedder?.threads} (embedder); cross-origin isolated: ${info.crossOriginIsolated}`);
    }
    for (let w = 0; w < opts.warmup; w++) {
      for (const c of candidates) await askOnce(page, c, questions[w % questions.length], context);
    }
    const timed = Object.fromEntries(candidates.map((c) => [c, { ms: [], windows: [], readMs: [] }]));
    const answers = questions.map((q) => ({ question: q }));
    let last = -1;
    for (const call of schedule(opts.rounds, questions.length, candidates)) {
      if (opts.settleMs) await sleep(opts.settleMs);
      const r = await askOnce(page, call.candidate, questions[call.question], context);
      timed[call.candidate].ms.push(r.ms);
      timed[call.candidate].windows.push(r.windows);
      timed[call.candidate].readMs.push(r.readMs);
      answers[call.question][call.candidate] = r.answer;
      if (call.round !== last) {
        last = call.round;
        log(`round ${call.round + 1}/${opts.rounds}`);
      }
    }
    const ext = externalRequests(env.requests);
    if (ext.length) throw new Error(`requests left 127.0.0.1: ${ext.join(', ')}`);
    if (pageErrors.length) throw new Error(`page errors: ${pageErrors.map(String).join('; ')}`);
    const after = await page.evaluate(() => window.__qa.info());
    const stats = Object.fromEntries(candidates.map((c) => [c, {
      ...summarize(timed[c].ms),
      windowsPerQuestion: { min: Math.min(...timed[c].windows), max: Math.max(...timed[c].windows) },
      readerMsP50: round(percentile(timed[c].readMs, 50)),
    }]));
    const result = {
      unit: 'ms per question (the page\'s wall time), the document embedded once before',
      article: { id: article.id, title: article.title, characters: context.length, passages: oneTime.passages },
      questions: { total: questions.length, answered: article.questions.length,
        withoutAnswer: article.questions_without_answer.length, from: article.questions_without_answer_from },
      rounds: opts.rounds,
      warmup: opts.warmup,
      settleMs: opts.settleMs,
      order: 'each round, every question once per candidate, the candidates alternating which goes first',
      candidates: stats,
      shipped: { ranker: oneTime.ranker, passagesRead: oneTime.passagesRead, calibrated: true,
        usesEmbeddings: oneTime.usesEmbeddings },
      ratio: {
        p50: ratio(stats[READ_EVERY_WINDOW].p50, stats[SHIPPED].p50),
        mean: ratio(stats[READ_EVERY_WINDOW].mean, stats[SHIPPED].mean),
      },
      oneTime: { documentMs: round(oneTime.documentMs), pipelineLoadMs: round(oneTime.loadMs),
        what: 'documentMs: cutting the article into passages, the BM25 index and embedding every passage; ' +
          'pipelineLoadMs: downloading, checking and compiling the calibrator and the embedder (once per page)' },
      answers,
      threads: { requested: opts.threads, reader: after.threads, embedder: after.embedder?.threads ?? null },
      accelerator: after.accelerator,
      runtime: 'LiteRT.js @litertjs/core 2.5.3, WASM (XNNPACK), ' +
        (info.threaded ? 'threaded build' : info.jspi ? 'JSPI build' : 'single-threaded build'),
      crossOriginIsolated: info.crossOriginIsolated,
      browser: `Chromium ${env.context.browser()?.version() ?? ''} headless`.trim(),
      hardwareConcurrency: info.hardwareConcurrency,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cpuCount: os.cpus().length,
      requestsOutside127: ext.length,
      date: new Date().toISOString(),
    };
    const json = JSON.stringify(result, null, 2);
    console.log(json);
    if (opts.out) writeFileSync(opts.out, json + '\n');
  } finally {
    await env.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((e) => {
    console.error(`document_latency.mjs: ${e.message}`);
    process.exit(1);
  });
}
