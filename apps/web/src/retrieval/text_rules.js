/**
 * Python's character rules for the retrieval port, so that sentences, passages and BM25 terms
 * come out as `keras_bert.retrieval` computes them.
 *
 * JavaScript's `\s`, `\w`, `trim()` and `toUpperCase` tests differ from Python's: `\s` and
 * `trim()` count U+FEFF as whitespace (Python's `str.isspace` does not; the bundled Rhine
 * article has three) and miss \x1c-\x1f and U+0085; `\w` without the `u`-aware classes is
 * ASCII only. So every class here is spelled out. Unicode tables are the runtime's (Node 20:
 * Unicode 17; Python 3.11: 14): only characters assigned in between can be classed differently.
 *
 * Offsets: Python indexes a str by code point, JavaScript by UTF-16 unit. The ports return
 * UTF-16 offsets (string indices); `utf16Offsets` converts Python's code-point offsets.
 *
 * No DOM code: this module runs in Node and in the browser.
 */

/** The characters of Python's `str.isspace()` (and of `\s` in a Python str pattern). */
export const PYTHON_SPACE_CLASS =
  "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

const SPACE = new RegExp(`^[${PYTHON_SPACE_CLASS}]$`, "u");
const UPPER = /^\p{Uppercase}$/u;
const ALPHA = /^\p{L}$/u;
const DECIMAL = /^\p{Nd}$/u;

/**
 * Code points outside category Nd for which Python's `str.isdigit()` is true (Numeric_Type=Digit:
 * superscripts, subscripts, circled digits ...), Unicode 14. Inclusive ranges.
 */
const NON_DECIMAL_DIGITS = [
  [0xb2, 0xb3], [0xb9, 0xb9], [0x1369, 0x1371], [0x19da, 0x19da], [0x2070, 0x2070],
  [0x2074, 0x2079], [0x2080, 0x2089], [0x2460, 0x2468], [0x2474, 0x247c], [0x2488, 0x2490],
  [0x24ea, 0x24ea], [0x24f5, 0x24fd], [0x24ff, 0x24ff], [0x2776, 0x277e], [0x2780, 0x2788],
  [0x278a, 0x2792], [0x10a40, 0x10a43], [0x10e60, 0x10e68], [0x11052, 0x1105a],
  [0x1f100, 0x1f10a],
];

/** Python's `c.isspace()` for one code point `c` (a string). */
export function isPythonSpace(char) {
  return SPACE.test(char);
}

/** Python's `c.isupper()` for one code point: the Uppercase property (Lu, Other_Uppercase). */
export function isPythonUpper(char) {
  return UPPER.test(char);
}

/** Python's `c.isalpha()` for one code point: categories Lu, Ll, Lt, Lm, Lo. */
export function isPythonAlpha(char) {
  return ALPHA.test(char);
}

/** Python's `c.isdigit()` for one code point: category Nd, or Numeric_Type=Digit. */
export function isPythonDigit(char) {
  if (DECIMAL.test(char)) return true;
  const cp = char.codePointAt(0);
  return NON_DECIMAL_DIGITS.some(([low, high]) => cp >= low && cp <= high);
}

/** The code point of `text` at UTF-16 index `i`, as a string (one or two units). */
export function codePointAt(text, i) {
  return String.fromCodePoint(text.codePointAt(i));
}

/**
 * `offsets[i]` = the UTF-16 index of code point `i` of `text`, and `offsets[n]` =
 * `text.length`: Python's (code-point) offsets to JavaScript's.
 * @param {string} text
 * @returns {number[]}
 */
export function utf16Offsets(text) {
  const offsets = [];
  let at = 0;
  for (const char of text) {
    offsets.push(at);
    at += char.length;
  }
  offsets.push(at);
  return offsets;
}
