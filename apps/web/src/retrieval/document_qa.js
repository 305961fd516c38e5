/**
 * Retrieve, then read: a question over a whole document, or "no answer in this document". A
 * port of `DocumentQuestionAnsweringPipeline.__call__` (keras_bert/pipelines/
 * document_question_answering_pipeline.py).
 *
 * The document is cut into passages (`PassageSplitter`, once per document text, cached with the
 * passages' embeddings); the passages are ranked against the question by BM25, by the
 * embedder's cosine ("dense") or by both fused ("rrf"); the best `passages` are read, each as
 * one reader window `[CLS] question [SEP] passage [SEP]`; every n-best span gets the
 * calibrator's probability from its logits, its window's `[CLS]` logits and log-sum-exps and
 * the retrieval scores; the most probable span answers, unless it is below the calibrator's
 * threshold. Without a calibrator spans are merged by start + end logit and it never abstains.
 *
 * The reader and the embedder are injected as async functions, so this module has no LiteRT.js
 * or DOM code and runs under Node (with fakes) and in the browser. Offsets are UTF-16.
 */

import { buildFeatures, QaInputError } from "../qa/features.js";
import { decodeAnswers } from "../qa/decode.js";
import { pythonSplit } from "../qa/tokenizer.js";
import { Bm25Ranker, argsortDescending } from "./bm25.js";
import { spanFeatures, windowStatistics } from "./calibrator.js";
import { reciprocalRankFusion } from "./fusion.js";
import { PassageSplitter } from "./passages.js";

export const RANKERS = Object.freeze(["bm25", "dense", "rrf"]);

/** A question stopped by its `signal` (another passage was chosen). */
export class QaCancelled extends Error {
  constructor() {
    super("Cancelled.");
    this.name = "QaCancelled";
  }
}

/** The ranker and passage count a calibrator was fitted with (its `info`), else BM25, 1. */
export function pipelineSettings(calibrator, { ranker, passages } = {}) {
  const info = calibrator?.info ?? {};
  return { ranker: ranker ?? info.ranker ?? "bm25", passages: passages ?? info.passages ?? 1 };
}

/** Whether a pipeline with this calibrator and ranker needs the sentence embedder. */
export function needsEmbedder(calibrator, ranker) {
  return ranker !== "bm25" || Boolean(calibrator?.uses("cosine"));
}

function checkCancelled(signal) {
  if (signal?.cancelled) throw new QaCancelled();
}

/** A row scaled to unit length, in float32 (as `DenseRanker` and the Android port). */
function unitRow(row) {
  let squares = 0;
  for (const v of row) squares += v * v;
  const norm = Math.max(Math.fround(Math.sqrt(squares)), Math.fround(1e-12));
  return Float32Array.from(row, (v) => v / norm);
}

/** float32 dot product, accumulated in float32 (as the Android port). */
function dot32(a, b) {
  let sum = 0;
  for (let k = 0; k < a.length; k++) sum = Math.fround(sum + Math.fround(a[k] * b[k]));
  return sum;
}

/** NaN ranks last. */
const sortable = (key) => (Number.isNaN(key) ? -Infinity : key);

const NO_ANSWER = Object.freeze({
  text: "", score: 0, noAnswer: true, start: -1, end: -1, startLogit: 0, endLogit: 0,
  passage: -1, passageStart: -1, passageEnd: -1,
});

export class DocumentQa {
  /**
   * @param {{
   *   tokenizer: import("../qa/tokenizer.js").BertTokenizer,
   *   reader: (window: {ids: Int32Array, mask: Int32Array, segmentIds: Int32Array}) =>
   *       Promise<{startLogits: ArrayLike<number>, endLogits: ArrayLike<number>}>,
   *   embedder?: ((text: string) => Promise<ArrayLike<number>>) | null,
   *   calibrator?: import("./calibrator.js").AnswerCalibrator | null,
   *   ranker?: "bm25" | "dense" | "rrf", passages?: number,
   *   splitter?: PassageSplitter, maxDocuments?: number,
   *   readerOptions?: object, decodeOptions?: object,
   * }} options `reader` runs one window; `embedder` embeds one text. `ranker` and `passages`
   *     default to the calibrator's `info` (else "bm25", 1). `readerOptions` go to
   *     `buildFeatures` (e.g. `{maxSeqLength}`), `decodeOptions` to `decodeAnswers`.
   */
  constructor({ tokenizer, reader, embedder = null, calibrator = null, ranker, passages, splitter,
    maxDocuments = 16, readerOptions = {}, decodeOptions = {} }) {
    const settings = pipelineSettings(calibrator, { ranker, passages });
    if (!RANKERS.includes(settings.ranker)) {
      throw new RangeError(`ranker=${JSON.stringify(settings.ranker)}: choose from ${RANKERS.join(", ")}.`);
    }
    if (needsEmbedder(calibrator, settings.ranker) && !embedder) {
      throw new RangeError(`ranker "${settings.ranker}" with this calibrator needs the sentence embedder.`);
    }
    if (!(Number.isInteger(settings.passages) && settings.passages >= 1)) {
      throw new RangeError(`passages=${settings.passages}: read at least 1 passage.`);
    }
    this.tokenizer = tokenizer;
    this.reader = reader;
    this.embedder = embedder;
    this.calibrator = calibrator;
    this.ranker = settings.ranker;
    this.passages = settings.passages;
    this.splitter = splitter ?? new PassageSplitter(tokenizer);
    this.maxDocuments = maxDocuments;
    this.readerOptions = readerOptions;
    this.decodeOptions = decodeOptions;
    /** document text -> {passages, bm25, embeddings}, least recently used first */
    this.documents = new Map();
  }

  /** Whether the passages' embeddings are needed (and so computed once per document). */
  get usesEmbeddings() {
    return Boolean(this.embedder) && needsEmbedder(this.calibrator, this.ranker);
  }

  /** Whether `document` is cut (and embedded) already. */
  hasDocument(document) {
    return this.documents.has(document);
  }

  /**
   * The document's passages, BM25 ranker and (when needed) unit passage embeddings, computed
   * once per document text (`split`).
   * @param {string} document
   * @param {{signal?: {cancelled: boolean},
   *     onProgress?: (p: {stage: "embed", done: number, total: number}) => void}} [options]
   */
  async document(document, { signal, onProgress } = {}) {
    if (typeof document !== "string" || pythonSplit(document).length === 0) {
      throw new QaInputError("The document is empty: give the text to find the answer in.");
    }
    const cached = this.documents.get(document);
    if (cached) {
      this.documents.delete(document); // most recently used last
      this.documents.set(document, cached);
      return cached;
    }
    const passages = this.splitter.split(document);
    const texts = passages.map((p) => p.text);
    let embeddings = null;
    if (this.usesEmbeddings) {
      embeddings = [];
      onProgress?.({ stage: "embed", done: 0, total: texts.length });
      for (const text of texts) {
        checkCancelled(signal);
        embeddings.push(unitRow(await this.embedder(text)));
        onProgress?.({ stage: "embed", done: embeddings.length, total: texts.length });
      }
      if (embeddings.some((row) => row.length !== embeddings[0].length || row.length === 0)) {
        throw new RangeError("The embedder's rows must all have one, nonzero length.");
      }
    }
    const entry = { passages, bm25: new Bm25Ranker(texts), embeddings };
    this.documents.set(document, entry);
    while (this.documents.size > this.maxDocuments) {
      this.documents.delete(this.documents.keys().next().value);
    }
    return entry;
  }

  /**
   * The passages the reader reads for `question`, best ranked first (`retrieve`).
   * @returns {Promise<Array<{passage: number, rank: number, bm25Match: number,
   *     cosine: number | null}>>}
   */
  async retrieve(question, document, { passages, signal, onProgress } = {}) {
    const entry = await this.document(document, { signal, onProgress });
    const bm25 = entry.bm25.scores(question);
    let cosines = null;
    if (entry.embeddings) {
      checkCancelled(signal);
      const q = unitRow(await this.embedder(question));
      cosines = entry.embeddings.map((row) => {
        if (row.length !== q.length) {
          throw new RangeError(`The embedder gave the question ${q.length} dimensions and the passages ${row.length}.`);
        }
        return dot32(row, q);
      });
    }
    let order;
    if (this.ranker === "bm25") order = argsortDescending(bm25);
    else if (this.ranker === "dense") order = argsortDescending(cosines);
    else order = reciprocalRankFusion([argsortDescending(bm25), argsortDescending(cosines)]);
    const bound = Math.max(entry.bm25.scoreBound(question), 1e-9);
    return order.slice(0, passages ?? this.passages).map((index, r) => ({
      passage: index,
      rank: r + 1,
      bm25Match: bm25[index] / bound,
      cosine: cosines === null ? null : cosines[index],
    }));
  }

  /**
   * The best `topK` candidates over the passages read, best first, each with its own
   * `noAnswer` (`__call__` with `top_k` > 1), and what was read.
   * @param {string} question
   * @param {string} document
   * @param {{topK?: number, passages?: number, signal?: {cancelled: boolean},
   *     onProgress?: (p: {stage: "embed" | "read", done: number, total: number}) => void}} [options]
   * @returns {Promise<{answers: object[], retrieved: object[], passages: object[], windows: number}>}
   *     each answer: `{text, score, noAnswer, start, end, startLogit, endLogit, passage,
   *     passageStart, passageEnd, features}`, offsets UTF-16 into `document`.
   */
  async candidates(question, document, { topK = 1, passages, signal, onProgress } = {}) {
    if (typeof question !== "string" || pythonSplit(question).length === 0) {
      throw new QaInputError("The question is empty: type a question about the document.");
    }
    if (!(topK >= 1)) throw new RangeError(`topK=${topK}: ask for at least 1 answer.`);
    const entry = await this.document(document, { signal, onProgress });
    const retrieved = await this.retrieve(question, document, { passages, signal });
    // Insertion-ordered, as Python's dict: a span keeps its first position and its best key.
    const candidates = new Map();
    let windows = 0;
    for (const [i, r] of retrieved.entries()) {
      checkCancelled(signal);
      onProgress?.({ stage: "read", done: i, total: retrieved.length });
      const passage = entry.passages[r.passage];
      // No tokens (only U+FEFF and the like, which the tokenizer drops): no span to read. The
      // Python pipeline raises there (window_statistics finds no passage token).
      if (passage.numTokens === 0) continue;
      const features = buildFeatures(this.tokenizer, question, passage.text, this.readerOptions);
      const starts = [];
      const ends = [];
      for (const window of features.windows) {
        const out = await this.reader(window);
        starts.push(out.startLogits);
        ends.push(out.endLogits);
      }
      windows += features.windows.length;
      // A splitter passage fits one window; a longer one is judged by its first.
      const { clsLogits, lse } = windowStatistics(starts[0], ends[0], features.windows[0].segmentIds);
      for (const answer of decodeAnswers(features, starts, ends, this.decodeOptions)) {
        if (!answer.text || answer.start < 0) continue;
        const start = passage.start + answer.start;
        const end = passage.start + answer.end;
        const spanFeats = spanFeatures({ startLogit: answer.startLogit, endLogit: answer.endLogit,
          clsLogits, lse, cosine: r.cosine, bm25Match: r.bm25Match, rank: r.rank });
        const key = this.calibrator ? this.calibrator.probability(spanFeats) : spanFeats.span_logit;
        const span = `${start}:${end}`;
        const previous = candidates.get(span);
        if (previous === undefined || key > previous.key) {
          candidates.set(span, { key, text: answer.text, start, end, startLogit: answer.startLogit,
            endLogit: answer.endLogit, passage: r.passage, passageStart: passage.start,
            passageEnd: passage.end, features: spanFeats });
        }
      }
    }
    onProgress?.({ stage: "read", done: retrieved.length, total: retrieved.length });
    const ranked = [...candidates.values()].sort((a, b) => sortable(b.key) - sortable(a.key) || 0);
    let scores;
    if (!this.calibrator && ranked.length) {
      const best = ranked[0].key;
      let total = 0;
      for (const c of ranked) total += Math.exp(c.key - best);
      scores = ranked.map((c) => Math.exp(c.key - best) / total);
    } else {
      scores = ranked.map((c) => c.key);
    }
    const answers = ranked.slice(0, topK).map(({ key, ...c }, i) => ({
      ...c, score: scores[i], noAnswer: Boolean(this.calibrator?.abstains(scores[i])),
    }));
    return { answers, retrieved, passages: entry.passages, windows };
  }

  /**
   * The best answer (`__call__`): `{text, score, noAnswer, start, end, startLogit, endLogit,
   * passage, passageStart, passageEnd, features}`; when the calibrator abstains (or no passage
   * gave a span) `text` is "", `noAnswer` true, offsets -1, and the rejected best is under
   * `candidate`. Also `retrieved` (the passages read), `passages` and `windows` (how many run).
   */
  async answer(question, document, options = {}) {
    const { answers, retrieved, passages, windows } =
      await this.candidates(question, document, { ...options, topK: options.topK ?? 1 });
    const extra = { retrieved, passages, windows, candidates: answers };
    const best = answers[0];
    if (!best) return { ...NO_ANSWER, ...extra };
    if (best.noAnswer) return { ...NO_ANSWER, score: best.score, candidate: best, ...extra };
    return { ...best, ...extra };
  }
}
