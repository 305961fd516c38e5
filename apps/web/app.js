// UI of the on-device BERT question-answering demo (like the TFLite BERT QA Android example).
// Pure QA logic lives in src/qa/ (no DOM); LiteRT.js inference in src/model.js.

import { BertTokenizer, buildFeatures, QaInputError, decodeAnswers } from './src/qa/index.js';
import { QaModel, ModelError, DEFAULT_MODEL_URL } from './src/model.js';

const VOCAB_URL = '/models/vocab.txt';
const PASSAGES_URL = '/data/passages.json';
const CUSTOM_ID = '__custom__';

const $ = (id) => document.getElementById(id);
const els = {
  status: $('model-status'),
  threads: $('threads'),
  accelerator: $('accelerator'),
  list: $('passage-list'),
  pasteOwn: $('paste-own'),
  message: $('message'),
  title: $('passage-title'),
  customBox: $('custom-box'),
  custom: $('custom-passage'),
  text: $('passage-text'),
  suggestionsBox: $('suggestions-box'),
  suggestions: $('suggestions'),
  form: $('ask-form'),
  question: $('question'),
  ask: $('ask'),
  progressBox: $('progress-box'),
  progress: $('progress'),
  progressText: $('progress-text'),
  result: $('result'),
  answer: $('answer-text'),
  score: $('answer-score'),
  timing: $('timing'),
  candidates: $('candidates'),
  runtimeInfo: $('runtime-info'),
};

const state = {
  passages: [],
  current: null, // {id, title, context, questions}
  tokenizer: null,
  model: null,
  modelError: null,
  busy: false,
  askSeq: 0,
  cancel: null, // {cancelled} of the running question
};

// ---------------------------------------------------------------- helpers

/** Only same-origin absolute paths are accepted for ?model= (the page never leaves 127.0.0.1). */
function modelUrlFromQuery() {
  const p = new URLSearchParams(location.search).get('model');
  if (p && p.startsWith('/') && !p.startsWith('//')) return p;
  return DEFAULT_MODEL_URL;
}

function showMessage(text, kind = 'info') {
  els.message.textContent = text;
  els.message.dataset.kind = kind;
  els.message.className = `message ${kind}`;
  els.message.hidden = !text;
}

/** Clear the message, but keep telling the user when the model could not be loaded. */
function clearMessage() {
  if (state.modelError) showMessage(modelErrorText(), 'error');
  else showMessage('');
}

function modelErrorText() {
  return `The model failed to load, so questions cannot be answered: ${state.modelError.message}`;
}

function setStatus(text, stateName) {
  els.status.textContent = text;
  els.status.dataset.state = stateName;
}

function setBusy(busy) {
  state.busy = busy;
  els.ask.disabled = busy;
  els.ask.textContent = busy ? 'Asking…' : 'Ask';
  els.threads.disabled = busy;
  els.accelerator.disabled = busy;
  document.body.dataset.busy = busy ? '1' : '0';
}

function setProgress(done, total) {
  if (total <= 0) {
    els.progressBox.hidden = true;
    return;
  }
  els.progressBox.hidden = false;
  els.progress.max = total;
  els.progress.value = done;
  els.progressText.textContent =
    total > 1 ? `Window ${done} of ${total}` : done >= total ? 'Done' : 'Running the model…';
}

const nextFrame = () => new Promise((r) => setTimeout(r, 0));

function currentContext() {
  if (!state.current) return '';
  return state.current.id === CUSTOM_ID ? els.custom.value : state.current.context;
}

/** Render the passage, with the answer span [start, end) (UTF-16 offsets) wrapped in <mark>. */
function renderPassage(context, span) {
  els.text.replaceChildren();
  if (span && span.start >= 0 && span.end > span.start && span.end <= context.length) {
    const mark = document.createElement('mark');
    mark.className = 'answer';
    mark.id = 'answer-mark';
    mark.setAttribute('data-testid', 'answer-mark');
    mark.dataset.start = String(span.start);
    mark.dataset.end = String(span.end);
    mark.textContent = context.slice(span.start, span.end);
    els.text.append(context.slice(0, span.start), mark, context.slice(span.end));
    mark.scrollIntoView({ block: 'center', behavior: 'instant' });
  } else {
    els.text.textContent = context;
  }
}

function clearResult() {
  els.result.hidden = true;
  els.answer.textContent = '';
  els.score.textContent = '';
  els.timing.textContent = '';
  els.candidates.replaceChildren();
  els.result.dataset.state = '';
}

// ---------------------------------------------------------------- passages

function renderPassageList() {
  els.list.replaceChildren();
  for (const p of state.passages) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'passage-item';
    b.setAttribute('data-testid', 'passage-item');
    b.dataset.passageId = p.id;
    const title = document.createElement('span');
    title.className = 'passage-item-title';
    title.textContent = p.title;
    const snippet = document.createElement('span');
    snippet.className = 'passage-item-snippet';
    snippet.textContent = p.context.slice(0, 90) + (p.context.length > 90 ? '…' : '');
    b.append(title, snippet);
    b.addEventListener('click', () => selectPassage(p.id));
    li.append(b);
    els.list.append(li);
  }
}

function selectPassage(id) {
  // Choosing another passage while a long question runs cancels it (at the next window).
  if (state.cancel) state.cancel.cancelled = true;
  state.askSeq++;
  clearMessage();
  clearResult();
  setProgress(0, 0);
  for (const b of els.list.querySelectorAll('.passage-item')) {
    b.classList.toggle('selected', b.dataset.passageId === id);
    b.setAttribute('aria-current', b.dataset.passageId === id ? 'true' : 'false');
  }
  els.pasteOwn.classList.toggle('selected', id === CUSTOM_ID);
  if (id === CUSTOM_ID) {
    state.current = { id: CUSTOM_ID, title: 'Your own passage', context: '', questions: [] };
    els.customBox.hidden = false;
    els.text.hidden = true;
    els.title.textContent = state.current.title;
    renderPassage('', null);
    renderSuggestions([]);
    els.custom.focus();
    document.body.dataset.passage = id;
    return;
  }
  const p = state.passages.find((x) => x.id === id);
  if (!p) return;
  state.current = p;
  els.customBox.hidden = true;
  els.text.hidden = false;
  els.title.textContent = p.title;
  renderPassage(p.context, null);
  renderSuggestions(p.questions || []);
  els.question.value = '';
  document.body.dataset.passage = id;
}

function renderSuggestions(questions) {
  els.suggestions.replaceChildren();
  els.suggestionsBox.hidden = questions.length === 0;
  for (const q of questions) {
    const chip = document.createElement('button');
    chip.type = 'button';
    chip.className = 'chip';
    chip.setAttribute('data-testid', 'suggested-question');
    chip.dir = 'auto';
    chip.textContent = q;
    chip.addEventListener('click', () => {
      els.question.value = q;
      els.question.focus();
    });
    els.suggestions.append(chip);
  }
}

// ---------------------------------------------------------------- QA pipeline

/**
 * Answer a question about a context. No DOM work except progress callbacks.
 * @returns {Promise<{answers, features, ms, wallMs, windowMs}>}
 */
async function answer(question, context, onProgress) {
  if (state.modelError) throw state.modelError;
  if (!state.model || !state.tokenizer) throw new ModelError('runtime', 'The model is still loading. Please wait.');
  const t0 = performance.now();
  const features = buildFeatures(state.tokenizer, question, context); // throws QaInputError
  onProgress?.(0, features.windows.length);
  await nextFrame();
  const signal = { cancelled: false };
  state.cancel = signal;
  let out;
  try {
    out = await state.model.runWindows(features.windows, { onProgress, signal });
  } finally {
    if (state.cancel === signal) state.cancel = null;
  }
  const answers = decodeAnswers(features, out.startLogits, out.endLogits);
  return { answers, features, ms: out.ms, windowMs: out.windowMs, wallMs: performance.now() - t0 };
}

let askCount = 0;

async function onAsk(ev) {
  ev?.preventDefault();
  if (state.busy) return;
  try {
    await askFromUi();
  } finally {
    // Tests wait on this counter: it moves once per finished Ask (answer, message or error).
    document.body.dataset.asked = String(++askCount);
  }
}

async function askFromUi() {
  const seq = ++state.askSeq;
  clearMessage();
  clearResult();
  if (!state.current) {
    showMessage('Choose a passage first (or paste your own).', 'warning');
    return;
  }
  const context = currentContext();
  const question = els.question.value;
  if (!question.trim()) {
    showMessage('Please type a question first.', 'warning');
    els.question.focus();
    return;
  }
  if (!context.trim()) {
    showMessage('The passage is empty: paste some text first.', 'warning');
    return;
  }
  if (state.modelError) {
    showMessage(modelErrorText(), 'error');
    return;
  }
  if (!state.model) {
    showMessage('The model is still loading. Please wait a moment and ask again.', 'info');
    return;
  }
  setBusy(true);
  if (state.current.id === CUSTOM_ID) {
    els.text.hidden = false;
    renderPassage(context, null);
  }
  try {
    const r = await answer(question, context, (done, total) => {
      if (seq === state.askSeq) setProgress(done, total);
    });
    if (seq !== state.askSeq) return;
    renderResult(context, r);
  } catch (e) {
    if (seq !== state.askSeq) return;
    if (e instanceof QaInputError || e?.name === 'QaInputError') {
      showMessage(e.message, 'warning');
    } else if (e instanceof ModelError) {
      showMessage(e.message, 'error');
    } else {
      console.error(e);
      showMessage(`Something went wrong: ${e?.message || e}`, 'error');
    }
  } finally {
    setBusy(false);
    setTimeout(() => {
      if (seq === state.askSeq) els.progressBox.hidden = true;
    }, 400);
  }
}

function renderResult(context, r) {
  const { answers, features } = r;
  const best = answers[0];
  const n = features.windows.length;
  const perWin = n ? r.ms / n : 0;
  els.timing.textContent =
    `Inference time: ${r.ms.toFixed(0)} ms for ${n} window${n === 1 ? '' : 's'} ` +
    `(${perWin.toFixed(0)} ms per 384-token window, ${state.model.accelerator === 'webgpu' ? 'WebGPU'
      : `${state.model.threads} thread${state.model.threads === 1 ? '' : 's'}`}); ` +
    `total ${r.wallMs.toFixed(0)} ms`;
  els.timing.dataset.ms = r.ms.toFixed(3);
  els.timing.dataset.windows = String(n);
  els.result.hidden = false;
  if (features.questionTruncated) {
    showMessage('The question is longer than 64 tokens; only its first 64 tokens were used.', 'info');
  }
  if (!best || !best.text || best.start < 0) {
    els.result.dataset.state = 'no-answer';
    els.answer.textContent = '(no answer found)';
    els.answer.classList.add('none');
    renderPassage(context, null);
    showMessage('No answer found in this passage. Try rephrasing the question.', 'warning');
  } else {
    els.result.dataset.state = 'answer';
    els.answer.classList.remove('none');
    els.answer.textContent = best.text;
    renderPassage(context, best);
  }
  els.candidates.replaceChildren();
  for (const [i, c] of answers.slice(0, 10).entries()) {
    if (i === 0) continue;
    const li = document.createElement('li');
    li.setAttribute('data-testid', 'candidate');
    const t = document.createElement('span');
    t.className = 'cand-text';
    t.dir = 'auto';
    t.textContent = c.text || '(empty)';
    const s = document.createElement('span');
    s.className = 'cand-score';
    s.textContent = `${(c.probability * 100).toFixed(1)}% · logit ${(c.startLogit + c.endLogit).toFixed(2)}`;
    li.append(t, s);
    els.candidates.append(li);
  }
  if (els.candidates.children.length === 0) {
    const li = document.createElement('li');
    li.className = 'none';
    li.textContent = 'No other candidates.';
    els.candidates.append(li);
  }
  els.score.textContent = best && best.text ? `${(best.probability * 100).toFixed(1)}%` : '';
}

async function onThreadsChange() {
  if (!state.model) return;
  const want = Number(els.threads.value);
  setBusy(true);
  try {
    setStatus(`Preparing the model for ${want} thread${want === 1 ? '' : 's'}…`, 'loading');
    const got = await state.model.setThreads(want);
    setStatus(`Model ready (${got} thread${got === 1 ? '' : 's'})`, 'ready');
    updateRuntimeInfo();
    if (got !== want) {
      showMessage(
        `Multithreading is not available on this page (not cross-origin isolated); using ${got} thread.`,
        'info',
      );
      els.threads.value = String(got);
    }
  } catch (e) {
    showMessage(e.message || String(e), 'error');
    const t = state.model.threads;
    els.threads.value = String(t);
    setStatus(`Model ready (${t} thread${t === 1 ? '' : 's'})`, 'ready');
  } finally {
    setBusy(false);
  }
}

async function onAcceleratorChange() {
  if (!state.model) return;
  const want = els.accelerator.value;
  setBusy(true);
  try {
    setStatus(`Preparing the model for ${want === 'webgpu' ? 'WebGPU' : 'WASM'}…`, 'loading');
    const got = await state.model.setAccelerator(want);
    els.accelerator.value = got;
    if (state.model.acceleratorNote) showMessage(state.model.acceleratorNote, 'info');
  } catch (e) {
    showMessage(e.message || String(e), 'error');
    els.accelerator.value = state.model.accelerator;
  } finally {
    setStatus(readyText(state.model), 'ready');
    updateRuntimeInfo();
    setBusy(false);
  }
}

function readyText(m) {
  return m.accelerator === 'webgpu'
    ? 'Model ready (WebGPU)'
    : `Model ready (${m.threads} thread${m.threads === 1 ? '' : 's'})`;
}

function updateRuntimeInfo() {
  const m = state.model;
  if (!m) return;
  const backend = m.accelerator === 'webgpu'
    ? 'LiteRT.js WebGPU'
    : `LiteRT.js WASM · ${m.runtime.threaded ? 'threaded build' : m.runtime.jspi ? 'JSPI build' : 'single-threaded build'}`;
  els.runtimeInfo.textContent =
    `${backend} · cross-origin isolated: ${m.runtime.crossOriginIsolated ? 'yes' : 'no'} · threads: ${m.threads} · ` +
    `model: ${m.modelUrl} (${(m.bytes.length / 1e6).toFixed(1)} MB)`;
}

// ---------------------------------------------------------------- startup

async function loadPassages() {
  try {
    const resp = await fetch(PASSAGES_URL);
    if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
    const data = await resp.json();
    if (!Array.isArray(data)) throw new Error('passages.json is not a list');
    state.passages = data.filter((p) => p && typeof p.context === 'string' && p.id != null);
    state.passages.forEach((p) => {
      p.id = String(p.id);
      p.title = p.title || p.id;
      p.questions = Array.isArray(p.questions) ? p.questions : [];
    });
  } catch (e) {
    showMessage(`Could not load the bundled passages (${e.message}). You can still paste your own passage.`, 'error');
  }
  renderPassageList();
  if (state.passages.length) selectPassage(state.passages[0].id);
}

async function loadTokenizer() {
  const resp = await fetch(VOCAB_URL);
  if (!resp.ok) throw new ModelError('missing', `Vocabulary file not found: ${VOCAB_URL} (HTTP ${resp.status}).`);
  return BertTokenizer.fromVocabText(await resp.text());
}

async function loadModel() {
  const modelUrl = modelUrlFromQuery();
  // ?threads=N chooses; otherwise as many as the page can use (defaultThreadCount).
  const query = new URLSearchParams(location.search);
  const threads = Number(query.get('threads')) || 'auto';
  // ?accelerator=webgpu tries WebGPU (falling back to WASM with a note); WASM by default.
  const accelerator = query.get('accelerator') || 'wasm';
  setStatus('Loading model…', 'loading');
  try {
    const [tok, model] = await Promise.all([
      loadTokenizer(),
      QaModel.load({
        modelUrl,
        threads,
        accelerator,
        onProgress: (p) => {
          if (p.stage === 'download' && p.total) {
            setStatus(`Downloading model… ${Math.round((100 * p.loaded) / p.total)}%`, 'loading');
          } else if (p.stage === 'verify') {
            setStatus('Checking the model file…', 'loading');
          } else if (p.stage === 'compile') {
            setStatus('Preparing model…', 'loading');
          }
        },
      }),
    ]);
    state.tokenizer = tok;
    state.model = model;
    els.threads.value = String(model.threads);
    els.accelerator.value = model.accelerator;
    setStatus(readyText(model), 'ready');
    if (model.acceleratorNote) showMessage(model.acceleratorNote, 'info');
    updateRuntimeInfo();
  } catch (e) {
    state.modelError = e instanceof ModelError ? e : new ModelError('runtime', e?.message || String(e), e);
    setStatus('Model failed to load', 'error');
    showMessage(modelErrorText(), 'error');
    els.ask.disabled = false; // still clickable: it explains the problem
    console.error(e);
  }
}

// ---------------------------------------------------------------- test / benchmark API

const readyPromise = (async () => {
  await Promise.all([loadPassages(), loadModel()]);
  return { ok: !state.modelError, error: state.modelError?.message || null };
})();

window.__qa = {
  /** Resolves when startup is done: {ok, error}. */
  ready: () => readyPromise,
  info: () => ({
    ready: !!state.model,
    error: state.modelError?.message || null,
    threads: state.model?.threads ?? null,
    threaded: state.model?.runtime.threaded ?? null,
    jspi: state.model?.runtime.jspi ?? null,
    accelerator: state.model?.accelerator ?? null,
    acceleratorNote: state.model?.acceleratorNote ?? null,
    crossOriginIsolated: !!globalThis.crossOriginIsolated,
    passages: state.passages.map((p) => p.id),
  }),
  setThreads: async (n) => {
    els.threads.value = String(n);
    return state.model.setThreads(n);
  },
  /** Answer without touching the UI. context defaults to the selected passage. */
  ask: async (question, context = currentContext()) => {
    const r = await answer(question, context);
    const best = r.answers[0] || { text: '', start: -1, end: -1 };
    return {
      answer: best.text,
      start: best.start,
      end: best.end,
      ms: r.ms,
      wallMs: r.wallMs,
      windowMs: r.windowMs,
      windows: r.features.windows.length,
      candidates: r.answers.map((a) => ({ text: a.text, start: a.start, end: a.end, probability: a.probability })),
    };
  },
  /** Each window's raw logits for a question (tests compare them with the Python pipeline's). */
  logits: async (question, context = currentContext()) => {
    const { windows } = buildFeatures(state.tokenizer, question, context);
    const r = await state.model.runWindows(windows);
    return r.startLogits.map((s, i) => ({ start: Array.from(s), end: Array.from(r.endLogits[i]) }));
  },
  /** Time model.run on one real 384-token window: {threads, ms: [..]}. */
  benchmark: async ({ threads = 1, runs = 30, warmup = 5, question, context } = {}) => {
    const p = state.passages[0];
    const q = question || p?.questions?.[0] || 'What is this about?';
    const c = context || p?.context || 'This passage is about a model that answers questions.';
    const got = await state.model.setThreads(threads);
    const w = buildFeatures(state.tokenizer, q, c).windows[0];
    for (let i = 0; i < warmup; i++) await state.model.runWindow(w);
    const ms = [];
    for (let i = 0; i < runs; i++) {
      ms.push((await state.model.runWindow(w)).ms);
      await nextFrame();
    }
    return { threads: got, requestedThreads: threads, ms };
  },
};

// ---------------------------------------------------------------- events

els.form.addEventListener('submit', onAsk);
els.pasteOwn.addEventListener('click', () => selectPassage(CUSTOM_ID));
els.threads.addEventListener('change', onThreadsChange);
els.accelerator.addEventListener('change', onAcceleratorChange);
els.custom.addEventListener('input', () => {
  if (!els.text.hidden) clearResult();
  els.text.hidden = true;
});
