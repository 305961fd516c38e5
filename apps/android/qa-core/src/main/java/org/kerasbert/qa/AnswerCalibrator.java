package org.kerasbert.qa;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Logistic regression from a candidate span's {@link SpanFeatures} to the probability that it
 * answers the question (an estimate of its F1): a port of
 * {@code keras_bert/retrieval/answer_calibrator.py} ({@code AnswerCalibrator}), reading the
 * same JSON file the Python pipeline and the web app read
 * ({@code apps/models/answer_calibrator.json}):
 *
 * <pre>
 * {"features": ["span_logit", ...], "weights": [0.3, ...], "bias": -6.0, "threshold": 0.25,
 *  "info": {"ranker": "bm25", "passages": 3, ...}}
 * </pre>
 *
 * {@code p = 1 / (1 + exp(-(bias + sum_i weights[i] * features[i])))}, the features named by
 * {@code features}, in order. Below {@link #threshold()} the document pipeline says there is no
 * answer. {@code info.ranker} and {@code info.passages} are the retrieval it was fitted with,
 * which {@link DocumentQa} uses by default.
 */
public final class AnswerCalibrator {
    private final List<String> features;
    private final double[] weights;
    private final double bias;
    private final double threshold;
    private final Map<String, Object> info;

    /** A calibrator with threshold 0.5 and no info. */
    public AnswerCalibrator(List<String> features, double[] weights, double bias) {
        this(features, weights, bias, 0.5, null);
    }

    /**
     * @param info anything kept beside the numbers; {@code "ranker"} (a String) and
     *     {@code "passages"} (a whole number) are read by {@link DocumentQa}. May be null.
     * @throws IllegalArgumentException for an unknown feature, a weight count that differs
     *     from the feature count, or a threshold outside [0, 1].
     */
    public AnswerCalibrator(List<String> features, double[] weights, double bias,
            double threshold, Map<String, Object> info) {
        if (features == null || weights == null) {
            throw new IllegalArgumentException("A calibrator needs its features and weights.");
        }
        List<String> unknown = new ArrayList<>();
        for (String f : features) {
            if (!SpanFeatures.NAMES.contains(f)) {
                unknown.add(f);
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("Unknown calibrator features " + unknown
                    + ": choose from " + SpanFeatures.NAMES + ".");
        }
        if (weights.length != features.size()) {
            throw new IllegalArgumentException(weights.length + " weights for " + features.size()
                    + " features.");
        }
        if (!(threshold >= 0.0 && threshold <= 1.0)) {
            throw new IllegalArgumentException("threshold=" + threshold + ": a probability, in [0, 1].");
        }
        this.features = Collections.unmodifiableList(new ArrayList<>(features));
        this.weights = weights.clone();
        this.bias = bias;
        this.threshold = threshold;
        this.info = Collections.unmodifiableMap(
                info == null ? new LinkedHashMap<>() : new LinkedHashMap<>(info));
    }

    /**
     * Parses the calibrator's JSON file (what Python's {@code AnswerCalibrator.save} writes).
     *
     * @throws IllegalArgumentException with a message naming what is wrong: not JSON, not an
     *     object, a missing or mistyped {@code features}, {@code weights} or {@code bias}, or an
     *     invalid calibrator.
     */
    public static AnswerCalibrator fromJson(String json) {
        if (json == null) {
            throw new IllegalArgumentException("The calibrator's JSON is null.");
        }
        Object parsed;
        try {
            parsed = MiniJson.parse(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Not a calibrator's JSON (" + e.getMessage()
                    + "): use the file AnswerCalibrator.save wrote.", e);
        }
        if (!(parsed instanceof Map)) {
            throw new IllegalArgumentException("A calibrator's JSON is an object with features, "
                    + "weights and bias.");
        }
        return fromConfig(MiniJson.obj(parsed));
    }

    /** Reads the UTF-8 JSON file from a stream (e.g. an Android asset); does not close it. */
    public static AnswerCalibrator fromStream(InputStream stream) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = stream.read(buffer)) > 0) {
            bytes.write(buffer, 0, n);
        }
        return fromJson(new String(bytes.toByteArray(), StandardCharsets.UTF_8));
    }

    /** Python's {@code from_dict}: the parsed JSON object. */
    public static AnswerCalibrator fromConfig(Map<String, Object> config) {
        List<String> missing = new ArrayList<>();
        for (String key : new String[] {"features", "weights", "bias"}) {
            if (!config.containsKey(key)) {
                missing.add(key);
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("The calibrator's JSON lacks " + missing
                    + ": use the file AnswerCalibrator.save wrote.");
        }
        List<String> features = new ArrayList<>();
        for (Object f : list(config.get("features"), "features")) {
            if (!(f instanceof String)) {
                throw new IllegalArgumentException("The calibrator's features are names (strings), got " + f + ".");
            }
            features.add((String) f);
        }
        List<Object> weightList = list(config.get("weights"), "weights");
        double[] weights = new double[weightList.size()];
        for (int i = 0; i < weights.length; i++) {
            weights[i] = number(weightList.get(i), "weights[" + i + "]");
        }
        double bias = number(config.get("bias"), "bias");
        double threshold = config.containsKey("threshold")
                ? number(config.get("threshold"), "threshold") : 0.5;
        Object info = config.get("info");
        if (info != null && !(info instanceof Map)) {
            throw new IllegalArgumentException("The calibrator's info is an object, got " + info + ".");
        }
        return new AnswerCalibrator(features, weights, bias, threshold,
                info == null ? null : MiniJson.obj(info));
    }

    private static List<Object> list(Object value, String name) {
        if (!(value instanceof List)) {
            throw new IllegalArgumentException("The calibrator's " + name + " is a list, got "
                    + value + ".");
        }
        return MiniJson.arr(value);
    }

    private static double number(Object value, String name) {
        if (!(value instanceof Number)) {
            throw new IllegalArgumentException("The calibrator's " + name + " is a number, got "
                    + value + ".");
        }
        return ((Number) value).doubleValue();
    }

    public List<String> features() {
        return features;
    }

    public double[] weights() {
        return weights.clone();
    }

    public double bias() {
        return bias;
    }

    /** Abstain when the best candidate's probability is lower than this. */
    public double threshold() {
        return threshold;
    }

    public Map<String, Object> info() {
        return info;
    }

    /** Whether the calibrator reads the feature called {@code name}. */
    public boolean uses(String name) {
        return features.contains(name);
    }

    /** {@code info.ranker} ("bm25", "dense" or "rrf"), or null when the file names none. */
    public String ranker() {
        Object ranker = info.get("ranker");
        return ranker instanceof String ? (String) ranker : null;
    }

    /** {@code info.passages} (how many passages the reader read when fitted), or 0 if none. */
    public int passages() {
        Object passages = info.get("passages");
        if (passages instanceof Number) {
            double value = ((Number) passages).doubleValue();
            if (value == Math.rint(value) && value >= 1 && value <= Integer.MAX_VALUE) {
                return (int) value;
            }
        }
        return 0;
    }

    /** {@code bias + sum(weights[i] * features[i])}. */
    public double logit(SpanFeatures span) {
        double logit = 0.0;
        for (int i = 0; i < weights.length; i++) {
            Double value = span.get(features.get(i));
            if (value == null) {
                throw new IllegalArgumentException("The calibrator needs the feature '"
                        + features.get(i) + "', which this candidate lacks (for 'cosine', give "
                        + "the pipeline an embedder).");
            }
            logit += value * weights[i];
        }
        return logit + bias;
    }

    /** The probability that {@code span} answers the question: sigmoid of {@link #logit}. */
    public double probability(SpanFeatures span) {
        return 1.0 / (1.0 + Math.exp(-logit(span)));
    }

    /** Whether the document pipeline abstains at this probability. */
    public boolean abstains(double probability) {
        return probability < threshold;
    }

    @Override
    public String toString() {
        return "AnswerCalibrator{features=" + features + ", weights="
                + java.util.Arrays.toString(weights) + ", bias=" + bias + ", threshold="
                + threshold + ", info=" + info + "}";
    }
}
