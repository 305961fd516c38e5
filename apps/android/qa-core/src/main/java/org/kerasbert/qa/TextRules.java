package org.kerasbert.qa;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;

/**
 * The character rules of the Python pipeline, on code points (Python indexes strings by code
 * point, Java by UTF-16 unit, so everything here walks {@code codePointAt}).
 *
 * <p>Character categories come from {@link Character#getType(int)}, i.e. the JVM's (or Android
 * runtime's) Unicode version. Python 3.11 uses Unicode 14.0; Java 17 uses 13.0. Only characters
 * assigned in between can be classified differently.
 */
final class TextRules {
    private TextRules() {}

    /** The "CJK Unified Ideographs" blocks google-research/bert spaces out (inclusive ranges). */
    private static final int[][] CJK_RANGES = {
        {0x4E00, 0x9FFF},
        {0x3400, 0x4DBF},
        {0x20000, 0x2A6DF},
        {0x2A700, 0x2B73F},
        {0x2B740, 0x2B81F},
        {0x2B820, 0x2CEAF},
        {0xF900, 0xFAFF},
        {0x2F800, 0x2FA1F},
    };

    /** BasicTokenizer whitespace: space, tab, newline, carriage return and category Zs. */
    static boolean isTokenizerWhitespace(int cp) {
        return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r'
                || Character.getType(cp) == Character.SPACE_SEPARATOR;
    }

    /** BasicTokenizer control: categories Cc and Cf, except tab, newline and carriage return. */
    static boolean isControl(int cp) {
        if (cp == '\t' || cp == '\n' || cp == '\r') {
            return false;
        }
        int type = Character.getType(cp);
        return type == Character.CONTROL || type == Character.FORMAT;
    }

    /** Every non-alphanumeric printable ASCII character, plus Unicode categories P*. */
    static boolean isPunctuation(int cp) {
        if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96)
                || (cp >= 123 && cp <= 126)) {
            return true;
        }
        switch (Character.getType(cp)) {
            case Character.CONNECTOR_PUNCTUATION:
            case Character.DASH_PUNCTUATION:
            case Character.START_PUNCTUATION:
            case Character.END_PUNCTUATION:
            case Character.INITIAL_QUOTE_PUNCTUATION:
            case Character.FINAL_QUOTE_PUNCTUATION:
            case Character.OTHER_PUNCTUATION:
                return true;
            default:
                return false;
        }
    }

    static boolean isCjk(int cp) {
        for (int[] range : CJK_RANGES) {
            if (cp >= range[0] && cp <= range[1]) {
                return true;
            }
        }
        return false;
    }

    /**
     * Python's {@code str.isspace()} for one character, which {@code str.split()} and
     * {@code str.strip()} use: ASCII \t \n \v \f \r, \x1c-\x1f and space; U+0085; and
     * bidirectional classes WS/B/S or category Zs above ASCII.
     */
    static boolean isPythonSpace(int cp) {
        if (cp < 128) {
            return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F);
        }
        switch (cp) {
            case 0x85:
            case 0xA0:
            case 0x1680:
            case 0x2028:
            case 0x2029:
            case 0x202F:
            case 0x205F:
            case 0x3000:
                return true;
            default:
                return cp >= 0x2000 && cp <= 0x200A;
        }
    }

    /** squad_examples.split_on_whitespace's whitespace: space, \t, \r, \n and U+202F only. */
    static boolean isPassageWhitespace(int cp) {
        return cp == ' ' || cp == '\t' || cp == '\r' || cp == '\n' || cp == 0x202F;
    }

    /** Python's {@code str.split()} with no argument: runs of whitespace, no empty pieces. */
    static List<String> pythonSplit(String text) {
        List<String> pieces = new ArrayList<>();
        int start = -1;
        int i = 0;
        while (i < text.length()) {
            int cp = text.codePointAt(i);
            if (isPythonSpace(cp)) {
                if (start >= 0) {
                    pieces.add(text.substring(start, i));
                    start = -1;
                }
            } else if (start < 0) {
                start = i;
            }
            i += Character.charCount(cp);
        }
        if (start >= 0) {
            pieces.add(text.substring(start));
        }
        return pieces;
    }

    /** Whether Python's {@code text.strip()} would be empty. */
    static boolean isBlank(String text) {
        return pythonSplit(text).isEmpty();
    }

    /**
     * Python's {@code str.lower()}: full lower-case mapping, i.e. the simple mapping except
     * U+0130 (to "i" + U+0307) and the capital sigma, which becomes final sigma after a cased
     * letter (skipping case-ignorable characters) when no cased letter follows.
     */
    static String pythonLower(String text) {
        StringBuilder out = new StringBuilder(text.length());
        int[] cps = text.codePoints().toArray();
        for (int i = 0; i < cps.length; i++) {
            int cp = cps[i];
            if (cp == 0x130) {
                out.append('i').append('\u0307');
            } else if (cp == 0x3A3) {
                out.append(isFinalSigma(cps, i) ? '\u03C2' : '\u03C3');
            } else {
                out.appendCodePoint(Character.toLowerCase(cp));
            }
        }
        return out.toString();
    }

    /** CPython's handle_capital_sigma. */
    private static boolean isFinalSigma(int[] cps, int i) {
        int j = i - 1;
        while (j >= 0 && isCaseIgnorable(cps[j])) {
            j--;
        }
        boolean finalSigma = j >= 0 && isCased(cps[j]);
        if (finalSigma && i + 1 < cps.length) {
            j = i + 1;
            while (j < cps.length && isCaseIgnorable(cps[j])) {
                j++;
            }
            finalSigma = j == cps.length || !isCased(cps[j]);
        }
        return finalSigma;
    }

    /** Unicode's Cased property: Lowercase, Uppercase or category Lt. */
    static boolean isCased(int cp) {
        return Character.isLowerCase(cp) || Character.isUpperCase(cp) || Character.isTitleCase(cp);
    }

    /**
     * Unicode's Case_Ignorable property: categories Mn, Me, Cf, Lm, Sk, or Word_Break
     * MidLetter, MidNumLet or Single_Quote.
     */
    static boolean isCaseIgnorable(int cp) {
        switch (Character.getType(cp)) {
            case Character.NON_SPACING_MARK:
            case Character.ENCLOSING_MARK:
            case Character.FORMAT:
            case Character.MODIFIER_LETTER:
            case Character.MODIFIER_SYMBOL:
                return true;
            default:
                break;
        }
        switch (cp) {
            case 0x27: // Single_Quote
            case 0x2E: // MidNumLet: . U+2018 U+2019 U+2024 U+FE52 U+FF07 U+FF0E
            case 0x2018:
            case 0x2019:
            case 0x2024:
            case 0xFE52:
            case 0xFF07:
            case 0xFF0E:
            case 0x3A: // MidLetter: : U+00B7 U+0387 U+055F U+05F4 U+2027 U+FE13 U+FE55 U+FF1A
            case 0xB7:
            case 0x387:
            case 0x55F:
            case 0x5F4:
            case 0x2027:
            case 0xFE13:
            case 0xFE55:
            case 0xFF1A:
                return true;
            default:
                return false;
        }
    }

    /** NFD, then drop category Mn (google's _run_strip_accents). */
    static String stripAccents(String text) {
        String decomposed = Normalizer.normalize(text, Normalizer.Form.NFD);
        StringBuilder out = new StringBuilder(decomposed.length());
        int i = 0;
        while (i < decomposed.length()) {
            int cp = decomposed.codePointAt(i);
            if (Character.getType(cp) != Character.NON_SPACING_MARK) {
                out.appendCodePoint(cp);
            }
            i += Character.charCount(cp);
        }
        return out.toString();
    }

    /** Code points outside category Nd for which Python's {@code str.isdigit()} is true
     * (Numeric_Type=Digit: superscripts, subscripts, circled digits...), Unicode 14. */
    private static final int[][] NON_DECIMAL_DIGITS = {
        {0xB2, 0xB3}, {0xB9, 0xB9}, {0x1369, 0x1371}, {0x19DA, 0x19DA}, {0x2070, 0x2070},
        {0x2074, 0x2079}, {0x2080, 0x2089}, {0x2460, 0x2468}, {0x2474, 0x247C},
        {0x2488, 0x2490}, {0x24EA, 0x24EA}, {0x24F5, 0x24FD}, {0x24FF, 0x24FF},
        {0x2776, 0x277E}, {0x2780, 0x2788}, {0x278A, 0x2792}, {0x10A40, 0x10A43},
        {0x10E60, 0x10E68}, {0x11052, 0x1105A}, {0x1F100, 0x1F10A},
    };

    /** Python's {@code str.isdigit()} for one character: category Nd, or Numeric_Type=Digit. */
    static boolean isPythonDigit(int cp) {
        if (Character.getType(cp) == Character.DECIMAL_DIGIT_NUMBER) {
            return true;
        }
        for (int[] range : NON_DECIMAL_DIGITS) {
            if (cp >= range[0] && cp <= range[1]) {
                return true;
            }
        }
        return false;
    }

    /** Python's {@code str.isupper()} for one character: the Uppercase property (Lu and
     * Other_Uppercase, e.g. U+24B6), which is what {@link Character#isUpperCase(int)} tests. */
    static boolean isPythonUpper(int cp) {
        return Character.isUpperCase(cp);
    }

    /** Python's {@code str.isalpha()} for one character: categories Lu, Ll, Lt, Lm, Lo. */
    static boolean isPythonAlpha(int cp) {
        return Character.isLetter(cp);
    }

    /**
     * Python's regular-expression {@code \w} on a str: alphanumeric ({@code isalpha} or
     * {@code isnumeric}) or "_". Over Unicode 14 that is exactly categories L*, N* and "_"
     * (checked against Python 3.11 over every code point).
     */
    static boolean isPythonWordChar(int cp) {
        if (cp == '_') {
            return true;
        }
        switch (Character.getType(cp)) {
            case Character.UPPERCASE_LETTER:
            case Character.LOWERCASE_LETTER:
            case Character.TITLECASE_LETTER:
            case Character.MODIFIER_LETTER:
            case Character.OTHER_LETTER:
            case Character.DECIMAL_DIGIT_NUMBER:
            case Character.LETTER_NUMBER:
            case Character.OTHER_NUMBER:
                return true;
            default:
                return false;
        }
    }

    /** Python's regular-expression {@code \d} on a str: {@code isdecimal}, category Nd. */
    static boolean isPythonDecimal(int cp) {
        return Character.getType(cp) == Character.DECIMAL_DIGIT_NUMBER;
    }

    /** The code points of {@code text}, as Python indexes a str. */
    static int[] codePoints(String text) {
        return text.codePoints().toArray();
    }

    /**
     * {@code offsets[i]} = the UTF-16 index of code point {@code i} of {@code text}, and
     * {@code offsets[n]} = {@code text.length()}: Python (code point) offsets to Java ones.
     */
    static int[] utf16Offsets(String text) {
        int n = text.codePointCount(0, text.length());
        int[] offsets = new int[n + 1];
        int at = 0;
        for (int i = 0; i < n; i++) {
            offsets[i] = at;
            at += Character.charCount(text.codePointAt(at));
        }
        offsets[n] = at;
        return offsets;
    }

    /** Joins with one space, as Python's {@code " ".join(items)}. */
    static String joinSpace(List<String> items) {
        return String.join(" ", items);
    }
}
