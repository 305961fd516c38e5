package org.kerasbert.qa;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * Every case of apps/fixtures/qa_golden.json: the windows (tokens, ids, segment ids, mask,
 * alignment maps) and, from the fixture's logits (the shipped int8 model under Python
 * ai-edge-litert), the n-best answers (texts, UTF-16 spans, logits and order exactly,
 * probabilities to 1e-12) and the final answer.
 */
@RunWith(Parameterized.class)
public class QaGoldenTest {
    private static final String FIXTURE = "qa_golden.json";
    private static final double PROBABILITY_TOLERANCE = 1e-12;

    @Parameters(name = "{0}")
    public static Collection<Object[]> cases() {
        List<Object[]> cases = new ArrayList<>();
        for (Object item : MiniJson.arr(Fixtures.load(FIXTURE).get("cases"))) {
            Map<String, Object> c = MiniJson.obj(item);
            cases.add(new Object[] {MiniJson.str(c.get("id")), c});
        }
        return cases;
    }

    private final String id;
    private final Map<String, Object> c;

    public QaGoldenTest(String id, Map<String, Object> c) {
        this.id = id;
        this.c = c;
    }

    private static int setting(String key) {
        return MiniJson.integer(Fixtures.load(FIXTURE).get(key));
    }

    private Features features() {
        Map<String, Object> fixture = Fixtures.load(FIXTURE);
        assertTrue(MiniJson.bool(fixture.get("do_lower_case")));
        BertTokenizer tokenizer = Fixtures.tokenizer(MiniJson.str(fixture.get("vocab")));
        FeatureBuilder builder = new FeatureBuilder(tokenizer, setting("max_seq_length"),
                setting("doc_stride"), setting("max_query_length"));
        return builder.build(MiniJson.str(c.get("question")), MiniJson.str(c.get("context")));
    }

    private List<Map<String, Object>> expectedWindows() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object w : MiniJson.arr(c.get("windows"))) {
            out.add(MiniJson.obj(w));
        }
        return out;
    }

    @Test
    public void passageWords() {
        Features features = features();
        List<String> words = features.words();
        assertEquals(MiniJson.strings(c.get("doc_words")), words);
        String context = features.context();
        for (int i = 0; i < words.size(); i++) {
            PassageWords passage = features.passage();
            assertEquals(words.get(i), context.substring(passage.wordStart(i), passage.wordEnd(i)));
        }
    }

    @Test
    public void windows() {
        Features features = features();
        int maxSeq = setting("max_seq_length");
        List<Map<String, Object>> expected = expectedWindows();
        assertEquals(id + ": window count", expected.size(), features.windows().size());
        for (int w = 0; w < expected.size(); w++) {
            Map<String, Object> e = expected.get(w);
            Window window = features.windows().get(w);
            String where = id + " window " + w;
            assertEquals(where + " tokens", MiniJson.strings(e.get("tokens")), window.tokens());
            int[] ids = MiniJson.ints(e.get("ids"));
            int[] segments = MiniJson.ints(e.get("segment_ids"));
            int length = ids.length;
            assertEquals(where + " length", length, window.length());
            assertEquals(maxSeq, window.sequenceLength());
            assertArrayEquals(where + " ids", pad(ids, maxSeq), window.ids());
            assertArrayEquals(where + " segment_ids", pad(segments, maxSeq), window.segmentIds());
            int[] mask = new int[length];
            Arrays.fill(mask, 1);
            assertArrayEquals(where + " mask", pad(mask, maxSeq), window.mask());

            int[] expectedToOrig = new int[maxSeq];
            Arrays.fill(expectedToOrig, -1);
            for (Object pair : MiniJson.arr(e.get("token_to_orig"))) {
                List<Object> p = MiniJson.arr(pair);
                expectedToOrig[MiniJson.integer(p.get(0))] = MiniJson.integer(p.get(1));
            }
            boolean[] expectedMaxContext = new boolean[maxSeq];
            boolean[] hasMaxContext = new boolean[maxSeq];
            for (Object pair : MiniJson.arr(e.get("max_context"))) {
                List<Object> p = MiniJson.arr(pair);
                expectedMaxContext[MiniJson.integer(p.get(0))] = MiniJson.bool(p.get(1));
                hasMaxContext[MiniJson.integer(p.get(0))] = true;
            }
            for (int pos = 0; pos < maxSeq; pos++) {
                assertEquals(where + " token_to_orig[" + pos + "]", expectedToOrig[pos],
                        window.tokenToOrig(pos));
                // max_context has exactly the passage positions as keys
                assertEquals(where + " max_context key " + pos, hasMaxContext[pos],
                        window.isPassageToken(pos));
                assertEquals(where + " max_context[" + pos + "]", expectedMaxContext[pos],
                        window.isMaxContext(pos));
            }
        }
    }

    private static int[] pad(int[] values, int length) {
        return Arrays.copyOf(values, length);
    }

    @Test
    public void decodedAnswersFromDoubleLogits() {
        Features features = features();
        List<Map<String, Object>> windows = expectedWindows();
        double[][] starts = new double[windows.size()][];
        double[][] ends = new double[windows.size()][];
        for (int w = 0; w < windows.size(); w++) {
            starts[w] = MiniJson.doubles(windows.get(w).get("start_logits"));
            ends[w] = MiniJson.doubles(windows.get(w).get("end_logits"));
        }
        checkAnswers(decoder().decode(features, starts, ends));
    }

    /** The app's path: float32 model outputs. The fixture logits are float32 values exactly. */
    @Test
    public void decodedAnswersFromFloat32Logits() {
        Features features = features();
        List<Map<String, Object>> windows = expectedWindows();
        float[][] starts = new float[windows.size()][];
        float[][] ends = new float[windows.size()][];
        for (int w = 0; w < windows.size(); w++) {
            starts[w] = toFloats(MiniJson.doubles(windows.get(w).get("start_logits")), w);
            ends[w] = toFloats(MiniJson.doubles(windows.get(w).get("end_logits")), w);
        }
        checkAnswers(decoder().decode(features, starts, ends));
    }

    private float[] toFloats(double[] values, int window) {
        assertEquals(id + " window " + window + ": logits per window", setting("max_seq_length"),
                values.length);
        float[] out = new float[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (float) values[i];
            assertEquals(id + " window " + window + " logit " + i + " is a float32 value",
                    values[i], (double) out[i], 0.0);
        }
        return out;
    }

    private static AnswerDecoder decoder() {
        Map<String, Object> fixture = Fixtures.load(FIXTURE);
        return new AnswerDecoder(setting("n_best_size"), setting("max_answer_length"),
                MiniJson.bool(fixture.get("do_lower_case")));
    }

    private void checkAnswers(List<Answer> answers) {
        List<Object> nbest = MiniJson.arr(c.get("nbest"));
        List<String> expectedTexts = new ArrayList<>();
        for (Object e : nbest) {
            expectedTexts.add(MiniJson.str(MiniJson.obj(e).get("text")));
        }
        List<String> texts = new ArrayList<>();
        for (Answer a : answers) {
            texts.add(a.text());
        }
        assertEquals(id + ": n-best texts in order", expectedTexts, texts);
        String context = MiniJson.str(c.get("context"));
        for (int i = 0; i < nbest.size(); i++) {
            Map<String, Object> e = MiniJson.obj(nbest.get(i));
            Answer a = answers.get(i);
            String where = id + " n-best " + i + " (" + a.text() + ")";
            assertEquals(where + " start", MiniJson.integer(e.get("start")), a.start());
            assertEquals(where + " end", MiniJson.integer(e.get("end")), a.end());
            assertEquals(where + " start_logit", MiniJson.number(e.get("start_logit")),
                    a.startLogit(), 0.0);
            assertEquals(where + " end_logit", MiniJson.number(e.get("end_logit")),
                    a.endLogit(), 0.0);
            assertEquals(where + " probability", MiniJson.number(e.get("probability")),
                    a.probability(), PROBABILITY_TOLERANCE);
            // The span is the answer's true place: the same words, whatever whitespace
            // separates them in the passage (the text joins words with single spaces).
            String span = context.substring(a.start(), a.end());
            assertEquals(where + " span words",
                    String.join(" ", PassageWords.split(a.text()).words()),
                    String.join(" ", PassageWords.split(span).words()));
        }
        Map<String, Object> answer = MiniJson.obj(c.get("answer"));
        String bestText = answers.isEmpty() ? "" : answers.get(0).text();
        int bestStart = answers.isEmpty() ? -1 : answers.get(0).start();
        int bestEnd = answers.isEmpty() ? -1 : answers.get(0).end();
        assertEquals(id + " answer text", MiniJson.str(answer.get("text")), bestText);
        assertEquals(id + " answer start", MiniJson.integer(answer.get("start")), bestStart);
        assertEquals(id + " answer end", MiniJson.integer(answer.get("end")), bestEnd);
    }
}
