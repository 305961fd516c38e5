package org.kerasbert.qa.app;

import java.util.Collections;
import java.util.List;

/**
 * A bundled text: one entry of assets/passages.json (a passage, read whole by the reader), or
 * of assets/articles.json (a whole article, {@link #wholeDocument}: asked through retrieve-then-
 * read, which may answer "no answer in this document").
 */
public final class Passage {
    public final String id;
    public final String title;
    public final String context;
    public final List<String> questions;
    public final boolean wholeDocument;

    public Passage(String id, String title, String context, List<String> questions) {
        this(id, title, context, questions, false);
    }

    public Passage(String id, String title, String context, List<String> questions,
            boolean wholeDocument) {
        this.id = id;
        this.title = title;
        this.context = context;
        this.questions = Collections.unmodifiableList(questions);
        this.wholeDocument = wholeDocument;
    }

    @Override
    public String toString() {
        return title; // what the passage list shows
    }
}
