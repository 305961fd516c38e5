package org.kerasbert.qa;

/**
 * Reciprocal rank fusion (Cormack, Clarke and Buettcher 2009): a port of
 * {@code keras_bert/retrieval/rank_fusion.py} ({@code reciprocal_rank_fusion}).
 */
public final class RankFusion {
    /** The usual constant k. */
    public static final int RRF_K = 60;

    private RankFusion() {}

    /** {@link #fuse(int, int[][])} with k = 60. */
    public static int[] fuse(int[]... orders) {
        return fuse(RRF_K, orders);
    }

    /**
     * Items ordered by the sum over {@code orders} of {@code 1 / (k + rank)} (ranks 1-based);
     * ties: the earlier item first. Each order is a full ranking of the same items (indices
     * 0..n-1, best first).
     */
    public static int[] fuse(int k, int[]... orders) {
        if (orders == null || orders.length == 0) {
            throw new IllegalArgumentException("Give at least one ranking to fuse.");
        }
        int n = orders[0].length;
        double[] scores = new double[n];
        for (int[] order : orders) {
            if (order.length != n) {
                throw new IllegalArgumentException("Rankings of " + n + " and " + order.length
                        + " items: each must rank the same items.");
            }
            for (int r = 0; r < n; r++) {
                int item = order[r];
                if (item < 0 || item >= n) {
                    throw new IllegalArgumentException("Item " + item + " is not in [0, " + n + ").");
                }
                scores[item] += 1.0 / (k + (r + 1));
            }
        }
        return argsortDescending(scores);
    }

    /**
     * {@code np.argsort(-scores, kind="stable")}: indices by score, highest first, ties in
     * index order (NaN last, -0.0 equal to 0.0).
     */
    public static int[] argsortDescending(double[] scores) {
        return AnswerDecoder.topIndices(scores, scores.length);
    }
}
