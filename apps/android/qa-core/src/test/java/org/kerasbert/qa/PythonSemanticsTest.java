package org.kerasbert.qa;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/** The Python behaviours the port must copy; expected values come from the Python pipeline. */
public class PythonSemanticsTest {
    private static final String[] SPECIALS = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};

    private static BertTokenizer small(String... tokens) {
        String[] all = Arrays.copyOf(SPECIALS, SPECIALS.length + tokens.length);
        System.arraycopy(tokens, 0, all, SPECIALS.length, tokens.length);
        return new BertTokenizer(Arrays.asList(all));
    }

    @Test
    public void googleDocstringExample() {
        BertTokenizer tokenizer = small("un", "##want", "##ed", ",");
        assertEquals(Arrays.asList("un", "##want", "##ed", ",", "[UNK]"),
                tokenizer.tokenize("UNwant\u00E9d, running"));
        assertArrayEquals(new int[] {5, 6, 7}, tokenizer.encode("unwanted"));
    }

    @Test
    public void wholeWordLowerCasingPicksFinalSigma() {
        // Python: "ΟΔΥΣΣΕΥΣ".lower() == "οδυσσευς"; "ΑΣ." -> "ας"; "ΑΣ'Α" -> "ασ'α"; "Σ" -> "σ"
        assertEquals(Arrays.asList("\u03bf\u03b4\u03c5\u03c3\u03c3\u03b5\u03c5\u03c2"),
                BertTokenizer.basicTokenize("\u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3", true));
        assertEquals(Arrays.asList("\u03b1\u03c2", "."), BertTokenizer.basicTokenize("\u0391\u03a3.", true));
        assertEquals(Arrays.asList("\u03b1\u03c3", "'", "\u03b1"),
                BertTokenizer.basicTokenize("\u0391\u03a3'\u0391", true));
        assertEquals(Arrays.asList("\u03c3"), BertTokenizer.basicTokenize("\u03a3", true));
        assertEquals(Arrays.asList("istanbul"), BertTokenizer.basicTokenize("\u0130stanbul", true));
    }

    @Test
    public void combiningMarksAloneVanish() {
        assertEquals(Arrays.asList("x", "y"), BertTokenizer.basicTokenize("x\u0301\u0302 \u0301 y", true));
        // Compatibility characters are not decomposed (NFD, not NFKD).
        assertEquals(Arrays.asList("\ufb01ne"), BertTokenizer.basicTokenize("\ufb01ne", true));
    }

    @Test
    public void wordsLongerThan200CodePointsAreUnknown() {
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            word.appendCodePoint(0x1D400); // 200 code points, 400 UTF-16 units
        }
        BertTokenizer tokenizer = small("\uD835\uDC00", "##\uD835\uDC00");
        assertEquals(200, tokenizer.tokenize(word.toString()).size());
        assertEquals(Arrays.asList("[UNK]"), tokenizer.tokenize(word.toString() + "\uD835\uDC00"));
    }

    @Test
    public void passageWordsUseTheSquadWhitespaceOnly() {
        PassageWords words = PassageWords.split("  a\u00a0b\tc\u202fd\n\ne\uD83D\uDE00f ");
        assertEquals(Arrays.asList("a\u00a0b", "c", "d", "e\uD83D\uDE00f"), words.words());
        assertEquals(2, words.wordStart(0));
        assertEquals(6, words.wordStart(1));
        assertEquals(8, words.wordStart(2));
        assertEquals(11, words.wordStart(3));
        assertEquals(15, words.wordEnd(3));
    }

    @Test
    public void projectionKeepsOriginalCaseAndAccents() {
        Projection p = AnswerDecoder.projectToOriginalText("steve smith", "Steve Smith's", true);
        assertEquals("Steve Smith", p.text());
        assertEquals(0, p.offset());
        assertFalse(p.fallback());
        p = AnswerDecoder.projectToOriginalText("zola and andre", "\u00c9mile Zola and Andr\u00e9 Gide", true);
        assertEquals("Zola and Andr\u00e9", p.text());
        assertEquals(6, p.offset());
        assertEquals("1895", AnswerDecoder.projectToOriginalText("1895", "(1895-1943)", true).text());
        Projection missing = AnswerDecoder.projectToOriginalText("nothing", "Steve Smith's", true);
        assertTrue(missing.fallback());
        assertEquals("Steve Smith's", missing.text());
    }

    @Test
    public void projectionOffsetsAreUtf16() {
        Projection p = AnswerDecoder.projectToOriginalText("trophy", "\uD83C\uDFC6 Trophy!", true);
        assertEquals("Trophy", p.text());
        assertEquals(3, p.offset());
    }

    @Test
    public void topIndicesAreStableLikeNumpyArgsort() {
        double[] logits = {1.0, 3.0, 3.0, 2.0, -0.0, 0.0, Double.NaN, 3.0};
        assertArrayEquals(new int[] {1, 2, 7, 3, 0, 4, 5, 6}, AnswerDecoder.topIndices(logits, 20));
        assertArrayEquals(new int[] {1, 2}, AnswerDecoder.topIndices(logits, 2));
        double[] zeros = {0.0, -0.0, 0.0};
        assertArrayEquals(new int[] {0, 1, 2}, AnswerDecoder.topIndices(zeros, 3));
    }

    @Test
    public void softmaxMatchesPython() {
        // Python: _softmax([2.0, 1.0, 0.5]) -> [0.6285317192117624, 0.23122389762214907, 0.14024438316608848]
        double[] p = AnswerDecoder.softmax(new double[] {2.0, 1.0, 0.5});
        assertEquals(0.6285317192117624, p[0], 1e-15);
        assertEquals(0.23122389762214907, p[1], 1e-15);
        assertEquals(0.14024438316608848, p[2], 1e-15);
        assertEquals(0, AnswerDecoder.softmax(new double[0]).length);
    }

    @Test
    public void docWindowsAndMaxContextFollowGoogle() {
        List<int[]> windows = FeatureBuilder.docWindows(700, 300, 128);
        // Python: _doc_windows(700, 300, 128) == [(0, 300), (128, 300), (256, 300), (384, 300), (512, 188)]
        assertEquals(5, windows.size());
        assertArrayEquals(new int[] {0, 300}, windows.get(0));
        assertArrayEquals(new int[] {128, 300}, windows.get(1));
        assertArrayEquals(new int[] {256, 300}, windows.get(2));
        assertArrayEquals(new int[] {384, 300}, windows.get(3));
        assertArrayEquals(new int[] {512, 188}, windows.get(4)); // 512 + 188 >= 700: the last
        assertEquals(1, FeatureBuilder.docWindows(0, 300, 128).size());
        // position 200: window 0 -> min(200, 99)=99, window 1 -> min(72, 227)=72
        assertTrue(FeatureBuilder.isMaxContext(windows, 0, 200));
        assertFalse(FeatureBuilder.isMaxContext(windows, 1, 200));
    }
}
