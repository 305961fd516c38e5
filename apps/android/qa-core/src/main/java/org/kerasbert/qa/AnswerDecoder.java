package org.kerasbert.qa;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Start/end logits of a question's windows -> n-best answers, a port of
 * {@code squad_predictions.decode_squad_predictions} (SQuAD v1.1) and
 * {@code project_to_original_text} (google's get_final_text).
 *
 * <p>Per window, every pair of the {@code nBestSize} best starts and ends (ties: lower index
 * first) is a candidate if both are passage tokens, end >= start, the span has at most
 * {@code maxAnswerLength} tokens and the start is in its max-context window. Candidates are
 * ranked by startLogit + endLogit (float64 sums, stable order); the first {@code nBestSize}
 * distinct texts are kept, with softmax probabilities. Each text is the prediction projected onto
 * the original words, and located in the passage by UTF-16 offsets.
 */
public final class AnswerDecoder {
    public static final int DEFAULT_N_BEST_SIZE = 20;
    public static final int DEFAULT_MAX_ANSWER_LENGTH = 30;

    private final int nBestSize;
    private final int maxAnswerLength;
    private final boolean doLowerCase;

    public AnswerDecoder() {
        this(DEFAULT_N_BEST_SIZE, DEFAULT_MAX_ANSWER_LENGTH, true);
    }

    public AnswerDecoder(int nBestSize, int maxAnswerLength, boolean doLowerCase) {
        if (nBestSize < 1 || maxAnswerLength < 1) {
            throw new IllegalArgumentException("nBestSize (" + nBestSize
                    + ") and maxAnswerLength (" + maxAnswerLength + ") must be >= 1.");
        }
        this.nBestSize = nBestSize;
        this.maxAnswerLength = maxAnswerLength;
        this.doLowerCase = doLowerCase;
    }

    private static final class Candidate {
        final int window;
        final int start;
        final int end;
        final double startLogit;
        final double endLogit;
        final double score;

        Candidate(int window, int start, int end, double startLogit, double endLogit) {
            this.window = window;
            this.start = start;
            this.end = end;
            this.startLogit = startLogit;
            this.endLogit = endLogit;
            this.score = startLogit + endLogit;
        }
    }

    /** {@link #decode(Features, double[][], double[][])} for the model's float32 outputs. */
    public List<Answer> decode(Features features, float[][] startLogits, float[][] endLogits) {
        return decode(features, toDouble(startLogits), toDouble(endLogits));
    }

    /**
     * The n-best answers, best first; an empty list when no window has a valid span.
     *
     * @param startLogits one array per window (in {@code features.windows()} order) of the
     *     model's start logits over all sequence positions, padding included.
     */
    public List<Answer> decode(Features features, double[][] startLogits, double[][] endLogits) {
        List<Window> windows = features.windows();
        if (startLogits.length != windows.size() || endLogits.length != windows.size()) {
            throw new IllegalArgumentException("Expected logits for " + windows.size()
                    + " windows, got " + startLogits.length + " start and " + endLogits.length
                    + " end arrays.");
        }
        List<Candidate> candidates = new ArrayList<>();
        for (int w = 0; w < windows.size(); w++) {
            Window window = windows.get(w);
            double[] starts = startLogits[w];
            double[] ends = endLogits[w];
            if (starts.length < window.length() || ends.length < window.length()) {
                throw new IllegalArgumentException("Window " + w + " has " + window.length()
                        + " tokens but " + starts.length + " start and " + ends.length
                        + " end logits.");
            }
            int[] topStarts = topIndices(starts, nBestSize);
            int[] topEnds = topIndices(ends, nBestSize);
            for (int start : topStarts) {
                for (int end : topEnds) {
                    if (!window.isPassageToken(start) || !window.isPassageToken(end) || end < start) {
                        continue;
                    }
                    if (end - start + 1 > maxAnswerLength || !window.isMaxContext(start)) {
                        continue;
                    }
                    candidates.add(new Candidate(w, start, end, starts[start], ends[end]));
                }
            }
        }
        // Python's sort(reverse=True) is stable; compare with <, > so -0.0 == 0.0 as in Python.
        Collections.sort(candidates, (a, b) -> {
            double x = sortable(a.score);
            double y = sortable(b.score);
            return x > y ? -1 : (x < y ? 1 : 0);
        });

        List<Candidate> kept = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        List<int[]> spans = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Candidate candidate : candidates) {
            if (kept.size() >= nBestSize) {
                break;
            }
            Window window = windows.get(candidate.window);
            StringBuilder joined = new StringBuilder();
            for (int p = candidate.start; p <= candidate.end; p++) {
                if (p > candidate.start) {
                    joined.append(' ');
                }
                joined.append(window.tokens().get(p));
            }
            String predText = TextRules.joinSpace(TextRules.pythonSplit(
                    joined.toString().replace(" ##", "").replace("##", "")));
            int firstWord = window.tokenToOrig(candidate.start);
            int lastWord = window.tokenToOrig(candidate.end);
            String origText = TextRules.joinSpace(
                    features.words().subList(firstWord, lastWord + 1));
            Projection projection = projectToOriginalText(predText, origText, doLowerCase);
            if (!seen.add(projection.text())) {
                continue;
            }
            kept.add(candidate);
            texts.add(projection.text());
            spans.add(locate(features.passage(), firstWord, lastWord, projection));
        }

        double[] scores = new double[kept.size()];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = kept.get(i).score;
        }
        double[] probabilities = softmax(scores);
        List<Answer> answers = new ArrayList<>(kept.size());
        for (int i = 0; i < kept.size(); i++) {
            Candidate c = kept.get(i);
            answers.add(new Answer(texts.get(i), spans.get(i)[0], spans.get(i)[1], c.startLogit,
                    c.endLogit, probabilities[i], c.window, c.start, c.end));
        }
        return answers;
    }

    /** NaN ranks last (Python's order with NaN is undefined; this keeps the sort consistent). */
    private static double sortable(double score) {
        return Double.isNaN(score) ? Double.NEGATIVE_INFINITY : score;
    }

    /**
     * Indices of the {@code n} largest values, largest first, ties in index order:
     * {@code np.argsort(-x, kind="stable")[:n]} (NaN last, -0.0 equal to 0.0).
     */
    static int[] topIndices(double[] logits, int n) {
        Integer[] order = new Integer[logits.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (i, j) -> {
            double a = logits[i];
            double b = logits[j];
            boolean aNan = Double.isNaN(a);
            boolean bNan = Double.isNaN(b);
            if (aNan || bNan) {
                return aNan == bNan ? 0 : (aNan ? 1 : -1);
            }
            return a > b ? -1 : (a < b ? 1 : 0);
        }); // Arrays.sort on objects is a stable merge sort (TimSort)
        int count = Math.min(n, order.length);
        int[] top = new int[count];
        for (int i = 0; i < count; i++) {
            top[i] = order[i];
        }
        return top;
    }

    /** Python's softmax: exp(s - max) / sum, summed left to right (Python 3.11's {@code sum}). */
    static double[] softmax(double[] scores) {
        if (scores.length == 0) {
            return new double[0];
        }
        double top = scores[0];
        for (double s : scores) {
            if (s > top) {
                top = s;
            }
        }
        double[] exps = new double[scores.length];
        double total = 0.0;
        for (int i = 0; i < scores.length; i++) {
            exps[i] = Math.exp(scores[i] - top);
            total += exps[i];
        }
        for (int i = 0; i < exps.length; i++) {
            exps[i] /= total;
        }
        return exps;
    }

    /** UTF-16 {@code [start, end)} in the passage of a projection of words firstWord..lastWord. */
    static int[] locate(PassageWords passage, int firstWord, int lastWord, Projection projection) {
        String text = projection.text();
        if (text.isEmpty()) {
            int at = passage.wordStart(firstWord);
            return new int[] {at, at};
        }
        int first = projection.offset();
        int lastChar = first + text.length() - Character.charCount(text.codePointBefore(text.length()));
        int start = mapOffset(passage, firstWord, lastWord, first);
        int end = mapOffset(passage, firstWord, lastWord, lastChar)
                + Character.charCount(text.codePointBefore(text.length()));
        return new int[] {start, end};
    }

    /** Offset in {@code " ".join(words[firstWord..lastWord])} -> offset in the passage. */
    private static int mapOffset(PassageWords passage, int firstWord, int lastWord, int offset) {
        int position = 0;
        for (int w = firstWord; w <= lastWord; w++) {
            int length = passage.words().get(w).length();
            if (offset < position + length) {
                return passage.wordStart(w) + (offset - position);
            }
            if (offset == position + length) {
                return passage.wordEnd(w); // a joining space (not reached for real projections)
            }
            position += length + 1;
        }
        return passage.wordEnd(lastWord);
    }

    /**
     * Maps a detokenized prediction (e.g. {@code steve smith}) back onto the original words it
     * came from ({@code Steve Smith's} -> {@code Steve Smith}), keeping their case, accents and
     * inner punctuation; google-research/bert's get_final_text. When the alignment fails, the
     * whole original text is returned (fallback).
     */
    public static Projection projectToOriginalText(String predText, String origText,
            boolean doLowerCase) {
        int[] orig = origText.codePoints().toArray();
        int[] tok = TextRules.joinSpace(BertTokenizer.basicTokenize(origText, doLowerCase))
                .codePoints().toArray();
        int[] pred = predText.codePoints().toArray();
        Projection whole = new Projection(origText, 0, true);
        int start = find(tok, pred);
        if (start == -1) {
            return whole;
        }
        int end = start + pred.length - 1;
        List<Integer> origMap = new ArrayList<>();
        for (int i = 0; i < orig.length; i++) {
            if (orig[i] != ' ') {
                origMap.add(i);
            }
        }
        Map<Integer, Integer> tokToNs = new HashMap<>();
        for (int i = 0; i < tok.length; i++) {
            if (tok[i] != ' ') {
                tokToNs.put(i, tokToNs.size());
            }
        }
        if (origMap.size() != tokToNs.size()) {
            return whole; // e.g. an accent stripped from a character that is not spelled apart
        }
        Integer startNs = tokToNs.get(start);
        Integer endNs = tokToNs.get(end);
        if (startNs == null || endNs == null) {
            return whole;
        }
        int from = origMap.get(startNs);
        int to = origMap.get(endNs) + 1; // exclusive, in code points
        if (to <= from) {
            return new Projection("", utf16Offset(orig, from), false);
        }
        String text = new String(orig, from, to - from);
        return new Projection(text, utf16Offset(orig, from), false);
    }

    private static int utf16Offset(int[] codePoints, int index) {
        int offset = 0;
        for (int i = 0; i < index; i++) {
            offset += Character.charCount(codePoints[i]);
        }
        return offset;
    }

    /** Python's {@code str.find} on code points (0 for an empty needle). */
    private static int find(int[] haystack, int[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int k = 0; k < needle.length; k++) {
                if (haystack[i + k] != needle[k]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static double[][] toDouble(float[][] values) {
        double[][] out = new double[values.length][];
        for (int i = 0; i < values.length; i++) {
            out[i] = new double[values[i].length];
            for (int k = 0; k < values[i].length; k++) {
                out[i][k] = values[i][k];
            }
        }
        return out;
    }
}
