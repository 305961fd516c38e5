package org.kerasbert.qa;

import java.util.List;
import java.util.Map;

/** Writes what {@link MiniJson} parsed back as JSON text (numbers round-trip exactly). */
final class TestJson {
    private TestJson() {}

    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : MiniJson.obj(value).entrySet()) {
                if (!first) {
                    out.append(", ");
                }
                first = false;
                string(e.getKey(), out);
                out.append(": ");
                write(e.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof List) {
            out.append('[');
            boolean first = true;
            for (Object item : MiniJson.arr(value)) {
                if (!first) {
                    out.append(", ");
                }
                first = false;
                write(item, out);
            }
            out.append(']');
        } else if (value instanceof String) {
            string((String) value, out);
        } else {
            out.append(value); // Long, Double (Double.toString round-trips), Boolean
        }
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
