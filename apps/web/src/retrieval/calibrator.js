/**
 * A reader's span over one passage -> the probability it answers the question: a port of
 * `span_features`, `window_statistics`, `logsumexp` and `AnswerCalibrator`
 * (keras_bert/retrieval/answer_calibrator.py). The fitted numbers live in
 * apps/models/answer_calibrator.json, which Python, this app and the Android app all read.
 *
 * No DOM code: this module runs in Node and in the browser.
 */

/** Every feature a calibrator may use (Python's `FEATURES`), for one candidate span. */
export const FEATURES = Object.freeze([
  "span_logit", // start_logit + end_logit
  "span_log_prob", // log softmax of start and end over the passage's tokens, summed
  "null_gap", // span_logit - ([CLS] start logit + [CLS] end logit)
  "cosine", // the embedder's cosine of question and passage
  "bm25_match", // BM25 score / Bm25Ranker.scoreBound(question)
  "inverse_rank", // 1 / the passage's rank among those the reader read
]);

/**
 * `{name: value}` of `FEATURES` for one span (`span_features`).
 * @param {{startLogit: number, endLogit: number, clsLogits: [number, number],
 *     lse: [number, number], cosine?: number | null, bm25Match?: number | null, rank?: number}} args
 *     `clsLogits`: the start and end logits at `[CLS]`; `lse`: the window's start and end
 *     log-sum-exp over the passage's tokens (`windowStatistics`); `rank`: 1-based.
 * @returns {Record<string, number | null>}
 */
export function spanFeatures({ startLogit, endLogit, clsLogits, lse, cosine = null, bm25Match = null, rank = 1 }) {
  const spanLogit = startLogit + endLogit;
  return {
    span_logit: spanLogit,
    span_log_prob: (startLogit - lse[0]) + (endLogit - lse[1]),
    null_gap: spanLogit - (clsLogits[0] + clsLogits[1]),
    cosine: cosine ?? null,
    bm25_match: bm25Match ?? null,
    inverse_rank: 1.0 / rank,
  };
}

/**
 * NumPy's float64 `sum` of a contiguous array: pairwise, eight accumulators per block of at
 * most 128 (`pairwise_sum` in numpy's loops_utils), so the low bits agree with Python's.
 * @param {ArrayLike<number>} a
 */
export function numpySum(a, start = 0, n = a.length) {
  if (n < 8) {
    let res = 0;
    for (let i = 0; i < n; i++) res += a[start + i];
    return res;
  }
  if (n <= 128) {
    const r = [];
    for (let j = 0; j < 8; j++) r.push(a[start + j]);
    let i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (let j = 0; j < 8; j++) r[j] += a[start + i + j];
    }
    let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) res += a[start + i];
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return numpySum(a, start, n2) + numpySum(a, start + n2, n - n2);
}

/** log(sum(exp(values))), computed stably (`logsumexp`). */
export function logsumexp(values) {
  let top = -Infinity;
  for (const v of values) top = Math.max(top, v);
  return top + Math.log(numpySum(Array.from(values, (v) => Math.exp(v - top))));
}

/**
 * `{clsLogits, lse}` of one reader window (`window_statistics`): the start and end logits at
 * `[CLS]`, and their log-sum-exp over the passage's tokens (segment 1 without its closing
 * `[SEP]`). Each argument: the window's `seqLength` numbers.
 * @param {ArrayLike<number>} startLogits
 * @param {ArrayLike<number>} endLogits
 * @param {ArrayLike<number>} segmentIds
 * @returns {{clsLogits: [number, number], lse: [number, number]}}
 */
export function windowStatistics(startLogits, endLogits, segmentIds) {
  const positions = [];
  for (let i = 0; i < segmentIds.length; i++) if (segmentIds[i] === 1) positions.push(i);
  if (positions.length === 0) throw new RangeError("The window has no passage tokens (segment 1).");
  positions.pop(); // the closing [SEP]
  const pick = (logits) => positions.map((i) => Number(logits[i]));
  return {
    clsLogits: [Number(startLogits[0]), Number(endLogits[0])],
    lse: [logsumexp(pick(startLogits)), logsumexp(pick(endLogits))],
  };
}

/**
 * Logistic regression from a candidate span's features to the probability it is right
 * (`AnswerCalibrator`): `p = sigmoid(bias + sum(weights[i] * features[i]))`, the features named
 * by `features`; below `threshold` the document holds no answer.
 */
export class AnswerCalibrator {
  /**
   * @param {number[]} weights one per feature
   * @param {number} bias
   * @param {string[]} features names from `FEATURES`
   * @param {number} [threshold]
   * @param {object} [info] how it was fitted; `info.ranker` and `info.passages` set the pipeline
   */
  constructor(weights, bias, features, threshold = 0.5, info = {}) {
    const unknown = features.filter((f) => !FEATURES.includes(f));
    if (unknown.length) {
      throw new RangeError(`Unknown calibrator features ${unknown.join(", ")}: choose from ${FEATURES.join(", ")}.`);
    }
    if (weights.length !== features.length) {
      throw new RangeError(`${weights.length} weights for ${features.length} features.`);
    }
    if (!(threshold >= 0 && threshold <= 1)) {
      throw new RangeError(`threshold=${threshold}: a probability, in [0, 1].`);
    }
    if (![...weights, bias].every(Number.isFinite)) {
      throw new RangeError("The calibrator's weights and bias must be finite numbers.");
    }
    this.weights = weights.map(Number);
    this.bias = Number(bias);
    this.features = [...features];
    this.threshold = Number(threshold);
    this.info = { ...(info ?? {}) };
  }

  /**
   * The calibrator of a parsed answer_calibrator.json (`from_dict` / `load`).
   * @param {{features: string[], weights: number[], bias: number, threshold?: number, info?: object}} config
   * @param {string} [source] named in errors
   */
  static fromDict(config, source = "the calibrator JSON") {
    const missing = ["features", "weights", "bias"].filter((k) => config?.[k] === undefined);
    if (missing.length) {
      throw new TypeError(`${source} lacks ${missing.join(", ")}: use the file AnswerCalibrator.save wrote.`);
    }
    if (!Array.isArray(config.features) || !Array.isArray(config.weights)) {
      throw new TypeError(`${source}: "features" and "weights" must be lists.`);
    }
    return new AnswerCalibrator(config.weights, config.bias, config.features,
      config.threshold ?? 0.5, config.info);
  }

  /** Whether the calibrator reads `feature`. */
  uses(feature) {
    return this.features.includes(feature);
  }

  /**
   * The probability for one dict of features (`span_features`).
   * @param {Record<string, number | null>} features
   */
  probability(features) {
    let logit = 0;
    this.features.forEach((name, j) => {
      const value = features[name];
      if (value === null || value === undefined) {
        throw new RangeError(`The calibrator needs the feature "${name}", which this candidate lacks ` +
          '(for "cosine", give the pipeline an embedder).');
      }
      logit += value * this.weights[j];
    });
    return 1.0 / (1.0 + Math.exp(-(logit + this.bias)));
  }

  /** Whether a best candidate of probability `score` means "no answer in this document". */
  abstains(score) {
    return score < this.threshold;
  }
}
