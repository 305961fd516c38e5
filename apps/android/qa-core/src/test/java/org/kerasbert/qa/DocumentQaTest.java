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
import java.util.Map;
import java.util.Set;
import org.junit.Test;

/**
 * {@link DocumentQa} with a fake reader and embedder: the merge of the Python pipeline
 * ({@code DocumentQuestionAnsweringPipeline.__call__}) reproduced on the bundled article, the
 * most probable candidate chosen across passages, identical document spans merged, and
 * abstention below the threshold.
 *
 * <p>The parity cases are apps/fixtures/retrieval_golden.json's "pipeline" section: what the
 * Python pipeline answers with the same fake reader and embedder (their formulas are in the
 * fixture) for every suggested question of the bundled article under six settings
 * ({@code python -m apps.make_retrieval_fixtures}).
 */
public class DocumentQaTest {
    /** The fixture's fake reader: float32 logits from the token ids and positions. */
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

    /** The fixture's fake embedder: letter counts of the lower-cased text. */
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

    private static FeatureBuilder features() {
        return new FeatureBuilder(Fixtures.shippedTokenizer());
    }

    private static Map<String, Object> golden() {
        return MiniJson.obj(RetrievalGoldenTest.fixture().get("pipeline"));
    }

    /** The fixture's setting {@code name}: calibrator (made up, a shipped file or none), ranker, passages. */
    private static DocumentQa pipeline(String name) {
        Map<String, Object> setting = MiniJson.obj(MiniJson.obj(golden().get("settings")).get(name));
        DocumentQa.Builder b = DocumentQa.builder(features(), HASH_READER).embedder(LETTER_EMBEDDER);
        Object calibrator = setting.get("calibrator");
        if (calibrator != null) {
            String key = MiniJson.str(calibrator);
            Object made = MiniJson.obj(golden().get("calibrators")).get(key);
            b.calibrator(made != null ? AnswerCalibrator.fromConfig(MiniJson.obj(made))
                    : AnswerCalibrator.fromConfig(MiniJson.obj(MiniJson.parse(readRepo(key)))));
        }
        if (setting.get("ranker") != null) {
            b.ranker(MiniJson.str(setting.get("ranker")));
        }
        if (setting.get("passages") != null) {
            b.passages(MiniJson.integer(setting.get("passages")));
        }
        return b.build();
    }

    private static String readRepo(String relative) {
        try {
            return new String(java.nio.file.Files.readAllBytes(Fixtures.repoRoot().resolve(relative)),
                    java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new AssertionError(relative + ": " + e);
        }
    }

    /** One fixture case: the top answers' spans, passages, texts, "no answer" and scores. */
    private static void check(Map<String, Object> c) {
        String name = MiniJson.str(c.get("pipeline"));
        String question = MiniJson.str(c.get("question"));
        List<Object> rows = MiniJson.arr(c.get("answers"));
        String document = RetrievalGoldenTest.rhine();
        assertEquals("the article is all BMP", document.length(),
                document.codePointCount(0, document.length()));
        DocumentQa qa = pipeline(name);
        List<DocumentAnswer> answers = qa.answers(question, document, MiniJson.integer(golden().get("top_k")), 0);
        assertEquals(name + " " + question, rows.size(), answers.size());
        // The embedder's cosines are float32 sums, in another order than numpy's.
        boolean cosines = !"bm25".equals(qa.ranker())
                || qa.calibrator() != null && qa.calibrator().features().contains("cosine");
        double tolerance = cosines ? 1e-6 : 1e-9;
        for (int i = 0; i < rows.size(); i++) {
            Map<String, Object> want = MiniJson.obj(rows.get(i));
            DocumentAnswer a = answers.get(i);
            String what = name + " " + question + " #" + i + " " + a;
            assertEquals(what, MiniJson.integer(want.get("start")), a.start());
            assertEquals(what, MiniJson.integer(want.get("end")), a.end());
            assertEquals(what, MiniJson.integer(want.get("passage")), a.passage());
            assertEquals(what, MiniJson.bool(want.get("no_answer")), a.noAnswer());
            assertEquals(what, MiniJson.str(want.get("text")), a.text());
            // The text joins the passage's words with single spaces (a span may cross a blank line).
            assertEquals(what, TextRules.joinSpace(TextRules.pythonSplit(
                    document.substring(a.start(), a.end()))), a.text());
            Passage p = qa.passages(document).get(a.passage());
            assertEquals(p.start(), a.passageStart());
            assertEquals(p.end(), a.passageEnd());
            assertTrue(p.start() <= a.start() && a.end() <= p.end());
            double score = MiniJson.number(want.get("score"));
            if (Math.abs(a.score() - score) > tolerance * Math.abs(score)) {
                fail(what + ": score " + a.score() + ", Python " + score);
            }
        }
        Map<String, Object> first = MiniJson.obj(rows.get(0));
        DocumentAnswer best = qa.answer(question, document);
        if (MiniJson.bool(first.get("no_answer"))) {
            assertTrue(best.noAnswer());
            assertEquals("", best.text());
            assertEquals(-1, best.start());
            assertEquals(-1, best.passage());
            assertNotNull(best.candidate());
            assertEquals(MiniJson.integer(first.get("start")), best.candidate().start());
            assertEquals(answers.get(0).score(), best.score(), 0.0);
        } else {
            assertFalse(best.noAnswer());
            assertEquals(MiniJson.integer(first.get("start")), best.start());
            assertNull(best.candidate());
        }
    }

    @Test
    public void mergeMatchesThePythonPipeline() {
        List<Object> cases = MiniJson.arr(golden().get("cases"));
        Set<String> settings = new HashSet<>();
        for (Object c : cases) {
            check(MiniJson.obj(c));
            settings.add(MiniJson.str(MiniJson.obj(c).get("pipeline")));
        }
        assertEquals(MiniJson.obj(golden().get("settings")).keySet(), settings);
        assertEquals(42, cases.size());
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
