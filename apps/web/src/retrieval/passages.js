/**
 * A document -> overlapping passages of whole sentences, under a WordPiece token cap: a port of
 * `PassageSplitter` (keras_bert/retrieval/passage_splitter.py).
 *
 * Internally every offset is a code point (Python's), so the one place that cuts by characters
 * (a word longer than the cap, halved by binary search) cuts where Python does; the passages
 * returned carry UTF-16 offsets (JavaScript string indices).
 *
 * No DOM code: this module runs in Node and in the browser.
 */

import { splitSentences } from "./sentences.js";
import { PYTHON_SPACE_CLASS, utf16Offsets } from "./text_rules.js";

// The reader reads 384 tokens, of which a question takes up to 64 and [CLS], [SEP], [SEP]
// three; the embedder reads 256 with [CLS] and [SEP]: a passage of at most 254 tokens is read
// whole by both.
export const READER_PASSAGE_TOKENS = 384 - 64 - 3;
export const EMBEDDER_PASSAGE_TOKENS = 256 - 2;
export const DEFAULT_MAX_TOKENS = Math.min(READER_PASSAGE_TOKENS, EMBEDDER_PASSAGE_TOKENS);
export const DEFAULT_OVERLAP_TOKENS = 64;
const WORD = new RegExp(`[^${PYTHON_SPACE_CLASS}]+`, "gu"); // Python's \S+

/**
 * @typedef {{text: string, start: number, end: number, numTokens: number}} Passage
 * `document.slice(start, end) === text` (UTF-16 offsets); `numTokens`: its WordPiece tokens
 * (no [CLS] / [SEP]). Python's `Passage`.
 */

/**
 * Cuts a document into overlapping passages made of whole sentences (`PassageSplitter`).
 *
 * Sentences are packed greedily while the passage's WordPiece count stays within `maxTokens`;
 * the next passage starts on the earliest sentence of the one before such that the shared
 * sentences hold at most `overlapTokens` tokens and still leave room for the first sentence
 * the passage before lacked. A sentence longer than `maxTokens` is cut into runs of whole
 * words of at most `overlapTokens` tokens (`maxTokens` without overlap); a word longer than
 * that, by characters.
 */
export class PassageSplitter {
  /**
   * @param {{tokenize: (text: string) => string[]}} tokenizer the reader's (BertTokenizer)
   * @param {{maxTokens?: number, overlapTokens?: number}} [options]
   */
  constructor(tokenizer, { maxTokens = DEFAULT_MAX_TOKENS, overlapTokens = DEFAULT_OVERLAP_TOKENS } = {}) {
    if (!(maxTokens >= 1)) {
      throw new RangeError(`maxTokens=${maxTokens}: a passage holds at least one token.`);
    }
    if (!(overlapTokens >= 0 && overlapTokens < maxTokens)) {
      throw new RangeError(`overlapTokens=${overlapTokens}: use 0 to less than maxTokens (${maxTokens}).`);
    }
    this.tokenizer = tokenizer;
    this.maxTokens = maxTokens;
    this.overlapTokens = overlapTokens;
  }

  /** The WordPiece tokens of `text`. */
  count(text) {
    return this.tokenizer.tokenize(text).length;
  }

  /**
   * The passages of `document`, in order; `[]` when it holds no text.
   * @param {string} document
   * @returns {Passage[]}
   */
  split(document) {
    if (typeof document !== "string") {
      throw new TypeError(`\`document\` must be a string, got ${document === null ? "null" : typeof document}.`);
    }
    const offsets = utf16Offsets(document); // code point -> UTF-16
    const toCodePoint = new Map(offsets.map((offset, i) => [offset, i]));
    const doc = {
      text: document,
      offsets,
      toCodePoint,
      slice: (start, end) => document.slice(offsets[start], offsets[end]),
    };
    const units = []; // [start, end, tokens] in code points: sentences, and runs of long ones
    for (const [s, e] of splitSentences(document)) {
      const start = toCodePoint.get(s);
      const end = toCodePoint.get(e);
      const tokens = this.count(doc.slice(start, end));
      if (tokens <= this.maxTokens) units.push([start, end, tokens]);
      else units.push(...this.wordRuns(doc, start, end));
    }
    return this.pack(doc, units);
  }

  /** An overlong sentence as consecutive runs of whole words (`_word_runs`). */
  wordRuns(doc, start, end) {
    const limit = this.overlapTokens || this.maxTokens;
    const runs = [];
    let run = null;
    const within = doc.text.slice(0, doc.offsets[end]); // Python's finditer(.., start, end)
    const word = new RegExp(WORD.source, "gu");
    word.lastIndex = doc.offsets[start];
    for (let match = word.exec(within); match !== null; match = word.exec(within)) {
      const wordStart = doc.toCodePoint.get(match.index);
      const wordEnd = doc.toCodePoint.get(match.index + match[0].length);
      for (const piece of this.pieces(doc, wordStart, wordEnd, limit)) {
        if (run !== null && run[2] + piece[2] <= limit) {
          run = [run[0], piece[1], run[2] + piece[2]];
        } else {
          if (run !== null) runs.push(run);
          run = piece;
        }
      }
    }
    runs.push(run);
    return runs;
  }

  /** One word as `[start, end, tokens]` pieces of at most `limit` tokens each (`_pieces`). */
  pieces(doc, start, end, limit) {
    const tokens = this.count(doc.slice(start, end));
    if (tokens <= limit) return [[start, end, tokens]];
    const pieces = [];
    while (start < end) {
      let low = start + 1; // the longest prefix within the limit (one character fits)
      let high = end;
      while (low < high) {
        const middle = Math.floor((low + high + 1) / 2);
        if (this.count(doc.slice(start, middle)) <= limit) low = middle;
        else high = middle - 1;
      }
      pieces.push([start, low, this.count(doc.slice(start, low))]);
      start = low;
    }
    return pieces;
  }

  /** Units packed into passages (`_pack`). */
  pack(doc, units) {
    const passages = [];
    let first = 0;
    while (first < units.length) {
      let last = first;
      let total = units[first][2];
      while (last + 1 < units.length && total + units[last + 1][2] <= this.maxTokens) {
        last += 1;
        total += units[last][2];
      }
      const start = units[first][0];
      let end = units[last][1];
      let text = doc.slice(start, end);
      let tokens = this.count(text);
      // A word cut by characters may tokenize as more than its pieces: the passage's own
      // count decides, dropping units from its end if need be.
      while (tokens > this.maxTokens && last > first) {
        last -= 1;
        end = units[last][1];
        text = doc.slice(start, end);
        tokens = this.count(text);
      }
      passages.push({ text, start: doc.offsets[start], end: doc.offsets[end], numTokens: tokens });
      if (last + 1 >= units.length) break;
      // The next passage starts on the earliest unit after `first` whose shared units hold at
      // most `overlapTokens` and, with the first unit this one lacks, fit in `maxTokens`.
      let following = last + 1;
      let shared = 0;
      const fresh = units[last + 1][2];
      while (following - 1 > first &&
             shared + units[following - 1][2] <= this.overlapTokens &&
             shared + units[following - 1][2] + fresh <= this.maxTokens) {
        following -= 1;
        shared += units[following][2];
      }
      first = following;
    }
    return passages;
  }
}
