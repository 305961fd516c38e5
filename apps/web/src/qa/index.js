/**
 * The question-answering core: tokenizer, model input windows and answer decoding.
 * Pure JavaScript ES modules with no DOM code (Node and browser).
 */

export {
  BertTokenizer,
  basicTokenize,
  MAX_INPUT_CHARS_PER_WORD,
} from "./tokenizer.js";
export { buildFeatures, splitOnWhitespace, QaInputError } from "./features.js";
export { decodeAnswers, projectToOriginalText } from "./decode.js";
