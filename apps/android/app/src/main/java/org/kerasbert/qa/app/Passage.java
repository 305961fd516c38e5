package org.kerasbert.qa.app;

import java.util.Collections;
import java.util.List;

/** A bundled passage: one entry of assets/passages.json. */
public final class Passage {
    public final String id;
    public final String title;
    public final String context;
    public final List<String> questions;

    public Passage(String id, String title, String context, List<String> questions) {
        this.id = id;
        this.title = title;
        this.context = context;
        this.questions = Collections.unmodifiableList(questions);
    }

    @Override
    public String toString() {
        return title; // what the passage list shows
    }
}
