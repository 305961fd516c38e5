package org.kerasbert.qa;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.Test;

/**
 * The fixtures' answers, and those this port decodes from the fixture logits, scored against
 * SQuAD's gold answers (apps/fixtures/qa_gold.json, kept by hand): fixtures remade from a broken
 * model or decoder fall below its floors and fail here, though the port may agree with them.
 */
public class QaGoldTest {
    private static final double EXACT = 0.0;

    /** Expected values: tests/reference/official_squad_v1.py (the official rules) in Python. */
    @Test
    public void normalizationAndF1AsTheOfficialRulesGiveThem() {
        assertEquals("cats hat big one", SquadScore.normalize("The  Cat's hat, a (big) one!"));
        assertEquals("theatre anne", SquadScore.normalize("Theatre an Anne"));
        assertEquals("café theé thex", SquadScore.normalize("café the\u00e9 the_x"));
        assertEquals("1754\u20131763", SquadScore.normalize("1754\u20131763"));
        assertEquals("x the\u00e1 \u0301 b", SquadScore.normalize("x the\u00e1 a\u0301 b"));
        assertEquals("the\u00b2 a\u2177", SquadScore.normalize("the\u00b2 a\u2167"));
        assertEquals(2.0 / 3.0, SquadScore.f1("the Swiss canton", "Swiss canton of Graub\u00fcnden"),
                1e-15);
        assertEquals(0.0, SquadScore.f1("a", "the"), EXACT);
        assertEquals(0.8, SquadScore.f1("North North Sea", "North Sea"), 1e-15);
    }

    private static Map<String, Object> gold() {
        return MiniJson.obj(Fixtures.load("qa_gold.json").get("answers"));
    }

    @Test
    public void everyHeldOutCaseHasGoldAndEveryGoldCaseIsAFixtureCase() {
        Map<String, Object> gold = gold();
        Set<String> ids = new HashSet<>();
        for (Object item : MiniJson.arr(Fixtures.load("qa_golden.json").get("cases"))) {
            Map<String, Object> c = MiniJson.obj(item);
            String id = MiniJson.str(c.get("id"));
            ids.add(id);
            if (MiniJson.bool(c.get("held_out"))) {
                assertTrue(id + " has no gold answers in qa_gold.json", gold.containsKey(id));
            }
        }
        for (String id : gold.keySet()) {
            assertTrue(id + " is not a fixture case", ids.contains(id));
        }
    }

    @Test
    public void fixtureAnswersScoreAtLeastTheFloorsAgainstGold() {
        Map<String, String> answers = new HashMap<>();
        for (Object item : MiniJson.arr(Fixtures.load("qa_golden.json").get("cases"))) {
            Map<String, Object> c = MiniJson.obj(item);
            answers.put(MiniJson.str(c.get("id")),
                    MiniJson.str(MiniJson.obj(c.get("answer")).get("text")));
        }
        assertMeetsFloors(answers, "fixture answers");
    }

    @Test
    public void decodedAnswersScoreAtLeastTheFloorsAgainstGold() {
        Map<String, Object> fixture = Fixtures.load("qa_golden.json");
        Map<String, Object> gold = gold();
        FeatureBuilder builder = new FeatureBuilder(
                Fixtures.tokenizer(MiniJson.str(fixture.get("vocab"))),
                MiniJson.integer(fixture.get("max_seq_length")),
                MiniJson.integer(fixture.get("doc_stride")),
                MiniJson.integer(fixture.get("max_query_length")));
        AnswerDecoder decoder = new AnswerDecoder(MiniJson.integer(fixture.get("n_best_size")),
                MiniJson.integer(fixture.get("max_answer_length")),
                MiniJson.bool(fixture.get("do_lower_case")));
        Map<String, String> answers = new HashMap<>();
        for (Object item : MiniJson.arr(fixture.get("cases"))) {
            Map<String, Object> c = MiniJson.obj(item);
            String id = MiniJson.str(c.get("id"));
            if (!gold.containsKey(id)) {
                continue;
            }
            Features features = builder.build(MiniJson.str(c.get("question")),
                    MiniJson.str(c.get("context")));
            List<Object> windows = MiniJson.arr(c.get("windows"));
            float[][] starts = new float[windows.size()][];
            float[][] ends = new float[windows.size()][];
            for (int w = 0; w < windows.size(); w++) {
                starts[w] = floats(MiniJson.obj(windows.get(w)).get("start_logits"));
                ends[w] = floats(MiniJson.obj(windows.get(w)).get("end_logits"));
            }
            List<Answer> decoded = decoder.decode(features, starts, ends);
            answers.put(id, decoded.isEmpty() ? "" : decoded.get(0).text());
        }
        assertMeetsFloors(answers, "decoded answers");
    }

    /** Asserts {@code answers} (id to text) score at least qa_gold.json's floors. */
    private static void assertMeetsFloors(Map<String, String> answers, String label) {
        Map<String, Object> floors = Fixtures.load("qa_gold.json");
        Map<String, Object> gold = gold();
        int exact = 0;
        double f1 = 0.0;
        List<String> misses = new ArrayList<>();
        for (String id : gold.keySet()) {
            String answer = answers.get(id);
            List<String> golds = MiniJson.strings(gold.get(id));
            if (SquadScore.exact(answer, golds)) {
                exact++;
            } else {
                misses.add(id + ": \"" + answer + "\"");
            }
            f1 += SquadScore.bestF1(answer, golds);
        }
        double meanF1 = 100.0 * f1 / gold.size();
        int minExact = MiniJson.integer(floors.get("min_exact_match"));
        double minF1 = MiniJson.number(floors.get("min_f1"));
        String summary = String.format("%s: %d/%d exact, F1 %.2f; floors %d and %s; misses: %s",
                label, exact, gold.size(), meanF1, minExact, minF1, misses);
        assertTrue(summary, exact >= minExact);
        assertTrue(summary, meanF1 >= minF1);
    }

    private static float[] floats(Object values) {
        double[] doubles = MiniJson.doubles(values);
        float[] out = new float[doubles.length];
        for (int i = 0; i < doubles.length; i++) {
            out[i] = (float) doubles[i];
        }
        return out;
    }
}
