package org.kerasbert.qa;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.Test;

/**
 * {@link DocumentQa} with a fake reader and embedder: the merge of the Python pipeline
 * ({@code DocumentQuestionAnsweringPipeline.__call__}) reproduced on the bundled article, the
 * most probable candidate chosen across passages, identical document spans merged, and
 * abstention below the threshold.
 *
 * <p>The parity cases come from the Python reference run on the same fakes:
 * <pre>
 * def runner(inputs):  # QuestionAnsweringPipeline(runner, ReferenceTokenizer(vocab.txt))
 *     ids = inputs["token_ids"].astype(np.int64); pos = np.arange(ids.shape[1])[None, :]
 *     start = ((ids * 7919 + pos * 104729) % 1009) / 128.0 - 4.0
 *     end = ((ids * 6007 + pos * 7727) % 997) / 128.0 - 3.0
 *     return start.astype(np.float32), end.astype(np.float32)
 * def embed(texts):  # counts of a..z in text.lower(), float32 [n, 26]
 * cal = AnswerCalibrator([0.3, 0.2, 0.1, 3.0, 0.5], -3.0, ("span_logit", "span_log_prob",
 *     "null_gap", "bm25_match", "inverse_rank"), threshold=0.6)
 * calc = AnswerCalibrator([0.3, 0.2, 0.1, 2.0, 3.0, 0.5], -4.0, (... with "cosine" fourth),
 *     threshold=0.6)
 * DocumentQuestionAnsweringPipeline(reader, **config)(question, rhine, top_k=4)
 * </pre>
 */
public class DocumentQaTest {
    /** The Python test's fake model: float32 logits from the token ids and positions. */
    static final DocumentQa.Reader HASH_READER = window -> {
        int[] ids = window.ids();
        float[] start = new float[ids.length];
        float[] end = new float[ids.length];
        for (int p = 0; p < ids.length; p++) {
            start[p] = (float) (((ids[p] * 7919L + p * 104729L) % 1009) / 128.0 - 4.0);
            end[p] = (float) (((ids[p] * 6007L + p * 7727L) % 997) / 128.0 - 3.0);
        }
        return new float[][] {start, end};
    };

    /** The Python test's fake embedder: letter counts of the lower-cased text. */
    static final DocumentQa.Embedder LETTER_EMBEDDER = texts -> {
        float[][] out = new float[texts.size()][26];
        for (int i = 0; i < texts.size(); i++) {
            String lower = TextRules.pythonLower(texts.get(i));
            for (int k = 0; k < lower.length(); k++) {
                char c = lower.charAt(k);
                if (c >= 'a' && c <= 'z') {
                    out[i][c - 'a'] += 1;
                }
            }
        }
        return out;
    };

    private static final AnswerCalibrator CAL = new AnswerCalibrator(
            Arrays.asList("span_logit", "span_log_prob", "null_gap", "bm25_match", "inverse_rank"),
            new double[] {0.3, 0.2, 0.1, 3.0, 0.5}, -3.0, 0.6, null);
    private static final AnswerCalibrator CAL_COSINE = new AnswerCalibrator(SpanFeatures.NAMES,
            new double[] {0.3, 0.2, 0.1, 2.0, 3.0, 0.5}, -4.0, 0.6, null);

    private static FeatureBuilder features() {
        return new FeatureBuilder(Fixtures.shippedTokenizer());
    }

    private static DocumentQa pipeline(String config) {
        DocumentQa.Builder b = DocumentQa.builder(features(), HASH_READER);
        switch (config) {
            case "bm25_cal3":
                return b.calibrator(CAL).passages(3).build();
            case "none2":
                return b.passages(2).build();
            case "rrf_cal3":
                return b.calibrator(CAL_COSINE).passages(3).ranker("rrf").embedder(LETTER_EMBEDDER).build();
            case "dense_cal2":
                return b.calibrator(CAL_COSINE).passages(2).ranker("dense").embedder(LETTER_EMBEDDER).build();
            default:
                throw new AssertionError(config);
        }
    }

    /** rows: {start, end, passage, noAnswer (1/0)} in Python code points (= UTF-16 here). */
    private static void check(String config, String question, int[][] rows, double[] scores) {
        String document = RetrievalGoldenTest.rhine();
        assertEquals("the article is all BMP", document.length(),
                document.codePointCount(0, document.length()));
        DocumentQa qa = pipeline(config);
        List<DocumentAnswer> answers = qa.answers(question, document, 4, 0);
        assertEquals(config + " " + question, rows.length, answers.size());
        // The embedder's cosines are float32 sums, in another order than numpy's.
        double tolerance = config.endsWith("cal3") && !config.startsWith("rrf")
                || config.startsWith("none") ? 1e-9 : 1e-6;
        for (int i = 0; i < rows.length; i++) {
            DocumentAnswer a = answers.get(i);
            String what = config + " " + question + " #" + i + " " + a;
            assertEquals(what, rows[i][0], a.start());
            assertEquals(what, rows[i][1], a.end());
            assertEquals(what, rows[i][2], a.passage());
            assertEquals(what, rows[i][3] == 1, a.noAnswer());
            // The text joins the passage's words with single spaces (a span may cross a blank line).
            assertEquals(what, TextRules.joinSpace(TextRules.pythonSplit(
                    document.substring(a.start(), a.end()))), a.text());
            Passage p = qa.passages(document).get(a.passage());
            assertEquals(p.start(), a.passageStart());
            assertEquals(p.end(), a.passageEnd());
            assertTrue(p.start() <= a.start() && a.end() <= p.end());
            if (Math.abs(a.score() - scores[i]) > tolerance * Math.abs(scores[i])) {
                fail(what + ": score " + a.score() + ", Python " + scores[i]);
            }
        }
        DocumentAnswer best = qa.answer(question, document);
        if (rows[0][3] == 1) {
            assertTrue(best.noAnswer());
            assertEquals("", best.text());
            assertEquals(-1, best.start());
            assertEquals(-1, best.passage());
            assertNotNull(best.candidate());
            assertEquals(rows[0][0], best.candidate().start());
            assertEquals(answers.get(0).score(), best.score(), 0.0);
        } else {
            assertFalse(best.noAnswer());
            assertEquals(rows[0][0], best.start());
            assertNull(best.candidate());
        }
    }

    @Test
    public void mergeMatchesThePythonPipeline() {
        check("bm25_cal3", "Where is the Rhine Bridge?", new int[][] {{10355, 10472, 12, 0}, {9970, 10092, 12, 0}, {9970, 9999, 12, 0}, {10501, 10523, 12, 0}},
                new double[] {0.7302324966128455, 0.7246563288251147, 0.7104077048654103, 0.7055622677236078});
        check("bm25_cal3", "Who provided a philosophical discussion of force?", new int[][] {{28749, 28905, 34, 1}, {28749, 28904, 34, 1}, {28228, 28261, 34, 1}, {28759, 28905, 34, 1}},
                new double[] {0.32737833597934607, 0.3232629934733271, 0.32121548821430335, 0.3181570952625666});
        // Without a calibrator: the highest start + end logit (passage 30, not BM25's first,
        // 12); equal scores keep their first-seen order; never "no answer".
        check("none2", "Where is the Rhine Bridge?", new int[][] {{25050, 25152, 30, 0}, {25050, 25181, 30, 0}, {25546, 25677, 30, 0}, {25562, 25677, 30, 0}},
                new double[] {0.03392488612428772, 0.03392488612428772, 0.03313901698364661, 0.03288112710748503});
        check("none2", "Who provided a philosophical discussion of force?", new int[][] {{28749, 28905, 34, 0}, {28749, 28904, 34, 0}, {28228, 28261, 34, 0}, {28759, 28905, 34, 0}},
                new double[] {0.032603396444910324, 0.03160029539121497, 0.031110378220969567, 0.03038970708568667});
        check("rrf_cal3", "Where is the Rhine Bridge?", new int[][] {{10355, 10472, 12, 0}, {9970, 10092, 12, 0}, {9970, 9999, 12, 0}, {10501, 10523, 12, 0}},
                new double[] {0.845141058784477, 0.841424290880674, 0.8318158260578189, 0.8285114137136491});
        check("rrf_cal3", "Who provided a philosophical discussion of force?", new int[][] {{28749, 28905, 34, 1}, {28749, 28904, 34, 1}, {28228, 28261, 34, 1}, {28759, 28905, 34, 1}},
                new double[] {0.44029887104209614, 0.435683501898708, 0.43337993848042533, 0.42993001502133343});
        check("dense_cal2", "Where is the Rhine Bridge?", new int[][] {{10355, 10472, 12, 0}, {9970, 10092, 12, 0}, {9970, 9999, 12, 0}, {10501, 10523, 12, 0}},
                new double[] {0.8095345903080209, 0.805160250142637, 0.7938926990833836, 0.7900312681616686});
        check("dense_cal2", "Who provided a philosophical discussion of force?", new int[][] {{9365, 9504, 11, 1}, {9289, 9430, 11, 1}, {9365, 9430, 11, 1}, {9539, 9631, 11, 1}},
                new double[] {0.45356917468085745, 0.44082304847126613, 0.43851342714936226, 0.4293025170003035});
    }

    // ---- A small document where the answer is obvious -------------------------------------

    /** Counts the reader's calls. */
    static final class TokenReader implements DocumentQa.Reader {
        final List<String> targets;
        final List<Float> boosts;
        int calls;

        /** Start and end logits of 8 + boost on each target token; -4 elsewhere, 2 at [CLS]. */
        TokenReader(List<String> targets, List<Float> boosts) {
            this.targets = targets;
            this.boosts = boosts;
        }

        @Override
        public float[][] logits(Window window) {
            calls++;
            int n = window.sequenceLength();
            float[] start = new float[n];
            float[] end = new float[n];
            Arrays.fill(start, -4f);
            Arrays.fill(end, -4f);
            start[0] = 2f;
            end[0] = 2f;
            for (int p = 0; p < window.length(); p++) {
                int t = targets.indexOf(window.tokens().get(p));
                if (t >= 0 && window.isPassageToken(p)) {
                    start[p] = 8f + boosts.get(t);
                    end[p] = 8f + boosts.get(t);
                }
            }
            return new float[][] {start, end};
        }
    }

    // Passages of at most 24 tokens, 8 shared: four passages; "Zurich" in the first, where the
    // question's words are; "Geneva" read louder in the last, where they are not.
    private static final String DOCUMENT = "The lake museum of the old town is in Zurich. "
            + "The museum of the lake holds boats. It opened long ago. "
            + "Many people visit it every year in summer. Trains run there often. "
            + "Far away, a different city is Geneva. Geneva has banks and watches.";
    private static final String QUESTION = "Where is the lake museum of the old town?";

    private static PassageSplitter smallSplitter() {
        return new PassageSplitter(Fixtures.shippedTokenizer(), 24, 8);
    }

    @Test
    public void theMostProbableCandidateWinsAcrossPassages() {
        List<Passage> passages = smallSplitter().split(DOCUMENT);
        assertTrue("several passages: " + passages, passages.size() >= 3);
        TokenReader reader = new TokenReader(Arrays.asList("zurich", "geneva"),
                Arrays.asList(0f, 3f));
        // BM25 match dominates the span logit: Zurich (first passage, the question's words)
        // beats Geneva, whose logits are higher.
        AnswerCalibrator calibrator = new AnswerCalibrator(
                Arrays.asList("span_logit", "bm25_match"), new double[] {0.1, 8.0}, -3.0, 0.3, null);
        DocumentQa qa = DocumentQa.builder(features(), reader).splitter(smallSplitter())
                .calibrator(calibrator).passages(passages.size()).build();
        List<DocumentAnswer> all = qa.answers(QUESTION, DOCUMENT, 1000, 0);
        assertEquals(passages.size(), reader.calls); // one window per passage read
        DocumentAnswer best = qa.answer(QUESTION, DOCUMENT);
        assertFalse(best.noAnswer());
        assertEquals("Zurich", best.text());
        assertEquals(DOCUMENT.indexOf("Zurich"), best.start());
        assertEquals(DOCUMENT.indexOf("Zurich") + 6, best.end());
        assertEquals(calibrator.probability(best.features()), best.score(), 0.0);
        // Geneva's logits are higher, and without the calibrator it would win.
        DocumentAnswer geneva = null;
        for (DocumentAnswer a : all) {
            if (a.text().equals("Geneva") && geneva == null) {
                geneva = a;
            }
        }
        assertNotNull(geneva);
        assertTrue(geneva.features().spanLogit() > best.features().spanLogit());
        assertTrue(geneva.score() < best.score());
        DocumentQa plain = DocumentQa.builder(features(), reader).splitter(smallSplitter())
                .passages(passages.size()).build();
        assertEquals("Geneva", plain.answer(QUESTION, DOCUMENT).text());
        assertFalse(plain.answer("What is far away?", DOCUMENT).noAnswer()); // never abstains
        // Best first; each document span once (overlapping passages read some spans twice).
        Set<String> spans = new HashSet<>();
        for (int i = 0; i < all.size(); i++) {
            assertTrue(spans.add(all.get(i).start() + ":" + all.get(i).end()));
            if (i > 0) {
                assertTrue(all.get(i - 1).score() >= all.get(i).score());
            }
        }
    }

    @Test
    public void identicalDocumentSpansKeepTheirBestValue() {
        // 10 tokens, 5 shared: "Basel" sits in two passages.
        String document = "One two three four. Five six seven Basel. Eight nine ten eleven. "
                + "Twelve thirteen fourteen. Fifteen sixteen seventeen.";
        PassageSplitter splitter = new PassageSplitter(Fixtures.shippedTokenizer(), 10, 5);
        List<Passage> passages = splitter.split(document);
        int basel = document.indexOf("Basel");
        List<Integer> holding = new ArrayList<>();
        for (int i = 0; i < passages.size(); i++) {
            if (passages.get(i).start() <= basel && basel < passages.get(i).end()) {
                holding.add(i);
            }
        }
        assertTrue("Basel in two passages: " + passages, holding.size() >= 2);
        // "Basel" is read louder in the window that also holds "eleven": the second passage
        // read (BM25 ties go to the earlier passage), so the best reading comes second.
        TokenReader quiet = new TokenReader(Arrays.asList("basel"), Arrays.asList(0f));
        TokenReader loud = new TokenReader(Arrays.asList("basel"), Arrays.asList(2f));
        DocumentQa.Reader reader = window -> window.tokens().contains("eleven")
                ? loud.logits(window) : quiet.logits(window);
        AnswerCalibrator bySpanLogit = new AnswerCalibrator(Arrays.asList("span_logit"),
                new double[] {0.5}, -10.0, 0.0, null);
        DocumentQa qa = DocumentQa.builder(features(), reader).splitter(splitter)
                .calibrator(bySpanLogit).passages(passages.size()).build();
        List<DocumentQa.Retrieved> read = qa.retrieve("Basel?", document, 0);
        assertEquals(holding.get(0).intValue(), read.get(0).passage());
        assertEquals(holding.get(1).intValue(), read.get(1).passage());
        assertTrue(passages.get(holding.get(1)).text().contains("eleven"));
        assertFalse(passages.get(holding.get(0)).text().contains("eleven"));
        List<DocumentAnswer> all = qa.answers("Basel?", document, 50, 0);
        int count = 0;
        DocumentAnswer found = null;
        for (DocumentAnswer a : all) {
            if (a.start() == basel && a.end() == basel + 5) {
                count++;
                found = a;
            }
        }
        assertEquals(1, count);
        assertEquals(all.get(0), found);
        assertEquals(holding.get(1).intValue(), found.passage()); // the louder, later reading
        assertEquals(10.0, found.startLogit(), 0.0);
        assertEquals(20.0, found.features().get("span_logit"), 0.0);
        assertEquals(0.5, found.features().inverseRank(), 0.0);
    }

    @Test
    public void abstainsBelowTheThreshold() {
        TokenReader reader = new TokenReader(Arrays.asList("zurich", "geneva"), Arrays.asList(0f, 3f));
        AnswerCalibrator strict = new AnswerCalibrator(Arrays.asList("span_logit", "bm25_match"),
                new double[] {0.1, 8.0}, -3.0, 0.999, null);
        DocumentQa qa = DocumentQa.builder(features(), reader).splitter(smallSplitter())
                .calibrator(strict).passages(2).build();
        DocumentAnswer none = qa.answer(QUESTION, DOCUMENT);
        assertTrue(none.noAnswer());
        assertEquals("", none.text());
        assertEquals(-1, none.start());
        assertEquals(-1, none.end());
        assertEquals(-1, none.passage());
        assertNull(none.features());
        DocumentAnswer rejected = none.candidate();
        assertNotNull(rejected);
        assertEquals("Zurich", rejected.text());
        assertTrue(rejected.noAnswer());
        assertTrue(rejected.score() < 0.999);
        assertEquals(rejected.score(), none.score(), 0.0);
        for (DocumentAnswer a : qa.answers(QUESTION, DOCUMENT, 5, 0)) {
            assertTrue(a.noAnswer());
        }
        // The same calibrator with threshold 0.3 answers.
        AnswerCalibrator lenient = new AnswerCalibrator(strict.features(), strict.weights(),
                strict.bias(), 0.3, null);
        DocumentQa answering = DocumentQa.builder(features(), reader).splitter(smallSplitter())
                .calibrator(lenient).passages(2).build();
        assertEquals("Zurich", answering.answer(QUESTION, DOCUMENT).text());
    }

    @Test
    public void noSpanAtAllIsNoAnswerWithoutCandidate() {
        DocumentQa.Reader padding = window -> { // the best starts and ends all in the padding
            float[] start = new float[window.sequenceLength()];
            for (int p = 0; p < start.length; p++) {
                start[p] = p;
            }
            return new float[][] {start, start.clone()};
        };
        DocumentQa qa = DocumentQa.builder(features(), padding).build();
        DocumentAnswer none = qa.answer(QUESTION, DOCUMENT);
        assertTrue(none.noAnswer());
        assertNull(none.candidate());
        assertEquals(0.0, none.score(), 0.0);
        assertTrue(qa.answers(QUESTION, DOCUMENT, 3, 0).isEmpty());
    }

    @Test
    public void defaultsComeFromTheCalibratorsInfo() {
        java.util.Map<String, Object> info = new java.util.LinkedHashMap<>();
        info.put("ranker", "rrf");
        info.put("passages", 3L);
        AnswerCalibrator c = new AnswerCalibrator(Arrays.asList("span_logit"), new double[] {1.0},
                0.0, 0.5, info);
        DocumentQa qa = DocumentQa.builder(features(), HASH_READER).calibrator(c)
                .embedder(LETTER_EMBEDDER).build();
        assertEquals("rrf", qa.ranker());
        assertEquals(3, qa.passagesRead());
        DocumentQa plain = DocumentQa.builder(features(), HASH_READER).build();
        assertEquals("bm25", plain.ranker());
        assertEquals(1, plain.passagesRead());
        assertEquals(1, plain.retrieve(QUESTION, DOCUMENT, 0).size());
        // Passages are computed once per document.
        assertTrue(plain.passages(DOCUMENT) == plain.passages(DOCUMENT));
    }
}
