package org.kerasbert.qa;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The numbers the reader and the rankers give for one candidate span of one passage, which an
 * {@link AnswerCalibrator} turns into a probability: a port of
 * {@code answer_calibrator.span_features} and its {@code FEATURES}.
 *
 * <ul>
 *   <li>{@code span_logit}: start logit + end logit;
 *   <li>{@code span_log_prob}: (start - lse start) + (end - lse end), the log softmax of start
 *       and end over the passage's tokens;
 *   <li>{@code null_gap}: span logit - ([CLS] start + [CLS] end);
 *   <li>{@code cosine}: the embedder's cosine of question and passage (null without one);
 *   <li>{@code bm25_match}: BM25 score / {@link Bm25Ranker#scoreBound} (null if not given);
 *   <li>{@code inverse_rank}: 1 / the passage's 1-based rank among the passages read.
 * </ul>
 */
public final class SpanFeatures {
    public static final String SPAN_LOGIT = "span_logit";
    public static final String SPAN_LOG_PROB = "span_log_prob";
    public static final String NULL_GAP = "null_gap";
    public static final String COSINE = "cosine";
    public static final String BM25_MATCH = "bm25_match";
    public static final String INVERSE_RANK = "inverse_rank";
    /** Every feature a calibrator may use, in the Python reference's order. */
    public static final List<String> NAMES = Collections.unmodifiableList(Arrays.asList(
            SPAN_LOGIT, SPAN_LOG_PROB, NULL_GAP, COSINE, BM25_MATCH, INVERSE_RANK));

    private final double spanLogit;
    private final double spanLogProb;
    private final double nullGap;
    private final Double cosine;
    private final Double bm25Match;
    private final double inverseRank;

    private SpanFeatures(double spanLogit, double spanLogProb, double nullGap, Double cosine,
            Double bm25Match, double inverseRank) {
        this.spanLogit = spanLogit;
        this.spanLogProb = spanLogProb;
        this.nullGap = nullGap;
        this.cosine = cosine;
        this.bm25Match = bm25Match;
        this.inverseRank = inverseRank;
    }

    /** The features of a span read in a window with these statistics. */
    public static SpanFeatures of(double startLogit, double endLogit, WindowStatistics window,
            Double cosine, Double bm25Match, int rank) {
        return of(startLogit, endLogit, window.clsStart(), window.clsEnd(), window.lseStart(),
                window.lseEnd(), cosine, bm25Match, rank);
    }

    /**
     * @param clsStart the window's start and end logits at [CLS] ({@code cls_logits})
     * @param lseStart the log-sum-exp of its start and end logits over the passage ({@code lse})
     * @param cosine null when there is no embedder
     * @param bm25Match null when not given
     * @param rank the passage's 1-based rank among the passages read
     */
    public static SpanFeatures of(double startLogit, double endLogit, double clsStart,
            double clsEnd, double lseStart, double lseEnd, Double cosine, Double bm25Match,
            int rank) {
        if (rank < 1) {
            throw new IllegalArgumentException("rank=" + rank + ": ranks are 1-based.");
        }
        double spanLogit = startLogit + endLogit;
        return new SpanFeatures(spanLogit, (startLogit - lseStart) + (endLogit - lseEnd),
                spanLogit - (clsStart + clsEnd), cosine, bm25Match, 1.0 / rank);
    }

    public double spanLogit() {
        return spanLogit;
    }

    public double spanLogProb() {
        return spanLogProb;
    }

    public double nullGap() {
        return nullGap;
    }

    /** Null when the caller had no embedder. */
    public Double cosine() {
        return cosine;
    }

    /** Null when not given. */
    public Double bm25Match() {
        return bm25Match;
    }

    public double inverseRank() {
        return inverseRank;
    }

    /**
     * The feature called {@code name} (one of {@link #NAMES}); null for a feature this span
     * lacks (cosine without an embedder).
     *
     * @throws IllegalArgumentException for an unknown name.
     */
    public Double get(String name) {
        switch (name) {
            case SPAN_LOGIT:
                return spanLogit;
            case SPAN_LOG_PROB:
                return spanLogProb;
            case NULL_GAP:
                return nullGap;
            case COSINE:
                return cosine;
            case BM25_MATCH:
                return bm25Match;
            case INVERSE_RANK:
                return inverseRank;
            default:
                throw new IllegalArgumentException("Unknown span feature '" + name
                        + "': choose from " + NAMES + ".");
        }
    }

    /** {name: value} of {@link #NAMES}, in order (null values for missing features). */
    public Map<String, Double> asMap() {
        Map<String, Double> map = new LinkedHashMap<>();
        for (String name : NAMES) {
            map.put(name, get(name));
        }
        return map;
    }

    @Override
    public String toString() {
        return "SpanFeatures" + asMap();
    }
}
