// The fixtures' answers, and those this port decodes from the fixture logits, scored against
// SQuAD's gold answers (apps/fixtures/qa_gold.json, kept by hand): fixtures remade from a broken
// model or decoder fall below its floors and fail here, though the port may agree with them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildFeatures, decodeAnswers } from "../src/qa/index.js";
import { loadTokenizer, readFixture } from "./helpers.mjs";
import { f1Score, normalizeAnswer, scoreAgainstGold } from "./squad_score.mjs";

const golden = readFixture("qa_golden.json");
const gold = readFixture("qa_gold.json");

// Expected values: tests/reference/official_squad_v1.py (the official script's rules) in Python.
test("the official normalization and F1, as the official rules give them", () => {
  assert.equal(normalizeAnswer("The  Cat's hat, a (big) one!"), "cats hat big one");
  assert.equal(normalizeAnswer("Theatre an Anne"), "theatre anne");
  assert.equal(normalizeAnswer("café the\u00e9 the_x"), "café theé thex");
  assert.equal(normalizeAnswer("1754–1763"), "1754–1763"); // an en dash is not ASCII punctuation
  assert.equal(normalizeAnswer("x the\u00e1 a\u0301 b"), "x theá \u0301 b"); // a mark is no letter
  assert.equal(normalizeAnswer("the\u00b2 a\u2167"), "the² a\u2177"); // numerals are
  assert.equal(f1Score("the Swiss canton", "Swiss canton of Graubünden"), 2 * (1 * 0.5) / 1.5);
  assert.equal(f1Score("a", "the"), 0);
  assert.equal(f1Score("North North Sea", "North Sea"), 0.8);
});

test("every held-out case has gold answers and every gold case is a fixture case", () => {
  const ids = new Set(golden.cases.map((c) => c.id));
  for (const c of golden.cases.filter((x) => x.held_out)) {
    assert.ok(c.id in gold.answers, `${c.id} has no gold answers in qa_gold.json`);
  }
  for (const id of Object.keys(gold.answers)) assert.ok(ids.has(id), `${id} is not a fixture case`);
});

/** Asserts `answers` (id -> text) score at least the floors; `label` names them. */
function assertMeetsFloors(answers, label) {
  const result = scoreAgainstGold(answers, gold.answers);
  const summary = `${label}: ${result.exactMatch}/${result.scored} exact, ` +
    `F1 ${result.f1.toFixed(2)}; floors ${gold.min_exact_match} and ${gold.min_f1}; ` +
    `misses: ${result.misses.join("; ")}`;
  assert.ok(result.exactMatch >= gold.min_exact_match, summary);
  assert.ok(result.f1 >= gold.min_f1, summary);
}

const goldCases = golden.cases.filter((c) => c.id in gold.answers);

test("the fixtures' answers score at least qa_gold.json's floors against gold", () => {
  assertMeetsFloors(new Map(goldCases.map((c) => [c.id, c.answer.text])), "fixture answers");
});

test("this port's answers from the fixture logits score at least the floors", () => {
  const options = { maxSeqLength: golden.max_seq_length, docStride: golden.doc_stride,
    maxQueryLength: golden.max_query_length };
  const decodeOptions = { nBestSize: golden.n_best_size, maxAnswerLength: golden.max_answer_length,
    doLowerCase: golden.do_lower_case };
  const answers = new Map();
  for (const c of goldCases) {
    const features = buildFeatures(loadTokenizer(), c.question, c.context, options);
    const nbest = decodeAnswers(features,
      c.windows.map((w) => Float32Array.from(w.start_logits)),
      c.windows.map((w) => Float32Array.from(w.end_logits)), decodeOptions);
    answers.set(c.id, nbest[0]?.text ?? "");
  }
  assertMeetsFloors(answers, "decoded answers");
});
