// DocumentQa (src/retrieval/document_qa.js), the port of DocumentQuestionAnsweringPipeline, with
// a fake reader and embedder (deterministic numbers from the token ids and words), so the
// retrieve -> read -> calibrate -> merge logic is checked without LiteRT.js. The model-backed
// path runs in the browser test (e2e/document.test.mjs).
import assert from "node:assert/strict";
import { test } from "node:test";
import { QaInputError } from "../src/qa/index.js";
import {
  AnswerCalibrator, Bm25Ranker, DocumentQa, QaCancelled, wordTokens,
} from "../src/retrieval/index.js";
import { loadTokenizer, readRepoJson } from "./helpers.mjs";

const article = readRepoJson("apps/web/data/articles.json").find((a) => a.id === "rhine");
const document = article.context;
const shipped = AnswerCalibrator.fromDict(readRepoJson("apps/models/answer_calibrator.json"));
const shippedBm25 = AnswerCalibrator.fromDict(readRepoJson("apps/models/answer_calibrator_bm25.json"));

/** Logits from the window's ids and positions (the Python check below uses the same). */
async function fakeReader(window) {
  const n = window.ids.length;
  const startLogits = new Float32Array(n);
  const endLogits = new Float32Array(n);
  for (let j = 0; j < n; j++) {
    startLogits[j] = ((window.ids[j] * 37 + j * 11) % 101) / 10 - 5;
    endLogits[j] = ((window.ids[j] * 53 + j * 7) % 97) / 10 - 5;
  }
  return { startLogits, endLogits };
}

/** A bag of words hashed into 64 dimensions, counting its calls. */
function fakeEmbedder() {
  const embed = async (text) => {
    embed.calls += 1;
    const row = new Float32Array(64);
    for (const w of wordTokens(text)) row[[...w].reduce((a, c) => a + c.codePointAt(0), 0) % 64] += 1;
    row[0] += 0.5;
    return row;
  };
  embed.calls = 0;
  return embed;
}

function pipeline(options = {}) {
  return new DocumentQa({ tokenizer: loadTokenizer(), reader: fakeReader, ...options });
}

// What keras_bert.DocumentQuestionAnsweringPipeline answers with the same fake reader (runner:
// start = ((ids * 37 + j * 11) % 101) / 10 - 5, end = ((ids * 53 + j * 7) % 97) / 10 - 5, as
// float32) on the Rhine article: with apps/models/answer_calibrator_bm25.json, and with no
// calibrator, ranker "bm25", passages=2. The port matched every span, passage and score of all
// seven suggested questions, top 5, to 1e-9 (with the cosine calibrator to 5e-8: float32 dots).
const PYTHON = [
  { calibrator: shippedBm25, question: "Where is the Rhine Bridge?",
    best: { text: ", the Rhine-Ruhr region. One of the most important", score: 0.7701910668976927,
      start: 10151, end: 10201, passage: 12 },
    top: [[10151, 10201, 12], [10151, 10208, 12], [10653, 10747, 12], [10561, 10674, 12], [10605, 10674, 12]] },
  { calibrator: shippedBm25, question: "Who provided a philosophical discussion of force?",
    best: { text: "and lasted until 1814", score: 0.317842043104709, start: 28187, end: 28208, passage: 34 },
    top: [[28187, 28208, 34], [28333, 28413, 34], [28333, 28394, 34], [28687, 28772, 34], [28813, 28860, 34]] },
  { calibrator: null, ranker: "bm25", passages: 2, question: "What bridge did the Germans fail to demolish?",
    best: { text: "did not yet carry discharge from the Alps; instead, the", score: 0.04450791578296081,
      start: 17651, end: 17706, passage: 21 },
    top: [[17651, 17706, 21], [29716, 29724, 35], [29716, 29737, 35], [29581, 29592, 35], [17303, 17441, 21]] },
];

for (const c of PYTHON) {
  test(`as the Python pipeline: ${c.question} (${c.calibrator ? "BM25 calibrator" : "no calibrator"})`, async () => {
    const qa = pipeline({ calibrator: c.calibrator, ranker: c.ranker, passages: c.passages });
    const best = await qa.answer(c.question, document);
    assert.equal(best.text, c.best.text);
    assert.deepEqual([best.start, best.end, best.passage], [c.best.start, c.best.end, c.best.passage]);
    assert.ok(Math.abs(best.score - c.best.score) <= 1e-9 * c.best.score, `score ${best.score}`);
    assert.equal(best.noAnswer, false);
    const { answers } = await qa.candidates(c.question, document, { topK: 5 });
    assert.deepEqual(answers.map((a) => [a.start, a.end, a.passage]), c.top);
  });
}

test("the shipped calibrator: rank fusion of 3 passages, embedded once per document", async () => {
  const embed = fakeEmbedder();
  const qa = pipeline({ calibrator: shipped, embedder: embed });
  assert.deepEqual([qa.ranker, qa.passages, qa.usesEmbeddings], ["rrf", 3, true]);
  const progress = [];
  const entry = await qa.document(document, { onProgress: (p) => progress.push(`${p.done}/${p.total}`) });
  const n = entry.passages.length;
  assert.equal(embed.calls, n);
  assert.deepEqual(progress, Array.from({ length: n + 1 }, (_, i) => `${i}/${n}`));
  for (const question of [...article.questions, ...article.questions_without_answer]) {
    const r = await qa.answer(question, document, { topK: 5 });
    assert.deepEqual(r.retrieved.map((x) => x.rank), [1, 2, 3]);
    assert.equal(r.windows, 3);
    if (!r.noAnswer) {
      assert.ok(r.start >= r.passageStart && r.end <= r.passageEnd);
      assert.equal(document.slice(r.passageStart, r.passageEnd), entry.passages[r.passage].text);
      assert.equal(document.slice(r.start, r.end).split(/\s+/).join(" "), r.text);
    }
    const scores = r.candidates.map((c) => c.score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
    assert.equal(new Set(r.candidates.map((c) => `${c.start}:${c.end}`)).size, r.candidates.length);
    for (const c of r.candidates) assert.equal(c.noAnswer, c.score < shipped.threshold);
  }
  // Cut and embedded once; each question is one more embedder call.
  assert.equal(embed.calls, n + 7);
});

test("retrieve: BM25 order, bm25_match = score / bound, inverse rank", async () => {
  const qa = pipeline({ calibrator: shippedBm25 });
  const question = article.questions[0];
  const retrieved = await qa.retrieve(question, document);
  const entry = await qa.document(document);
  const bm25 = new Bm25Ranker(entry.passages.map((p) => p.text));
  assert.deepEqual(retrieved.map((r) => r.passage), bm25.rank(question, 3));
  const scores = bm25.scores(question);
  for (const r of retrieved) {
    assert.equal(r.bm25Match, scores[r.passage] / bm25.scoreBound(question));
    assert.equal(r.cosine, null);
  }
});

test("the calibrator's threshold decides \"no answer\"; the rejected best is kept", async () => {
  const strict = new AnswerCalibrator(shippedBm25.weights, shippedBm25.bias, shippedBm25.features, 1, shippedBm25.info);
  const none = await pipeline({ calibrator: strict }).answer(article.questions[0], document);
  assert.deepEqual([none.text, none.noAnswer, none.start, none.end, none.passage], ["", true, -1, -1, -1]);
  assert.equal(none.candidate.text, PYTHON[0].best.text);
  assert.equal(none.score, none.candidate.score);
  const lax = new AnswerCalibrator(shippedBm25.weights, shippedBm25.bias, shippedBm25.features, 0, shippedBm25.info);
  const some = await pipeline({ calibrator: lax }).answer(article.questions[0], document);
  assert.equal(some.noAnswer, false);
  assert.equal(some.text, PYTHON[0].best.text);
});

test("bad input and missing pieces give clear errors", async () => {
  const qa = pipeline({ calibrator: shippedBm25 });
  await assert.rejects(qa.answer("  \t", document), QaInputError);
  // U+FEFF is not whitespace to Python, so this is a document, but one without a token.
  const blank = await qa.answer("Where?", " \n\ufeff");
  assert.deepEqual([blank.noAnswer, blank.candidate, blank.passages.length], [true, undefined, 1]);
  await assert.rejects(qa.answer("Where?", "   \n "), QaInputError);
  assert.throws(() => pipeline({ calibrator: shipped }), /needs the sentence embedder/);
  assert.throws(() => pipeline({ ranker: "dense" }), /needs the sentence embedder/);
  assert.throws(() => pipeline({ ranker: "tfidf", embedder: fakeEmbedder() }), /choose from bm25, dense, rrf/);
});

test("a question cancelled while the document is embedded stops, and nothing is cached", async () => {
  const embed = fakeEmbedder();
  const qa = pipeline({ calibrator: shipped, embedder: embed });
  const signal = { cancelled: false };
  const run = qa.answer(article.questions[0], document, {
    signal, onProgress: (p) => { if (p.done === 3) signal.cancelled = true; } });
  await assert.rejects(run, QaCancelled);
  assert.equal(embed.calls, 3);
  assert.equal(qa.hasDocument(document), false);
});

test("a document with astral characters: offsets are UTF-16 and the answer reads as its span", async () => {
  const doc = "𝔘nicode 😀 rivers: the Rhine 🚣 flows north. ".repeat(30) +
    "\n\nThe 𝔅ridge at Remagen 😀 was taken in 1945. " + "Boats 🚣 and barges go by. ".repeat(40);
  const qa = pipeline({ calibrator: null, passages: 3 });
  const r = await qa.answer("When was the bridge at Remagen taken?", doc, { topK: 5 });
  for (const c of r.candidates) {
    assert.equal(doc.slice(c.start, c.end).split(/\s+/).join(" "), c.text);
    assert.ok(!/^[\udc00-\udfff]/.test(doc.slice(c.start)), "a span starts inside a surrogate pair");
  }
});
