/**
 * Text -> the sentence embedder's inputs: `[CLS] text [SEP]`, cut to `seqLength - 2` tokens and
 * zero-padded, all segment 0, as `TfliteEmbedder` packs them (keras_bert/retrieval/
 * tflite_embedder.py, `pack_segments` with one segment). The shipped embedder
 * (apps/models/minilm_embedder_dynamic_int8.tflite) reads int32 `ids`, `mask`, `segment_ids`
 * `[1, 256]` and gives float32 `embedding` `[1, 384]`; its vocabulary is apps/models/vocab.txt.
 *
 * No DOM code: this module runs in Node and in the browser.
 */

export const EMBEDDER_SEQ_LENGTH = 256;

/**
 * @param {import("../qa/tokenizer.js").BertTokenizer} tokenizer
 * @param {string} text
 * @param {number} [seqLength]
 * @returns {{ids: Int32Array, mask: Int32Array, segmentIds: Int32Array, truncated: boolean}}
 */
export function embedderInputs(tokenizer, text, seqLength = EMBEDDER_SEQ_LENGTH) {
  if (seqLength < 2) throw new RangeError(`seqLength=${seqLength} cannot hold [CLS] and [SEP].`);
  const pieces = tokenizer.tokenize(text);
  const tokens = ["[CLS]", ...pieces.slice(0, seqLength - 2), "[SEP]"];
  const ids = new Int32Array(seqLength);
  ids.set(tokenizer.convertTokensToIds(tokens));
  const mask = new Int32Array(seqLength).fill(1, 0, tokens.length);
  const segmentIds = new Int32Array(seqLength);
  return { ids, mask, segmentIds, truncated: pieces.length > seqLength - 2 };
}
