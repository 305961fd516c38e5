package org.kerasbert.qa;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import org.junit.Test;

/** Bad input to the retrieval port: clear messages, never a wrong answer. */
public class RetrievalBadInputTest {
    private static final String DOCUMENT = "The Rhine rises in the Swiss Alps. It flows to the North Sea.";

    private static DocumentQa qa() {
        return DocumentQa.builder(new FeatureBuilder(Fixtures.shippedTokenizer()),
                DocumentQaTest.HASH_READER).build();
    }

    private static void assertMessage(Runnable call, Class<? extends RuntimeException> type,
            String... parts) {
        try {
            call.run();
        } catch (RuntimeException e) {
            assertTrue("expected " + type.getSimpleName() + ", got " + e, type.isInstance(e));
            for (String part : parts) {
                assertTrue("'" + e.getMessage() + "' lacks '" + part + "'",
                        e.getMessage().contains(part));
            }
            return;
        }
        fail("no " + type.getSimpleName());
    }

    @Test
    public void emptyDocumentIsAUserMessage() {
        for (String document : new String[] {"", "   ", "\n\n\t\u3000", null}) {
            assertMessage(() -> qa().answer("Where does the Rhine rise?", document),
                    QaInputException.class, "The document is empty");
            assertMessage(() -> qa().passages(document), QaInputException.class, "document is empty");
        }
    }

    @Test
    public void emptyQuestionIsAUserMessage() {
        for (String question : new String[] {"", "  \t", "\u2003", null}) {
            assertMessage(() -> qa().answer(question, DOCUMENT), QaInputException.class,
                    "The question is empty", "document");
            assertMessage(() -> qa().answers(question, DOCUMENT, 3, 0), QaInputException.class,
                    "The question is empty");
        }
        // The question is checked first, as in Python.
        assertMessage(() -> qa().answer("", ""), QaInputException.class, "The question is empty");
    }

    @Test
    public void punctuationOnlyQuestionStillAnswersFromTheDocument() {
        DocumentQa qa = DocumentQa.builder(new FeatureBuilder(Fixtures.shippedTokenizer()),
                new DocumentQaTest.TokenReader(Arrays.asList("alps"), Arrays.asList(0f))).build();
        DocumentAnswer a = qa.answer("???", DOCUMENT);
        assertEquals("Alps", a.text());
        assertEquals(DOCUMENT.indexOf("Alps"), a.start());
        assertEquals(0.0, qa().retrieve("???", DOCUMENT, 1).get(0).bm25Match(), 0.0);
    }

    @Test
    public void calibratorFilesThatAreNotCalibrators() {
        assertMessage(() -> AnswerCalibrator.fromJson("{\"features\": [\"span_logit\"],"),
                IllegalArgumentException.class, "Not a calibrator's JSON");
        assertMessage(() -> AnswerCalibrator.fromJson("[1, 2]"), IllegalArgumentException.class,
                "an object");
        assertMessage(() -> AnswerCalibrator.fromJson("{\"features\": [\"span_logit\"], \"bias\": 1}"),
                IllegalArgumentException.class, "lacks [weights]");
        assertMessage(() -> AnswerCalibrator.fromJson(
                "{\"features\": [\"logit\"], \"weights\": [1], \"bias\": 0}"),
                IllegalArgumentException.class, "Unknown calibrator features [logit]");
        assertMessage(() -> AnswerCalibrator.fromJson(
                "{\"features\": [\"span_logit\"], \"weights\": [1, 2], \"bias\": 0}"),
                IllegalArgumentException.class, "2 weights for 1 features");
        assertMessage(() -> AnswerCalibrator.fromJson(
                "{\"features\": [\"span_logit\"], \"weights\": [1], \"bias\": 0, \"threshold\": 1.5}"),
                IllegalArgumentException.class, "threshold=1.5");
        assertMessage(() -> AnswerCalibrator.fromJson(
                "{\"features\": [\"span_logit\"], \"weights\": [\"1\"], \"bias\": 0}"),
                IllegalArgumentException.class, "weights[0] is a number");
        assertMessage(() -> AnswerCalibrator.fromJson(
                "{\"features\": \"span_logit\", \"weights\": [1], \"bias\": 0}"),
                IllegalArgumentException.class, "features is a list");
        // Whole numbers, a default threshold, info read for the pipeline's defaults.
        AnswerCalibrator c = AnswerCalibrator.fromJson("{\"features\": [\"span_logit\", "
                + "\"inverse_rank\"], \"weights\": [1, -2.5e-1], \"bias\": -3, "
                + "\"info\": {\"ranker\": \"bm25\", \"passages\": 4, \"note\": [1]}}");
        assertEquals(0.5, c.threshold(), 0.0);
        assertEquals("bm25", c.ranker());
        assertEquals(4, c.passages());
        assertEquals(-0.25, c.weights()[1], 0.0);
    }

    @Test
    public void calibratorFromAStream() throws Exception {
        String json = "{\"features\": [\"span_logit\"], \"weights\": [2.0], \"bias\": -1.0, "
                + "\"threshold\": 0.4, \"info\": {}}";
        AnswerCalibrator c = AnswerCalibrator.fromStream(
                new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
        SpanFeatures f = SpanFeatures.of(0.25, 0.25, new WindowStatistics(0, 0, 1, 1), null, null, 1);
        assertEquals(0.5, c.probability(f), 0.0); // sigmoid(2 * 0.5 - 1)
        assertTrue(c.abstains(0.39));
    }

    @Test
    public void aCalibratorNeedingTheCosineNeedsAnEmbedder() {
        AnswerCalibrator cosine = new AnswerCalibrator(Arrays.asList("cosine"), new double[] {1},
                0.0);
        SpanFeatures f = SpanFeatures.of(1, 1, new WindowStatistics(0, 0, 1, 1), null, 0.5, 1);
        assertMessage(() -> cosine.probability(f), IllegalArgumentException.class,
                "needs the feature 'cosine'", "embedder");
        FeatureBuilder features = new FeatureBuilder(Fixtures.shippedTokenizer());
        assertMessage(() -> DocumentQa.builder(features, DocumentQaTest.HASH_READER)
                .calibrator(cosine).build(), IllegalArgumentException.class, "needs an embedder");
        assertMessage(() -> DocumentQa.builder(features, DocumentQaTest.HASH_READER)
                .ranker("dense").build(), IllegalArgumentException.class, "needs an embedder");
        assertMessage(() -> DocumentQa.builder(features, DocumentQaTest.HASH_READER)
                .ranker("tfidf").build(), IllegalArgumentException.class, "choose from [bm25, dense, rrf]");
        assertMessage(() -> DocumentQa.builder(features, DocumentQaTest.HASH_READER).passages(0),
                IllegalArgumentException.class, "read at least 1 passage");
        assertMessage(() -> DocumentQa.builder(features, null).build(),
                IllegalArgumentException.class, "Reader");
    }

    @Test
    public void brokenReadersAndEmbeddersAreNamed() {
        FeatureBuilder features = new FeatureBuilder(Fixtures.shippedTokenizer());
        DocumentQa shortLogits = DocumentQa.builder(features,
                window -> new float[][] {new float[10], new float[10]}).build();
        assertMessage(() -> shortLogits.answer("Where?", DOCUMENT), IllegalStateException.class,
                "384 values");
        DocumentQa nothing = DocumentQa.builder(features, window -> null).build();
        assertMessage(() -> nothing.answer("Where?", DOCUMENT), IllegalStateException.class,
                "{start, end}");
        DocumentQa noRows = DocumentQa.builder(features, DocumentQaTest.HASH_READER)
                .ranker("dense").embedder(texts -> new float[0][]).build();
        assertMessage(() -> noRows.answer("Where?", DOCUMENT), IllegalStateException.class,
                "one embedding per text");
        PassageSplitter small = new PassageSplitter(Fixtures.shippedTokenizer(), 10, 2);
        DocumentQa ragged = DocumentQa.builder(features, DocumentQaTest.HASH_READER)
                .splitter(small).ranker("rrf").embedder(texts -> {
                    float[][] rows = new float[texts.size()][];
                    for (int i = 0; i < rows.length; i++) {
                        rows[i] = new float[i + 1];
                    }
                    return rows;
                }).build();
        assertEquals(2, small.split(DOCUMENT).size());
        assertMessage(() -> ragged.answer("Where?", DOCUMENT), IllegalStateException.class,
                "one, nonzero length");
        DocumentQa mismatched = DocumentQa.builder(features, DocumentQaTest.HASH_READER)
                .ranker("dense").embedder(texts -> {
                    float[][] rows = new float[texts.size()][];
                    for (int i = 0; i < rows.length; i++) {
                        rows[i] = new float[texts.get(i).length() < 10 ? 3 : 4];
                    }
                    return rows;
                }).build();
        assertMessage(() -> mismatched.answer("Where?", DOCUMENT), IllegalStateException.class,
                "3 dimensions and the passages 4");
        // A zero embedding (e.g. a text with no letters for the fake) is a zero cosine, not NaN.
        DocumentQa zero = DocumentQa.builder(features, DocumentQaTest.HASH_READER)
                .ranker("dense").embedder(texts -> new float[texts.size()][4]).build();
        assertEquals(0.0, zero.retrieve("Where?", DOCUMENT, 1).get(0).cosine(), 0.0);
    }

    @Test
    public void badArgumentsToTheParts() {
        BertTokenizer tokenizer = Fixtures.shippedTokenizer();
        assertMessage(() -> new PassageSplitter(tokenizer, 0, 0), IllegalArgumentException.class,
                "maxTokens=0");
        assertMessage(() -> new PassageSplitter(tokenizer, 10, 10), IllegalArgumentException.class,
                "overlapTokens=10");
        assertMessage(() -> new PassageSplitter(null), IllegalArgumentException.class, "tokenizer");
        assertMessage(() -> new PassageSplitter(tokenizer).split(null), IllegalArgumentException.class,
                "null");
        assertMessage(() -> SentenceSplitter.split(null), IllegalArgumentException.class, "null");
        assertEquals(Collections.emptyList(), SentenceSplitter.split(""));
        assertMessage(() -> new Bm25Ranker(Arrays.asList("a"), -1, 0.5),
                IllegalArgumentException.class, "k1 >= 0");
        assertMessage(() -> new Bm25Ranker(Arrays.asList("a"), 1.2, 1.5),
                IllegalArgumentException.class, "0 <= b <= 1");
        assertMessage(() -> RankFusion.fuse(new int[] {0, 1}, new int[] {0}),
                IllegalArgumentException.class, "same items");
        assertMessage(() -> RankFusion.fuse(new int[] {0, 2}), IllegalArgumentException.class,
                "not in [0, 2)");
        assertMessage(() -> RankFusion.fuse(), IllegalArgumentException.class, "at least one");
        assertMessage(() -> WindowStatistics.of(new double[3], new double[3], new int[3]),
                IllegalArgumentException.class, "no passage tokens");
        assertMessage(() -> WindowStatistics.of(new double[3], new double[2], new int[] {0, 1, 1}),
                IllegalArgumentException.class, "as long");
        assertMessage(() -> SpanFeatures.of(1, 1, new WindowStatistics(0, 0, 0, 0), null, null, 0),
                IllegalArgumentException.class, "1-based");
        assertMessage(() -> SpanFeatures.of(1, 1, new WindowStatistics(0, 0, 0, 0), null, null, 1)
                .get("f1"), IllegalArgumentException.class, "Unknown span feature 'f1'");
        assertMessage(() -> new Passage("abc", 0, 2, 1), IllegalArgumentException.class,
                "document[start, end)");
    }
}
