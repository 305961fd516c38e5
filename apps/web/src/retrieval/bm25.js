/**
 * Okapi BM25 over a fixed set of passages (lexical retrieval): a port of `Bm25Ranker` and
 * `word_tokens` (keras_bert/retrieval/bm25_ranker.py), with the same floating-point operations
 * in the same order.
 *
 * No DOM code: this module runs in Node and in the browser.
 */

// Python's `\w+` on a str: runs of letters, numbers (categories L*, N*) and "_".
const WORD = /[\p{L}\p{N}_]+/gu;

/**
 * BM25's terms (`word_tokens`): the lower-cased runs of word characters, in order. No stemming
 * and no stop words. `toLowerCase` is Python's `str.lower` (full case mapping, final sigma).
 * @param {string} text
 * @returns {string[]}
 */
export function wordTokens(text) {
  return text.toLowerCase().match(WORD) ?? [];
}

/**
 * Indices of `values`, largest first; ties keep the lower index first: NumPy's
 * `argsort(-values, kind="stable")`.
 * @param {ArrayLike<number>} values
 * @returns {number[]}
 */
export function argsortDescending(values) {
  const order = Array.from({ length: values.length }, (_, i) => i);
  return order.sort((a, b) => {
    const nanA = Number.isNaN(values[a]);
    const nanB = Number.isNaN(values[b]);
    if (nanA || nanB) return nanA - nanB; // NaN last
    return values[a] > values[b] ? -1 : values[a] < values[b] ? 1 : 0;
  });
}

/**
 * Ranks a fixed list of passages against a query with Okapi BM25 (`Bm25Ranker`):
 *
 *     score(d) = sum_q idf(q) * tf(q, d) * (k1 + 1) / (tf(q, d) + k1 * (1 - b + b * |d| / avgdl))
 *     idf(q)   = ln(1 + (N - df(q) + 0.5) / (df(q) + 0.5))          (Lucene's, always positive)
 */
export class Bm25Ranker {
  /**
   * @param {string[]} passages the passages' texts
   * @param {{k1?: number, b?: number}} [options] defaults: Robertson's 1.2 and 0.75
   */
  constructor(passages, { k1 = 1.2, b = 0.75 } = {}) {
    if (typeof passages === "string" || !Array.isArray(passages)) {
      throw new TypeError("`passages` must be an array of the passages' texts.");
    }
    if (!(k1 >= 0) || !(b >= 0 && b <= 1)) {
      throw new RangeError(`k1=${k1}, b=${b}: BM25 needs k1 >= 0 and 0 <= b <= 1.`);
    }
    this.k1 = k1;
    this.b = b;
    const counts = passages.map((text) => {
      const tf = new Map();
      for (const term of wordTokens(text)) tf.set(term, (tf.get(term) ?? 0) + 1);
      return tf;
    });
    this.numPassages = counts.length;
    const lengths = counts.map((c) => [...c.values()].reduce((a, n) => a + n, 0));
    // Integer lengths: their sum is exact, as NumPy's pairwise one.
    const mean = lengths.length ? lengths.reduce((a, n) => a + n, 0) / lengths.length : 0;
    const average = this.numPassages && mean > 0 ? mean : 1.0;
    /** Per passage: k1 * (1 - b + b * |d| / avgdl). */
    this.lengthNorm = Float64Array.from(lengths,
      (length) => this.k1 * ((1.0 - this.b) + (this.b * length) / average));
    /** @type {Map<string, {rows: number[], tfs: number[]}>} */
    this.postings = new Map();
    counts.forEach((passageCounts, row) => {
      for (const [term, tf] of passageCounts) {
        if (!this.postings.has(term)) this.postings.set(term, { rows: [], tfs: [] });
        const posting = this.postings.get(term);
        posting.rows.push(row);
        posting.tfs.push(tf);
      }
    });
  }

  /** Lucene's BM25 idf of `term` (already a `wordTokens` term) over the passages. */
  idf(term) {
    const df = this.postings.get(term)?.rows.length ?? 0;
    return Math.log(1.0 + (this.numPassages - df + 0.5) / (df + 0.5));
  }

  /**
   * Each passage's BM25 score for `query`.
   * @param {string} query
   * @returns {Float64Array} `[numPassages]`
   */
  scores(query) {
    const scores = new Float64Array(this.numPassages);
    for (const term of wordTokens(query)) {
      const posting = this.postings.get(term);
      if (!posting) continue; // tf = 0 everywhere: adds nothing
      const idf = this.idf(term);
      posting.rows.forEach((row, i) => {
        const tf = posting.tfs[i];
        scores[row] += ((idf * tf) * (this.k1 + 1.0)) / (tf + this.lengthNorm[row]);
      });
    }
    return scores;
  }

  /**
   * The least upper bound of any passage's score for `query` (`score_bound`): each query
   * term's `idf * (k1 + 1)`, summed. `scores / scoreBound` lies in [0, 1) and compares across
   * documents.
   * @param {string} query
   */
  scoreBound(query) {
    let bound = 0;
    for (const term of wordTokens(query)) bound += this.idf(term) * (this.k1 + 1.0);
    return bound;
  }

  /**
   * Passage indices, best first (ties: the earlier passage first); the first `topK` if given.
   * @param {string} query
   * @param {number} [topK]
   * @returns {number[]}
   */
  rank(query, topK) {
    const order = argsortDescending(this.scores(query));
    return topK === undefined ? order : order.slice(0, topK);
  }
}
