// buildFeatures + decodeAnswers reproduce the Python pipeline's golden windows and answers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildFeatures, decodeAnswers, splitOnWhitespace } from "../src/qa/index.js";
import { loadTokenizer, readFixture } from "./helpers.mjs";

const golden = readFixture("qa_golden.json");
const options = {
  maxSeqLength: golden.max_seq_length,
  docStride: golden.doc_stride,
  maxQueryLength: golden.max_query_length,
};
const decodeOptions = {
  nBestSize: golden.n_best_size,
  maxAnswerLength: golden.max_answer_length,
  doLowerCase: golden.do_lower_case,
};

test("QA fixture settings are the shipped model's", () => {
  assert.deepEqual([golden.max_seq_length, golden.doc_stride, golden.max_query_length,
    golden.n_best_size, golden.max_answer_length, golden.do_lower_case],
  [384, 128, 64, 20, 30, true]);
  assert.equal(golden.vocab, "apps/models/vocab.txt");
});

/** Asserts one window against its fixture: tokens, padded inputs and alignment maps. */
function checkWindow(window, expected, maxSeqLength) {
  const n = expected.tokens.length;
  assert.deepEqual(window.tokens, expected.tokens);
  assert.equal(window.ids.length, maxSeqLength);
  assert.ok(window.ids instanceof Int32Array && window.mask instanceof Int32Array &&
    window.segmentIds instanceof Int32Array);
  assert.deepEqual(Array.from(window.ids.subarray(0, n)), expected.ids);
  assert.deepEqual(Array.from(window.segmentIds.subarray(0, n)), expected.segment_ids);
  assert.ok(window.ids.subarray(n).every((v) => v === 0), "ids are zero-padded");
  assert.ok(window.segmentIds.subarray(n).every((v) => v === 0), "segment ids are zero-padded");
  assert.deepEqual(Array.from(window.mask), [...Array(n).fill(1), ...Array(maxSeqLength - n).fill(0)]);
  assert.deepEqual([...window.tokenToOrig], expected.token_to_orig);
  assert.deepEqual([...window.maxContext], expected.max_context);
}

/**
 * The answer's passage span reads as its text: exactly, where its words are separated by single
 * spaces; else once each whitespace run (tab, newline, U+202F, "   ") becomes one space, since
 * the text is the passage words joined by single spaces.
 */
function checkSpan(context, answer, label) {
  const slice = context.slice(answer.start, answer.end);
  if (/[\t\r\n\u202f]| {2}/.test(slice)) {
    assert.equal(splitOnWhitespace(slice).words.join(" "), answer.text, label);
  } else {
    assert.equal(slice, answer.text, label);
  }
}

for (const testCase of golden.cases) {
  test(`golden QA case ${testCase.id}`, () => {
    const features = buildFeatures(loadTokenizer(), testCase.question, testCase.context, options);
    assert.deepEqual(features.words, testCase.doc_words);
    assert.deepEqual(features.words,
      features.wordStarts.map((start, i) =>
        testCase.context.slice(start, start + testCase.doc_words[i].length)));
    assert.equal(features.windows.length, testCase.windows.length);
    features.windows.forEach((window, i) =>
      checkWindow(window, testCase.windows[i], golden.max_seq_length));

    const answers = decodeAnswers(features,
      testCase.windows.map((w) => Float32Array.from(w.start_logits)),
      testCase.windows.map((w) => w.end_logits), decodeOptions);
    assert.equal(answers.length, testCase.nbest.length);
    answers.forEach((answer, i) => {
      const expected = testCase.nbest[i];
      const label = `nbest[${i}]`;
      assert.equal(answer.text, expected.text, label);
      assert.equal(answer.start, expected.start, label);
      assert.equal(answer.end, expected.end, label);
      assert.equal(answer.startLogit, expected.start_logit, label);
      assert.equal(answer.endLogit, expected.end_logit, label);
      assert.ok(Math.abs(answer.probability - expected.probability) <= 1e-12, label);
      checkSpan(testCase.context, answer, label);
    });
    const best = answers[0] ?? { text: "", start: -1, end: -1 };
    assert.deepEqual({ text: best.text, start: best.start, end: best.end }, testCase.answer);
  });
}
