// Browser-only wrapper around LiteRT.js (@litertjs/core) for the int8 BERT QA model.
//
// The model has one signature (serving_default) with inputs ids, mask, segment_ids
// (int32 [1, 384]) and outputs start_logits, end_logits (float32 [1, 384]).
// LiteRT.js orders outputs alphabetically, so everything is read BY NAME.
//
// Threads: LiteRT.js 2.5.3 has a threaded WASM build, chosen with
// loadLiteRt(dir, {threads: true}); it needs a cross-origin isolated page (COOP/COEP,
// see server.mjs) and relaxed SIMD. The number of threads a model uses is a compile
// option (cpuOptions.numThreads), so one compiled model is kept per accelerator and
// thread count.
//
// Accelerators: 'wasm' (XNNPACK on the CPU, the default) or 'webgpu'. WebGPU is used only when
// the browser offers an adapter and LiteRT.js compiles the model for it; otherwise the model
// runs on WASM and `acceleratorNote` says why (the page shows it).

// @litertjs/core is imported lazily (through the page's import map) so that a missing
// runtime becomes a clear error message instead of a page whose scripts never start.
let litert = null;

export const DEFAULT_WASM_PATH = '/vendor/litertjs/wasm/';
// The default file: int8 weights, float activations; 7x faster than the full-int8 file in
// Chromium's WASM (docs/benchmarks.md). ?model=/models/squad_minilm_int8.tflite loads the full
// int8 one (made for int8-only accelerators).
export const DEFAULT_MODEL_URL = '/models/squad_minilm_dynamic_int8.tflite';
export const INPUT_NAMES = ['ids', 'mask', 'segment_ids'];
export const OUTPUT_NAMES = ['start_logits', 'end_logits'];

/** The thread counts the app offers (its selector's options). */
export const THREAD_CHOICES = [1, 2, 4];

/** The accelerators the app offers (its selector's options). */
export const ACCELERATOR_CHOICES = ['wasm', 'webgpu'];

/**
 * Why WebGPU cannot be used here, or null when the browser offers an adapter.
 * @param {{gpu?: {requestAdapter: () => Promise<object | null>}}} nav navigator (injectable)
 */
export async function webGpuUnavailableReason(nav = globalThis.navigator) {
  if (!nav?.gpu) return 'this browser has no WebGPU (navigator.gpu is missing; it needs a secure context)';
  try {
    const adapter = await nav.gpu.requestAdapter();
    return adapter ? null : 'the browser offers no WebGPU adapter (no GPU, or GPU access is disabled)';
  } catch (e) {
    return `requesting a WebGPU adapter failed: ${e.message || e}`;
  }
}

/**
 * The thread count a page starts with: on a cross-origin isolated page with the threaded
 * runtime, the largest offered count the machine has cores for (navigator.hardwareConcurrency,
 * capped at 4: more threads than that gave a 384-token window no speed here); otherwise 1.
 */
export function defaultThreadCount({ threaded, hardwareConcurrency }, choices = THREAD_CHOICES) {
  if (!threaded) return 1;
  const cores = Math.max(1, Math.floor(Number(hardwareConcurrency) || 1));
  return Math.max(...choices.filter((n) => n <= cores), 1);
}

/** An error the UI can show as is. `kind` is 'runtime' | 'missing' | 'corrupt' | 'contract' | 'inference'. */
export class ModelError extends Error {
  constructor(kind, message, cause) {
    super(message);
    this.name = 'ModelError';
    this.kind = kind;
    if (cause) this.cause = cause;
  }
}

let runtimePromise = null;
let runtimeInfo = null;

/**
 * Load the LiteRT.js WASM runtime once: the threaded build when the page allows it, or, with
 * `{jspi: true}` where the browser supports JSPI, the JSPI build (one thread), the only one
 * that can split a model between WebGPU and WASM.
 */
export function initRuntime(wasmPath = DEFAULT_WASM_PATH, { jspi = false } = {}) {
  if (!runtimePromise) {
    runtimePromise = (async () => {
      try {
        litert = await import('@litertjs/core');
      } catch (e) {
        throw new Error(
          `the LiteRT.js module (@litertjs/core) could not be imported (${e.message || e}). ` +
            'Run `npm ci` in apps/web and serve the app with apps/web/server.mjs.',
        );
      }
      const { loadLiteRt, supportsFeature } = litert;
      const supported = async (feature) => {
        try {
          return await supportsFeature(feature);
        } catch {
          return false;
        }
      };
      const useJspi = jspi && (await supported('jspi'));
      let threaded = false;
      if (!useJspi && globalThis.crossOriginIsolated) {
        threaded = (await supported('relaxedSimd')) && (await supported('threads'));
      }
      if (useJspi) {
        await loadLiteRt(wasmPath, { jspi: true });
      } else {
        try {
          await loadLiteRt(wasmPath, threaded ? { threads: true } : {});
        } catch (e) {
          if (!threaded) throw e;
          // Fall back to the single-threaded build.
          threaded = false;
          await loadLiteRt(wasmPath);
        }
      }
      runtimeInfo = {
        threaded,
        jspi: useJspi,
        crossOriginIsolated: !!globalThis.crossOriginIsolated,
        maxThreads: threaded ? Math.max(1, navigator.hardwareConcurrency || 1) : 1,
      };
      return runtimeInfo;
    })().catch((e) => {
      runtimePromise = null;
      throw new ModelError('runtime', `Could not start the LiteRT.js runtime from ${wasmPath}: ${e.message || e}`, e);
    });
  }
  return runtimePromise;
}

/** Hex SHA-256 of bytes, with the Web Crypto API (browsers on localhost/https, and Node). */
export async function sha256Hex(bytes) {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** `sha256sum` output (`<hex>  <name>` or `<hex> *<name>` per line) as a Map name -> hex. */
export function parseManifest(text) {
  const entries = new Map();
  for (const line of text.split('\n')) {
    const m = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line.replace(/\r$/, ''));
    if (m) entries.set(m[2], m[1].toLowerCase());
  }
  return entries;
}

/**
 * Checks model bytes against the SHA256SUMS beside the model (apps/models/ ships one), so a
 * corrupted download or a flipped bit in a weight is an error instead of wrong answers. A
 * folder without a manifest, or a manifest that does not list the file, is not checked.
 * @returns {Promise<boolean>} whether the bytes were checked.
 */
export async function verifyModelBytes(bytes, url, fetchImpl = globalThis.fetch) {
  const base = new URL(url, globalThis.location?.href ?? 'http://127.0.0.1/');
  const name = decodeURIComponent(base.pathname.split('/').pop());
  let resp;
  try {
    resp = await fetchImpl(new URL('SHA256SUMS', base).href);
  } catch {
    return false;
  }
  if (!resp.ok) return false;
  const expected = parseManifest(await resp.text()).get(name);
  if (!expected) return false;
  const got = await sha256Hex(bytes);
  if (got !== expected) {
    throw new ModelError(
      'corrupt',
      `The model file ${url} is corrupted: its SHA-256 is ${got.slice(0, 16)}..., the ` +
        `SHA256SUMS beside it says ${expected.slice(0, 16)}... Download or copy it again.`,
    );
  }
  return true;
}

/** The LiteRT.js module once `initRuntime` has loaded it (for src/embedder_model.js), else null. */
export function litertModule() {
  return litert;
}

/** Fetch the model bytes with clear errors for a missing or non-TFLite file. */
export async function fetchModelBytes(url, onProgress) {
  let resp;
  try {
    resp = await fetch(url);
  } catch (e) {
    throw new ModelError('missing', `Could not download the model ${url}: ${e.message || e}`, e);
  }
  if (!resp.ok) {
    throw new ModelError('missing', `Model file not found: ${url} (HTTP ${resp.status} ${resp.statusText}).`);
  }
  let bytes;
  const total = Number(resp.headers.get('Content-Length')) || 0;
  if (resp.body && onProgress) {
    const reader = resp.body.getReader();
    const chunks = [];
    let received = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.length;
      onProgress({ stage: 'download', loaded: received, total });
    }
    bytes = new Uint8Array(received);
    let off = 0;
    for (const c of chunks) {
      bytes.set(c, off);
      off += c.length;
    }
  } else {
    bytes = new Uint8Array(await resp.arrayBuffer());
  }
  // A TFLite flatbuffer carries the file identifier "TFL3" at bytes 4..7.
  const ident = bytes.length >= 8 ? String.fromCharCode(...bytes.subarray(4, 8)) : '';
  if (bytes.length < 1024 || ident !== 'TFL3') {
    const hex = Array.from(bytes.subarray(4, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new ModelError(
      'corrupt',
      `The model file ${url} is corrupted or is not a TFLite model ` +
        `(${bytes.length} bytes; bytes 4-7 are [${hex}], not the TFLite identifier "TFL3").`,
    );
  }
  return bytes;
}

export class QaModel {
  /**
   * @param {{modelUrl?: string, wasmPath?: string, threads?: number | 'auto',
   *          onProgress?: (p: {stage: string, loaded?: number, total?: number}) => void}} opts
   */
  static async load({
    modelUrl = DEFAULT_MODEL_URL, wasmPath = DEFAULT_WASM_PATH, threads = 'auto', accelerator = 'wasm', onProgress,
  } = {}) {
    if (!ACCELERATOR_CHOICES.includes(accelerator)) {
      throw new ModelError('runtime', `Unknown accelerator "${accelerator}": use one of ${ACCELERATOR_CHOICES.join(', ')}.`);
    }
    // WebGPU asked for at load: the JSPI build, which can run the ops WebGPU lacks on WASM.
    const info = await initRuntime(wasmPath, { jspi: accelerator === 'webgpu' });
    const bytes = await fetchModelBytes(modelUrl, onProgress);
    onProgress?.({ stage: 'verify' });
    await verifyModelBytes(bytes, modelUrl);
    const m = new QaModel(modelUrl, bytes, info);
    onProgress?.({ stage: 'compile' });
    await m.setThreads(threads === 'auto'
      ? defaultThreadCount({ threaded: info.threaded, hardwareConcurrency: navigator.hardwareConcurrency })
      : threads);
    if (accelerator !== 'wasm') await m.setAccelerator(accelerator);
    return m;
  }

  constructor(modelUrl, bytes, runtime) {
    this.modelUrl = modelUrl;
    this.bytes = bytes;
    this.runtime = runtime;
    this.compiled = new Map(); // `${accelerator}:${threads}` -> CompiledModel
    this.threads = 1;
    this.accelerator = 'wasm';
    this.acceleratorNote = null; // why a requested accelerator is not the one in use
    this.seqLength = 384;
  }

  key(accelerator = this.accelerator, threads = this.threads) {
    return `${accelerator}:${accelerator === 'wasm' ? threads : 0}`;
  }

  async compile(accelerator, threads) {
    const options = accelerator === 'wasm'
      ? { accelerator, cpuOptions: { numThreads: threads } }
      : { accelerator, gpuOptions: { precision: 'fp32' } };
    const cm = await litert.loadAndCompile(this.bytes, options);
    this.checkContract(cm);
    return cm;
  }

  /** The thread count actually usable (1 when the page is not cross-origin isolated). */
  effectiveThreads(n) {
    const want = Math.max(1, Math.floor(Number(n) || 1));
    return this.runtime.threaded ? want : 1;
  }

  async setThreads(n) {
    const t = this.effectiveThreads(n);
    const key = this.key('wasm', t);
    if (!this.compiled.has(key)) {
      let cm;
      try {
        cm = await this.compile('wasm', t);
      } catch (e) {
        if (e instanceof ModelError) throw e; // the contract check's own message
        throw new ModelError('corrupt', `LiteRT.js could not load the model ${this.modelUrl}: ${e.message || e}`, e);
      }
      this.compiled.set(key, cm);
    }
    this.threads = t;
    return t;
  }

  /**
   * Runs the model on `name` ('wasm' or 'webgpu') from now on. WebGPU falls back to WASM, with
   * `acceleratorNote` saying why, when the browser has no adapter or LiteRT.js cannot compile
   * the model for it. Returns the accelerator in use.
   */
  async setAccelerator(name) {
    if (!ACCELERATOR_CHOICES.includes(name)) {
      throw new ModelError('runtime', `Unknown accelerator "${name}": use one of ${ACCELERATOR_CHOICES.join(', ')}.`);
    }
    this.acceleratorNote = null;
    if (name !== 'wasm' && !this.compiled.has(this.key(name))) {
      let reason = await webGpuUnavailableReason();
      if (!reason) {
        let cm = null;
        try {
          cm = await this.compile(name, this.threads);
        } catch (e) {
          reason = `LiteRT.js could not compile the model for WebGPU (${e.message || e})`;
        }
        if (cm) {
          // A model can compile for WebGPU and still fail to run (LiteRT.js 2.5.3's threaded
          // build cannot split a model between WebGPU and WASM): one trial window decides.
          this.compiled.set(this.key(name), cm);
          const previous = this.accelerator;
          this.accelerator = name;
          try {
            const zeros = new Int32Array(this.seqLength);
            await this.runWindow({ ids: zeros, mask: zeros, segmentIds: zeros });
          } catch (e) {
            reason = `the model compiled for WebGPU but did not run (${e.cause?.message || e.message || e})` +
              (this.runtime.jspi ? '' : '; models that WebGPU runs only in part need LiteRT.js\'s JSPI build: ' +
                'open the page with ?accelerator=webgpu');
            this.compiled.delete(this.key(name));
            cm.delete();
          } finally {
            this.accelerator = previous;
          }
        }
      }
      if (reason) {
        this.acceleratorNote = `WebGPU is not used: ${reason}. Running on WASM (CPU).`;
        this.accelerator = 'wasm';
        return 'wasm';
      }
    }
    this.accelerator = name;
    return name;
  }

  checkContract(cm) {
    const ins = cm.getInputDetails();
    const outs = cm.getOutputDetails();
    const inNames = ins.map((d) => d.name);
    const outNames = outs.map((d) => d.name);
    const missing = [
      ...INPUT_NAMES.filter((n) => !inNames.includes(n)),
      ...OUTPUT_NAMES.filter((n) => !outNames.includes(n)),
    ];
    if (missing.length) {
      cm.delete();
      throw new ModelError(
        'contract',
        `The model ${this.modelUrl} is not a BERT QA model: missing tensors ${missing.join(', ')} ` +
          `(inputs: ${inNames.join(', ')}; outputs: ${outNames.join(', ')}).`,
      );
    }
    const ids = ins.find((d) => d.name === 'ids');
    this.seqLength = ids.shape[ids.shape.length - 1];
    for (const d of ins) {
      if (d.dtype !== 'int32') {
        cm.delete();
        throw new ModelError('contract', `Model input ${d.name} is ${d.dtype}, expected int32.`);
      }
    }
  }

  /**
   * Run one window.
   * @param {{ids: Int32Array, mask: Int32Array, segmentIds: Int32Array}} w
   * @returns {Promise<{startLogits: Float32Array, endLogits: Float32Array, ms: number}>}
   */
  async runWindow(w) {
    const cm = this.compiled.get(this.key());
    const L = this.seqLength;
    for (const [k, a] of [['ids', w.ids], ['mask', w.mask], ['segmentIds', w.segmentIds]]) {
      if (!a || a.length !== L) throw new ModelError('inference', `Window ${k} must have length ${L}, got ${a && a.length}.`);
    }
    const shape = [1, L];
    const { Tensor } = litert;
    const inputs = {
      ids: new Tensor(Int32Array.from(w.ids), shape),
      mask: new Tensor(Int32Array.from(w.mask), shape),
      segment_ids: new Tensor(Int32Array.from(w.segmentIds), shape),
    };
    let outputs;
    const t0 = performance.now();
    try {
      outputs = await cm.run(inputs);
    } catch (e) {
      throw new ModelError('inference', `Inference failed: ${e.message || e}`, e);
    } finally {
      for (const t of Object.values(inputs)) t.delete();
    }
    const onCpu = [];
    try {
      // WebGPU outputs live on the GPU: copy them to WASM memory to read them.
      const read = async (t) => {
        if (t.accelerator === 'wasm') return Float32Array.from(t.toTypedArray());
        const copy = await t.copyTo('wasm');
        onCpu.push(copy);
        return Float32Array.from(copy.toTypedArray());
      };
      const startLogits = await read(outputs.start_logits);
      const endLogits = await read(outputs.end_logits);
      // Timed to the logits in hand: a WebGPU run may return before the GPU has finished.
      return { startLogits, endLogits, ms: performance.now() - t0 };
    } finally {
      for (const t of [...Object.values(outputs), ...onCpu]) t.delete();
    }
  }

  /**
   * Run all windows, yielding to the event loop between windows so the page stays responsive.
   * @param {Array} windows from buildFeatures()
   * @param {{onProgress?: (done: number, total: number) => void, signal?: {cancelled: boolean}}} opts
   * @returns {Promise<{startLogits: Float32Array[], endLogits: Float32Array[], windowMs: number[], ms: number}>}
   */
  async runWindows(windows, { onProgress, signal } = {}) {
    const startLogits = [];
    const endLogits = [];
    const windowMs = [];
    for (let i = 0; i < windows.length; i++) {
      if (signal?.cancelled) throw new ModelError('inference', 'Cancelled.');
      const r = await this.runWindow(windows[i]);
      startLogits.push(r.startLogits);
      endLogits.push(r.endLogits);
      windowMs.push(r.ms);
      onProgress?.(i + 1, windows.length);
      // Let the browser paint and handle input between windows.
      await new Promise((res) => setTimeout(res, 0));
    }
    return { startLogits, endLogits, windowMs, ms: windowMs.reduce((a, b) => a + b, 0) };
  }
}
