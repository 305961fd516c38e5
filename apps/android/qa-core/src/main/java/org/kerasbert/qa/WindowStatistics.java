package org.kerasbert.qa;

/**
 * What the calibrator needs of one reader window besides a span's own logits: the start and
 * end logits at [CLS] (position 0), and their log-sum-exp over the passage's tokens (segment 1
 * without the closing [SEP]). A port of {@code answer_calibrator.window_statistics}.
 */
public final class WindowStatistics {
    private final double clsStart;
    private final double clsEnd;
    private final double lseStart;
    private final double lseEnd;

    public WindowStatistics(double clsStart, double clsEnd, double lseStart, double lseEnd) {
        this.clsStart = clsStart;
        this.clsEnd = clsEnd;
        this.lseStart = lseStart;
        this.lseEnd = lseEnd;
    }

    /** The model's float32 outputs, widened to float64 as Python's {@code float()} does. */
    public static WindowStatistics of(float[] startLogits, float[] endLogits, int[] segmentIds) {
        return of(widen(startLogits), widen(endLogits), segmentIds);
    }

    /**
     * @param segmentIds the window's segment ids ({@link Window#segmentIds()}): 1 on the
     *     passage's tokens and its closing [SEP]; as long as the logits.
     * @throws IllegalArgumentException when the window has no segment-1 token.
     */
    public static WindowStatistics of(double[] startLogits, double[] endLogits, int[] segmentIds) {
        if (startLogits.length != segmentIds.length || endLogits.length != segmentIds.length) {
            throw new IllegalArgumentException("Logits (" + startLogits.length + ", "
                    + endLogits.length + ") and segment ids (" + segmentIds.length
                    + ") of one window must be as long.");
        }
        int last = -1;
        int count = 0;
        for (int i = 0; i < segmentIds.length; i++) {
            if (segmentIds[i] == 1) {
                last = i;
                count++;
            }
        }
        if (last < 0) {
            throw new IllegalArgumentException("The window has no passage tokens (segment 1).");
        }
        double[] starts = new double[count - 1];
        double[] ends = new double[count - 1];
        int k = 0;
        for (int i = 0; i < last; i++) { // the closing [SEP] (the last segment-1 token) left out
            if (segmentIds[i] == 1) {
                starts[k] = startLogits[i];
                ends[k] = endLogits[i];
                k++;
            }
        }
        return new WindowStatistics(startLogits[0], endLogits[0], logSumExp(starts),
                logSumExp(ends));
    }

    /**
     * log(sum(exp(values))), computed stably as the Python reference does; -Infinity for none
     * (numpy raises there; a window always holds a passage token before its [SEP]).
     */
    public static double logSumExp(double[] values) {
        if (values.length == 0) {
            return Double.NEGATIVE_INFINITY;
        }
        double top = values[0];
        for (double v : values) {
            if (v > top || Double.isNaN(v)) {
                top = v;
            }
        }
        double sum = 0.0;
        for (double v : values) {
            sum += Math.exp(v - top);
        }
        return top + Math.log(sum);
    }

    private static double[] widen(float[] values) {
        double[] out = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = values[i];
        }
        return out;
    }

    /** The start logit at [CLS]. */
    public double clsStart() {
        return clsStart;
    }

    /** The end logit at [CLS]. */
    public double clsEnd() {
        return clsEnd;
    }

    /** Log-sum-exp of the start logits over the passage's tokens. */
    public double lseStart() {
        return lseStart;
    }

    /** Log-sum-exp of the end logits over the passage's tokens. */
    public double lseEnd() {
        return lseEnd;
    }
}
