// DocumentQa (src/retrieval/document_qa.js), the port of DocumentQuestionAnsweringPipeline, with
// a fake reader and embedder (deterministic numbers from the token ids and words), so the
// retrieve -> read -> calibrate -> merge logic is checked without LiteRT.js. The model-backed
// path runs in the browser test (e2e/document.test.mjs).
import assert from "node:assert/strict";
import { test } from "node:test";
import { QaInputError } from "../src/qa/index.js";
import {
  AnswerCalibrator, Bm25Ranker, DocumentQa, QaCancelled,
} from "../src/retrieval/index.js";
import { loadTokenizer, readRepoJson } from "./helpers.mjs";

const article = readRepoJson("apps/web/data/articles.json").find((a) => a.id === "rhine");
const document = article.context;
const shipped = AnswerCalibrator.fromDict(readRepoJson("apps/models/answer_calibrator.json"));
const shippedBm25 = AnswerCalibrator.fromDict(readRepoJson("apps/models/answer_calibrator_bm25.json"));

// What keras_bert.DocumentQuestionAnsweringPipeline answers with the same fake reader and
// embedder (their formulas are in the fixture), from apps/make_retrieval_fixtures.py.
const golden = readRepoJson("apps/fixtures/retrieval_golden.json").pipeline;

/** The fixture's fake reader: float32 logits from the window's ids and positions. */
async function fakeReader(window) {
  const n = window.ids.length;
  const startLogits = new Float32Array(n);
  const endLogits = new Float32Array(n);
  for (let p = 0; p < n; p++) {
    startLogits[p] = ((window.ids[p] * 7919 + p * 104729) % 1009) / 128 - 4;
    endLogits[p] = ((window.ids[p] * 6007 + p * 7727) % 997) / 128 - 3;
  }
  return { startLogits, endLogits };
}

/** The fixture's fake embedder (counts of a..z in the lower-cased text), counting its calls. */
function fakeEmbedder() {
  const embed = async (text) => {
    embed.calls += 1;
    const row = new Float32Array(26);
    for (const c of text.toLowerCase()) if (c >= "a" && c <= "z") row[c.charCodeAt(0) - 97] += 1;
    return row;
  };
  embed.calls = 0;
  return embed;
}

function pipeline(options = {}) {
  return new DocumentQa({ tokenizer: loadTokenizer(), reader: fakeReader, ...options });
}

function goldenPipeline(name) {
  const setting = golden.settings[name];
  const c = setting.calibrator;
  const calibrator = c === null ? null
    : AnswerCalibrator.fromDict(golden.calibrators[c] ?? readRepoJson(c));
  return pipeline({ calibrator, ranker: setting.ranker, passages: setting.passages, embedder: fakeEmbedder() });
}

test("the fixture covers every setting and question", () => {
  assert.deepEqual(Object.keys(golden.settings).sort(),
    ["bm25_cal3", "dense_cal2", "none2", "rrf_cal3", "shipped", "shipped_bm25"]);
  assert.equal(golden.cases.length, 6 * (article.questions.length + article.questions_without_answer.length));
});

for (const c of golden.cases) {
  test(`as the Python pipeline: ${c.pipeline}, ${c.question}`, async () => {
    const qa = goldenPipeline(c.pipeline);
    const { answers } = await qa.candidates(c.question, document, { topK: golden.top_k });
    assert.equal(answers.length, c.answers.length);
    // The embedder's cosines are float32 dot products, summed in another order than NumPy's.
    const tolerance = qa.usesEmbeddings ? 1e-6 : 1e-9;
    c.answers.forEach((want, i) => {
      const got = answers[i];
      const what = `#${i}: ${JSON.stringify(got)}`;
      assert.deepEqual([got.start, got.end, got.passage, got.noAnswer, got.text],
        [want.start, want.end, want.passage, want.no_answer, want.text], what);
      assert.ok(Math.abs(got.score - want.score) <= tolerance * Math.abs(want.score), `${what}: Python ${want.score}`);
    });
    const best = await qa.answer(c.question, document);
    assert.equal(best.noAnswer, c.answers[0].no_answer);
    if (best.noAnswer) {
      assert.deepEqual([best.text, best.start, best.passage], ["", -1, -1]);
      assert.equal(best.candidate.start, c.answers[0].start);
    } else {
      assert.deepEqual([best.text, best.start, best.end], [c.answers[0].text, c.answers[0].start, c.answers[0].end]);
    }
  });
}

test("the shipped calibrator: rank fusion of 5 passages, embedded once per document", async () => {
  const embed = fakeEmbedder();
  const qa = pipeline({ calibrator: shipped, embedder: embed });
  assert.deepEqual([qa.ranker, qa.passages, qa.usesEmbeddings], ["rrf", 5, true]);
  const progress = [];
  const entry = await qa.document(document, { onProgress: (p) => progress.push(`${p.done}/${p.total}`) });
  const n = entry.passages.length;
  assert.equal(embed.calls, n);
  assert.deepEqual(progress, Array.from({ length: n + 1 }, (_, i) => `${i}/${n}`));
  for (const question of [...article.questions, ...article.questions_without_answer]) {
    const r = await qa.answer(question, document, { topK: 5 });
    assert.deepEqual(r.retrieved.map((x) => x.rank), [1, 2, 3, 4, 5]);
    assert.equal(r.windows, 5);
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
  assert.deepEqual(retrieved.map((r) => r.passage), bm25.rank(question, shippedBm25.info.passages));
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
  const first = golden.cases.find((c) => c.pipeline === "shipped_bm25" && c.question === article.questions[0]);
  assert.equal(none.candidate.text, first.answers[0].text);
  assert.equal(none.score, none.candidate.score);
  const lax = new AnswerCalibrator(shippedBm25.weights, shippedBm25.bias, shippedBm25.features, 0, shippedBm25.info);
  const some = await pipeline({ calibrator: lax }).answer(article.questions[0], document);
  assert.equal(some.noAnswer, false);
  assert.equal(some.text, first.answers[0].text);
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
