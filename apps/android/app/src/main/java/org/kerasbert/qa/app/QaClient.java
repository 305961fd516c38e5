package org.kerasbert.qa.app;

import android.content.Context;
import android.content.res.AssetFileDescriptor;
import android.content.res.AssetManager;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kerasbert.qa.Answer;
import org.kerasbert.qa.AnswerCalibrator;
import org.kerasbert.qa.AnswerDecoder;
import org.kerasbert.qa.BertTokenizer;
import org.kerasbert.qa.DocumentAnswer;
import org.kerasbert.qa.DocumentQa;
import org.kerasbert.qa.FeatureBuilder;
import org.kerasbert.qa.Features;
import org.kerasbert.qa.ModelIntegrity;
import org.kerasbert.qa.SpanFeatures;
import org.kerasbert.qa.Window;
import org.tensorflow.lite.Interpreter;

/**
 * Question answering with the shipped int8 BERT QA model through the LiteRT interpreter.
 *
 * <p>The model follows the TFLite BERT QA / Task Library contract: signature inputs {@code ids},
 * {@code mask}, {@code segment_ids} (int32 [1, 384]) and outputs {@code start_logits},
 * {@code end_logits} (float32 [1, 384]). Pre- and post-processing are qa-core's (the same
 * code the JUnit tests check against the Python pipeline's golden fixtures). Each 384-token
 * window of the passage is one interpreter run.
 *
 * <p>A whole document (assets/articles.json) is asked through qa-core's {@link DocumentQa}:
 * BM25 picks the passages, this interpreter reads them, and the calibrator in
 * {@code answer_calibrator.json} (if the APK has one) says "no answer in this document" below
 * its threshold. The app has no sentence embedder, so a calibrator that uses the cosine is not
 * used (as the Python pipeline without an embedder): candidates are then merged by their logits
 * and the app never abstains.
 *
 * <p>Not thread-safe: use it from one background thread (QaActivity's executor), never the UI
 * thread.
 */
public final class QaClient implements AutoCloseable {
    public static final String MODEL_ASSET = "squad_minilm_int8.tflite";
    public static final String MANIFEST_ASSET = "SHA256SUMS";
    public static final String VOCAB_ASSET = "vocab.txt";
    /** Optional: without it, documents are answered without abstention. */
    public static final String CALIBRATOR_ASSET = "answer_calibrator.json";
    static final String[] INPUTS = {"ids", "mask", "segment_ids"};
    static final String[] OUTPUTS = {"start_logits", "end_logits"};

    /** One answered question. */
    public static final class Result {
        public final List<Answer> answers;
        public final int windows;
        public final boolean questionTruncated;
        /** Interpreter time summed over the windows, in milliseconds. */
        public final double inferenceMillis;
        /** Tokenization + inference + decoding, in milliseconds. */
        public final double totalMillis;

        Result(List<Answer> answers, int windows, boolean questionTruncated, double inferenceMillis,
                double totalMillis) {
            this.answers = answers;
            this.windows = windows;
            this.questionTruncated = questionTruncated;
            this.inferenceMillis = inferenceMillis;
            this.totalMillis = totalMillis;
        }
    }

    /** One question answered over a whole document. */
    public static final class DocumentResult {
        /** The answer, or {@code answer.noAnswer()}: not answered in this document. */
        public final DocumentAnswer answer;
        public final int passagesRead;
        public final int passages;
        /** Whether a calibrator chose the answer (and may abstain). */
        public final boolean calibrated;
        public final double inferenceMillis;
        public final double totalMillis;

        DocumentResult(DocumentAnswer answer, int passagesRead, int passages, boolean calibrated,
                double inferenceMillis, double totalMillis) {
            this.answer = answer;
            this.passagesRead = passagesRead;
            this.passages = passages;
            this.calibrated = calibrated;
            this.inferenceMillis = inferenceMillis;
            this.totalMillis = totalMillis;
        }
    }

    private final Interpreter interpreter;
    private final String signatureKey;
    private final FeatureBuilder builder;
    private final AnswerDecoder decoder = new AnswerDecoder();
    private final DocumentQa documentQa;
    private final int numThreads;
    private long inferenceNanos; // interpreter time since the last reset

    private QaClient(Interpreter interpreter, String signatureKey, BertTokenizer tokenizer,
            AnswerCalibrator calibrator, int numThreads) {
        this.interpreter = interpreter;
        this.signatureKey = signatureKey;
        this.builder = new FeatureBuilder(tokenizer);
        this.documentQa = DocumentQa.builder(builder, this::runWindow).calibrator(calibrator)
                .ranker(DocumentQa.BM25).build();
        this.numThreads = numThreads;
    }

    /**
     * Loads the model and vocabulary from the assets (slow: call off the UI thread).
     *
     * @throws ModelLoadException if the model is missing, corrupted or not a BERT QA model, or
     *     the vocabulary is missing or invalid.
     */
    public static QaClient create(Context context, int numThreads) throws ModelLoadException {
        AssetManager assets = context.getAssets();
        String manifest = readManifest(assets);
        BertTokenizer tokenizer;
        try (InputStream vocab = assets.open(VOCAB_ASSET)) {
            byte[] vocabBytes = readAll(vocab);
            verify(VOCAB_ASSET, ByteBuffer.wrap(vocabBytes), manifest);
            tokenizer = BertTokenizer.fromVocabText(new String(vocabBytes, StandardCharsets.UTF_8));
        } catch (FileNotFoundException e) {
            throw new ModelLoadException("The vocabulary " + VOCAB_ASSET
                    + " is missing from the app's assets (the build copies it from apps/models).", e);
        } catch (IOException | IllegalArgumentException e) {
            throw new ModelLoadException("The vocabulary " + VOCAB_ASSET + " is unreadable: "
                    + e.getMessage(), e);
        }

        AnswerCalibrator calibrator = readCalibrator(assets);

        ByteBuffer model;
        try {
            model = loadModel(assets);
        } catch (FileNotFoundException e) {
            throw new ModelLoadException("The model " + MODEL_ASSET
                    + " is missing from the app's assets (the build copies it from apps/models).", e);
        } catch (IOException e) {
            throw new ModelLoadException("The model " + MODEL_ASSET + " could not be read: "
                    + e.getMessage(), e);
        }
        if (model.capacity() < 8) {
            throw new ModelLoadException("The model " + MODEL_ASSET + " is empty or truncated ("
                    + model.capacity() + " bytes).", null);
        }
        verify(MODEL_ASSET, model, manifest);

        Interpreter interpreter;
        try {
            Interpreter.Options options = new Interpreter.Options();
            options.setNumThreads(Math.max(1, numThreads));
            interpreter = new Interpreter(model, options);
        } catch (RuntimeException | LinkageError e) {
            // A corrupted file fails here ("Could not build model from the provided flatbuffer").
            throw new ModelLoadException("The model " + MODEL_ASSET
                    + " is not a valid .tflite file (corrupted download or build?): " + e.getMessage(), e);
        }
        try {
            String key = checkContract(interpreter);
            return new QaClient(interpreter, key, tokenizer, calibrator, numThreads);
        } catch (ModelLoadException | RuntimeException e) {
            interpreter.close();
            if (e instanceof ModelLoadException) {
                throw (ModelLoadException) e;
            }
            throw new ModelLoadException("The model " + MODEL_ASSET + " cannot be used: "
                    + e.getMessage(), e);
        }
    }

    /** The signature with ids/mask/segment_ids inputs and start/end logits outputs. */
    private static String checkContract(Interpreter interpreter) throws ModelLoadException {
        for (String key : interpreter.getSignatureKeys()) {
            List<String> inputs = Arrays.asList(interpreter.getSignatureInputs(key));
            List<String> outputs = Arrays.asList(interpreter.getSignatureOutputs(key));
            if (inputs.containsAll(Arrays.asList(INPUTS)) && outputs.containsAll(Arrays.asList(OUTPUTS))) {
                return key;
            }
        }
        throw new ModelLoadException("The model " + MODEL_ASSET + " is not a BERT QA model: it has no "
                + "signature with inputs ids, mask, segment_ids and outputs start_logits, end_logits "
                + "(signatures: " + Arrays.toString(interpreter.getSignatureKeys()) + ").", null);
    }

    /**
     * The calibrator asset, or null when the APK has none or it needs the embedder's cosine
     * (this app has no embedder).
     */
    private static AnswerCalibrator readCalibrator(AssetManager assets) throws ModelLoadException {
        AnswerCalibrator calibrator;
        try (InputStream in = assets.open(CALIBRATOR_ASSET)) {
            calibrator = AnswerCalibrator.fromStream(in);
        } catch (FileNotFoundException e) {
            return null;
        } catch (IOException | IllegalArgumentException e) {
            throw new ModelLoadException("The calibrator " + CALIBRATOR_ASSET + " is unreadable: "
                    + e.getMessage(), e);
        }
        return calibrator.uses(SpanFeatures.COSINE) ? null : calibrator;
    }

    /** The SHA256SUMS asset the build copies from apps/models; null when the APK has none. */
    private static String readManifest(AssetManager assets) {
        try (InputStream in = assets.open(MANIFEST_ASSET)) {
            return new String(readAll(in), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    /** A corrupted asset is refused here rather than answering wrongly (ModelIntegrity). */
    private static void verify(String name, ByteBuffer bytes, String manifest) throws ModelLoadException {
        if (manifest == null) {
            return;
        }
        try {
            ModelIntegrity.verify(name, bytes, manifest);
        } catch (IllegalStateException e) {
            throw new ModelLoadException(e.getMessage(), e);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 20);
        byte[] buffer = new byte[1 << 16];
        int n;
        while ((n = in.read(buffer)) > 0) {
            bytes.write(buffer, 0, n);
        }
        return bytes.toByteArray();
    }

    /** Memory-maps the (uncompressed) asset; falls back to reading it into a direct buffer. */
    private static ByteBuffer loadModel(AssetManager assets) throws IOException {
        try (AssetFileDescriptor fd = assets.openFd(MODEL_ASSET);
                FileInputStream in = new FileInputStream(fd.getFileDescriptor());
                FileChannel channel = in.getChannel()) {
            return channel.map(FileChannel.MapMode.READ_ONLY, fd.getStartOffset(), fd.getDeclaredLength());
        } catch (FileNotFoundException e) {
            // openFd also fails for a compressed asset: read it through a stream then.
            try (InputStream in = assets.open(MODEL_ASSET)) {
                byte[] data = readAll(in);
                ByteBuffer direct = ByteBuffer.allocateDirect(data.length).order(ByteOrder.nativeOrder());
                direct.put(data).rewind();
                return direct;
            }
        }
    }

    public int numThreads() {
        return numThreads;
    }

    /**
     * Answers {@code question} about {@code passage}: the n-best answers (best first, empty when
     * no span is valid) with UTF-16 offsets into {@code passage}.
     *
     * @throws org.kerasbert.qa.QaInputException for an empty question or passage.
     */
    public Result answer(String question, String passage) {
        long begin = System.nanoTime();
        Features features = builder.build(question, passage);
        List<Window> windows = features.windows();
        float[][] startLogits = new float[windows.size()][];
        float[][] endLogits = new float[windows.size()][];
        inferenceNanos = 0;
        for (int w = 0; w < windows.size(); w++) {
            float[][] logits = runWindow(windows.get(w));
            startLogits[w] = logits[0];
            endLogits[w] = logits[1];
        }
        List<Answer> answers = decoder.decode(features, startLogits, endLogits);
        double totalMillis = (System.nanoTime() - begin) / 1e6;
        return new Result(answers, windows.size(), features.questionTruncated(),
                inferenceNanos / 1e6, totalMillis);
    }

    /**
     * Answers {@code question} over a whole {@code document}: the best passages (BM25) read,
     * the answer with UTF-16 offsets into {@code document}, or "no answer in this document".
     *
     * @throws org.kerasbert.qa.QaInputException for an empty question or document.
     */
    public DocumentResult answerDocument(String question, String document) {
        long begin = System.nanoTime();
        inferenceNanos = 0;
        DocumentAnswer answer = documentQa.answer(question, document);
        double totalMillis = (System.nanoTime() - begin) / 1e6;
        return new DocumentResult(answer, documentQa.passagesRead(),
                documentQa.passages(document).size(), documentQa.calibrator() != null,
                inferenceNanos / 1e6, totalMillis);
    }

    /** One interpreter run: {start logits, end logits} of {@code window}. */
    private float[][] runWindow(Window window) {
        int seq = builder.maxSeqLength();
        Map<String, Object> inputs = new HashMap<>();
        inputs.put("ids", new int[][] {window.ids()});
        inputs.put("mask", new int[][] {window.mask()});
        inputs.put("segment_ids", new int[][] {window.segmentIds()});
        float[][] start = new float[1][seq];
        float[][] end = new float[1][seq];
        Map<String, Object> outputs = new HashMap<>();
        outputs.put("start_logits", start);
        outputs.put("end_logits", end);
        long runBegin = System.nanoTime();
        interpreter.runSignature(inputs, outputs, signatureKey);
        inferenceNanos += System.nanoTime() - runBegin;
        return new float[][] {start[0], end[0]};
    }

    @Override
    public void close() {
        interpreter.close();
    }
}
