/**
 * Retrieval for whole documents: a JavaScript port of keras_bert.retrieval and of
 * DocumentQuestionAnsweringPipeline (sentences -> passages -> BM25 / embedder ranking -> reader
 * -> calibrated answer or "no answer"). No DOM code (Node and browser).
 */

export { splitSentences, ABBREVIATIONS } from "./sentences.js";
export { PassageSplitter, DEFAULT_MAX_TOKENS, DEFAULT_OVERLAP_TOKENS } from "./passages.js";
export { Bm25Ranker, wordTokens, argsortDescending } from "./bm25.js";
export { reciprocalRankFusion, RRF_K } from "./fusion.js";
export {
  AnswerCalibrator, FEATURES, spanFeatures, windowStatistics, logsumexp, numpySum,
} from "./calibrator.js";
export { embedderInputs, EMBEDDER_SEQ_LENGTH } from "./embedder_inputs.js";
export {
  DocumentQa, QaCancelled, RANKERS, needsEmbedder, pipelineSettings,
} from "./document_qa.js";
export { utf16Offsets } from "./text_rules.js";
