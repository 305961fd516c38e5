package org.kerasbert.qa;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * BERT's FullTokenizer (google-research/bert BasicTokenizer + WordPiece), a port of
 * {@code keras_bert/tokenization/reference_tokenizer.py} with the same results.
 *
 * <p>Basic tokenization: drop NUL, U+FFFD and Cc/Cf characters; whitespace (incl. Zs) becomes a
 * space; CJK ideographs get spaces around them; split on whitespace; with {@code doLowerCase},
 * lower-case each whole word (Python's {@code str.lower()}) and strip accents (NFD, drop Mn);
 * split off punctuation. WordPiece: greedy longest match first with {@code ##} continuations; a
 * word longer than {@code maxInputCharsPerWord} code points, or with an unmatchable piece, is one
 * {@code [UNK]}.
 */
public final class BertTokenizer {
    public static final String UNK = "[UNK]";
    public static final String CLS = "[CLS]";
    public static final String SEP = "[SEP]";
    public static final String PAD = "[PAD]";
    /** google-research/bert's default. */
    public static final int MAX_INPUT_CHARS_PER_WORD = 200;

    private static final String[] SPECIAL_TOKENS = {PAD, UNK, CLS, SEP, "[MASK]"};

    private final List<String> vocabulary;
    private final Map<String, Integer> tokenToId;
    private final boolean doLowerCase;
    private final int maxInputCharsPerWord;
    private final int unkId;

    public BertTokenizer(List<String> vocabulary) {
        this(vocabulary, true, MAX_INPUT_CHARS_PER_WORD);
    }

    /**
     * @param vocabulary the tokens in id order (id = position); must hold [PAD], [UNK], [CLS],
     *     [SEP] and [MASK], no empty, duplicate or whitespace-containing token.
     */
    public BertTokenizer(List<String> vocabulary, boolean doLowerCase, int maxInputCharsPerWord) {
        if (vocabulary == null || vocabulary.isEmpty()) {
            throw new IllegalArgumentException("The vocabulary has no tokens.");
        }
        if (maxInputCharsPerWord < 1) {
            throw new IllegalArgumentException(
                    "maxInputCharsPerWord must be >= 1, got " + maxInputCharsPerWord + ".");
        }
        Map<String, Integer> index = new HashMap<>(vocabulary.size() * 2);
        for (int i = 0; i < vocabulary.size(); i++) {
            String token = vocabulary.get(i);
            if (token == null || token.isEmpty()) {
                throw new IllegalArgumentException("Vocabulary entry " + i + " is empty.");
            }
            for (int k = 0; k < token.length(); k++) {
                if (TextRules.isPythonSpace(token.charAt(k))) {
                    throw new IllegalArgumentException("Vocabulary entry " + i + " ("
                            + token + ") contains whitespace: one token per line, no counts.");
                }
            }
            Integer previous = index.put(token, i);
            if (previous != null) {
                throw new IllegalArgumentException("Duplicate vocabulary token " + token
                        + " at ids " + previous + " and " + i + ".");
            }
        }
        for (String special : SPECIAL_TOKENS) {
            if (!index.containsKey(special)) {
                throw new IllegalArgumentException("The vocabulary lacks the BERT special token "
                        + special + " (" + vocabulary.size() + " tokens read): is it a vocab.txt?");
            }
        }
        this.vocabulary = Collections.unmodifiableList(new ArrayList<>(vocabulary));
        this.tokenToId = index;
        this.doLowerCase = doLowerCase;
        this.maxInputCharsPerWord = maxInputCharsPerWord;
        this.unkId = index.get(UNK);
    }

    /** Parses vocab.txt content: one token per line, "\n" (or "\r\n") line ends, id = line. */
    public static List<String> parseVocabulary(String text) {
        String[] lines = text.split("\n", -1);
        int count = lines.length;
        if (count > 0 && lines[count - 1].isEmpty()) {
            count--; // the newline that ends the last line starts no token
        }
        List<String> tokens = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String line = lines[i];
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            if (line.isEmpty()) {
                throw new IllegalArgumentException(
                        "vocab.txt line " + (i + 1) + " is empty; every line must be a token.");
            }
            tokens.add(line);
        }
        return tokens;
    }

    public static BertTokenizer fromVocabText(String text) {
        return new BertTokenizer(parseVocabulary(text));
    }

    /** Reads a UTF-8 vocab.txt (e.g. an Android asset); does not close the stream. */
    public static BertTokenizer fromVocabStream(InputStream stream) throws IOException {
        return fromVocabText(readAll(new InputStreamReader(stream, StandardCharsets.UTF_8)));
    }

    private static String readAll(Reader reader) throws IOException {
        StringBuilder out = new StringBuilder();
        char[] buffer = new char[8192];
        BufferedReader buffered = new BufferedReader(reader);
        int n;
        while ((n = buffered.read(buffer)) > 0) {
            out.append(buffer, 0, n);
        }
        return out.toString();
    }

    public boolean doLowerCase() {
        return doLowerCase;
    }

    public int vocabularySize() {
        return vocabulary.size();
    }

    public List<String> vocabulary() {
        return vocabulary;
    }

    /** The WordPiece tokens of {@code text}. */
    public List<String> tokenize(String text) {
        List<String> tokens = new ArrayList<>();
        for (String word : basicTokenize(text)) {
            tokens.addAll(wordpiece(word));
        }
        return tokens;
    }

    public int[] encode(String text) {
        return convertTokensToIds(tokenize(text));
    }

    /** Ids of {@code tokens}; a token not in the vocabulary maps to [UNK]'s id. */
    public int[] convertTokensToIds(List<String> tokens) {
        int[] ids = new int[tokens.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = idOf(tokens.get(i));
        }
        return ids;
    }

    public int idOf(String token) {
        Integer id = tokenToId.get(token);
        return id == null ? unkId : id;
    }

    public String tokenOf(int id) {
        if (id < 0 || id >= vocabulary.size()) {
            throw new IndexOutOfBoundsException(
                    "Token id " + id + " is outside the vocabulary [0, " + vocabulary.size() + ").");
        }
        return vocabulary.get(id);
    }

    /** google's BasicTokenizer with this tokenizer's lower-casing. */
    public List<String> basicTokenize(String text) {
        return basicTokenize(text, doLowerCase);
    }

    /** google's BasicTokenizer (needs no vocabulary). */
    public static List<String> basicTokenize(String text, boolean doLowerCase) {
        if (text == null) {
            throw new IllegalArgumentException("Text must not be null.");
        }
        StringBuilder cleaned = new StringBuilder(text.length() + 16);
        int i = 0;
        while (i < text.length()) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == 0 || cp == 0xFFFD || TextRules.isControl(cp)) {
                continue;
            }
            if (TextRules.isTokenizerWhitespace(cp)) {
                cleaned.append(' ');
            } else if (TextRules.isCjk(cp)) {
                cleaned.append(' ').appendCodePoint(cp).append(' ');
            } else {
                cleaned.appendCodePoint(cp);
            }
        }
        List<String> words = new ArrayList<>();
        for (String word : TextRules.pythonSplit(cleaned.toString())) {
            if (doLowerCase) {
                // Whole words, not characters: Python picks final sigma from the neighbours.
                word = TextRules.stripAccents(TextRules.pythonLower(word));
            }
            splitOnPunctuation(word, words);
        }
        // Re-split, as google does: drops the empty words accent stripping leaves behind.
        return TextRules.pythonSplit(TextRules.joinSpace(words));
    }

    private static void splitOnPunctuation(String word, List<String> out) {
        StringBuilder current = null;
        int i = 0;
        while (i < word.length()) {
            int cp = word.codePointAt(i);
            i += Character.charCount(cp);
            if (TextRules.isPunctuation(cp)) {
                if (current != null) {
                    out.add(current.toString());
                    current = null;
                }
                out.add(new String(Character.toChars(cp)));
            } else {
                if (current == null) {
                    current = new StringBuilder();
                }
                current.appendCodePoint(cp);
            }
        }
        if (current != null) {
            out.add(current.toString());
        }
    }

    /** WordPiece of one basic-tokenized word: greedy longest match first. */
    public List<String> wordpiece(String word) {
        int[] cps = word.codePoints().toArray();
        List<String> pieces = new ArrayList<>();
        if (cps.length > maxInputCharsPerWord) {
            pieces.add(UNK);
            return pieces;
        }
        int start = 0;
        while (start < cps.length) {
            int end = cps.length;
            String found = null;
            while (end > start) {
                String sub = new String(cps, start, end - start);
                String piece = start == 0 ? sub : "##" + sub;
                if (tokenToId.containsKey(piece)) {
                    found = piece;
                    break;
                }
                end--;
            }
            if (found == null) {
                pieces.clear();
                pieces.add(UNK); // one unmatchable piece makes the whole word unknown
                return pieces;
            }
            pieces.add(found);
            start = end;
        }
        return pieces;
    }
}
