package org.kerasbert.qa;

/**
 * A span of a document, the unit a retriever ranks and the reader reads: a port of
 * {@code keras_bert/retrieval/passage.py}. {@link #text()} is exactly
 * {@code document.substring(start(), end())}; the offsets are UTF-16 indices into the document
 * (Python's are code points: see {@link SentenceSplitter}).
 */
public final class Passage {
    private final String text;
    private final int start;
    private final int end;
    private final int numTokens;

    public Passage(String text, int start, int end, int numTokens) {
        if (text == null || start < 0 || end < start || text.length() != end - start) {
            throw new IllegalArgumentException("A passage is document[start, end): got a text of "
                    + (text == null ? "null" : text.length() + " chars") + " for [" + start + ", "
                    + end + ").");
        }
        this.text = text;
        this.start = start;
        this.end = end;
        this.numTokens = numTokens;
    }

    public String text() {
        return text;
    }

    /** UTF-16 offset in the document where the passage starts. */
    public int start() {
        return start;
    }

    /** UTF-16 offset in the document just after the passage. */
    public int end() {
        return end;
    }

    /** The WordPiece tokens of {@link #text()} (no [CLS] / [SEP]). */
    public int numTokens() {
        return numTokens;
    }

    @Override
    public String toString() {
        return "Passage{[" + start + ", " + end + "), " + numTokens + " tokens}";
    }
}
