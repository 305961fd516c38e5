/**
 * BERT tokenization in plain JavaScript: a port of keras_bert's `ReferenceTokenizer`
 * (google-research/bert `BasicTokenizer` + `WordpieceTokenizer`).
 *
 * Python indexes strings by code point, so every loop here walks code points (`for..of`),
 * never UTF-16 code units. Unicode character classes come from `\p{...}` regular expressions
 * and `String.prototype.normalize`, i.e. from the runtime's Unicode tables. Those can be newer
 * than Python's (Node 20 here: Unicode 17; Python 3.11: Unicode 14), so characters assigned
 * since (about 230, in rare scripts) may tokenize differently; everything older matches.
 *
 * No DOM code: this module runs in Node and in the browser.
 */

/** google-research/bert's limit: a longer word becomes one `[UNK]`. */
export const MAX_INPUT_CHARS_PER_WORD = 200;

/**
 * The "CJK Unified Ideographs" blocks that get spaces around each character (Hangul, Hiragana
 * and Katakana are left alone on purpose: those scripts separate words with spaces).
 * @type {ReadonlyArray<[number, number]>}
 */
export const CJK_RANGES = [
  [0x4e00, 0x9fff],
  [0x3400, 0x4dbf],
  [0x20000, 0x2a6df],
  [0x2a700, 0x2b73f],
  [0x2b740, 0x2b81f],
  [0x2b820, 0x2ceaf],
  [0xf900, 0xfaff],
  [0x2f800, 0x2fa1f],
];

const SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
const UNK = "[UNK]";

const ZS = /^\p{Zs}$/u;
const CONTROL = /^[\p{Cc}\p{Cf}]$/u;
const PUNCTUATION = /^\p{P}$/u;
const NONSPACING_MARKS = /\p{Mn}/gu;
// The characters Python's `str.split()` (no argument) splits on: `str.isspace()`.
const PYTHON_WHITESPACE =
  /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/**
 * Space, tab, newline, carriage return and category Zs count as whitespace.
 * @param {string} char one code point
 */
export function isWhitespace(char) {
  return char === " " || char === "\t" || char === "\n" || char === "\r" || ZS.test(char);
}

/**
 * Categories Cc and Cf, except tab/newline/return (which are whitespace).
 * @param {string} char one code point
 */
export function isControl(char) {
  if (char === "\t" || char === "\n" || char === "\r") return false;
  return CONTROL.test(char);
}

/**
 * Every non-alphanumeric ASCII character, plus Unicode categories P*.
 * @param {string} char one code point
 */
export function isPunctuation(char) {
  const cp = char.codePointAt(0);
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
      (cp >= 123 && cp <= 126)) {
    return true;
  }
  return PUNCTUATION.test(char);
}

/**
 * A code point in one of `CJK_RANGES`.
 * @param {string} char one code point
 */
export function isCjk(char) {
  const cp = char.codePointAt(0);
  return CJK_RANGES.some(([low, high]) => cp >= low && cp <= high);
}

/**
 * Python's `text.split()`: split on whitespace runs, no empty strings.
 * @param {string} text
 * @returns {string[]}
 */
export function pythonSplit(text) {
  return text.split(PYTHON_WHITESPACE).filter((word) => word !== "");
}

/**
 * Drops NUL, U+FFFD and control/format characters; whitespace becomes a space; CJK
 * ideographs get a space on each side (google's `_clean_text` then `_tokenize_chinese_chars`).
 * @param {string} text
 */
function cleanAndSpaceOutCjk(text) {
  let out = "";
  for (const char of text) {
    if (char === "\u0000" || char === "\ufffd" || isControl(char)) continue;
    if (isWhitespace(char)) out += " ";
    else if (isCjk(char)) out += ` ${char} `;
    else out += char;
  }
  return out;
}

/**
 * Canonical decomposition (NFD), then drop the nonspacing marks (category Mn).
 * @param {string} word
 */
function stripAccents(word) {
  return word.normalize("NFD").replace(NONSPACING_MARKS, "");
}

/**
 * Splits a word into runs of non-punctuation and single punctuation characters.
 * @param {string} word
 * @returns {string[]}
 */
function splitOnPunctuation(word) {
  const pieces = [];
  let startNew = true;
  for (const char of word) {
    if (isPunctuation(char)) {
      pieces.push(char);
      startNew = true;
    } else {
      if (startNew) pieces.push("");
      pieces[pieces.length - 1] += char;
      startNew = false;
    }
  }
  return pieces;
}

/**
 * google's `BasicTokenizer.tokenize`: clean the text, space out CJK, split on whitespace,
 * lower-case and strip accents (whole words: Greek final sigma depends on the neighbouring
 * letters), split off punctuation. Needs no vocabulary.
 * @param {string} text
 * @param {boolean} [doLowerCase=true]
 * @returns {string[]}
 */
export function basicTokenize(text, doLowerCase = true) {
  const words = [];
  for (let word of pythonSplit(cleanAndSpaceOutCjk(text))) {
    if (doLowerCase) word = stripAccents(word.toLowerCase());
    words.push(...splitOnPunctuation(word));
  }
  // Re-split, as google does: drops the empty words that stripping accents leaves behind.
  return pythonSplit(words.join(" "));
}

/** BERT's `FullTokenizer`: basic tokenization, then WordPiece against a vocabulary. */
export class BertTokenizer {
  /**
   * @param {string[]} vocabTokens the vocabulary, id = position.
   * @param {{doLowerCase?: boolean, maxInputCharsPerWord?: number}} [options]
   */
  constructor(vocabTokens, { doLowerCase = true, maxInputCharsPerWord = MAX_INPUT_CHARS_PER_WORD } = {}) {
    if (!Array.isArray(vocabTokens) || vocabTokens.length === 0) {
      throw new TypeError("BertTokenizer needs a non-empty array of vocabulary tokens.");
    }
    /** @type {Map<string, number>} */
    this.tokenToId = new Map();
    vocabTokens.forEach((token, id) => {
      if (this.tokenToId.has(token)) {
        throw new Error(`Duplicate vocabulary token ${JSON.stringify(token)} at ids ` +
          `${this.tokenToId.get(token)} and ${id}.`);
      }
      this.tokenToId.set(token, id);
    });
    const missing = SPECIAL_TOKENS.filter((token) => !this.tokenToId.has(token));
    if (missing.length) {
      throw new Error(`The vocabulary is missing the BERT special token(s) ${missing.join(", ")}.`);
    }
    this.vocabulary = vocabTokens;
    this.doLowerCase = doLowerCase;
    this.maxInputCharsPerWord = maxInputCharsPerWord;
  }

  /**
   * Builds a tokenizer from the text of a `vocab.txt` (one token per line, `\n` or `\r\n`).
   * @param {string} text
   * @param {{doLowerCase?: boolean, maxInputCharsPerWord?: number}} [options]
   */
  static fromVocabText(text, options = {}) {
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop(); // the last line's newline
    return new BertTokenizer(lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line)), options);
  }

  /**
   * WordPiece tokens of `text`.
   * @param {string} text
   * @returns {string[]}
   */
  tokenize(text) {
    return this.basicTokenize(text).flatMap((word) => this.wordpiece(word));
  }

  /**
   * Cleans and splits `text` into words (google's `BasicTokenizer.tokenize`).
   * @param {string} text
   * @returns {string[]}
   */
  basicTokenize(text) {
    return basicTokenize(text, this.doLowerCase);
  }

  /**
   * Splits one word into pieces, greedy longest match first, `##` continuations. A word longer
   * than `maxInputCharsPerWord` code points, or with any unmatchable piece, is one `[UNK]`.
   * @param {string} word
   * @returns {string[]}
   */
  wordpiece(word) {
    const chars = Array.from(word);
    if (chars.length > this.maxInputCharsPerWord) return [UNK];
    const pieces = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let piece = null;
      while (end > start) {
        const candidate = (start === 0 ? "" : "##") + chars.slice(start, end).join("");
        if (this.tokenToId.has(candidate)) {
          piece = candidate;
          break;
        }
        end -= 1;
      }
      if (piece === null) return [UNK]; // one unmatchable piece makes the whole word unknown
      pieces.push(piece);
      start = end;
    }
    return pieces;
  }

  /**
   * Maps tokens to ids; a token not in the vocabulary maps to `[UNK]`'s id.
   * @param {string[]} tokens
   * @returns {number[]}
   */
  convertTokensToIds(tokens) {
    const unkId = this.tokenToId.get(UNK);
    return tokens.map((token) => this.tokenToId.get(token) ?? unkId);
  }
}
