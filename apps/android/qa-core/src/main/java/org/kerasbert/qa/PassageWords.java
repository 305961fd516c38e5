package org.kerasbert.qa;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A passage split into whitespace words as {@code squad_examples.split_on_whitespace} does
 * (whitespace = space, \t, \r, \n and U+202F only), with each word's UTF-16 start offset in the
 * passage, so an answer can be mapped back to its true position.
 */
public final class PassageWords {
    private final String context;
    private final List<String> words;
    private final int[] wordStarts;

    private PassageWords(String context, List<String> words, int[] wordStarts) {
        this.context = context;
        this.words = Collections.unmodifiableList(words);
        this.wordStarts = wordStarts;
    }

    public static PassageWords split(String context) {
        List<String> words = new ArrayList<>();
        List<Integer> starts = new ArrayList<>();
        int wordStart = -1;
        int i = 0;
        while (i < context.length()) {
            int cp = context.codePointAt(i);
            if (TextRules.isPassageWhitespace(cp)) {
                if (wordStart >= 0) {
                    words.add(context.substring(wordStart, i));
                    starts.add(wordStart);
                    wordStart = -1;
                }
            } else if (wordStart < 0) {
                wordStart = i;
            }
            i += Character.charCount(cp);
        }
        if (wordStart >= 0) {
            words.add(context.substring(wordStart));
            starts.add(wordStart);
        }
        int[] startArray = new int[starts.size()];
        for (int k = 0; k < startArray.length; k++) {
            startArray[k] = starts.get(k);
        }
        return new PassageWords(context, words, startArray);
    }

    public String context() {
        return context;
    }

    public List<String> words() {
        return words;
    }

    public int size() {
        return words.size();
    }

    /** UTF-16 offset in the passage where word {@code index} starts. */
    public int wordStart(int index) {
        return wordStarts[index];
    }

    /** UTF-16 offset in the passage just after word {@code index}. */
    public int wordEnd(int index) {
        return wordStarts[index] + words.get(index).length();
    }
}
