/**
 * One ranking from several (Cormack, Clarke and Buettcher 2009): a port of
 * `reciprocal_rank_fusion` (keras_bert/retrieval/rank_fusion.py).
 *
 * No DOM code: this module runs in Node and in the browser.
 */

import { argsortDescending } from "./bm25.js";

export const RRF_K = 60;

/**
 * Items ordered by the sum over `orders` of `1 / (k + rank)` (ranks 1-based); ties: the earlier
 * item first. Each order is a full ranking of the same items (indices, best first).
 * @param {number[][]} orders
 * @param {{k?: number}} [options]
 * @returns {number[]}
 */
export function reciprocalRankFusion(orders, { k = RRF_K } = {}) {
  if (!Array.isArray(orders) || orders.length === 0) {
    throw new TypeError("`orders` must be a non-empty array of rankings.");
  }
  const scores = new Float64Array(orders[0].length);
  for (const order of orders) {
    order.forEach((item, i) => {
      scores[item] += 1.0 / (k + (i + 1));
    });
  }
  return argsortDescending(scores);
}
