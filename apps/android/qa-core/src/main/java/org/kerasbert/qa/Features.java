package org.kerasbert.qa;

import java.util.Collections;
import java.util.List;

/** A question and passage as model windows, with what is needed to map answers back. */
public final class Features {
    private final String question;
    private final PassageWords passage;
    private final List<String> queryTokens;
    private final boolean questionTruncated;
    private final List<Window> windows;

    Features(String question, PassageWords passage, List<String> queryTokens,
            boolean questionTruncated, List<Window> windows) {
        this.question = question;
        this.passage = passage;
        this.queryTokens = Collections.unmodifiableList(queryTokens);
        this.questionTruncated = questionTruncated;
        this.windows = Collections.unmodifiableList(windows);
    }

    public String question() {
        return question;
    }

    public String context() {
        return passage.context();
    }

    public PassageWords passage() {
        return passage;
    }

    /** The passage's whitespace words ({@code doc_tokens} in the Python pipeline). */
    public List<String> words() {
        return passage.words();
    }

    /** The question's WordPiece tokens, after the cut to maxQueryLength. */
    public List<String> queryTokens() {
        return queryTokens;
    }

    /** Whether the question had more than maxQueryLength tokens and was cut. */
    public boolean questionTruncated() {
        return questionTruncated;
    }

    public List<Window> windows() {
        return windows;
    }
}
