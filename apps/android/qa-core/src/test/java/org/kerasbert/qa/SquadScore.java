package org.kerasbert.qa;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The official SQuAD v1.1 scoring rules (evaluate-v1.1.py), for {@link QaGoldTest}: normalized
 * exact match and token F1, each the best over a question's gold answers.
 */
final class SquadScore {
    /** Python's string.punctuation: the script removes these and no other characters. */
    private static final String PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    /** Python's \b in a str pattern: the edge of a run of letters, digits or "_". */
    private static final Pattern ARTICLES =
            Pattern.compile("(?<![\\p{L}\\p{N}_])(a|an|the)(?![\\p{L}\\p{N}_])");
    private static final Pattern WHITESPACE = Pattern.compile("(?U)\\s+");

    private SquadScore() {}

    /** Lower-case, drop punctuation and the articles a/an/the, collapse whitespace. */
    static String normalize(String text) {
        String lowered = text.toLowerCase(Locale.ROOT);
        StringBuilder kept = new StringBuilder(lowered.length());
        for (int i = 0; i < lowered.length(); i++) {
            char c = lowered.charAt(i);
            if (PUNCTUATION.indexOf(c) < 0) {
                kept.append(c);
            }
        }
        String spaced = ARTICLES.matcher(kept).replaceAll(" ");
        return String.join(" ", tokens(spaced));
    }

    private static List<String> tokens(String text) {
        List<String> out = new ArrayList<>();
        for (String t : WHITESPACE.split(text)) {
            if (!t.isEmpty()) {
                out.add(t);
            }
        }
        return out;
    }

    /** Token-overlap F1 (0 when no token is shared). */
    static double f1(String prediction, String gold) {
        List<String> predicted = tokens(normalize(prediction));
        List<String> truth = tokens(normalize(gold));
        Map<String, Integer> counts = new HashMap<>();
        for (String t : truth) {
            counts.merge(t, 1, Integer::sum);
        }
        int same = 0;
        for (String t : predicted) {
            int left = counts.getOrDefault(t, 0);
            if (left > 0) {
                counts.put(t, left - 1);
                same++;
            }
        }
        if (same == 0) {
            return 0.0;
        }
        double precision = (double) same / predicted.size();
        double recall = (double) same / truth.size();
        return 2 * precision * recall / (precision + recall);
    }

    static boolean exact(String prediction, List<String> golds) {
        return golds.stream().anyMatch(g -> normalize(prediction).equals(normalize(g)));
    }

    static double bestF1(String prediction, List<String> golds) {
        return golds.stream().mapToDouble(g -> f1(prediction, g)).max().orElse(0.0);
    }

    static List<String> list(String... values) {
        return Arrays.asList(values);
    }
}
