package org.kerasbert.qa;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/** Every case of apps/fixtures/tokenizer_golden.json: the exact tokens and ids of Python's ReferenceTokenizer. */
@RunWith(Parameterized.class)
public class TokenizerGoldenTest {
    private static final String FIXTURE = "tokenizer_golden.json";

    @Parameters(name = "{index}: {0}")
    public static Collection<Object[]> cases() {
        List<Object[]> cases = new ArrayList<>();
        for (Object item : MiniJson.arr(Fixtures.load(FIXTURE).get("cases"))) {
            Map<String, Object> c = MiniJson.obj(item);
            String text = MiniJson.str(c.get("text"));
            String label = text.length() > 40 ? text.substring(0, 40) + "..." : text;
            cases.add(new Object[] {label.replaceAll("\\p{Cntrl}", "?"), c});
        }
        return cases;
    }

    private final Map<String, Object> c;

    public TokenizerGoldenTest(String label, Map<String, Object> c) {
        this.c = c;
    }

    private static BertTokenizer tokenizer() {
        Map<String, Object> fixture = Fixtures.load(FIXTURE);
        assertTrue("the fixtures are uncased", MiniJson.bool(fixture.get("do_lower_case")));
        return Fixtures.tokenizer(MiniJson.str(fixture.get("vocab")));
    }

    @Test
    public void tokensAndIds() {
        BertTokenizer tokenizer = tokenizer();
        String text = MiniJson.str(c.get("text"));
        List<String> tokens = tokenizer.tokenize(text);
        assertEquals(MiniJson.strings(c.get("tokens")), tokens);
        assertArrayEquals(MiniJson.ints(c.get("ids")), tokenizer.convertTokensToIds(tokens));
        assertArrayEquals(MiniJson.ints(c.get("ids")), tokenizer.encode(text));
    }
}
