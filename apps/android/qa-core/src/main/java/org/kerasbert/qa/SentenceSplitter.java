package org.kerasbert.qa;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A text's sentences as character spans, by punctuation rules (no model): a port of
 * {@code keras_bert/retrieval/sentence_splitter.py} ({@code split_sentences}).
 *
 * <p>A sentence ends after {@code .}, {@code !} or {@code ?} (and any closing quotes or
 * brackets) when whitespace and then a capital letter or a digit follow (opening quotes or
 * brackets may come first), unless the period closes an abbreviation ({@link #ABBREVIATIONS}),
 * a single-letter initial ("J. R. R. Tolkien") or a dotted one ("U.S.", "e.g."); after the
 * CJK full stop, fullwidth {@code !} or {@code ?} whatever follows; and at a blank line,
 * always. Each span is stripped of surrounding whitespace; together the spans cover every
 * non-whitespace character of the text exactly once.
 *
 * <p>Offsets: the rules walk code points, as Python indexes a str, and the spans returned are
 * UTF-16 indices into the Java string ({@code text.substring(start, end)}), like every offset
 * of this package. Character classes follow Python's: whitespace is {@code str.isspace},
 * "capital" {@code str.isupper} (Uppercase property), "digit" {@code str.isdigit}, "letter"
 * {@code str.isalpha} and the regex {@code \w} (letters, numbers, "_"); see {@link TextRules}.
 */
public final class SentenceSplitter {
    /**
     * Words whose period does not end a sentence when a capital follows ("Dr. Smith", "St.
     * Louis", "No. 5", "et al. The"), compared lower-cased. Not "etc.", "Inc.", "Co.", "Ltd.".
     */
    public static final Set<String> ABBREVIATIONS = Collections.unmodifiableSet(new HashSet<>(
            Arrays.asList("mr", "mrs", "ms", "dr", "prof", "st", "sr", "jr", "vs", "mt", "ft",
                    "no", "nos", "fig", "figs", "al", "ca", "cf", "approx", "gen", "col", "lt",
                    "sgt", "capt", "rev", "hon", "gov", "sen", "rep", "pres", "op", "vol",
                    "pp")));

    /** Opening quotes and brackets: ' " U+2018 U+201C ( [ { U+00AB. */
    private static final String OPENERS = "'\"\u2018\u201c([{\u00ab";
    /** What may close a Latin sentence after its [.!?]+: ' " U+2019 U+201D ) ]. */
    private static final String LATIN_CLOSERS = "'\"\u2019\u201d)]";
    /** The CJK sentence ends: U+3002, U+FF01, U+FF1F. */
    private static final String CJK_ENDS = "\u3002\uff01\uff1f";
    /** What may close a CJK sentence: U+300D U+300F U+FF09 U+201D U+2019. */
    private static final String CJK_CLOSERS = "\u300d\u300f\uff09\u201d\u2019";

    private SentenceSplitter() {}

    /**
     * The sentences of {@code text}, in order, as UTF-16 {@code [start, end)} pairs
     * ({@code text.substring(span[0], span[1])} is one sentence); empty for a text with no
     * non-whitespace character.
     */
    public static List<int[]> split(String text) {
        if (text == null) {
            throw new IllegalArgumentException("The text must not be null.");
        }
        int[] offsets = TextRules.utf16Offsets(text);
        List<int[]> spans = splitCodePoints(TextRules.codePoints(text));
        for (int[] span : spans) {
            span[0] = offsets[span[0]];
            span[1] = offsets[span[1]];
        }
        return spans;
    }

    /** {@link #split} on code points, with code-point offsets (Python's). */
    static List<int[]> splitCodePoints(int[] text) {
        int n = text.length;
        TreeSet<Integer> cuts = new TreeSet<>();
        // \n[^\S\n]*\n: a blank line (non-overlapping matches, left to right).
        for (int i = 0; i < n; ) {
            if (text[i] == '\n') {
                int j = i + 1;
                while (j < n && text[j] != '\n' && TextRules.isPythonSpace(text[j])) {
                    j++;
                }
                if (j < n && text[j] == '\n') {
                    cuts.add(j + 1);
                    i = j + 1;
                    continue;
                }
            }
            i++;
        }
        // [U+3002 U+FF01 U+FF1F]+[closers]*: a CJK end, whatever follows.
        for (int i = 0; i < n; ) {
            if (in(CJK_ENDS, text[i])) {
                int j = i;
                while (j < n && in(CJK_ENDS, text[j])) {
                    j++;
                }
                while (j < n && in(CJK_CLOSERS, text[j])) {
                    j++;
                }
                cuts.add(j);
                i = j;
            } else {
                i++;
            }
        }
        // [.!?]+[closers]*(?=\s): greedy runs; a start whose run is not followed by whitespace
        // matches nowhere (backtracking cannot help: a shorter run is followed by its own
        // [.!?] or closer), so the search goes on at the next character, as finditer does.
        for (int i = 0; i < n; ) {
            if (isLatinEnd(text[i])) {
                int j = i;
                while (j < n && isLatinEnd(text[j])) {
                    j++;
                }
                while (j < n && in(LATIN_CLOSERS, text[j])) {
                    j++;
                }
                if (j < n && TextRules.isPythonSpace(text[j])) {
                    if (endsSentence(text, i, j)) {
                        cuts.add(j);
                    }
                    i = j;
                    continue;
                }
            }
            i++;
        }
        List<int[]> spans = new ArrayList<>();
        int begin = 0;
        cuts.add(n);
        for (int cut : cuts) {
            int[] span = strip(text, begin, cut);
            if (span != null) {
                spans.add(span);
            }
            begin = cut;
        }
        return spans;
    }

    private static boolean isLatinEnd(int cp) {
        return cp == '.' || cp == '!' || cp == '?';
    }

    private static boolean in(String set, int cp) {
        return cp < 0x10000 && set.indexOf(cp) >= 0;
    }

    /** Python's {@code _ends_sentence} for the match {@code text[start:end]}. */
    private static boolean endsSentence(int[] text, int start, int end) {
        int n = text.length;
        int following = end;
        while (following < n && TextRules.isPythonSpace(text[following])) {
            following++;
        }
        while (following < n && in(OPENERS, text[following])) {
            following++;
        }
        if (following >= n) {
            return true;
        }
        int next = text[following];
        if (!(TextRules.isPythonUpper(next) || TextRules.isPythonDigit(next))) {
            return false;
        }
        boolean period = text[start] == '.';
        boolean ellipsis = period && end - start >= 2 && text[start + 1] == '.';
        if (!period || ellipsis) {
            return true; // "!" and "?" and an ellipsis end a sentence before a capital
        }
        int wordStart = start;
        while (wordStart > 0 && !TextRules.isPythonSpace(text[wordStart - 1])) {
            wordStart--;
        }
        while (wordStart < start && in(OPENERS, text[wordStart])) {
            wordStart++; // .lstrip(_OPENERS)
        }
        int[] word = Arrays.copyOfRange(text, wordStart, start);
        String lower = TextRules.pythonLower(new String(word, 0, word.length));
        if (ABBREVIATIONS.contains(lower) || isDotted(word)) {
            return false;
        }
        return !(word.length == 1 && TextRules.isPythonAlpha(word[0])); // an initial
    }

    /** {@code (?:[^\W\d_]\.)+[^\W\d_]} as a full match: "U.S", "e.g", "a.m". */
    private static boolean isDotted(int[] word) {
        if (word.length < 3 || word.length % 2 == 0) {
            return false;
        }
        for (int i = 0; i < word.length; i++) {
            if (i % 2 == 1) {
                if (word[i] != '.') {
                    return false;
                }
            } else if (!isLetterClass(word[i])) {
                return false;
            }
        }
        return true;
    }

    /** {@code [^\W\d_]}: a word character that is neither a decimal digit nor "_". */
    private static boolean isLetterClass(int cp) {
        return TextRules.isPythonWordChar(cp) && !TextRules.isPythonDecimal(cp) && cp != '_';
    }

    private static int[] strip(int[] text, int start, int end) {
        while (start < end && TextRules.isPythonSpace(text[start])) {
            start++;
        }
        while (end > start && TextRules.isPythonSpace(text[end - 1])) {
            end--;
        }
        return start < end ? new int[] {start, end} : null;
    }
}
