package org.kerasbert.qa;

/**
 * One n-best answer: its text (a slice of the passage, possibly spanning words), its UTF-16
 * {@code [start, end)} offsets in the passage, its logits and its softmax probability among the
 * n-best list.
 */
public final class Answer {
    private final String text;
    private final int start;
    private final int end;
    private final double startLogit;
    private final double endLogit;
    private final double probability;
    private final int window;
    private final int startToken;
    private final int endToken;

    Answer(String text, int start, int end, double startLogit, double endLogit, double probability,
            int window, int startToken, int endToken) {
        this.text = text;
        this.start = start;
        this.end = end;
        this.startLogit = startLogit;
        this.endLogit = endLogit;
        this.probability = probability;
        this.window = window;
        this.startToken = startToken;
        this.endToken = endToken;
    }

    public String text() {
        return text;
    }

    /** UTF-16 offset in the passage where the answer starts. */
    public int start() {
        return start;
    }

    /** UTF-16 offset in the passage just after the answer. */
    public int end() {
        return end;
    }

    public double startLogit() {
        return startLogit;
    }

    public double endLogit() {
        return endLogit;
    }

    /** {@code startLogit + endLogit}, the ranking score. */
    public double score() {
        return startLogit + endLogit;
    }

    public double probability() {
        return probability;
    }

    /** The window the answer was read from. */
    public int window() {
        return window;
    }

    /** The answer's first token position in its window. */
    public int startToken() {
        return startToken;
    }

    /** The answer's last token position in its window (inclusive). */
    public int endToken() {
        return endToken;
    }

    @Override
    public String toString() {
        return "Answer{text=" + text + ", start=" + start + ", end=" + end + ", startLogit="
                + startLogit + ", endLogit=" + endLogit + ", probability=" + probability + "}";
    }
}
