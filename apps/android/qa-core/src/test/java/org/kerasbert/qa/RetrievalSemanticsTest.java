package org.kerasbert.qa;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/**
 * Python behaviours of the retrieval port that the golden fixture does not reach: characters
 * outside the BMP (Python offsets count them once, Java's twice), Python's Unicode
 * {@code isupper}/{@code isdigit}/{@code \w}, overlong sentences cut into word runs and a word
 * cut by characters. Expected values: the Python reference ({@code split_sentences},
 * {@code PassageSplitter}, {@code word_tokens}, {@code Bm25Ranker}) run on the same inputs,
 * offsets in code points.
 */
public class RetrievalSemanticsTest {
    private static void assertSentences(String text, int[][] codePointSpans) {
        List<int[]> spans = SentenceSplitter.split(text);
        assertEquals(text, codePointSpans.length, spans.size());
        for (int i = 0; i < spans.size(); i++) {
            int[] e = codePointSpans[i];
            assertArrayEquals(text + " sentence " + i, new int[] {
                    RetrievalGoldenTest.utf16(text, e[0]), RetrievalGoldenTest.utf16(text, e[1])},
                    spans.get(i));
        }
        assertArrayEquals(codePointSpans, SentenceSplitter.splitCodePoints(
                text.codePoints().toArray()).toArray(new int[0][]));
    }

    @Test
    public void sentencesAfterEmojiUseCodePointRulesAndUtf16Offsets() {
        // The emoji before "Ok" is a one-character word that is not a letter: not an initial.
        assertSentences("\uD83D\uDE00 Hi there. \uD83D\uDE00 Then \u24b6 came. \u00b2 is small. Mr. \uD83D\uDE00. Ok",
                new int[][] {{0, 26}, {27, 38}, {39, 45}, {46, 48}});
        assertSentences("Emoji \uD83D\uDE80\uD83D\uDE80. Next one! \u00abQuoted\u00bb. x.y. Z. a. B",
                new int[][] {{0, 9}, {10, 19}, {20, 42}});
        assertSentences("He said \u201cstop.\u201d Then left. Version 2.0. Is out. U.S. Army. A.b. C",
                new int[][] {{0, 15}, {16, 26}, {27, 39}, {40, 47}, {48, 58}, {59, 65}});
    }

    @Test
    public void capitalsAndDigitsArePythons() {
        // U+24B6 (So, Other_Uppercase) is a capital; superscript one is a digit; U+01C5 (Lt) is
        // not upper; "Fig." before a digit and "St." inside quotes do not end sentences.
        assertSentences("Circled. \u24b6 starts. Superscript. \u00b9 too. Title \u01c5 no. \u01c5 Next. "
                + "Fig. 2 shows. \u201cSt. Louis\u201d. (Dr. No) . \u3002ok",
                new int[][] {{0, 8}, {9, 18}, {19, 31}, {32, 38}, {39, 58}, {59, 72}, {73, 85},
                        {86, 98}, {98, 100}});
        assertTrue(TextRules.isPythonUpper(0x24B6));
        assertFalse(TextRules.isPythonUpper(0x01C5));
        assertTrue(TextRules.isPythonDigit(0xB9));
        assertTrue(TextRules.isPythonDigit(0x1F100));
        assertFalse(TextRules.isPythonDigit(0xBD)); // one half: numeric, not a digit
        assertTrue(TextRules.isPythonWordChar(0xBD));
        assertFalse(TextRules.isPythonWordChar(0x0307));
    }

    @Test
    public void wordTokensFollowPythonLowerAndUnicodeWordCharacters() {
        // Python: "\u0130".lower() is "i" + U+0307, which is not \w: two terms.
        assertEquals(Arrays.asList("i", "stanbul", "\u00b2x_y", "caf\u00e9", "\u6771\u4eac",
                "\u03bf\u03b4\u03c5\u03c3\u03c3\u03b5\u03c5\u03c2", "a", "b", "\uD835\uDFD8z"),
                Bm25Ranker.wordTokens("\u0130stanbul \u00b2x_y caf\u00e9 \u6771\u4eac "
                        + "\u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3 a-b \uD835\uDFD8z"));
    }

    @Test
    public void bm25RepeatedTermsEmptyPassagesAndTies() {
        Bm25Ranker ranker = new Bm25Ranker(Arrays.asList("\uD83D\uDE00 alpha beta",
                "beta beta gamma", "delta", ""));
        String query = "beta alpha beta zeta";
        double[] expected = {2.2794351055923276, 1.4877305338847608, 0.0, 0.0};
        double[] scores = ranker.scores(query);
        for (int i = 0; i < expected.length; i++) {
            RetrievalGoldenTest.assertClose("passage " + i, expected[i], scores[i]);
        }
        RetrievalGoldenTest.assertClose("bound", 10.76427496856772, ranker.scoreBound(query));
        assertArrayEquals(new int[] {0, 1, 2, 3}, ranker.rank(query));
        assertArrayEquals(new int[] {0, 1}, ranker.rank(query, 2));
        assertEquals(0, new Bm25Ranker(Arrays.asList()).scores("x").length);
        assertEquals(0.0, new Bm25Ranker(Arrays.asList("", "")).scores("x")[1], 0.0);
    }

    private static final String LONG_DOCUMENT = "Short one. "
            + "Pneumonoultramicroscopicsilicovolcanoconiosis\uD83D\uDE00\uD83D\uDE00abc and more "
            + "words follow here in this long sentence with many tokens. End \uD83D\uDE00 here.";

    private static void assertPassages(int maxTokens, int overlap, int[][] codePointSpans) {
        BertTokenizer tokenizer = Fixtures.shippedTokenizer();
        List<Passage> passages = new PassageSplitter(tokenizer, maxTokens, overlap).split(LONG_DOCUMENT);
        assertEquals(codePointSpans.length, passages.size());
        for (int i = 0; i < passages.size(); i++) {
            int[] e = codePointSpans[i];
            Passage p = passages.get(i);
            assertArrayEquals(maxTokens + "/" + overlap + " passage " + i, new int[] {
                    RetrievalGoldenTest.utf16(LONG_DOCUMENT, e[0]),
                    RetrievalGoldenTest.utf16(LONG_DOCUMENT, e[1]), e[2]},
                    new int[] {p.start(), p.end(), p.numTokens()});
            assertEquals(LONG_DOCUMENT.substring(p.start(), p.end()), p.text());
            assertTrue(p.numTokens() <= maxTokens);
        }
    }

    @Test
    public void overlongSentencesBecomeWordRunsAndLongWordsAreCutByCodePoints() {
        assertPassages(6, 3, new int[][] {{0, 70, 6}, {11, 88, 6}, {71, 101, 6}, {89, 120, 6},
                {102, 128, 6}, {129, 140, 4}});
        assertPassages(8, 0, new int[][] {{0, 10, 3}, {11, 96, 8}, {97, 128, 7}, {129, 140, 4}});
        assertPassages(12, 4, new int[][] {{0, 96, 11}, {77, 128, 11}, {121, 140, 7}});
    }

    @Test
    public void passagesCoverEveryCharacterOfTheArticle() {
        String document = RetrievalGoldenTest.rhine();
        List<Passage> passages = RetrievalGoldenTest.splitter().split(document);
        boolean[] covered = new boolean[document.length()];
        int previousStart = -1;
        for (Passage p : passages) {
            assertTrue(p.start() > previousStart);
            previousStart = p.start();
            Arrays.fill(covered, p.start(), p.end(), true);
        }
        for (int i = 0; i < covered.length; i++) {
            assertTrue("character " + i, covered[i] || TextRules.isPythonSpace(document.charAt(i)));
        }
        assertEquals(0, new PassageSplitter(Fixtures.shippedTokenizer()).split(" \n\t ").size());
    }
}
