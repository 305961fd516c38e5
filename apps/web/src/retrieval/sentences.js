/**
 * A text's sentences as character spans, by punctuation rules (no model): a port of
 * `split_sentences` (keras_bert/retrieval/sentence_splitter.py).
 *
 * The regular expressions are Python's, with `\s` spelled as Python's `str.isspace` class
 * (text_rules.js), so JavaScript's backtracking engine finds the same matches; the tests on
 * the matched characters use Python's `isupper`, `isdigit`, `isalpha` and `isspace`. Offsets
 * are UTF-16 (JavaScript string indices); lengths that Python measures in code points (the
 * one-letter initial) are measured in code points.
 *
 * No DOM code: this module runs in Node and in the browser.
 */

import {
  PYTHON_SPACE_CLASS, codePointAt, isPythonAlpha, isPythonDigit, isPythonSpace, isPythonUpper,
} from "./text_rules.js";

// Python's ends: `[.!?]+['"\u2019\u201d)\]]*(?=\s)`, `[\u3002\uff01\uff1f]+[closers]*` and a
// blank line `\n[^\S\n]*\n` (whitespace other than "\n" between two newlines).
const LATIN_END = new RegExp(`[.!?]+['"\\u2019\\u201d)\\]]*(?=[${PYTHON_SPACE_CLASS}])`, "gu");
const CJK_END = /[\u3002\uff01\uff1f]+[\u300d\u300f\uff09\u201d\u2019]*/gu;
const BLANK_LINE = new RegExp(
  `\\n[${PYTHON_SPACE_CLASS.replace("\\t\\n", "\\t")}]*\\n`, "gu");
const OPENERS = "'\"\u2018\u201c([{\u00ab";
// `[^\W\d_]`: a word character (letter or number) that is neither a decimal digit nor "_".
const DOTTED = /^(?:[\p{L}\p{Nl}\p{No}]\.)+[\p{L}\p{Nl}\p{No}]$/u;

/**
 * Words whose period does not end a sentence when a capital follows ("Dr. Smith", "St. Louis",
 * "No. 5", "et al. The"), compared lower-cased: Python's `ABBREVIATIONS`.
 */
export const ABBREVIATIONS = new Set([
  "mr", "mrs", "ms", "dr", "prof", "st", "sr", "jr", "vs", "mt", "ft", "no", "nos", "fig",
  "figs", "al", "ca", "cf", "approx", "gen", "col", "lt", "sgt", "capt", "rev", "hon", "gov",
  "sen", "rep", "pres", "op", "vol", "pp",
]);

/**
 * The sentences of `text` as `[start, end]` UTF-16 spans, in order (`split_sentences`).
 *
 * A sentence ends at `.`, `!` or `?` (with any closing quotes or brackets) followed by
 * whitespace and a capital letter or digit, unless the period closes an abbreviation, a
 * single-letter initial or a dotted one ("U.S.", "e.g."); at the CJK full stop, `！` and `？`;
 * and at a blank line. Each span is stripped of surrounding whitespace; together the spans
 * cover every non-whitespace character of `text` exactly once.
 * @param {string} text
 * @returns {Array<[number, number]>}
 */
export function splitSentences(text) {
  if (typeof text !== "string") {
    throw new TypeError(`\`text\` must be a string, got ${text === null ? "null" : typeof text}.`);
  }
  const cuts = new Set();
  for (const m of text.matchAll(BLANK_LINE)) cuts.add(m.index + m[0].length);
  for (const m of text.matchAll(CJK_END)) cuts.add(m.index + m[0].length);
  for (const m of text.matchAll(LATIN_END)) {
    if (endsSentence(text, m.index, m.index + m[0].length)) cuts.add(m.index + m[0].length);
  }
  const spans = [];
  let begin = 0;
  for (const cut of [...[...cuts].sort((a, b) => a - b), text.length]) {
    const span = strip(text, begin, cut);
    if (span !== null) spans.push(span);
    begin = cut;
  }
  return spans;
}

/** Python's `_ends_sentence` for the match `text[start:end]` of `LATIN_END`. */
function endsSentence(text, start, end) {
  let following = end; // the first non-whitespace after the match (all spaces are one unit)
  while (following < text.length && isPythonSpace(text[following])) following += 1;
  while (following < text.length && OPENERS.includes(text[following])) following += 1;
  if (following >= text.length) return true;
  const next = codePointAt(text, following);
  if (!(isPythonUpper(next) || isPythonDigit(next))) return false;
  const match = text.slice(start, end);
  if (!match.startsWith(".") || match.startsWith("..")) {
    return true; // "!" and "?" and an ellipsis end a sentence before a capital
  }
  let wordStart = start;
  while (wordStart > 0 && !isPythonSpace(text[wordStart - 1])) wordStart -= 1;
  while (wordStart < start && OPENERS.includes(text[wordStart])) wordStart += 1; // .lstrip
  const word = text.slice(wordStart, start);
  if (ABBREVIATIONS.has(word.toLowerCase()) || DOTTED.test(word)) return false;
  const chars = Array.from(word);
  return !(chars.length === 1 && isPythonAlpha(chars[0])); // an initial
}

/** `[start, end]` without surrounding (Python) whitespace, or null when nothing is left. */
function strip(text, start, end) {
  while (start < end && isPythonSpace(text[start])) start += 1;
  while (end > start && isPythonSpace(text[end - 1])) end -= 1;
  return start < end ? [start, end] : null;
}
