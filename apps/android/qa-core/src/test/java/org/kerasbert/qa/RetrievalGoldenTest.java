package org.kerasbert.qa;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/**
 * Every number of apps/fixtures/retrieval_golden.json (written by the Python reference,
 * {@code python -m apps.make_retrieval_fixtures}): sentence spans, the bundled article's passage
 * spans and token counts (apps/web/data/articles.json, id "rhine"), BM25 terms, scores, bounds
 * and orders, reciprocal-rank fusion orders, window statistics, span features and calibrator
 * probabilities. Spans and orders exactly; floats to 1e-9 relative. The fixture's offsets are
 * Python's (code points); the port's are UTF-16, converted here.
 */
public class RetrievalGoldenTest {
    static final String FIXTURE = "retrieval_golden.json";
    static final String ARTICLES = "apps/web/data/articles.json";
    private static final double RELATIVE = 1e-9;

    static Map<String, Object> fixture() {
        return Fixtures.load(FIXTURE);
    }

    static void assertClose(String what, double expected, double actual) {
        double tolerance = RELATIVE * Math.abs(expected) + 1e-12;
        if (!(Math.abs(expected - actual) <= tolerance)) {
            fail(what + ": expected " + expected + ", got " + actual);
        }
    }

    /** The document of the bundled article the fixture was made from. */
    static String rhine() {
        Path path = Fixtures.repoRoot().resolve(ARTICLES);
        String text;
        try {
            text = new String(Files.readAllBytes(path), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read " + path + ": " + e, e);
        }
        String id = MiniJson.str(MiniJson.obj(fixture().get("document")).get("id"));
        for (Object article : MiniJson.arr(MiniJson.parse(text))) {
            Map<String, Object> a = MiniJson.obj(article);
            if (id.equals(a.get("id"))) {
                return MiniJson.str(a.get("context"));
            }
        }
        throw new IllegalStateException(path + " has no article " + id);
    }

    static BertTokenizer tokenizer() {
        return Fixtures.tokenizer(MiniJson.str(fixture().get("vocab")));
    }

    static PassageSplitter splitter() {
        Map<String, Object> document = MiniJson.obj(fixture().get("document"));
        return new PassageSplitter(tokenizer(), MiniJson.integer(document.get("max_tokens")),
                MiniJson.integer(document.get("overlap_tokens")));
    }

    static List<String> texts(List<Passage> passages) {
        List<String> texts = new ArrayList<>();
        for (Passage p : passages) {
            texts.add(p.text());
        }
        return texts;
    }

    /** Python's code-point offset -> Java's UTF-16 offset in {@code text}. */
    static int utf16(String text, int codePoints) {
        return text.offsetByCodePoints(0, codePoints);
    }

    @Test
    public void sentenceSpans() {
        List<Object> cases = MiniJson.arr(fixture().get("sentences"));
        assertEquals(5, cases.size());
        for (Object item : cases) {
            Map<String, Object> c = MiniJson.obj(item);
            String text = MiniJson.str(c.get("text"));
            List<Object> expected = MiniJson.arr(c.get("spans"));
            List<int[]> spans = SentenceSplitter.split(text);
            assertEquals(text, expected.size(), spans.size());
            for (int i = 0; i < spans.size(); i++) {
                int[] e = MiniJson.ints(expected.get(i));
                assertArrayEquals(text + " sentence " + i,
                        new int[] {utf16(text, e[0]), utf16(text, e[1])}, spans.get(i));
            }
        }
    }

    @Test
    public void passageSpansOfTheBundledArticle() {
        String document = rhine();
        Map<String, Object> expected = MiniJson.obj(fixture().get("document"));
        assertEquals(254, MiniJson.integer(expected.get("max_tokens")));
        assertEquals(64, MiniJson.integer(expected.get("overlap_tokens")));
        assertEquals(PassageSplitter.DEFAULT_MAX_TOKENS, 254);
        assertEquals(PassageSplitter.DEFAULT_OVERLAP_TOKENS, 64);
        List<Object> spans = MiniJson.arr(expected.get("passages"));
        List<Passage> passages = splitter().split(document);
        assertEquals(spans.size(), passages.size());
        for (int i = 0; i < passages.size(); i++) {
            int[] e = MiniJson.ints(spans.get(i));
            Passage p = passages.get(i);
            assertArrayEquals("passage " + i,
                    new int[] {utf16(document, e[0]), utf16(document, e[1]), e[2]},
                    new int[] {p.start(), p.end(), p.numTokens()});
            assertEquals(document.substring(p.start(), p.end()), p.text());
            assertTrue(p.numTokens() <= 254);
        }
    }

    @Test
    public void bm25ScoresBoundsAndOrders() {
        List<Passage> passages = splitter().split(rhine());
        Map<String, Object> bm25 = MiniJson.obj(fixture().get("bm25"));
        Bm25Ranker ranker = new Bm25Ranker(texts(passages), MiniJson.number(bm25.get("k1")),
                MiniJson.number(bm25.get("b")));
        List<Object> queries = MiniJson.arr(bm25.get("queries"));
        assertEquals(7, queries.size());
        for (Object item : queries) {
            Map<String, Object> q = MiniJson.obj(item);
            String question = MiniJson.str(q.get("question"));
            assertEquals(question, MiniJson.strings(q.get("terms")), Bm25Ranker.wordTokens(question));
            double[] expected = MiniJson.doubles(q.get("bm25"));
            double[] scores = ranker.scores(question);
            assertEquals(expected.length, scores.length);
            for (int i = 0; i < scores.length; i++) {
                assertClose(question + " passage " + i, expected[i], scores[i]);
            }
            assertClose(question + " bound", MiniJson.number(q.get("bound")),
                    ranker.scoreBound(question));
            assertArrayEquals(question, MiniJson.ints(q.get("order")), ranker.rank(question));
        }
    }

    @Test
    public void documentQaRetrievesThePythonOrderWithBm25Match() {
        BertTokenizer tokenizer = tokenizer();
        DocumentQa qa = DocumentQa.builder(new FeatureBuilder(tokenizer), window -> {
            throw new AssertionError("retrieve() must not call the reader");
        }).splitter(splitter()).build();
        String document = rhine();
        for (Object item : MiniJson.arr(MiniJson.obj(fixture().get("bm25")).get("queries"))) {
            Map<String, Object> q = MiniJson.obj(item);
            String question = MiniJson.str(q.get("question"));
            int[] order = MiniJson.ints(q.get("order"));
            double[] scores = MiniJson.doubles(q.get("bm25"));
            double bound = MiniJson.number(q.get("bound"));
            List<DocumentQa.Retrieved> read = qa.retrieve(question, document, 5);
            assertEquals(5, read.size());
            for (int r = 0; r < read.size(); r++) {
                assertEquals(order[r], read.get(r).passage());
                assertEquals(r + 1, read.get(r).rank());
                assertClose(question, scores[order[r]] / bound, read.get(r).bm25Match());
                assertNull(read.get(r).cosine());
            }
        }
    }

    @Test
    public void reciprocalRankFusion() {
        List<Object> cases = MiniJson.arr(fixture().get("fusion"));
        assertEquals(3, cases.size());
        for (Object item : cases) {
            Map<String, Object> c = MiniJson.obj(item);
            List<Object> orders = MiniJson.arr(c.get("orders"));
            int[] fused = RankFusion.fuse(MiniJson.ints(orders.get(0)), MiniJson.ints(orders.get(1)));
            assertArrayEquals(MiniJson.ints(c.get("fused")), fused);
            assertArrayEquals(fused, RankFusion.fuse(RankFusion.RRF_K, MiniJson.ints(orders.get(0)),
                    MiniJson.ints(orders.get(1))));
        }
    }

    @Test
    public void windowStatistics() {
        List<Object> cases = MiniJson.arr(fixture().get("window_statistics"));
        assertEquals(2, cases.size());
        for (Object item : cases) {
            Map<String, Object> c = MiniJson.obj(item);
            WindowStatistics s = WindowStatistics.of(MiniJson.doubles(c.get("start_logits")),
                    MiniJson.doubles(c.get("end_logits")), MiniJson.ints(c.get("segment_ids")));
            double[] cls = MiniJson.doubles(c.get("cls"));
            double[] lse = MiniJson.doubles(c.get("lse"));
            assertClose("cls start", cls[0], s.clsStart());
            assertClose("cls end", cls[1], s.clsEnd());
            assertClose("lse start", lse[0], s.lseStart());
            assertClose("lse end", lse[1], s.lseEnd());
        }
    }

    @Test
    public void spanFeaturesAndCalibratedProbabilities() {
        AnswerCalibrator fromConfig = AnswerCalibrator.fromConfig(
                MiniJson.obj(fixture().get("calibrator")));
        AnswerCalibrator fromJson = AnswerCalibrator.fromJson(
                TestJson.write(fixture().get("calibrator")));
        assertEquals(SpanFeatures.NAMES, fromJson.features());
        assertEquals(0.25, fromJson.threshold(), 0.0);
        assertEquals(-6.0, fromJson.bias(), 0.0);
        assertArrayEquals(MiniJson.doubles(MiniJson.obj(fixture().get("calibrator")).get("weights")),
                fromJson.weights(), 0.0);
        assertNull(fromJson.ranker());
        assertEquals(0, fromJson.passages());
        List<Object> cases = MiniJson.arr(fixture().get("features"));
        assertEquals(6, cases.size());
        for (Object item : cases) {
            Map<String, Object> c = MiniJson.obj(item);
            Map<String, Object> in = MiniJson.obj(c.get("inputs"));
            double[] cls = MiniJson.doubles(in.get("cls_logits"));
            double[] lse = MiniJson.doubles(in.get("lse"));
            SpanFeatures features = SpanFeatures.of(MiniJson.number(in.get("start_logit")),
                    MiniJson.number(in.get("end_logit")), new WindowStatistics(cls[0], cls[1], lse[0], lse[1]),
                    MiniJson.number(in.get("cosine")), MiniJson.number(in.get("bm25_match")),
                    MiniJson.integer(in.get("rank")));
            Map<String, Object> expected = MiniJson.obj(c.get("features"));
            assertEquals(SpanFeatures.NAMES, new ArrayList<>(expected.keySet()));
            for (String name : SpanFeatures.NAMES) {
                assertClose(name, MiniJson.number(expected.get(name)), features.get(name));
            }
            double probability = MiniJson.number(c.get("probability"));
            assertClose("probability", probability, fromConfig.probability(features));
            assertClose("probability", probability, fromJson.probability(features));
        }
    }
}
