package org.kerasbert.qa;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.Test;

/**
 * Bad or unusual input (issue 6, "Bad input"): clear {@link QaInputException}s for an empty or
 * whitespace question or passage, and no failure, hang or misplaced answer for punctuation-only
 * questions, emoji / CJK / right-to-left text, a 5,000-word passage or a too-long question.
 */
public class BadInputTest {
    private static BertTokenizer tokenizer() {
        return Fixtures.shippedTokenizer();
    }

    private static FeatureBuilder builder() {
        return new FeatureBuilder(tokenizer());
    }

    private static void assertRejected(String question, String context, String expectedWord) {
        try {
            builder().build(question, context);
            fail("expected a QaInputException for question=" + question + " context=" + context);
        } catch (QaInputException e) {
            assertTrue(e.getMessage(), e.getMessage().contains(expectedWord));
        }
    }

    @Test
    public void emptyQuestionIsRejectedWithAClearMessage() {
        assertRejected("", "Some passage.", "question is empty");
        assertRejected(null, "Some passage.", "question is empty");
    }

    @Test
    public void whitespaceQuestionIsRejected() {
        assertRejected(" \t\n\r ", "Some passage.", "question is empty");
        assertRejected("\u00a0\u3000\u2003\u202f", "Some passage.", "question is empty");
    }

    @Test
    public void emptyOrWhitespacePassageIsRejected() {
        assertRejected("Who?", "", "passage is empty");
        assertRejected("Who?", null, "passage is empty");
        assertRejected("Who?", " \n\t\u202f ", "passage is empty");
    }

    @Test
    public void exceptionIsAnIllegalArgumentException() {
        try {
            builder().build("", "x");
            fail();
        } catch (IllegalArgumentException e) {
            assertTrue(e instanceof QaInputException);
        }
    }

    /** Logits that pick tokens {@code start..end} of window 0 (everything else far lower). */
    private static double[][][] logitsFor(Features features, int window, int start, int end) {
        int n = features.windows().size();
        int seq = features.windows().get(0).sequenceLength();
        double[][] starts = new double[n][seq];
        double[][] ends = new double[n][seq];
        for (double[] row : starts) {
            Arrays.fill(row, -10.0);
        }
        for (double[] row : ends) {
            Arrays.fill(row, -10.0);
        }
        starts[window][start] = 5.0;
        ends[window][end] = 5.0;
        return new double[][][] {starts, ends};
    }

    private static int positionOf(Window window, String token, int from) {
        for (int i = from; i < window.length(); i++) {
            if (window.tokens().get(i).equals(token) && window.isPassageToken(i)) {
                return i;
            }
        }
        throw new AssertionError(token + " not in window " + window.tokens());
    }

    @Test
    public void punctuationOnlyQuestionStillGetsWindowsAndAnswers() {
        String context = "The force of gravity pulls objects toward the Earth.";
        Features features = builder().build("?!?", context);
        assertEquals(Arrays.asList("?", "!", "?"), features.queryTokens());
        Window window = features.windows().get(0);
        assertEquals(Arrays.asList("[CLS]", "?", "!", "?", "[SEP]"), window.tokens().subList(0, 5));
        int p = positionOf(window, "gravity", 0);
        double[][][] logits = logitsFor(features, 0, p, p);
        List<Answer> answers = new AnswerDecoder().decode(features, logits[0], logits[1]);
        assertEquals("gravity", answers.get(0).text());
        assertEquals("gravity", context.substring(answers.get(0).start(), answers.get(0).end()));
    }

    @Test
    public void emojiAreUnknownTokensAndSpansStayInPlace() {
        BertTokenizer tokenizer = tokenizer();
        assertEquals(Arrays.asList("[UNK]", "em", "##oj", "##i"), tokenizer.tokenize("\uD83D\uDE00 emoji"));
        // Surrogate pairs before the answer shift UTF-16 offsets: the span must still be exact.
        String context = "\uD83C\uDF89 The team \uD83D\uDC4F won the trophy \uD83C\uDFC6 in 2019.";
        Features features = builder().build("What did they win? \uD83C\uDFC6", context);
        Window window = features.windows().get(0);
        int p = positionOf(window, "trophy", 0);
        double[][][] logits = logitsFor(features, 0, p, p);
        Answer best = new AnswerDecoder().decode(features, logits[0], logits[1]).get(0);
        assertEquals("trophy", best.text());
        assertEquals(context.indexOf("trophy"), best.start());
        assertEquals("trophy", context.substring(best.start(), best.end()));
    }

    @Test
    public void cjkCharactersAreSplitAndMappedBack() {
        BertTokenizer tokenizer = tokenizer();
        assertEquals(Arrays.asList("\u6771", "\u4eac", "\u30bf", "##\u30ef", "##\u30fc"),
                tokenizer.tokenize("\u6771\u4eac\u30bf\u30ef\u30fc"));
        String context = "Tokyo Tower (\u6771\u4eac\u30bf\u30ef\u30fc) stands in Minato.";
        Features features = builder().build("Where?", context);
        Window window = features.windows().get(0);
        int p = positionOf(window, "\u6771", 0);
        int q = positionOf(window, "\u4eac", p);
        double[][][] logits = logitsFor(features, 0, p, q);
        Answer best = new AnswerDecoder().decode(features, logits[0], logits[1]).get(0);
        assertEquals("\u6771\u4eac", best.text());
        assertEquals("\u6771\u4eac", context.substring(best.start(), best.end()));
    }

    @Test
    public void rightToLeftTextIsTokenizedAndMappedBack() {
        BertTokenizer tokenizer = tokenizer();
        List<String> arabic = tokenizer.tokenize("\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645");
        assertEquals(12, arabic.size());
        assertEquals("\u0645", arabic.get(0));
        String context = "In Hebrew one says \u05e9\u05dc\u05d5\u05dd (shalom) and in Arabic \u0645\u0631\u062d\u0628\u0627.";
        Features features = builder().build("\u05de\u05d4 \u05d6\u05d4?", context);
        Window window = features.windows().get(0);
        int p = positionOf(window, "\u0645", 0);
        int q = p;
        while (window.tokens().get(q + 1).startsWith("##")) {
            q++;
        }
        double[][][] logits = logitsFor(features, 0, p, q);
        Answer best = new AnswerDecoder().decode(features, logits[0], logits[1]).get(0);
        assertEquals("\u0645\u0631\u062d\u0628\u0627", best.text());
        assertEquals(best.text(), context.substring(best.start(), best.end()));
    }

    @Test
    public void fiveThousandWordPassageIsCoveredByWindows() {
        StringBuilder passage = new StringBuilder();
        for (int i = 0; i < 5000; i++) {
            passage.append(i % 97 == 0 ? "\n\n" : " ").append("word").append(i);
        }
        passage.append(" The treasure is buried under the old oak tree.");
        String context = passage.toString();
        Features features = builder().build("Where is the treasure buried?", context);
        int queryLength = features.queryTokens().size();
        List<Window> windows = features.windows();
        assertTrue(windows.size() > 50);
        for (Window window : windows) {
            assertEquals(384, window.sequenceLength());
            assertTrue(window.length() <= 384);
            assertEquals(BertTokenizer.SEP, window.tokens().get(window.length() - 1));
            assertTrue(window.docLength() <= 384 - queryLength - 3);
        }
        // Every passage piece is "max context" in exactly one window.
        int totalPieces = windows.get(windows.size() - 1).docStart() + windows.get(windows.size() - 1).docLength();
        int[] owners = new int[totalPieces];
        for (Window window : windows) {
            int first = window.firstPassagePosition();
            for (int i = 0; i < window.docLength(); i++) {
                if (window.isMaxContext(first + i)) {
                    owners[window.docStart() + i]++;
                }
            }
        }
        for (int count : owners) {
            assertEquals(1, count);
        }
        // The answer in the last window is found and placed exactly.
        int last = windows.size() - 1;
        Window window = windows.get(last);
        int p = positionOf(window, "oak", 0);
        int q = positionOf(window, "tree", p);
        double[][][] logits = logitsFor(features, last, p - 1, q);
        List<Answer> answers = new AnswerDecoder().decode(features, logits[0], logits[1]);
        // The span ends at "tree": the projection leaves out the "." of the word "tree.".
        assertEquals("old oak tree", answers.get(0).text());
        assertEquals("old oak tree", context.substring(answers.get(0).start(), answers.get(0).end()));
    }

    @Test
    public void longQuestionIsCutTo64Tokens() {
        StringBuilder question = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            question.append("what is this ");
        }
        Features features = builder().build(question.toString(), "A short passage.");
        assertTrue(features.questionTruncated());
        assertEquals(64, features.queryTokens().size());
        assertEquals(64 + 2, features.windows().get(0).firstPassagePosition());
    }

    @Test
    public void noValidSpanGivesAnEmptyList() {
        Features features = builder().build("Who?", "Nobody knows.");
        int seq = 384;
        double[][] starts = new double[1][seq];
        double[][] ends = new double[1][seq];
        Arrays.fill(starts[0], -10);
        Arrays.fill(ends[0], -10);
        for (int i = 0; i < 25; i++) { // the 20 best starts/ends all outside the passage
            starts[0][100 + i] = 10;
            ends[0][100 + i] = 10;
        }
        assertEquals(Collections.emptyList(), new AnswerDecoder().decode(features, starts, ends));
    }

    @Test
    public void nanLogitsDoNotBreakDecoding() {
        Features features = builder().build("Who?", "Nobody knows the answer here.");
        double[][] starts = new double[1][384];
        double[][] ends = new double[1][384];
        Arrays.fill(starts[0], Double.NaN);
        Arrays.fill(ends[0], Double.NaN);
        starts[0][6] = 1;
        ends[0][7] = 1;
        List<Answer> answers = new AnswerDecoder().decode(features, starts, ends);
        // [CLS] who ? [SEP] nobody knows the answer here . [SEP]: the only finite peaks.
        assertEquals("the answer", answers.get(0).text());
    }

    @Test(expected = IllegalArgumentException.class)
    public void logitsForTheWrongNumberOfWindowsAreRejected() {
        Features features = builder().build("Who?", "Nobody knows.");
        new AnswerDecoder().decode(features, new double[2][384], new double[2][384]);
    }

    @Test
    public void brokenVocabulariesAreRejected() {
        String[][] bad = {
            {"", "no tokens"},
            {"[PAD]\n[UNK]\n[CLS]\n", "lacks the BERT special token [SEP] (3 tokens read)"},
            {"[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n[MASK]\n",
                "Duplicate vocabulary token [MASK] at ids 4 and 5"},
            {"[PAD]\n\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n", "line 2 is empty"},
            {"[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe 12\n", "(the 12) contains whitespace"},
        };
        for (String[] vocabAndMessage : bad) {
            try {
                BertTokenizer.fromVocabText(vocabAndMessage[0]);
                fail("accepted " + vocabAndMessage[0]);
            } catch (IllegalArgumentException expected) {
                assertTrue(expected.getMessage(), expected.getMessage().contains(vocabAndMessage[1]));
            }
        }
        BertTokenizer ok = BertTokenizer.fromVocabText("[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\n[MASK]\r\nhi\r\n");
        assertArrayEquals(new int[] {5, 1}, ok.encode("hi there"));
    }

    @Test
    public void controlAndInvalidCharactersAreDropped() {
        assertEquals(Arrays.asList("ab", "c"), BertTokenizer.basicTokenize("a\u0000b\ufffd \u200bc\u0007", true));
        // A lone surrogate is kept as a character (as Python keeps it), not an error.
        assertEquals(1, BertTokenizer.basicTokenize("x\uD800y", true).size());
    }
}
