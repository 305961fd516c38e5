// The retrieval port (src/retrieval/) reproduces the Python reference's numbers recorded in
// apps/fixtures/retrieval_golden.json (apps/make_retrieval_fixtures.py): sentence spans, the
// bundled article's passages, BM25 scores / bounds / orders, rank fusion, window statistics,
// calibrator features and probabilities. Spans and orders exactly; floats within 1e-9 relative.
// The fixture's offsets are Python's (code points); the port's are UTF-16, converted here with
// utf16Offsets (the Rhine text is BMP-only, so the two agree on it; the astral tests below
// check the conversion where they do not).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AnswerCalibrator, Bm25Ranker, PassageSplitter, reciprocalRankFusion, spanFeatures,
  splitSentences, utf16Offsets, windowStatistics, wordTokens,
} from "../src/retrieval/index.js";
import { loadTokenizer, readFixture, readRepoJson } from "./helpers.mjs";

const golden = readFixture("retrieval_golden.json");
const article = readRepoJson("apps/web/data/articles.json").find((a) => a.id === golden.document.id);
const document = article.context;

/** |got - want| <= 1e-9 * max(1, |want|). */
function close(got, want, label) {
  assert.ok(Number.isFinite(got), `${label}: ${got} is not a finite number`);
  assert.ok(Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want)),
    `${label}: got ${got}, want ${want} (difference ${got - want})`);
}

/** Python code-point spans of `text` as UTF-16 spans. */
function toUtf16(text, spans) {
  const offsets = utf16Offsets(text);
  return spans.map(([start, end, ...rest]) => [offsets[start], offsets[end], ...rest]);
}

test("fixture settings are the shipped splitter's and BM25's", () => {
  assert.equal(golden.vocab, "apps/models/vocab.txt");
  assert.deepEqual([golden.document.max_tokens, golden.document.overlap_tokens], [254, 64]);
  assert.deepEqual([golden.bm25.k1, golden.bm25.b], [1.2, 0.75]);
  assert.ok(article, `articles.json has no article "${golden.document.id}"`);
});

for (const [i, { text, spans }] of golden.sentences.entries()) {
  test(`split_sentences case ${i}: ${JSON.stringify(text.slice(0, 40))}`, () => {
    assert.deepEqual(splitSentences(text), toUtf16(text, spans));
  });
}

test("split_sentences counts offsets in UTF-16 where a text has astral characters", () => {
  // Each astral character stands where a BMP character of the same class stands in `bmp`:
  // the code-point spans must be the same, the UTF-16 ones shifted by the surrogate pairs.
  const astral = "Dr. 𝔘ni met 😀 here. 𝔘nder the 𝔄lps! 𝐀 b. Then 𝟗 came.\n\n𝔅 ok";
  const bmp = "Dr. Uni met x here. Under the Alps! A b. Then 9 came.\n\nB ok";
  assert.equal(Array.from(astral).length, Array.from(bmp).length);
  const spans = splitSentences(astral);
  const offsets = utf16Offsets(astral);
  const codePoint = new Map(offsets.map((o, i) => [o, i]));
  assert.deepEqual(spans.map(([s, e]) => [codePoint.get(s), codePoint.get(e)]), splitSentences(bmp));
  assert.deepEqual(spans.map(([s, e]) => astral.slice(s, e)),
    ["Dr. 𝔘ni met 😀 here.", "𝔘nder the 𝔄lps!", "𝐀 b. Then 𝟗 came.", "𝔅 ok"]);
});

test("split_sentences uses Python's whitespace: U+FEFF is not a space, U+0085 is", () => {
  assert.deepEqual(splitSentences("\ufeffOne. Two.\ufeff"), [[0, 5], [6, 11]]);
  assert.deepEqual(splitSentences("One.\ufeffTwo."), [[0, 9]]);
  assert.deepEqual(splitSentences("One.\u0085Two."), [[0, 4], [5, 9]]);
});

test(`the bundled article's passages (${golden.document.passages.length})`, () => {
  const splitter = new PassageSplitter(loadTokenizer(), {
    maxTokens: golden.document.max_tokens, overlapTokens: golden.document.overlap_tokens });
  const passages = splitter.split(document);
  assert.deepEqual(passages.map((p) => [p.start, p.end, p.numTokens]),
    toUtf16(document, golden.document.passages));
  for (const p of passages) assert.equal(p.text, document.slice(p.start, p.end));
});

test("passages of a document with astral characters and an overlong word", () => {
  const splitter = new PassageSplitter(loadTokenizer(), { maxTokens: 12, overlapTokens: 4 });
  const doc = "The 𝔘nicode river 😀 flows north. " + "xq.😀.".repeat(8) + " ends here. Then 𝟗 boats came by!";
  const passages = splitter.split(doc);
  assert.ok(passages.length > 2);
  const covered = new Array(doc.length).fill(false);
  for (const p of passages) {
    assert.equal(p.text, doc.slice(p.start, p.end));
    assert.ok(p.numTokens <= 12, `${p.numTokens} tokens`);
    assert.equal(p.numTokens, loadTokenizer().tokenize(p.text).length);
    // A cut never splits a surrogate pair.
    assert.ok(!/^[\udc00-\udfff]/.test(p.text) && !/[\ud800-\udbff]$/.test(p.text), JSON.stringify(p.text));
    for (let i = p.start; i < p.end; i++) covered[i] = true;
  }
  assert.ok([...doc].every((_, i) => covered[i] || /\s/.test(doc[i]) || /[\udc00-\udfff]/.test(doc[i])));
});

for (const query of golden.bm25.queries) {
  test(`BM25: ${query.question}`, () => {
    const passages = toUtf16(document, golden.document.passages).map(([s, e]) => document.slice(s, e));
    const ranker = new Bm25Ranker(passages, { k1: golden.bm25.k1, b: golden.bm25.b });
    assert.deepEqual(wordTokens(query.question), query.terms);
    const scores = ranker.scores(query.question);
    assert.equal(scores.length, query.bm25.length);
    query.bm25.forEach((want, i) => close(scores[i], want, `bm25[${i}]`));
    close(ranker.scoreBound(query.question), query.bound, "bound");
    assert.deepEqual(ranker.rank(query.question), query.order);
  });
}

test("word tokens: Python's \\w+ on the lower-cased text", () => {
  assert.deepEqual(wordTokens("Köln's 2nd_bridge, ΣΟΦΟΣ & 東京 ①–x\u0301y"),
    ["köln", "s", "2nd_bridge", "σοφος", "東京", "①", "x", "y"]);
});

for (const [i, { orders, fused }] of golden.fusion.entries()) {
  test(`reciprocal rank fusion case ${i} (${orders[0].length} items)`, () => {
    assert.deepEqual(reciprocalRankFusion(orders), fused);
  });
}

for (const [i, w] of golden.window_statistics.entries()) {
  test(`window_statistics case ${i}`, () => {
    const { clsLogits, lse } = windowStatistics(w.start_logits, w.end_logits, w.segment_ids);
    close(clsLogits[0], w.cls[0], "cls start");
    close(clsLogits[1], w.cls[1], "cls end");
    close(lse[0], w.lse[0], "lse start");
    close(lse[1], w.lse[1], "lse end");
  });
}

const calibrator = AnswerCalibrator.fromDict(golden.calibrator);

for (const [i, { inputs, features, probability }] of golden.features.entries()) {
  test(`span_features and the calibrator's probability, case ${i}`, () => {
    const got = spanFeatures({ startLogit: inputs.start_logit, endLogit: inputs.end_logit,
      clsLogits: inputs.cls_logits, lse: inputs.lse, cosine: inputs.cosine,
      bm25Match: inputs.bm25_match, rank: inputs.rank });
    assert.deepEqual(Object.keys(got).sort(), Object.keys(features).sort());
    for (const [name, want] of Object.entries(features)) close(got[name], want, name);
    close(calibrator.probability(got), probability, "probability");
    assert.equal(calibrator.abstains(calibrator.probability(got)), probability < golden.calibrator.threshold);
  });
}

test("the shipped calibrators parse, and name features the port knows", () => {
  for (const name of ["answer_calibrator.json", "answer_calibrator_bm25.json"]) {
    const c = AnswerCalibrator.fromDict(readRepoJson(`apps/models/${name}`), name);
    assert.ok(["bm25", "dense", "rrf"].includes(c.info.ranker), `${name}: ranker ${c.info.ranker}`);
    assert.ok(Number.isInteger(c.info.passages) && c.info.passages >= 1);
  }
});

test("a calibrator JSON without weights, or with an unknown feature, is refused", () => {
  assert.throws(() => AnswerCalibrator.fromDict({ features: ["span_logit"], bias: 0 }), /lacks weights/);
  assert.throws(() => AnswerCalibrator.fromDict({ features: ["nope"], weights: [1], bias: 0 }),
    /Unknown calibrator features nope/);
  assert.throws(() => calibrator.probability({ span_logit: 1 }), /needs the feature "span_log_prob"/);
});
