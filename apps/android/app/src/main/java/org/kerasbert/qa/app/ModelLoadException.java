package org.kerasbert.qa.app;

/** The model or its vocabulary could not be loaded; the message says what to do. */
public class ModelLoadException extends Exception {
    private static final long serialVersionUID = 1L;

    public ModelLoadException(String message, Throwable cause) {
        super(message, cause);
    }
}
