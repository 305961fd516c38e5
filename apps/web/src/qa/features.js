/**
 * Question + passage -> fixed-length model inputs: `[CLS] question [SEP] window [SEP]` windows
 * sliding over the passage `docStride` tokens apart. A port of keras_bert's
 * `split_on_whitespace` (squad_examples.py) and `convert_squad_examples` (squad_features.py).
 *
 * No DOM code: this module runs in Node and in the browser.
 */

/** Bad user input (empty question, empty passage ...), with a message fit to show the user. */
export class QaInputError extends Error {
  constructor(message) {
    super(message);
    this.name = "QaInputError";
  }
}

/**
 * SQuAD's passage whitespace: space, tab, CR, LF and U+202F only (not Python's `isspace`).
 * @param {string} char one code point
 */
function isPassageWhitespace(char) {
  return char === " " || char === "\t" || char === "\r" || char === "\n" || char === "\u202f";
}

/**
 * The whitespace-separated words of a passage, and where each starts.
 * @param {string} context
 * @returns {{words: string[], wordStarts: number[]}} `wordStarts` are UTF-16 offsets into
 *     `context` (JavaScript string indices).
 */
export function splitOnWhitespace(context) {
  const words = [];
  const wordStarts = [];
  let previousWasSpace = true;
  let offset = 0;
  for (const char of context) {
    if (isPassageWhitespace(char)) {
      previousWasSpace = true;
    } else {
      if (previousWasSpace) {
        words.push(char);
        wordStarts.push(offset);
      } else {
        words[words.length - 1] += char;
      }
      previousWasSpace = false;
    }
    offset += char.length;
  }
  return { words, wordStarts };
}

/**
 * `[start, length]` windows over `numTokens` document tokens, `docStride` apart.
 * @returns {Array<[number, number]>}
 */
export function docWindows(numTokens, maxTokensForDoc, docStride) {
  const windows = [];
  let start = 0;
  for (;;) {
    const length = Math.min(numTokens - start, maxTokensForDoc);
    windows.push([start, length]);
    if (start + length >= numTokens) return windows;
    start += Math.min(length, docStride);
  }
}

/**
 * Whether `windows[windowIndex]` gives document token `position` its most centred view:
 * score = min(tokens left, tokens right) + 0.01 * window length; the first best window wins.
 */
export function isMaxContext(windows, windowIndex, position) {
  let bestScore = null;
  let bestIndex = null;
  windows.forEach(([start, length], index) => {
    const end = start + length - 1;
    if (position < start || position > end) return;
    const score = Math.min(position - start, end - position) + 0.01 * length;
    if (bestScore === null || score > bestScore) {
      bestScore = score;
      bestIndex = index;
    }
  });
  return bestIndex === windowIndex;
}

/**
 * Every passage word WordPiece-tokenized on its own, so each piece maps back to its word.
 * @returns {{pieces: string[], pieceToWord: number[]}}
 */
function tokenizeWords(tokenizer, words) {
  const pieces = [];
  const pieceToWord = [];
  words.forEach((word, wordIndex) => {
    for (const piece of tokenizer.tokenize(word)) {
      pieces.push(piece);
      pieceToWord.push(wordIndex);
    }
  });
  return { pieces, pieceToWord };
}

function checkInputs(question, context, maxSeqLength, docStride, maxQueryLength) {
  if (typeof question !== "string" || question.trim() === "") {
    throw new QaInputError("The question is empty: type a question about the passage.");
  }
  if (typeof context !== "string" || context.trim() === "") {
    throw new QaInputError("The passage is empty: paste the text the answer should come from.");
  }
  if (maxQueryLength < 1 || docStride < 1) {
    throw new RangeError(`maxQueryLength (${maxQueryLength}) and docStride (${docStride}) must be >= 1.`);
  }
  if (maxSeqLength - maxQueryLength - 3 < 1) {
    throw new RangeError(`maxSeqLength=${maxSeqLength} leaves no room for the passage after a ` +
      `${maxQueryLength}-token question and 3 special tokens.`);
  }
}

/**
 * One model input window: `[CLS] query [SEP] pieces[docStart..docStart+length) [SEP]`, padded.
 */
function buildWindow(tokenizer, queryTokens, doc, windows, windowIndex, maxSeqLength) {
  const [docStart, length] = windows[windowIndex];
  const tokens = ["[CLS]", ...queryTokens, "[SEP]"];
  const tokenToOrig = new Map();
  const maxContext = new Map();
  for (let i = 0; i < length; i++) {
    const position = docStart + i;
    tokenToOrig.set(tokens.length, doc.pieceToWord[position]);
    maxContext.set(tokens.length, isMaxContext(windows, windowIndex, position));
    tokens.push(doc.pieces[position]);
  }
  tokens.push("[SEP]");
  const ids = new Int32Array(maxSeqLength);
  ids.set(tokenizer.convertTokensToIds(tokens));
  const mask = new Int32Array(maxSeqLength).fill(1, 0, tokens.length);
  const segmentIds = new Int32Array(maxSeqLength).fill(1, queryTokens.length + 2, tokens.length);
  return { tokens, ids, mask, segmentIds, tokenToOrig, maxContext };
}

/**
 * Tokenizes a question and a passage into the model's input windows (google's SQuAD layout):
 * segment 0 for `[CLS]`, the question and its `[SEP]`; segment 1 for the passage window and
 * its `[SEP]`; zero padding to `maxSeqLength`. The question is cut to `maxQueryLength` tokens.
 *
 * @param {import("./tokenizer.js").BertTokenizer} tokenizer
 * @param {string} question
 * @param {string} context the passage
 * @param {{maxSeqLength?: number, docStride?: number, maxQueryLength?: number}} [options]
 * @returns {{words: string[], wordStarts: number[], queryTokens: string[],
 *     questionTruncated: boolean, windows: Array<{tokens: string[], ids: Int32Array,
 *     mask: Int32Array, segmentIds: Int32Array, tokenToOrig: Map<number, number>,
 *     maxContext: Map<number, boolean>}>}}
 * @throws {QaInputError} for an empty or whitespace-only question or passage.
 */
export function buildFeatures(tokenizer, question, context,
  { maxSeqLength = 384, docStride = 128, maxQueryLength = 64 } = {}) {
  checkInputs(question, context, maxSeqLength, docStride, maxQueryLength);
  const { words, wordStarts } = splitOnWhitespace(context);
  if (words.length === 0) {
    throw new QaInputError("The passage is empty: paste the text the answer should come from.");
  }
  let queryTokens = tokenizer.tokenize(question);
  const questionTruncated = queryTokens.length > maxQueryLength;
  if (questionTruncated) queryTokens = queryTokens.slice(0, maxQueryLength);

  const doc = tokenizeWords(tokenizer, words);
  const maxTokensForDoc = maxSeqLength - queryTokens.length - 3;
  const spans = docWindows(doc.pieces.length, maxTokensForDoc, docStride);
  const windows = spans.map((_, index) =>
    buildWindow(tokenizer, queryTokens, doc, spans, index, maxSeqLength));
  return { words, wordStarts, queryTokens, questionTruncated, windows };
}
