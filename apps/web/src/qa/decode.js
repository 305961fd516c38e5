/**
 * Start/end logits of a question's windows -> ranked answers, each a span of the passage.
 * A port of keras_bert's `decode_squad_predictions` (SQuAD v1.1 mode) and
 * `project_to_original_text` (google-research/bert's `get_final_text`).
 *
 * No DOM code: this module runs in Node and in the browser.
 */

import { basicTokenize, pythonSplit } from "./tokenizer.js";

/**
 * Indices of the `n` largest logits, largest first; ties keep the lower index first (NumPy's
 * stable `argsort(-logits)`, which also puts NaN last).
 * @param {ArrayLike<number>} logits
 * @param {number} n
 * @returns {number[]}
 */
export function topIndices(logits, n) {
  const order = Array.from({ length: logits.length }, (_, i) => i);
  order.sort((a, b) => {
    const nanA = Number.isNaN(logits[a]);
    const nanB = Number.isNaN(logits[b]);
    if (nanA || nanB) return nanA - nanB;
    return logits[b] - logits[a];
  });
  return order.slice(0, n);
}

/**
 * Softmax as Python computes it: subtract the max, exponentiate, sum left to right.
 * @param {number[]} scores
 * @returns {number[]}
 */
export function softmax(scores) {
  if (scores.length === 0) return [];
  const top = Math.max(...scores);
  const exps = scores.map((score) => Math.exp(score - top));
  let total = 0;
  for (const e of exps) total += e;
  return exps.map((e) => e / total);
}

/**
 * A string as code points without its spaces (U+0020 only), and for each kept code point its
 * code-point index in the string.
 * @param {string[]} chars the string's code points
 * @returns {{length: number, indices: number[]}}
 */
function charAlignment(chars) {
  const indices = [];
  chars.forEach((char, i) => {
    if (char !== " ") indices.push(i);
  });
  return { length: indices.length, indices };
}

/** Code-point index -> UTF-16 offset, in a string given as its code points. */
function utf16Offset(chars, codePointIndex) {
  let offset = 0;
  for (let i = 0; i < codePointIndex; i++) offset += chars[i].length;
  return offset;
}

/**
 * The `[start, end)` code-point span of `predText` projected back onto `origText`, or the whole
 * of `origText` when the alignment fails (as google-research/bert does).
 * @returns {[number, number]}
 */
function projectSpan(predText, origChars, doLowerCase) {
  const whole = [0, origChars.length];
  const tokChars = Array.from(basicTokenize(origChars.join(""), doLowerCase).join(" "));
  const start = indexOfCodePoints(tokChars, Array.from(predText));
  if (start === -1) return whole;
  const end = start + Array.from(predText).length - 1;
  const orig = charAlignment(origChars);
  const tok = charAlignment(tokChars);
  if (orig.length !== tok.length) return whole; // e.g. an accent stripped from a precomposed char
  const tokToNs = new Map(tok.indices.map((index, ns) => [index, ns]));
  if (!tokToNs.has(start) || !tokToNs.has(end)) return whole;
  return [orig.indices[tokToNs.get(start)], orig.indices[tokToNs.get(end)] + 1];
}

/** Python's `str.find` on code-point arrays: the first index of `needle` in `haystack`, or -1. */
function indexOfCodePoints(haystack, needle) {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (haystack[i + j] !== needle[j]) continue outer;
    }
    return i;
  }
  return -1;
}

/**
 * Maps a detokenized prediction (e.g. `steve smith`, lower-cased, punctuation split off) back
 * onto the original words it came from (e.g. `Steve Smith's` -> `Steve Smith`), keeping their
 * case, accents and inner punctuation. Falls back to the whole `origText` when the normalized
 * texts do not align.
 * @param {string} predText
 * @param {string} origText
 * @param {boolean} [doLowerCase=true]
 * @returns {{text: string, offset: number}} `offset`: UTF-16 offset of `text` in `origText`.
 */
export function projectToOriginalText(predText, origText, doLowerCase = true) {
  const origChars = Array.from(origText);
  const [start, end] = projectSpan(predText, origChars, doLowerCase);
  return { text: origChars.slice(start, end).join(""), offset: utf16Offset(origChars, start) };
}

/**
 * The valid spans of one window: pairs of its `nBestSize` best starts and ends that are both
 * passage tokens, in order, at most `maxAnswerLength` tokens long, and whose start has its most
 * centred view in this window.
 */
function windowCandidates(window, windowIndex, starts, ends, nBestSize, maxAnswerLength) {
  const candidates = [];
  const bestEnds = topIndices(ends, nBestSize);
  for (const start of topIndices(starts, nBestSize)) {
    for (const end of bestEnds) {
      if (!window.tokenToOrig.has(start) || !window.tokenToOrig.has(end) || end < start) continue;
      if (end - start + 1 > maxAnswerLength || !window.maxContext.get(start)) continue;
      const startLogit = Number(starts[start]);
      const endLogit = Number(ends[end]);
      candidates.push({ window: windowIndex, start, end, startLogit, endLogit,
        score: startLogit + endLogit });
    }
  }
  return candidates;
}

/**
 * A candidate's answer: its text, and its `[start, end)` UTF-16 span in the passage.
 * @returns {{text: string, start: number, end: number}}
 */
function spanAnswer(features, candidate, doLowerCase) {
  const window = features.windows[candidate.window];
  const first = window.tokenToOrig.get(candidate.start);
  const last = window.tokenToOrig.get(candidate.end);
  const origText = features.words.slice(first, last + 1).join(" ");
  const joined = window.tokens.slice(candidate.start, candidate.end + 1).join(" ");
  const predText = pythonSplit(joined.replaceAll(" ##", "").replaceAll("##", "")).join(" ");
  const { text, offset } = projectToOriginalText(predText, origText, doLowerCase);
  if (text === "") return { text, start: -1, end: -1 };
  const lastChar = Array.from(text).pop(); // the span ends after it (1 or 2 UTF-16 units)
  const start = passageOffset(features, first, offset);
  const end = passageOffset(features, first, offset + text.length - lastChar.length) +
    lastChar.length;
  return { text, start, end };
}

/**
 * An offset into `words[first..]` joined by single spaces -> the UTF-16 offset in the passage.
 */
function passageOffset(features, first, offset) {
  const { words, wordStarts } = features;
  let word = first;
  while (offset >= words[word].length) {
    offset -= words[word].length + 1;
    word += 1;
  }
  return wordStarts[word] + offset;
}

/**
 * The ranked answers of one question, from the logits of all its windows (SQuAD v1.1).
 * Candidates rank by `startLogit + endLogit` (stable); the best `nBestSize` distinct texts are
 * kept, with softmax probabilities over the kept ones.
 *
 * @param {ReturnType<import("./features.js").buildFeatures>} features
 * @param {Array<ArrayLike<number>>} startLogits one `Float32Array` or `number[]` per window
 * @param {Array<ArrayLike<number>>} endLogits
 * @param {{nBestSize?: number, maxAnswerLength?: number, doLowerCase?: boolean}} [options]
 * @returns {Array<{text: string, start: number, end: number, startLogit: number,
 *     endLogit: number, probability: number}>} best first; empty when no window has a valid
 *     span. `start`/`end` are UTF-16 offsets of the answer in the passage.
 */
export function decodeAnswers(features, startLogits, endLogits,
  { nBestSize = 20, maxAnswerLength = 30, doLowerCase = true } = {}) {
  const count = features.windows.length;
  if (startLogits.length !== count || endLogits.length !== count) {
    throw new RangeError(`Expected start and end logits for ${count} window(s), got ` +
      `${startLogits.length} and ${endLogits.length}.`);
  }
  const candidates = features.windows.flatMap((window, index) =>
    windowCandidates(window, index, startLogits[index], endLogits[index], nBestSize,
      maxAnswerLength));
  candidates.sort((a, b) => b.score - a.score); // stable: ties keep their order

  const entries = [];
  const seen = new Set();
  for (const candidate of candidates) {
    if (entries.length >= nBestSize) break;
    const answer = spanAnswer(features, candidate, doLowerCase);
    if (seen.has(answer.text)) continue;
    seen.add(answer.text);
    entries.push({ ...answer, startLogit: candidate.startLogit, endLogit: candidate.endLogit });
  }
  const probabilities = softmax(entries.map((e) => e.startLogit + e.endLogit));
  entries.forEach((entry, i) => {
    entry.probability = probabilities[i];
  });
  return entries;
}
