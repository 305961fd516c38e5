package org.kerasbert.qa;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Retrieve, then read: answers a question from a whole document by reading only its best
 * passages, or says the document holds no answer. A port of
 * {@code keras_bert/pipelines/document_question_answering_pipeline.py}
 * ({@code DocumentQuestionAnsweringPipeline.__call__}).
 *
 * <ol>
 *   <li>The document is cut into overlapping passages of whole sentences
 *       ({@link PassageSplitter}; once per document, cached), with a {@link Bm25Ranker} over
 *       them and, when an {@link Embedder} is needed, their unit embeddings.
 *   <li>The passages are ranked against the question: "bm25", "dense" (embedding cosine) or
 *       "rrf" ({@link RankFusion} of both); the reader reads the best {@code passages} of them,
 *       each with {@link FeatureBuilder} (one window for a splitter passage) and
 *       {@link AnswerDecoder}.
 *   <li>Every candidate span gets {@link SpanFeatures} (its logits, its window's
 *       {@link WindowStatistics}, {@code bm25_match} = score / score bound, the cosine,
 *       {@code inverse_rank} = 1 / its passage's rank among those read) and, with an
 *       {@link AnswerCalibrator}, a probability. The same document span read in two
 *       overlapping passages keeps its highest value. The answer is the most probable
 *       candidate; below the calibrator's threshold the result is "no answer".
 *   <li>Without a calibrator, candidates are merged by start + end logit and the score is a
 *       softmax over them (the pipeline never abstains then).
 * </ol>
 *
 * The model is behind {@link Reader} (the app runs LiteRT there; tests use a fake), the sentence
 * embedder behind {@link Embedder}. Offsets are UTF-16 indices into the document. Not
 * thread-safe as to the reader and embedder: call it from one background thread.
 */
public final class DocumentQa {
    public static final String BM25 = "bm25";
    public static final String DENSE = "dense";
    public static final String RRF = "rrf";
    public static final List<String> RANKERS = Collections.unmodifiableList(Arrays.asList(BM25, DENSE, RRF));
    public static final int DEFAULT_MAX_DOCUMENTS = 16;

    /** The extractive reader: one model call on one window. */
    public interface Reader {
        /**
         * The model's logits for {@code window}: {@code {startLogits, endLogits}}, each of
         * {@link Window#sequenceLength()} values (the model's float32 outputs).
         */
        float[][] logits(Window window);
    }

    /** The sentence embedder (e.g. MiniLM through LiteRT). */
    public interface Embedder {
        /** One embedding per text, in order, all of one length (scaled to unit length here). */
        float[][] embed(List<String> texts);
    }

    /** One passage the reader reads, with its retrieval scores. */
    public static final class Retrieved {
        private final int passage;
        private final int rank;
        private final double bm25Match;
        private final Double cosine;

        Retrieved(int passage, int rank, double bm25Match, Double cosine) {
            this.passage = passage;
            this.rank = rank;
            this.bm25Match = bm25Match;
            this.cosine = cosine;
        }

        /** Its index among the document's passages. */
        public int passage() {
            return passage;
        }

        /** Its 1-based rank among the passages read. */
        public int rank() {
            return rank;
        }

        /** Its BM25 score over the question's score bound, in [0, 1). */
        public double bm25Match() {
            return bm25Match;
        }

        /** Its embedding's cosine to the question's, or null without an embedder. */
        public Double cosine() {
            return cosine;
        }
    }

    /** Builds a {@link DocumentQa}; only the features and the reader are required. */
    public static final class Builder {
        private final FeatureBuilder features;
        private final Reader reader;
        private AnswerDecoder decoder;
        private PassageSplitter splitter;
        private Embedder embedder;
        private String ranker;
        private int passages;
        private AnswerCalibrator calibrator;
        private int maxDocuments = DEFAULT_MAX_DOCUMENTS;

        private Builder(FeatureBuilder features, Reader reader) {
            this.features = features;
            this.reader = reader;
        }

        /** Default: {@code new AnswerDecoder()} (20 best, answers of at most 30 tokens). */
        public Builder decoder(AnswerDecoder decoder) {
            this.decoder = decoder;
            return this;
        }

        /** Default: the features' tokenizer, 254 tokens, 64 overlapping. */
        public Builder splitter(PassageSplitter splitter) {
            this.splitter = splitter;
            return this;
        }

        /** Needed for the "dense" and "rrf" rankers and for a calibrator that uses the cosine. */
        public Builder embedder(Embedder embedder) {
            this.embedder = embedder;
            return this;
        }

        /** "bm25", "dense" or "rrf"; default: the calibrator's {@code info.ranker}, else "bm25". */
        public Builder ranker(String ranker) {
            this.ranker = ranker;
            return this;
        }

        /** How many best-ranked passages the reader reads; default: the calibrator's, else 1. */
        public Builder passages(int passages) {
            if (passages < 1) {
                throw new IllegalArgumentException("passages=" + passages + ": read at least 1 passage.");
            }
            this.passages = passages;
            return this;
        }

        /** With one, answers are chosen by probability and the pipeline may abstain. */
        public Builder calibrator(AnswerCalibrator calibrator) {
            this.calibrator = calibrator;
            return this;
        }

        /** Documents whose passages (and rankers) are kept for later questions (default 16). */
        public Builder maxDocuments(int maxDocuments) {
            if (maxDocuments < 1) {
                throw new IllegalArgumentException("maxDocuments=" + maxDocuments + ": keep at least 1.");
            }
            this.maxDocuments = maxDocuments;
            return this;
        }

        /**
         * @throws IllegalArgumentException for an unknown ranker, or a ranker or calibrator
         *     that needs the embedder when there is none.
         */
        public DocumentQa build() {
            return new DocumentQa(this);
        }
    }

    /** A document's passages and rankers. */
    private static final class Entry {
        final List<Passage> passages;
        final Bm25Ranker bm25;
        final float[][] embeddings; // unit rows, or null

        Entry(List<Passage> passages, Bm25Ranker bm25, float[][] embeddings) {
            this.passages = passages;
            this.bm25 = bm25;
            this.embeddings = embeddings;
        }
    }

    /** One merged candidate span. */
    private static final class Candidate {
        final Answer answer;
        final int passageIndex;
        final Passage passage;
        final SpanFeatures features;
        final double key;
        final int start;
        final int end;

        Candidate(Answer answer, int passageIndex, Passage passage, SpanFeatures features,
                double key) {
            this.answer = answer;
            this.passageIndex = passageIndex;
            this.passage = passage;
            this.features = features;
            this.key = key;
            this.start = passage.start() + answer.start();
            this.end = passage.start() + answer.end();
        }
    }

    private final FeatureBuilder features;
    private final Reader reader;
    private final AnswerDecoder decoder;
    private final PassageSplitter splitter;
    private final Embedder embedder;
    private final String ranker;
    private final int passages;
    private final AnswerCalibrator calibrator;
    private final Map<String, Entry> documents;

    private DocumentQa(Builder b) {
        if (b.features == null || b.reader == null) {
            throw new IllegalArgumentException("DocumentQa needs a FeatureBuilder and a Reader.");
        }
        AnswerCalibrator calibrator = b.calibrator;
        String ranker = b.ranker;
        if (ranker == null) {
            ranker = calibrator != null && calibrator.ranker() != null ? calibrator.ranker() : BM25;
        }
        int passages = b.passages;
        if (passages == 0) {
            passages = calibrator != null && calibrator.passages() > 0 ? calibrator.passages() : 1;
        }
        if (!RANKERS.contains(ranker)) {
            throw new IllegalArgumentException("ranker='" + ranker + "': choose from " + RANKERS + ".");
        }
        boolean needsEmbedder = !ranker.equals(BM25)
                || (calibrator != null && calibrator.uses(SpanFeatures.COSINE));
        if (needsEmbedder && b.embedder == null) {
            throw new IllegalArgumentException("ranker='" + ranker + "'"
                    + (calibrator != null && calibrator.uses(SpanFeatures.COSINE)
                            ? " with a calibrator that uses the cosine" : "")
                    + " needs an embedder: pass one, or use ranker 'bm25' and a calibrator "
                    + "without 'cosine'.");
        }
        this.features = b.features;
        this.reader = b.reader;
        this.decoder = b.decoder != null ? b.decoder : new AnswerDecoder();
        this.splitter = b.splitter != null ? b.splitter : new PassageSplitter(b.features.tokenizer());
        this.embedder = b.embedder;
        this.ranker = ranker;
        this.passages = passages;
        this.calibrator = calibrator;
        final int maxDocuments = b.maxDocuments;
        this.documents = new LinkedHashMap<String, Entry>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
                return size() > maxDocuments;
            }
        };
    }

    public static Builder builder(FeatureBuilder features, Reader reader) {
        return new Builder(features, reader);
    }

    public String ranker() {
        return ranker;
    }

    /** How many best-ranked passages the reader reads. */
    public int passagesRead() {
        return passages;
    }

    /** The calibrator, or null. */
    public AnswerCalibrator calibrator() {
        return calibrator;
    }

    public PassageSplitter splitter() {
        return splitter;
    }

    /**
     * The document's passages (computed once per document text, cached).
     *
     * @throws QaInputException for a null, empty or whitespace-only document.
     */
    public List<Passage> passages(String document) {
        return entry(document).passages;
    }

    private Entry entry(String document) {
        if (document == null || TextRules.isBlank(document)) {
            throw new QaInputException("The document is empty: give the text to find the answer in.");
        }
        synchronized (documents) {
            Entry cached = documents.get(document);
            if (cached != null) {
                return cached;
            }
        }
        List<Passage> passages = Collections.unmodifiableList(splitter.split(document));
        List<String> texts = new ArrayList<>(passages.size());
        for (Passage p : passages) {
            texts.add(p.text());
        }
        float[][] embeddings = null;
        if (embedder != null && (!ranker.equals(BM25) || usesCosine())) {
            embeddings = embed(texts);
        }
        Entry entry = new Entry(passages, new Bm25Ranker(texts), embeddings);
        synchronized (documents) {
            documents.put(document, entry);
        }
        return entry;
    }

    private boolean usesCosine() {
        return calibrator != null && calibrator.uses(SpanFeatures.COSINE);
    }

    /** The embedder's rows for {@code texts}, scaled to unit length (float32, as Python's). */
    private float[][] embed(List<String> texts) {
        float[][] rows = embedder.embed(texts);
        if (rows == null || rows.length != texts.size()) {
            throw new IllegalStateException("The embedder returned "
                    + (rows == null ? "null" : rows.length + " rows") + " for " + texts.size()
                    + " texts; expected one embedding per text.");
        }
        float[][] unit = new float[rows.length][];
        for (int i = 0; i < rows.length; i++) {
            if (rows[i] == null || rows[i].length != rows[0].length || rows[i].length == 0) {
                throw new IllegalStateException("The embedder's rows must all have one, nonzero length.");
            }
            double squares = 0.0;
            for (float v : rows[i]) {
                squares += (double) v * v;
            }
            float norm = Math.max((float) Math.sqrt(squares), 1e-12f);
            unit[i] = new float[rows[i].length];
            for (int k = 0; k < rows[i].length; k++) {
                unit[i][k] = rows[i][k] / norm;
            }
        }
        return unit;
    }

    /**
     * The passages the reader reads for {@code question}, best ranked first, with their
     * retrieval scores ({@code passages}: how many; 0 for this pipeline's number).
     */
    public List<Retrieved> retrieve(String question, String document, int passages) {
        Entry entry = entry(document);
        double[] bm25 = entry.bm25.scores(question);
        double[] cosines = null;
        if (entry.embeddings != null) {
            float[] q = embed(Collections.singletonList(question))[0];
            cosines = new double[entry.passages.size()];
            for (int i = 0; i < cosines.length; i++) {
                float[] row = entry.embeddings[i];
                if (row.length != q.length) {
                    throw new IllegalStateException("The embedder gave the question " + q.length
                            + " dimensions and the passages " + row.length + ".");
                }
                float dot = 0f;
                for (int k = 0; k < q.length; k++) {
                    dot += row[k] * q[k];
                }
                cosines[i] = dot;
            }
        }
        int[] order;
        if (ranker.equals(BM25)) {
            order = RankFusion.argsortDescending(bm25);
        } else if (ranker.equals(DENSE)) {
            order = RankFusion.argsortDescending(cosines);
        } else {
            order = RankFusion.fuse(RankFusion.argsortDescending(bm25),
                    RankFusion.argsortDescending(cosines));
        }
        double bound = Math.max(entry.bm25.scoreBound(question), 1e-9);
        int count = Math.min(passages > 0 ? passages : this.passages, order.length);
        List<Retrieved> out = new ArrayList<>(count);
        for (int r = 0; r < count; r++) {
            int i = order[r];
            out.add(new Retrieved(i, r + 1, bm25[i] / bound, cosines == null ? null : cosines[i]));
        }
        return out;
    }

    /**
     * The best answer, or "no answer" ({@link DocumentAnswer#noAnswer()}: the best candidate's
     * probability is below the calibrator's threshold, or no passage gave a span).
     *
     * @throws QaInputException for an empty question or document.
     */
    public DocumentAnswer answer(String question, String document) {
        List<DocumentAnswer> ranked = answers(question, document, 1, 0);
        if (ranked.isEmpty()) {
            return DocumentAnswer.none(0.0, null);
        }
        DocumentAnswer best = ranked.get(0);
        return best.noAnswer() ? DocumentAnswer.none(best.score(), best) : best;
    }

    /**
     * The best {@code topK} candidates over the passages read, best first, each with its own
     * {@link DocumentAnswer#noAnswer()} (empty when the reader found no span).
     *
     * @param passages how many passages to read; 0 for this pipeline's number.
     * @throws QaInputException for an empty question or document.
     */
    public List<DocumentAnswer> answers(String question, String document, int topK, int passages) {
        if (question == null || TextRules.isBlank(question)) {
            throw new QaInputException("The question is empty: type a question about the document.");
        }
        if (topK < 1) {
            throw new IllegalArgumentException("topK=" + topK + ": ask for at least 1 answer.");
        }
        Entry entry = entry(document);
        // Insertion-ordered, as Python's dict: a span keeps its first position, its best value.
        Map<Long, Candidate> candidates = new LinkedHashMap<>();
        for (Retrieved retrieved : retrieve(question, document, passages)) {
            Passage passage = entry.passages.get(retrieved.passage());
            Features data = features.build(question, passage.text());
            List<Window> windows = data.windows();
            float[][] starts = new float[windows.size()][];
            float[][] ends = new float[windows.size()][];
            for (int w = 0; w < windows.size(); w++) {
                Window window = windows.get(w);
                float[][] logits = reader.logits(window);
                if (logits == null || logits.length != 2 || logits[0] == null || logits[1] == null
                        || logits[0].length != window.sequenceLength()
                        || logits[1].length != window.sequenceLength()) {
                    throw new IllegalStateException("The reader must return {start, end} logits of "
                            + window.sequenceLength() + " values each for a window.");
                }
                starts[w] = logits[0];
                ends[w] = logits[1];
            }
            // A splitter passage fits one window; a longer one is judged by its first.
            WindowStatistics statistics = WindowStatistics.of(starts[0], ends[0],
                    windows.get(0).segmentIds());
            for (Answer answer : decoder.decode(data, starts, ends)) {
                if (answer.text().isEmpty() || answer.start() < 0) {
                    continue;
                }
                SpanFeatures spanFeatures = SpanFeatures.of(answer.startLogit(), answer.endLogit(),
                        statistics, retrieved.cosine(), retrieved.bm25Match(), retrieved.rank());
                double key = calibrator != null
                        ? calibrator.probability(spanFeatures) : spanFeatures.spanLogit();
                Candidate candidate = new Candidate(answer, retrieved.passage(), passage,
                        spanFeatures, key);
                Long span = ((long) candidate.start << 32) | (candidate.end & 0xFFFFFFFFL);
                Candidate previous = candidates.get(span);
                if (previous == null || candidate.key > previous.key) {
                    candidates.put(span, candidate);
                }
            }
        }
        List<Candidate> ranked = new ArrayList<>(candidates.values());
        // Python's sorted(key=-key) is stable: equal keys keep their first-seen order.
        Collections.sort(ranked, (a, b) -> {
            double x = sortable(a.key);
            double y = sortable(b.key);
            return x > y ? -1 : (x < y ? 1 : 0);
        });
        double[] scores = new double[ranked.size()];
        if (calibrator == null && !ranked.isEmpty()) {
            double best = ranked.get(0).key;
            double total = 0.0;
            for (Candidate c : ranked) {
                total += Math.exp(c.key - best);
            }
            for (int i = 0; i < scores.length; i++) {
                scores[i] = Math.exp(ranked.get(i).key - best) / total;
            }
        } else {
            for (int i = 0; i < scores.length; i++) {
                scores[i] = ranked.get(i).key;
            }
        }
        List<DocumentAnswer> answers = new ArrayList<>();
        for (int i = 0; i < Math.min(topK, ranked.size()); i++) {
            Candidate c = ranked.get(i);
            boolean abstains = calibrator != null && calibrator.abstains(scores[i]);
            answers.add(new DocumentAnswer(c.answer.text(), scores[i], abstains, c.start, c.end,
                    c.answer.startLogit(), c.answer.endLogit(), c.passageIndex,
                    c.passage.start(), c.passage.end(), c.features, null));
        }
        return answers;
    }

    /** NaN ranks last. */
    private static double sortable(double key) {
        return Double.isNaN(key) ? Double.NEGATIVE_INFINITY : key;
    }
}
