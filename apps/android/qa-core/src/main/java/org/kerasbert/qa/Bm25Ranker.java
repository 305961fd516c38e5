package org.kerasbert.qa;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Okapi BM25 over a fixed list of passages: a port of {@code keras_bert/retrieval/bm25_ranker.py}
 * ({@code Bm25Ranker}, {@code word_tokens}), with the same float64 arithmetic in the same order.
 *
 * <pre>
 * score(d) = sum_q idf(q) * tf(q, d) * (k1 + 1) / (tf(q, d) + k1 * (1 - b + b * |d| / avgdl))
 * idf(q)   = ln(1 + (N - df(q) + 0.5) / (df(q) + 0.5))        (Lucene's: always positive)
 * </pre>
 *
 * Terms are {@link #wordTokens}: the runs of Python's {@code \w} in the text lower-cased by
 * Python's {@code str.lower()}; no stemming, no stop words. Repeated query terms count each time.
 */
public final class Bm25Ranker {
    public static final double DEFAULT_K1 = 1.2;
    public static final double DEFAULT_B = 0.75;

    private static final class Postings {
        final int[] rows;
        final double[] tfs;

        Postings(List<int[]> entries) {
            rows = new int[entries.size()];
            tfs = new double[entries.size()];
            for (int i = 0; i < rows.length; i++) {
                rows[i] = entries.get(i)[0];
                tfs[i] = entries.get(i)[1];
            }
        }
    }

    private final double k1;
    private final double b;
    private final int numPassages;
    private final double[] lengthNorm;
    private final Map<String, Postings> postings;

    public Bm25Ranker(List<String> passages) {
        this(passages, DEFAULT_K1, DEFAULT_B);
    }

    public Bm25Ranker(List<String> passages, double k1, double b) {
        if (passages == null) {
            throw new IllegalArgumentException("Bm25Ranker needs a list of passages' texts.");
        }
        if (!(k1 >= 0) || !(b >= 0 && b <= 1)) {
            throw new IllegalArgumentException("k1=" + k1 + ", b=" + b
                    + ": BM25 needs k1 >= 0 and 0 <= b <= 1.");
        }
        this.k1 = k1;
        this.b = b;
        this.numPassages = passages.size();
        double[] lengths = new double[numPassages];
        Map<String, List<int[]>> entries = new HashMap<>();
        double sum = 0.0;
        for (int row = 0; row < numPassages; row++) {
            Map<String, Integer> counts = new LinkedHashMap<>();
            for (String term : wordTokens(passages.get(row))) {
                counts.merge(term, 1, Integer::sum);
            }
            int length = 0;
            for (Map.Entry<String, Integer> e : counts.entrySet()) {
                length += e.getValue();
                entries.computeIfAbsent(e.getKey(), k -> new ArrayList<>())
                        .add(new int[] {row, e.getValue()});
            }
            lengths[row] = length;
            sum += length; // whole numbers: exact in any order, as numpy's pairwise mean
        }
        double average = numPassages > 0 ? sum / numPassages : 0.0;
        if (!(numPassages > 0 && average > 0)) {
            average = 1.0;
        }
        lengthNorm = new double[numPassages];
        for (int row = 0; row < numPassages; row++) {
            lengthNorm[row] = k1 * (1.0 - b + b * lengths[row] / average);
        }
        postings = new HashMap<>(entries.size() * 2);
        for (Map.Entry<String, List<int[]>> e : entries.entrySet()) {
            postings.put(e.getKey(), new Postings(e.getValue()));
        }
    }

    /**
     * BM25's terms: the lower-cased runs of word characters (Python's {@code \w+}: letters,
     * numbers and "_", Unicode), in order.
     */
    public static List<String> wordTokens(String text) {
        if (text == null) {
            throw new IllegalArgumentException("The text must not be null.");
        }
        String lower = TextRules.pythonLower(text);
        List<String> terms = new ArrayList<>();
        int start = -1;
        int i = 0;
        while (i < lower.length()) {
            int cp = lower.codePointAt(i);
            if (TextRules.isPythonWordChar(cp)) {
                if (start < 0) {
                    start = i;
                }
            } else if (start >= 0) {
                terms.add(lower.substring(start, i));
                start = -1;
            }
            i += Character.charCount(cp);
        }
        if (start >= 0) {
            terms.add(lower.substring(start));
        }
        return terms;
    }

    public int numPassages() {
        return numPassages;
    }

    public double k1() {
        return k1;
    }

    public double b() {
        return b;
    }

    /** Lucene's BM25 idf of {@code term} (already a {@link #wordTokens} term). */
    public double idf(String term) {
        Postings p = postings.get(term);
        int df = p == null ? 0 : p.rows.length;
        return Math.log(1.0 + (numPassages - df + 0.5) / (df + 0.5));
    }

    /** Each passage's BM25 score for {@code query}. */
    public double[] scores(String query) {
        double[] scores = new double[numPassages];
        for (String term : wordTokens(query)) {
            Postings p = postings.get(term);
            if (p == null) {
                continue; // tf = 0 everywhere: adds nothing
            }
            double idf = idf(term);
            for (int i = 0; i < p.rows.length; i++) {
                int row = p.rows[i];
                double tf = p.tfs[i];
                scores[row] += idf * tf * (k1 + 1.0) / (tf + lengthNorm[row]);
            }
        }
        return scores;
    }

    /**
     * The least upper bound of any passage's score for {@code query}: each term's
     * {@code idf * (k1 + 1)}, summed over the query's terms as {@link #scores} counts them.
     * {@code score / scoreBound} lies in [0, 1) and compares across documents.
     */
    public double scoreBound(String query) {
        double bound = 0.0;
        for (String term : wordTokens(query)) {
            bound += idf(term) * (k1 + 1.0);
        }
        return bound;
    }

    /** Passage indices, best first (ties: the earlier passage first). */
    public int[] rank(String query) {
        return RankFusion.argsortDescending(scores(query));
    }

    /** The first {@code topK} of {@link #rank(String)}. */
    public int[] rank(String query, int topK) {
        int[] order = rank(query);
        return java.util.Arrays.copyOf(order, Math.max(0, Math.min(topK, order.length)));
    }
}
