package org.kerasbert.qa;

/**
 * A question or passage the pipeline cannot answer from (an empty or whitespace-only question,
 * an empty passage). The message is meant to be shown to the user as is.
 */
public class QaInputException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public QaInputException(String message) {
        super(message);
    }
}
