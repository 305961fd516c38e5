// Bad and unusual input: clear errors for empty input, no hangs or throws for the rest.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildFeatures, decodeAnswers, projectToOriginalText, QaInputError }
  from "../src/qa/index.js";
import { loadTokenizer } from "./helpers.mjs";

const PASSAGE = "The Rhine begins in the Swiss Alps and flows to the North Sea.";

/** Logits that peak at `position` and are flat elsewhere, one array per window. */
function peakLogits(features, position) {
  return features.windows.map((window) => {
    const logits = new Float32Array(window.ids.length).fill(-5);
    logits[Math.min(position, window.tokens.length - 2)] = 5;
    return logits;
  });
}

test("an empty or whitespace-only question is a QaInputError that says so", () => {
  for (const question of ["", "   ", "\t\n ", "\u00a0\u3000"]) {
    assert.throws(() => buildFeatures(loadTokenizer(), question, PASSAGE),
      (error) => error instanceof QaInputError && /question is empty/.test(error.message));
  }
});

test("an empty or whitespace-only passage is a QaInputError that says so", () => {
  for (const passage of ["", "  \n\t ", "\u202f"]) {
    assert.throws(() => buildFeatures(loadTokenizer(), "Where?", passage),
      (error) => error instanceof QaInputError && /passage is empty/.test(error.message));
  }
});

test("a question or passage that is not a string is a QaInputError", () => {
  assert.throws(() => buildFeatures(loadTokenizer(), undefined, PASSAGE), QaInputError);
  assert.throws(() => buildFeatures(loadTokenizer(), "Where?", null), QaInputError);
});

test("a question of only punctuation builds one window and decodes an answer", () => {
  const features = buildFeatures(loadTokenizer(), "?!?", PASSAGE);
  assert.deepEqual(features.queryTokens, ["?", "!", "?"]);
  assert.equal(features.windows.length, 1);
  const answers = decodeAnswers(features, peakLogits(features, 6), peakLogits(features, 7));
  assert.equal(answers[0].text, "Rhine begins");
  assert.equal(PASSAGE.slice(answers[0].start, answers[0].end), "Rhine begins");
});

test("a question over 64 tokens is cut to 64 and flagged", () => {
  const features = buildFeatures(loadTokenizer(), "why ".repeat(100), PASSAGE);
  assert.equal(features.queryTokens.length, 64);
  assert.equal(features.questionTruncated, true);
  assert.equal(buildFeatures(loadTokenizer(), "why?", PASSAGE).questionTruncated, false);
});

test("a 5,000-word passage gives the expected windows quickly", () => {
  // Words that are single vocabulary tokens, so the passage is exactly 5,000 pieces.
  const vocabWords = ["the", "river", "flows", "through", "many", "cities", "and", "countries"];
  const words = Array.from({ length: 5000 }, (_, i) => vocabWords[i % vocabWords.length]);
  const features = buildFeatures(loadTokenizer(), "Where does it flow?", words.join(" "));
  const maxTokensForDoc = 384 - features.queryTokens.length - 3; // 377
  const expected = 1 + Math.ceil((5000 - maxTokensForDoc) / 128); // windows 128 tokens apart
  assert.equal(features.queryTokens.length, 5);
  assert.equal(features.windows.length, expected);
  assert.equal(expected, 38);
  // Every passage piece is in some window, and exactly one window is its max-context one.
  const maxContextCount = new Array(5000).fill(0);
  for (const window of features.windows) {
    for (const [position, word] of window.tokenToOrig) {
      if (window.maxContext.get(position)) maxContextCount[word] += 1;
    }
  }
  assert.ok(maxContextCount.every((count) => count === 1));
  const answers = decodeAnswers(features, peakLogits(features, 100), peakLogits(features, 101));
  // Every window peaks at positions 100-101; the first window ([CLS], 5 query pieces, [SEP])
  // holds passage pieces 93-94 there with their most centred view, and ties keep window order.
  assert.equal(answers[0].text, words.slice(93, 95).join(" "));
  for (const answer of answers) {
    assert.equal(features.words.join(" ").slice(answer.start, answer.end), answer.text);
  }
});

test("emoji, CJK and right-to-left passages build windows and decode without throwing", () => {
  const passages = [
    "The team 🏆 won the cup 🎉🎉 in 2019 👍🏽.",
    "東京タワーは東京都港区にあります。 Tokyo Tower is in Minato.",
    "مرحبا means hello in Arabic, and שלום means peace in Hebrew.",
    "\u202Bمرحبا بالعالم\u202C hello \u200Fworld",
  ];
  for (const passage of passages) {
    const features = buildFeatures(loadTokenizer(), "What does it mean? 🤔", passage);
    const answers = decodeAnswers(features, peakLogits(features, 12), peakLogits(features, 13));
    assert.ok(answers.length > 0, passage);
    for (const answer of answers) {
      assert.ok(answer.start >= 0 && answer.end <= passage.length && answer.start < answer.end);
      assert.equal(passage.slice(answer.start, answer.end), answer.text);
    }
  }
});

test("an answer ending in an astral character ends after its surrogate pair", () => {
  const passage = "Winner: team😀 wins";
  const features = buildFeatures(loadTokenizer(), "Who?", passage);
  const unknown = features.windows[0].tokens.indexOf("[UNK]"); // "team😀" is one [UNK]
  const answers = decodeAnswers(features, peakLogits(features, unknown),
    peakLogits(features, unknown));
  assert.equal(answers[0].text, "team😀");
  assert.equal(passage.slice(answers[0].start, answers[0].end), "team😀");
});

test("no valid span in any window gives an empty answer list", () => {
  const features = buildFeatures(loadTokenizer(), "Where?", "Alps");
  // Only the question/padding positions score: the top-20 starts and ends hold no passage token.
  const logits = features.windows.map(() => {
    const values = new Float32Array(384).fill(-10);
    for (let i = 0; i < 3; i++) values[i] = 10;
    for (let i = 10; i < 30; i++) values[i] = 10;
    return values;
  });
  assert.deepEqual(decodeAnswers(features, logits, logits), []);
});

test("logits for the wrong number of windows are refused", () => {
  const features = buildFeatures(loadTokenizer(), "Where?", PASSAGE);
  assert.throws(() => decodeAnswers(features, [], []), RangeError);
});

test("projectToOriginalText keeps the original case, accents and punctuation", () => {
  assert.deepEqual(projectToOriginalText("steve smith", "Steve Smith's", true),
    { text: "Steve Smith", offset: 0 });
  assert.deepEqual(projectToOriginalText("cafe", "the Café!", true), { text: "Café", offset: 4 });
  assert.deepEqual(projectToOriginalText("1895", "(1895-1943)", true), { text: "1895", offset: 1 });
  // Not found: the whole original text comes back.
  assert.deepEqual(projectToOriginalText("zzz", "Steve Smith's", true),
    { text: "Steve Smith's", offset: 0 });
  // Offsets count UTF-16 units: the emoji before the match is two of them.
  assert.deepEqual(projectToOriginalText("b", "😀 b", true), { text: "b", offset: 3 });
});
