// Browser-only: the sentence embedder and the answer calibrator that "ask a whole document"
// needs beside the reader (src/model.js), loaded only when a document question needs them.
//
// The embedder (apps/models/minilm_embedder_dynamic_int8.tflite) has inputs ids, mask,
// segment_ids (int32 [1, 256]) and output embedding (float32 [1, 384], unit length), read BY
// NAME. Its bytes and the calibrator JSON are checked against the SHA256SUMS beside them, as the
// reader's are (verifyModelBytes), so a corrupted file is an error instead of wrong rankings.

import {
  DEFAULT_WASM_PATH, INPUT_NAMES, ModelError, fetchModelBytes, initRuntime, litertModule,
  verifyModelBytes,
} from './model.js';
import { AnswerCalibrator } from './retrieval/calibrator.js';
import { embedderInputs } from './retrieval/embedder_inputs.js';

export const DEFAULT_EMBEDDER_URL = '/models/minilm_embedder_dynamic_int8.tflite';
// With the embedder: BM25 + embedder rank fusion, the cosine among the features. Without it
// (?calibrator=/models/answer_calibrator_bm25.json): BM25 only, no embedder download.
export const DEFAULT_CALIBRATOR_URL = '/models/answer_calibrator.json';
export const EMBEDDING_NAME = 'embedding';

/**
 * The answer calibrator JSON at `url`, checked against the SHA256SUMS beside it.
 * @returns {Promise<AnswerCalibrator>}
 * @throws {ModelError} 'missing' (not served), 'corrupt' (digest or JSON), 'contract' (fields).
 */
export async function loadCalibrator(url = DEFAULT_CALIBRATOR_URL, fetchImpl = globalThis.fetch) {
  const needed = 'Asking a whole document needs it (apps/models/answer_calibrator.json, which ' +
    'experiments.document_qa_benchmark writes).';
  let resp;
  try {
    resp = await fetchImpl(url);
  } catch (e) {
    throw new ModelError('missing', `Could not download the answer calibrator ${url}: ${e.message || e}. ${needed}`, e);
  }
  if (!resp.ok) {
    throw new ModelError('missing',
      `The answer calibrator ${url} was not found (HTTP ${resp.status} ${resp.statusText}). ${needed}`);
  }
  const bytes = new Uint8Array(await resp.arrayBuffer());
  await verifyModelBytes(bytes, url, fetchImpl);
  let config;
  try {
    config = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new ModelError('corrupt', `The answer calibrator ${url} is not JSON (${e.message}).`, e);
  }
  try {
    return AnswerCalibrator.fromDict(config, `The answer calibrator ${url}`);
  } catch (e) {
    throw new ModelError('contract', e.message, e);
  }
}

export class EmbedderModel {
  /**
   * @param {{modelUrl?: string, wasmPath?: string, threads?: number, tokenizer,
   *          onProgress?: (p: {stage: string, loaded?: number, total?: number}) => void}} opts
   *     `tokenizer`: the reader's BertTokenizer (the embedder's vocabulary is the same vocab.txt).
   */
  static async load({ modelUrl = DEFAULT_EMBEDDER_URL, wasmPath = DEFAULT_WASM_PATH, threads = 1, tokenizer, onProgress } = {}) {
    const info = await initRuntime(wasmPath);
    const bytes = await fetchModelBytes(modelUrl, onProgress);
    onProgress?.({ stage: 'verify' });
    await verifyModelBytes(bytes, modelUrl);
    const m = new EmbedderModel(modelUrl, bytes, info, tokenizer);
    onProgress?.({ stage: 'compile' });
    await m.setThreads(threads);
    return m;
  }

  constructor(modelUrl, bytes, runtime, tokenizer) {
    this.modelUrl = modelUrl;
    this.bytes = bytes;
    this.runtime = runtime;
    this.tokenizer = tokenizer;
    this.compiled = new Map(); // threads -> CompiledModel
    this.threads = 1;
    this.seqLength = 256;
    this.truncated = 0; // texts so far longer than seqLength - 2 tokens
  }

  /** Compiles for `n` threads (1 where the page is not cross-origin isolated) and uses them. */
  async setThreads(n) {
    const t = this.runtime.threaded ? Math.max(1, Math.floor(Number(n) || 1)) : 1;
    if (!this.compiled.has(t)) {
      let cm;
      try {
        cm = await litertModule().loadAndCompile(this.bytes, { accelerator: 'wasm', cpuOptions: { numThreads: t } });
      } catch (e) {
        throw new ModelError('corrupt', `LiteRT.js could not load the embedder ${this.modelUrl}: ${e.message || e}`, e);
      }
      this.checkContract(cm);
      this.compiled.set(t, cm);
    }
    this.threads = t;
    return t;
  }

  checkContract(cm) {
    const ins = cm.getInputDetails();
    const outNames = cm.getOutputDetails().map((d) => d.name);
    const inNames = ins.map((d) => d.name);
    const missing = [...INPUT_NAMES.filter((n) => !inNames.includes(n)),
      ...[EMBEDDING_NAME].filter((n) => !outNames.includes(n))];
    const wrongType = ins.filter((d) => d.dtype !== 'int32').map((d) => d.name);
    if (missing.length || wrongType.length) {
      cm.delete();
      throw new ModelError('contract',
        `The model ${this.modelUrl} is not a sentence embedder: ` +
          (missing.length ? `missing tensors ${missing.join(', ')} ` : `inputs ${wrongType.join(', ')} are not int32 `) +
          `(inputs: ${inNames.join(', ')}; outputs: ${outNames.join(', ')}).`);
    }
    const ids = ins.find((d) => d.name === 'ids');
    this.seqLength = ids.shape[ids.shape.length - 1];
  }

  /**
   * The embedding of one text: `[CLS] text [SEP]` cut to the model's length (TfliteEmbedder).
   * @param {string} text
   * @returns {Promise<Float32Array>}
   */
  async embed(text) {
    const w = embedderInputs(this.tokenizer, text, this.seqLength);
    if (w.truncated) this.truncated += 1;
    const { Tensor } = litertModule();
    const shape = [1, this.seqLength];
    const inputs = {
      ids: new Tensor(w.ids, shape),
      mask: new Tensor(w.mask, shape),
      segment_ids: new Tensor(w.segmentIds, shape),
    };
    let outputs;
    try {
      outputs = await this.compiled.get(this.threads).run(inputs);
    } catch (e) {
      throw new ModelError('inference', `The embedder failed: ${e.message || e}`, e);
    } finally {
      for (const t of Object.values(inputs)) t.delete();
    }
    try {
      return Float32Array.from(outputs[EMBEDDING_NAME].toTypedArray());
    } finally {
      for (const t of Object.values(outputs)) t.delete();
    }
  }
}
