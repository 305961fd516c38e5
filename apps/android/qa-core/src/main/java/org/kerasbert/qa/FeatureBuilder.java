package org.kerasbert.qa;

import java.util.ArrayList;
import java.util.List;

/**
 * Question + passage -> model windows, a port of {@code squad_features.convert_squad_examples}
 * (google-research/bert's layout): each whitespace word of the passage is WordPiece-tokenized
 * on its own; the question is cut to {@code maxQueryLength} tokens; passages longer than a
 * window are covered by windows {@code docStride} pieces apart; each passage piece is marked as
 * "max context" in the window where it is most centred.
 */
public final class FeatureBuilder {
    public static final int DEFAULT_MAX_SEQ_LENGTH = 384;
    public static final int DEFAULT_DOC_STRIDE = 128;
    public static final int DEFAULT_MAX_QUERY_LENGTH = 64;

    private final BertTokenizer tokenizer;
    private final int maxSeqLength;
    private final int docStride;
    private final int maxQueryLength;

    public FeatureBuilder(BertTokenizer tokenizer) {
        this(tokenizer, DEFAULT_MAX_SEQ_LENGTH, DEFAULT_DOC_STRIDE, DEFAULT_MAX_QUERY_LENGTH);
    }

    public FeatureBuilder(BertTokenizer tokenizer, int maxSeqLength, int docStride,
            int maxQueryLength) {
        if (tokenizer == null) {
            throw new IllegalArgumentException("FeatureBuilder needs a tokenizer.");
        }
        if (maxQueryLength < 1 || docStride < 1) {
            throw new IllegalArgumentException("maxQueryLength (" + maxQueryLength
                    + ") and docStride (" + docStride + ") must be >= 1.");
        }
        if (maxSeqLength - maxQueryLength - 3 < 1) {
            throw new IllegalArgumentException("maxSeqLength=" + maxSeqLength
                    + " leaves no room for the passage after a " + maxQueryLength
                    + "-token question and 3 special tokens.");
        }
        this.tokenizer = tokenizer;
        this.maxSeqLength = maxSeqLength;
        this.docStride = docStride;
        this.maxQueryLength = maxQueryLength;
    }

    public BertTokenizer tokenizer() {
        return tokenizer;
    }

    public int maxSeqLength() {
        return maxSeqLength;
    }

    /** The whitespace words of a passage with their UTF-16 start offsets. */
    public static PassageWords splitOnWhitespace(String context) {
        return PassageWords.split(context);
    }

    /**
     * Builds the windows of one question on one passage.
     *
     * @throws QaInputException for a null, empty or whitespace-only question or passage.
     */
    public Features build(String question, String context) {
        if (question == null || TextRules.isBlank(question)) {
            throw new QaInputException("The question is empty: type a question about the passage.");
        }
        if (context == null || TextRules.isBlank(context)) {
            throw new QaInputException(
                    "The passage is empty: paste the text the answer should come from.");
        }
        PassageWords passage = PassageWords.split(context);

        List<String> queryTokens = tokenizer.tokenize(question);
        boolean truncated = queryTokens.size() > maxQueryLength;
        if (truncated) {
            queryTokens = new ArrayList<>(queryTokens.subList(0, maxQueryLength));
        }

        List<String> pieces = new ArrayList<>();
        List<Integer> pieceToWord = new ArrayList<>();
        for (int w = 0; w < passage.size(); w++) {
            for (String piece : tokenizer.tokenize(passage.words().get(w))) {
                pieces.add(piece);
                pieceToWord.add(w);
            }
        }

        int maxTokensForDoc = maxSeqLength - queryTokens.size() - 3;
        List<int[]> spans = docWindows(pieces.size(), maxTokensForDoc, docStride);
        List<Window> windows = new ArrayList<>(spans.size());
        for (int windowIndex = 0; windowIndex < spans.size(); windowIndex++) {
            int docStart = spans.get(windowIndex)[0];
            int length = spans.get(windowIndex)[1];
            List<String> tokens = new ArrayList<>(queryTokens.size() + length + 3);
            tokens.add(BertTokenizer.CLS);
            tokens.addAll(queryTokens);
            tokens.add(BertTokenizer.SEP);
            int[] tokenToOrig = new int[maxSeqLength];
            java.util.Arrays.fill(tokenToOrig, -1);
            boolean[] maxContext = new boolean[maxSeqLength];
            for (int i = 0; i < length; i++) {
                int position = docStart + i;
                tokenToOrig[tokens.size()] = pieceToWord.get(position);
                maxContext[tokens.size()] = isMaxContext(spans, windowIndex, position);
                tokens.add(pieces.get(position));
            }
            tokens.add(BertTokenizer.SEP);
            int questionPart = queryTokens.size() + 2;
            int[] ids = new int[maxSeqLength];
            int[] mask = new int[maxSeqLength];
            int[] segmentIds = new int[maxSeqLength];
            int[] realIds = tokenizer.convertTokensToIds(tokens);
            for (int i = 0; i < realIds.length; i++) {
                ids[i] = realIds[i];
                mask[i] = 1;
                segmentIds[i] = i < questionPart ? 0 : 1;
            }
            windows.add(new Window(tokens, ids, mask, segmentIds, tokenToOrig, maxContext,
                    docStart, length));
        }
        return new Features(question, passage, queryTokens, truncated, windows);
    }

    /** {@code [(start, length)]} windows over {@code numTokens} pieces, {@code docStride} apart. */
    static List<int[]> docWindows(int numTokens, int maxTokensForDoc, int docStride) {
        List<int[]> windows = new ArrayList<>();
        int start = 0;
        while (true) {
            int length = Math.min(numTokens - start, maxTokensForDoc);
            windows.add(new int[] {start, length});
            if (start + length >= numTokens) {
                return windows;
            }
            start += Math.min(length, docStride);
        }
    }

    /**
     * Whether window {@code windowIndex} gives piece {@code position} the most context: score =
     * min(pieces left, pieces right) + 0.01 * window length; the first best window wins.
     */
    static boolean isMaxContext(List<int[]> windows, int windowIndex, int position) {
        double bestScore = 0;
        int bestIndex = -1;
        for (int index = 0; index < windows.size(); index++) {
            int start = windows.get(index)[0];
            int length = windows.get(index)[1];
            int end = start + length - 1;
            if (position < start || position > end) {
                continue;
            }
            double score = Math.min(position - start, end - position) + 0.01 * length;
            if (bestIndex < 0 || score > bestScore) {
                bestScore = score;
                bestIndex = index;
            }
        }
        return bestIndex == windowIndex;
    }
}
