package org.kerasbert.qa;

import java.util.Collections;
import java.util.List;

/**
 * One model input: {@code [CLS] question [SEP] passage pieces [SEP]}, padded with 0 to the
 * sequence length. The arrays are the model's {@code ids}, {@code mask} and {@code segment_ids}
 * inputs (shape [1, maxSeqLength] once wrapped).
 */
public final class Window {
    private final List<String> tokens;
    private final int[] ids;
    private final int[] mask;
    private final int[] segmentIds;
    private final int[] tokenToOrig;
    private final boolean[] maxContext;
    private final int docStart;
    private final int docLength;

    Window(List<String> tokens, int[] ids, int[] mask, int[] segmentIds, int[] tokenToOrig,
            boolean[] maxContext, int docStart, int docLength) {
        this.tokens = Collections.unmodifiableList(tokens);
        this.ids = ids;
        this.mask = mask;
        this.segmentIds = segmentIds;
        this.tokenToOrig = tokenToOrig;
        this.maxContext = maxContext;
        this.docStart = docStart;
        this.docLength = docLength;
    }

    /** The unpadded tokens. */
    public List<String> tokens() {
        return tokens;
    }

    /** Number of real (unpadded) tokens. */
    public int length() {
        return tokens.size();
    }

    /** Token ids padded with 0 to the sequence length (a copy). */
    public int[] ids() {
        return ids.clone();
    }

    /** 1 for real tokens, 0 for padding (a copy). */
    public int[] mask() {
        return mask.clone();
    }

    /** 0 for [CLS] question [SEP], 1 for the passage pieces and the last [SEP], 0 padding. */
    public int[] segmentIds() {
        return segmentIds.clone();
    }

    public int sequenceLength() {
        return ids.length;
    }

    /** The passage word index of the token at {@code position}, or -1 if it is not a passage piece. */
    public int tokenToOrig(int position) {
        return position >= 0 && position < tokenToOrig.length ? tokenToOrig[position] : -1;
    }

    /** Whether {@code position} is a passage piece. */
    public boolean isPassageToken(int position) {
        return tokenToOrig(position) >= 0;
    }

    /**
     * Whether this window gives the passage piece at {@code position} its most centred view
     * (only such positions may start an answer); false for non-passage positions.
     */
    public boolean isMaxContext(int position) {
        return position >= 0 && position < maxContext.length && maxContext[position];
    }

    /** Index of this window's first passage piece among all the passage's pieces. */
    public int docStart() {
        return docStart;
    }

    /** Number of passage pieces in this window. */
    public int docLength() {
        return docLength;
    }

    /** Position of the first passage piece in this window (after [CLS] question [SEP]). */
    public int firstPassagePosition() {
        return length() - docLength - 1;
    }
}
