// UI of the on-device BERT question-answering demo (like the TFLite BERT QA Android example).
// Pure QA logic lives in src/qa/ and src/retrieval/ (no DOM); LiteRT.js inference in
// src/model.js (the reader) and src/embedder_model.js (the sentence embedder, the calibrator).
//
// Two modes: a passage (every 384-token window is read, the best span answers) and a whole
// document (src/retrieval/document_qa.js: the best passages are retrieved and read, and the
// calibrator says "No answer in this document" when the best span is unlikely).

import { BertTokenizer, buildFeatures, QaInputError, decodeAnswers } from './src/qa/index.js';
import { QaModel, ModelError, DEFAULT_MODEL_URL } from './src/model.js';
import { DEFAULT_CALIBRATOR_URL, DEFAULT_EMBEDDER_URL, EmbedderModel, loadCalibrator } from './src/embedder_model.js';
import { DocumentQa, QaCancelled, needsEmbedder, pipelineSettings } from './src/retrieval/document_qa.js';

const VOCAB_URL = '/models/vocab.txt';
const PASSAGES_URL = '/data/passages.json';
const ARTICLES_URL = '/data/articles.json';
const CUSTOM_ID = '__custom__';
const CUSTOM_DOCUMENT_ID = '__document__';
const MAX_UPLOAD_BYTES = 20 * 1024 * 1024; // a .txt document; larger files are refused
const NO_ANSWER_TEXT = 'No answer in this document';

const $ = (id) => document.getElementById(id);
const els = {
  status: $('model-status'),
  threads: $('threads'),
  accelerator: $('accelerator'),
  list: $('passage-list'),
  pasteOwn: $('paste-own'),
  articleList: $('article-list'),
  pasteDocument: $('paste-document'),
  documentInfo: $('document-info'),
  documentBox: $('document-box'),
  customDocument: $('custom-document'),
  documentFile: $('document-file'),
  source: $('source'),
  sourceLabel: $('source-label'),
  sourcePassage: $('source-passage'),
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
  articles: [], // whole documents: {id, title, context, questions, questionsWithoutAnswer}
  current: null, // {id, title, context, questions, kind: 'passage' | 'document'}
  tokenizer: null,
  model: null,
  modelError: null,
  busy: false,
  askSeq: 0,
  cancel: null, // {cancelled} of the running question
  // Whole documents: loaded on the first document question, kept for the next ones.
  documentQa: null, // DocumentQa
  documentQaPromise: null,
  embedder: null, // EmbedderModel, when the calibrator or its ranker needs it
  readMs: 0, // reader time of the running document question
};

// ---------------------------------------------------------------- helpers

/** Only same-origin absolute paths are accepted for ?model= (the page never leaves 127.0.0.1). */
function sameOriginPath(name, fallback) {
  const p = new URLSearchParams(location.search).get(name);
  if (p && p.startsWith('/') && !p.startsWith('//')) return p;
  return fallback;
}

function modelUrlFromQuery() {
  return sameOriginPath('model', DEFAULT_MODEL_URL);
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

function setProgress(done, total, label = null) {
  if (total <= 0) {
    els.progressBox.hidden = true;
    return;
  }
  els.progressBox.hidden = false;
  els.progress.max = total;
  els.progress.value = done;
  els.progressText.textContent = label ??
    (total > 1 ? `Window ${done} of ${total}` : done >= total ? 'Done' : 'Running the model…');
}

/** Progress without a known total (loading the embedder). */
function setProgressNote(text) {
  els.progressBox.hidden = false;
  els.progress.removeAttribute('value');
  els.progressText.textContent = text;
}

const nextFrame = () => new Promise((r) => setTimeout(r, 0));

function currentContext() {
  if (!state.current) return '';
  if (state.current.id === CUSTOM_ID) return els.custom.value;
  if (state.current.id === CUSTOM_DOCUMENT_ID) return els.customDocument.value;
  return state.current.context;
}

const isDocument = () => state.current?.kind === 'document';

/** `text` in `container`, with [start, end) (UTF-16 offsets) wrapped in <mark class="answer">. */
function renderMarked(container, text, span, attributes) {
  container.replaceChildren();
  if (span && span.start >= 0 && span.end > span.start && span.end <= text.length) {
    const mark = document.createElement('mark');
    mark.className = 'answer';
    for (const [name, value] of Object.entries(attributes)) mark.setAttribute(name, value);
    mark.dataset.start = String(span.start);
    mark.dataset.end = String(span.end);
    mark.textContent = text.slice(span.start, span.end);
    container.append(text.slice(0, span.start), mark, text.slice(span.end));
    return mark;
  }
  container.textContent = text;
  return null;
}

/** Render the passage, with the answer span [start, end) (UTF-16 offsets) wrapped in <mark>. */
function renderPassage(context, span) {
  const mark = renderMarked(els.text, context, span, { id: 'answer-mark', 'data-testid': 'answer-mark' });
  mark?.scrollIntoView({ block: 'center', behavior: 'instant' });
}

function clearResult() {
  els.result.hidden = true;
  els.answer.textContent = '';
  els.answer.classList.remove('none');
  els.score.textContent = '';
  els.timing.textContent = '';
  els.candidates.replaceChildren();
  els.result.dataset.state = '';
  els.source.hidden = true;
  els.sourceLabel.textContent = '';
  els.sourcePassage.replaceChildren();
}

// ---------------------------------------------------------------- passages

/** One list entry: a button with a title and a snippet, calling `onClick`. */
function listItem({ className, testId, data, title, snippet, onClick }) {
  const li = document.createElement('li');
  const b = document.createElement('button');
  b.type = 'button';
  b.className = className;
  b.setAttribute('data-testid', testId);
  Object.assign(b.dataset, data);
  const titleEl = document.createElement('span');
  titleEl.className = 'passage-item-title';
  titleEl.textContent = title;
  const snippetEl = document.createElement('span');
  snippetEl.className = 'passage-item-snippet';
  snippetEl.textContent = snippet;
  b.append(titleEl, snippetEl);
  b.addEventListener('click', onClick);
  li.append(b);
  return li;
}

function renderPassageList() {
  els.list.replaceChildren(...state.passages.map((p) => listItem({
    className: 'passage-item', testId: 'passage-item', data: { passageId: p.id }, title: p.title,
    snippet: p.context.slice(0, 90) + (p.context.length > 90 ? '…' : ''),
    onClick: () => selectPassage(p.id),
  })));
}

function renderArticleList() {
  els.articleList.replaceChildren(...state.articles.map((a) => listItem({
    className: 'passage-item article-item', testId: 'article-item', data: { articleId: a.id },
    title: a.title,
    snippet: `${a.context.length.toLocaleString('en')} characters · ${a.context.slice(0, 60)}…`,
    onClick: () => selectDocument(a.id),
  })));
}

/** Cancel a running question, clear the result, and mark `key` selected in the lists. */
function startSelection(key) {
  // Choosing another passage while a long question runs cancels it (at the next window).
  if (state.cancel) state.cancel.cancelled = true;
  state.askSeq++;
  clearMessage();
  clearResult();
  setProgress(0, 0);
  for (const b of els.list.querySelectorAll('.passage-item')) {
    const selected = `passage:${b.dataset.passageId}` === key;
    b.classList.toggle('selected', selected);
    b.setAttribute('aria-current', selected ? 'true' : 'false');
  }
  for (const b of els.articleList.querySelectorAll('.article-item')) {
    const selected = `document:${b.dataset.articleId}` === key;
    b.classList.toggle('selected', selected);
    b.setAttribute('aria-current', selected ? 'true' : 'false');
  }
  els.pasteOwn.classList.toggle('selected', key === `passage:${CUSTOM_ID}`);
  els.pasteDocument.classList.toggle('selected', key === `document:${CUSTOM_DOCUMENT_ID}`);
  els.documentInfo.hidden = true;
  els.documentBox.hidden = true;
  els.customBox.hidden = true;
  document.body.dataset.mode = key.startsWith('document:') ? 'document' : 'passage';
}

function selectPassage(id) {
  startSelection(`passage:${id}`);
  if (id === CUSTOM_ID) {
    state.current = { id: CUSTOM_ID, title: 'Your own passage', context: '', questions: [], kind: 'passage' };
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
  els.text.hidden = false;
  els.title.textContent = p.title;
  renderPassage(p.context, null);
  renderSuggestions(p.questions || []);
  els.question.value = '';
  document.body.dataset.passage = id;
}

/** A whole document: a bundled article, or CUSTOM_DOCUMENT_ID (pasted or uploaded text). */
function selectDocument(id) {
  startSelection(`document:${id}`);
  if (id === CUSTOM_DOCUMENT_ID) {
    state.current = { id, title: 'Your own document', context: '', questions: [], kind: 'document' };
    els.documentBox.hidden = false;
    els.text.hidden = true;
    els.title.textContent = state.current.title;
    renderPassage('', null);
    renderSuggestions([]);
    els.customDocument.focus();
  } else {
    const a = state.articles.find((x) => x.id === id);
    if (!a) return;
    state.current = a;
    els.text.hidden = false;
    els.title.textContent = a.title;
    els.documentInfo.hidden = false;
    els.documentInfo.textContent =
      `A whole document (${a.context.length.toLocaleString('en')} characters): the question is ` +
      'asked of its best passages, and the answer may be "No answer in this document".';
    renderPassage(a.context, null);
    renderSuggestions(a.questions, a.questionsWithoutAnswer, a.questionsWithoutAnswerFrom);
    els.question.value = '';
  }
  document.body.dataset.passage = `document:${id}`;
}

function renderSuggestions(questions, withoutAnswer = [], withoutAnswerFrom = null) {
  els.suggestions.replaceChildren();
  els.suggestionsBox.hidden = questions.length + withoutAnswer.length === 0;
  const chip = (q, testId, title) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = testId === 'suggested-question' ? 'chip' : 'chip other';
    b.setAttribute('data-testid', testId);
    b.dir = 'auto';
    b.textContent = q;
    if (title) b.title = title;
    b.addEventListener('click', () => {
      els.question.value = q;
      els.question.focus();
    });
    els.suggestions.append(b);
  };
  for (const q of questions) chip(q, 'suggested-question');
  for (const q of withoutAnswer) {
    chip(q, 'suggested-question-without-answer',
      `A question about ${withoutAnswerFrom ? `the article "${withoutAnswerFrom}"` : 'another article'}: this document does not answer it.`);
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

// ---------------------------------------------------------------- whole documents

/**
 * The document pipeline, made on the first document question: the calibrator (?calibrator=,
 * default /models/answer_calibrator.json) and, when it or its ranker needs it, the sentence
 * embedder (?embedder=, default /models/minilm_embedder_dynamic_int8.tflite), both checked
 * against SHA256SUMS. A failure is a ModelError with the reason; the next question retries.
 */
function documentQa(onNote) {
  if (state.documentQa) return Promise.resolve(state.documentQa);
  if (!state.documentQaPromise) {
    state.documentQaPromise = (async () => {
      const calibratorUrl = sameOriginPath('calibrator', DEFAULT_CALIBRATOR_URL);
      onNote?.('Loading the answer calibrator…');
      const calibrator = await loadCalibrator(calibratorUrl);
      let embedder = null;
      if (needsEmbedder(calibrator, pipelineSettings(calibrator).ranker)) {
        onNote?.('Loading the sentence embedder…');
        state.embedder = await EmbedderModel.load({
          modelUrl: sameOriginPath('embedder', DEFAULT_EMBEDDER_URL),
          threads: state.model.threads,
          tokenizer: state.tokenizer,
          onProgress: (p) => {
            if (p.stage === 'download' && p.total) {
              onNote?.(`Downloading the sentence embedder… ${Math.round((100 * p.loaded) / p.total)}%`);
            } else if (p.stage === 'compile') {
              onNote?.('Preparing the sentence embedder…');
            }
          },
        });
        embedder = async (text) => {
          const vector = await state.embedder.embed(text);
          await nextFrame(); // let the page paint and take input between passages
          return vector;
        };
      }
      state.documentQa = new DocumentQa({
        tokenizer: state.tokenizer,
        calibrator,
        embedder,
        reader: async (window) => {
          const r = await state.model.runWindow(window);
          state.readMs += r.ms;
          await nextFrame();
          return r;
        },
        readerOptions: { maxSeqLength: state.model.seqLength },
      });
      state.documentQa.calibratorUrl = calibratorUrl;
      updateRuntimeInfo();
      return state.documentQa;
    })().catch((e) => {
      state.documentQaPromise = null;
      throw e instanceof ModelError ? e : new ModelError('runtime', e?.message || String(e), e);
    });
  }
  return state.documentQaPromise;
}

/**
 * Cut `context` into passages and embed them, once per text (what a document's first question
 * waits for): {fresh, documentMs}, `fresh` false (and 0 ms) when they came from the cache.
 */
async function prepareDocument(qa, context, signal, onProgress) {
  if (qa.hasDocument(context)) return { fresh: false, documentMs: 0 };
  const d0 = performance.now();
  await qa.document(context, {
    signal,
    onProgress: ({ done, total }) =>
      onProgress?.(done, total, `Embedding passages: ${done} of ${total} (once per document)`),
  });
  return { fresh: true, documentMs: performance.now() - d0 };
}

/**
 * Answer a question from a whole document (DocumentQa.answer). The document is split (and its
 * passages embedded) once per text; progress goes to `onProgress(done, total, label)`.
 */
async function answerDocument(question, context, onProgress, onNote) {
  if (state.modelError) throw state.modelError;
  if (!state.model || !state.tokenizer) throw new ModelError('runtime', 'The model is still loading. Please wait.');
  const signal = { cancelled: false };
  state.cancel = signal;
  try {
    const t0 = performance.now();
    const qa = await documentQa(onNote);
    if (signal.cancelled) throw new QaCancelled();
    const { fresh, documentMs } = await prepareDocument(qa, context, signal, onProgress);
    state.readMs = 0;
    const r = await qa.answer(question, context, {
      topK: 5,
      signal,
      onProgress: ({ stage, done, total }) => {
        if (stage === 'read') {
          onProgress?.(done, total, done >= total ? 'Done' : `Reading passage ${done + 1} of ${total}`);
        }
      },
    });
    return { ...r, fresh, documentMs, readMs: state.readMs, wallMs: performance.now() - t0 };
  } finally {
    if (state.cancel === signal) state.cancel = null;
  }
}

const percent = (p) => `${(100 * p).toFixed(1)}%`;

function renderDocumentResult(context, r) {
  const qa = state.documentQa;
  const n = r.passages.length;
  const read = r.retrieved.length;
  const m = state.model;
  const how = m.accelerator === 'webgpu' ? 'WebGPU' : `${m.threads} thread${m.threads === 1 ? '' : 's'}`;
  const ranker = { bm25: 'BM25', dense: 'the sentence embedder', rrf: 'BM25 and the sentence embedder' }[qa.ranker];
  const once = r.fresh
    ? `; the document was cut into ${n} passages${qa.usesEmbeddings ? ' and embedded' : ''} in ${r.documentMs.toFixed(0)} ms (once)`
    : `; its ${n} passages${qa.usesEmbeddings ? ' and their embeddings' : ''} came from the cache`;
  els.timing.textContent =
    `Inference time: ${r.readMs.toFixed(0)} ms for ${r.windows} window${r.windows === 1 ? '' : 's'} ` +
    `(${read} of ${n} passages read, ranked by ${ranker}; ${how})${once}; total ${r.wallMs.toFixed(0)} ms`;
  els.timing.dataset.ms = r.readMs.toFixed(3);
  els.timing.dataset.windows = String(r.windows);
  els.timing.dataset.passages = String(n);
  els.result.hidden = false;
  const threshold = qa.calibrator ? qa.calibrator.threshold : 0;
  if (r.noAnswer) {
    els.result.dataset.state = 'no-answer';
    els.answer.textContent = NO_ANSWER_TEXT;
    els.answer.classList.add('none');
    els.score.textContent = r.candidate
      ? `the best candidate's probability ${percent(r.candidate.score)} is below the threshold ${percent(threshold)}`
      : 'no passage read gave an answer span';
    renderPassage(context, null);
  } else {
    els.result.dataset.state = 'answer';
    els.answer.classList.remove('none');
    els.answer.textContent = r.text;
    els.score.textContent = `${percent(r.score)} (calibrated)`;
    renderPassage(context, r);
    els.source.hidden = false;
    const rank = r.retrieved.findIndex((x) => x.passage === r.passage) + 1;
    els.sourceLabel.textContent =
      `From passage ${r.passage + 1} of ${n} (ranked ${rank} of the ${read} read; ` +
      `characters ${r.passageStart}–${r.passageEnd} of the document):`;
    els.sourcePassage.dataset.passage = String(r.passage);
    renderMarked(els.sourcePassage, context.slice(r.passageStart, r.passageEnd),
      { start: r.start - r.passageStart, end: r.end - r.passageStart }, { 'data-testid': 'source-mark' });
  }
  els.candidates.replaceChildren();
  for (const [i, c] of r.candidates.entries()) {
    if (i === 0 && !r.noAnswer) continue;
    const li = document.createElement('li');
    li.setAttribute('data-testid', 'candidate');
    const t = document.createElement('span');
    t.className = 'cand-text';
    t.dir = 'auto';
    t.textContent = c.text;
    const s = document.createElement('span');
    s.className = 'cand-score';
    s.textContent = `${percent(c.score)}${c.noAnswer ? ' (below the threshold)' : ''} · passage ${c.passage + 1}`;
    li.append(t, s);
    els.candidates.append(li);
  }
  if (els.candidates.children.length === 0) {
    const li = document.createElement('li');
    li.className = 'none';
    li.textContent = 'No other candidates.';
    els.candidates.append(li);
  }
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
    showMessage(isDocument() ? 'The document is empty: paste some text or choose a .txt file first.'
      : 'The passage is empty: paste some text first.', 'warning');
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
  if (state.current.id === CUSTOM_ID || state.current.id === CUSTOM_DOCUMENT_ID) {
    els.text.hidden = false;
    renderPassage(context, null);
  }
  try {
    if (isDocument()) {
      const r = await answerDocument(question, context,
        (done, total, label) => {
          if (seq === state.askSeq) setProgress(done, total, label);
        },
        (note) => {
          if (seq === state.askSeq) setProgressNote(note);
        });
      if (seq !== state.askSeq) return;
      renderDocumentResult(context, r);
      return;
    }
    const r = await answer(question, context, (done, total) => {
      if (seq === state.askSeq) setProgress(done, total);
    });
    if (seq !== state.askSeq) return;
    renderResult(context, r);
  } catch (e) {
    if (seq !== state.askSeq || e instanceof QaCancelled) return;
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
    await state.embedder?.setThreads(got);
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
    `model: ${m.modelUrl} (${(m.bytes.length / 1e6).toFixed(1)} MB)` +
    (state.embedder ? ` · embedder: ${state.embedder.modelUrl} (${(state.embedder.bytes.length / 1e6).toFixed(1)} MB)` : '') +
    (state.documentQa ? ` · calibrator: ${state.documentQa.calibratorUrl}` : '');
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

/** The bundled whole documents (articles.json, apps/make_retrieval_fixtures.py). */
async function loadArticles() {
  try {
    const resp = await fetch(ARTICLES_URL);
    if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
    const data = await resp.json();
    if (!Array.isArray(data)) throw new Error('articles.json is not a list');
    state.articles = data
      .filter((a) => a && typeof a.context === 'string' && a.id != null)
      .map((a) => ({
        id: String(a.id),
        title: a.title || String(a.id),
        context: a.context,
        kind: 'document',
        questions: Array.isArray(a.questions) ? a.questions : [],
        questionsWithoutAnswer: Array.isArray(a.questions_without_answer) ? a.questions_without_answer : [],
        questionsWithoutAnswerFrom: a.questions_without_answer_from || null,
      }));
  } catch (e) {
    showMessage(`Could not load the bundled whole article (${e.message}). You can still paste or upload a document.`, 'warning');
  }
  renderArticleList();
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
  await Promise.all([loadPassages(), loadArticles(), loadModel()]);
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
    articles: state.articles.map((a) => a.id),
    documentReady: !!state.documentQa,
    embedder: state.embedder ? { url: state.embedder.modelUrl, threads: state.embedder.threads } : null,
  }),
  /** The reader's thread count, and the embedder's when it is loaded (as the selector). */
  setThreads: async (n) => {
    els.threads.value = String(n);
    const got = await state.model.setThreads(n);
    await state.embedder?.setThreads(got);
    return got;
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
  /** Answer from a whole document without touching the UI (retrieve, read, calibrate). */
  askDocument: async (question, context = currentContext()) => {
    const r = await answerDocument(question, context);
    const pick = (a) => ({ text: a.text, score: a.score, noAnswer: a.noAnswer, start: a.start, end: a.end, passage: a.passage });
    return {
      answer: r.text,
      noAnswer: r.noAnswer,
      score: r.score,
      start: r.start,
      end: r.end,
      passage: r.passage,
      passageStart: r.passageStart,
      passageEnd: r.passageEnd,
      threshold: state.documentQa.calibrator?.threshold ?? null,
      ranker: state.documentQa.ranker,
      retrieved: r.retrieved,
      passages: r.passages.length,
      windows: r.windows,
      readMs: r.readMs,
      documentMs: r.documentMs,
      wallMs: r.wallMs,
      candidate: r.candidate ? pick(r.candidate) : null,
      candidates: r.candidates.map(pick),
    };
  },
  /**
   * Load the document pipeline (calibrator, embedder) and cut and embed `context` once, as a
   * document's first question does, without asking anything; later askDocument calls on the
   * same text find it in the cache. `loadMs`: the pipeline (0 when loaded already);
   * `documentMs`: splitting and embedding (0 when cached, `fresh` false).
   */
  prepareDocument: async (context = currentContext()) => {
    const t0 = performance.now();
    const loaded = !!state.documentQa;
    const qa = await documentQa();
    const loadMs = loaded ? 0 : performance.now() - t0;
    const { fresh, documentMs } = await prepareDocument(qa, context);
    return {
      fresh,
      loadMs,
      documentMs,
      passages: (await qa.document(context)).passages.length,
      ranker: qa.ranker,
      passagesRead: qa.passages,
      usesEmbeddings: qa.usesEmbeddings,
      threads: state.model.threads,
      embedderThreads: state.embedder?.threads ?? null,
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
els.pasteDocument.addEventListener('click', () => selectDocument(CUSTOM_DOCUMENT_ID));
els.customDocument.addEventListener('input', () => {
  if (!els.text.hidden) clearResult();
  els.text.hidden = true;
});
els.documentFile.addEventListener('change', async () => {
  const file = els.documentFile.files?.[0];
  if (!file) return;
  if (file.size > MAX_UPLOAD_BYTES) {
    showMessage(`${file.name} is ${(file.size / 1e6).toFixed(1)} MB: choose a text file under ` +
      `${MAX_UPLOAD_BYTES / 1024 / 1024} MB.`, 'warning');
    return;
  }
  try {
    const text = await file.text(); // UTF-8
    if (text.includes('\u0000')) {
      showMessage(`${file.name} is not a text file: choose a .txt file.`, 'warning');
      return;
    }
    if (state.current?.id !== CUSTOM_DOCUMENT_ID) selectDocument(CUSTOM_DOCUMENT_ID);
    els.customDocument.value = text;
    clearResult();
    els.text.hidden = true;
    showMessage(`Loaded ${file.name} (${text.length.toLocaleString('en')} characters). Ask a question about it.`, 'info');
  } catch (e) {
    showMessage(`Could not read ${file.name}: ${e.message || e}`, 'error');
  } finally {
    els.documentFile.value = ''; // choosing the same file again reloads it
  }
});
