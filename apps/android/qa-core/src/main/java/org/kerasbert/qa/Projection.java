package org.kerasbert.qa;

/**
 * The result of {@link AnswerDecoder#projectToOriginalText}: a slice of the original text and
 * its UTF-16 offset in it ({@code fallback} when the alignment failed and the whole original text
 * is returned, at offset 0).
 */
public final class Projection {
    private final String text;
    private final int offset;
    private final boolean fallback;

    Projection(String text, int offset, boolean fallback) {
        this.text = text;
        this.offset = offset;
        this.fallback = fallback;
    }

    public String text() {
        return text;
    }

    /** UTF-16 offset of {@link #text()} in the original text. */
    public int offset() {
        return offset;
    }

    /** Whether the alignment failed and {@link #text()} is the whole original text. */
    public boolean fallback() {
        return fallback;
    }
}
