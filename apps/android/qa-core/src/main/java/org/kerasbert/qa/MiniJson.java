package org.kerasbert.qa;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON parser (the JDK has none, and qa-core takes no dependencies): for the
 * calibrator's file ({@link AnswerCalibrator#fromJson}) and the tests' golden fixtures. Objects
 * become {@code LinkedHashMap<String, Object>}, arrays {@code ArrayList<Object>}, integers
 * {@code Long}, other numbers {@code Double} (Double.parseDouble: correctly rounded, like
 * Python's float()), plus {@code true/false/null}, and Python's {@code NaN}, {@code Infinity},
 * {@code -Infinity}. Malformed input raises {@link IllegalArgumentException} naming the offset.
 */
final class MiniJson {
    private final String text;
    private int at;

    private MiniJson(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        MiniJson parser = new MiniJson(text);
        parser.skipSpace();
        Object value = parser.value();
        parser.skipSpace();
        if (parser.at != text.length()) {
            throw parser.error("trailing characters");
        }
        return value;
    }

    private IllegalArgumentException error(String what) {
        int from = Math.max(0, at - 20);
        int to = Math.min(text.length(), at + 20);
        return new IllegalArgumentException("JSON: " + what + " at offset " + at + " near '"
                + text.substring(from, to) + "'");
    }

    private void skipSpace() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                at++;
            } else {
                break;
            }
        }
    }

    private boolean consume(String literal) {
        if (text.startsWith(literal, at)) {
            at += literal.length();
            return true;
        }
        return false;
    }

    private Object value() {
        if (at >= text.length()) {
            throw error("unexpected end");
        }
        char c = text.charAt(at);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            default:
                break;
        }
        if (consume("true")) {
            return Boolean.TRUE;
        }
        if (consume("false")) {
            return Boolean.FALSE;
        }
        if (consume("null")) {
            return null;
        }
        if (consume("NaN")) {
            return Double.NaN;
        }
        if (consume("Infinity")) {
            return Double.POSITIVE_INFINITY;
        }
        if (consume("-Infinity")) {
            return Double.NEGATIVE_INFINITY;
        }
        return number();
    }

    private Map<String, Object> object() {
        Map<String, Object> map = new LinkedHashMap<>();
        at++; // {
        skipSpace();
        if (consume("}")) {
            return map;
        }
        while (true) {
            skipSpace();
            if (at >= text.length() || text.charAt(at) != '"') {
                throw error("expected a key string");
            }
            String key = string();
            skipSpace();
            if (!consume(":")) {
                throw error("expected ':'");
            }
            skipSpace();
            map.put(key, value());
            skipSpace();
            if (consume(",")) {
                continue;
            }
            if (consume("}")) {
                return map;
            }
            throw error("expected ',' or '}'");
        }
    }

    private List<Object> array() {
        List<Object> list = new ArrayList<>();
        at++; // [
        skipSpace();
        if (consume("]")) {
            return list;
        }
        while (true) {
            skipSpace();
            list.add(value());
            skipSpace();
            if (consume(",")) {
                continue;
            }
            if (consume("]")) {
                return list;
            }
            throw error("expected ',' or ']'");
        }
    }

    private String string() {
        at++; // opening quote
        StringBuilder out = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw error("raw control character in string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) {
                throw error("unterminated escape");
            }
            char e = text.charAt(at++);
            switch (e) {
                case '"': out.append('"'); break;
                case '\\': out.append('\\'); break;
                case '/': out.append('/'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    if (at + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    // Surrogate pairs arrive as two escapes; appending both units rebuilds them.
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                    break;
                default:
                    throw error("bad escape \\" + e);
            }
        }
    }

    private Object number() {
        int start = at;
        boolean integral = true;
        if (at < text.length() && text.charAt(at) == '-') {
            at++;
        }
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c >= '0' && c <= '9') {
                at++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                integral = false;
                at++;
            } else {
                break;
            }
        }
        String literal = text.substring(start, at);
        if (literal.isEmpty() || literal.equals("-")) {
            throw error("unexpected character");
        }
        try {
            return integral ? (Object) Long.parseLong(literal) : (Object) Double.parseDouble(literal);
        } catch (NumberFormatException ex) {
            throw error("bad number " + literal);
        }
    }

    // === typed access helpers ===

    @SuppressWarnings("unchecked")
    static Map<String, Object> obj(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Object> arr(Object value) {
        return (List<Object>) value;
    }

    static String str(Object value) {
        return (String) value;
    }

    static int integer(Object value) {
        long v = (Long) value;
        if (v != (int) v) {
            throw new IllegalArgumentException("not an int: " + v);
        }
        return (int) v;
    }

    static double number(Object value) {
        return ((Number) value).doubleValue();
    }

    static boolean bool(Object value) {
        return (Boolean) value;
    }

    static List<String> strings(Object value) {
        List<String> out = new ArrayList<>();
        for (Object item : arr(value)) {
            out.add(str(item));
        }
        return out;
    }

    static int[] ints(Object value) {
        List<Object> list = arr(value);
        int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = integer(list.get(i));
        }
        return out;
    }

    static double[] doubles(Object value) {
        List<Object> list = arr(value);
        double[] out = new double[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = number(list.get(i));
        }
        return out;
    }
}
