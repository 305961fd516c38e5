package org.kerasbert.qa;

/**
 * The answer to a question over a whole document ({@link DocumentQa}), or the statement that
 * the document holds none ({@link #noAnswer()}): the Python pipeline's result dict.
 *
 * <p>Offsets are UTF-16 indices into the document: {@code document.substring(start(), end())}
 * is the answer. When {@link #noAnswer()} is true the text is "", the offsets and
 * {@link #passage()} are -1, and {@link #candidate()} holds the rejected best candidate (null
 * when the reader found no span at all).
 */
public final class DocumentAnswer {
    private final String text;
    private final double score;
    private final boolean noAnswer;
    private final int start;
    private final int end;
    private final double startLogit;
    private final double endLogit;
    private final int passage;
    private final int passageStart;
    private final int passageEnd;
    private final SpanFeatures features;
    private final DocumentAnswer candidate;

    DocumentAnswer(String text, double score, boolean noAnswer, int start, int end,
            double startLogit, double endLogit, int passage, int passageStart, int passageEnd,
            SpanFeatures features, DocumentAnswer candidate) {
        this.text = text;
        this.score = score;
        this.noAnswer = noAnswer;
        this.start = start;
        this.end = end;
        this.startLogit = startLogit;
        this.endLogit = endLogit;
        this.passage = passage;
        this.passageStart = passageStart;
        this.passageEnd = passageEnd;
        this.features = features;
        this.candidate = candidate;
    }

    /** "No answer", with the rejected best candidate (or null). */
    static DocumentAnswer none(double score, DocumentAnswer candidate) {
        return new DocumentAnswer("", score, true, -1, -1, 0.0, 0.0, -1, -1, -1, null, candidate);
    }

    /** The answer's text ("" when there is none). */
    public String text() {
        return text;
    }

    /**
     * With a calibrator, its probability that this is the answer; without one, a softmax of
     * the span logits over all the merged candidates.
     */
    public double score() {
        return score;
    }

    /** True when the score is below the calibrator's threshold: not answered in the document. */
    public boolean noAnswer() {
        return noAnswer;
    }

    /** UTF-16 offset in the document where the answer starts, or -1. */
    public int start() {
        return start;
    }

    /** UTF-16 offset in the document just after the answer, or -1. */
    public int end() {
        return end;
    }

    public double startLogit() {
        return startLogit;
    }

    public double endLogit() {
        return endLogit;
    }

    /** The index of the answer's passage among the document's passages, or -1. */
    public int passage() {
        return passage;
    }

    /** UTF-16 offset in the document where the answer's passage starts, or -1. */
    public int passageStart() {
        return passageStart;
    }

    /** UTF-16 offset in the document just after the answer's passage, or -1. */
    public int passageEnd() {
        return passageEnd;
    }

    /** The span's calibrator features (null for "no answer"). */
    public SpanFeatures features() {
        return features;
    }

    /** For "no answer": the best candidate the calibrator rejected, if any; else null. */
    public DocumentAnswer candidate() {
        return candidate;
    }

    @Override
    public String toString() {
        return "DocumentAnswer{text=" + text + ", score=" + score + ", noAnswer=" + noAnswer
                + ", start=" + start + ", end=" + end + ", passage=" + passage
                + (candidate != null ? ", candidate=" + candidate : "") + "}";
    }
}
