// End-to-end test of "ask a whole document" in a real browser (Debian Chromium driven by
// playwright-core):
//
//   node --test apps/web/e2e/document.test.mjs
//
// It opens the app, picks the bundled whole Rhine article (apps/web/data/articles.json), asks a
// question answered in its last paragraphs and checks the answer against SQuAD v1.1's gold
// answers for it (read from ../shared/data/squad/dev-v1.1.json.gz, official normalization);
// asks a question from another article and checks that "No answer in this document" is shown;
// uploads the article as a .txt file (its passages and embeddings come from the cache); and
// checks that a missing calibrator is a clear error while passage mode keeps working. It needs
// apps/models/answer_calibrator.json (the shipped calibrator) and the sentence embedder.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { chromiumMissingMessage, externalRequests, launch, openApp, REPO_ROOT, WEB_DIR } from './harness.mjs';
import { normalizeAnswer } from '../test/squad_score.mjs';

const articles = JSON.parse(readFileSync(path.join(WEB_DIR, 'data', 'articles.json'), 'utf8'));
const article = articles.find((a) => a.id === 'rhine');
const CALIBRATOR = path.join(REPO_ROOT, 'apps', 'models', 'answer_calibrator.json');
const SQUAD_DEV = path.resolve(REPO_ROOT, '..', 'shared', 'data', 'squad', 'dev-v1.1.json.gz');
// A late-paragraph question the shipped models answer well above the threshold (Python,
// 2026-11-29: "September 1944" at 0.77; threshold 0.16), and a question from the Force article
// whose best span is far below it (Python: 0.004).
const QUESTION = 'When was Operation Market Garden?';
const QUESTION_WITHOUT_ANSWER = 'What concept did philosophers in antiquity use to study simple machines?';
const NO_ANSWER_TEXT = 'No answer in this document';

const missingChromium = chromiumMissingMessage();
const skip = missingChromium && process.env.SKIP_BROWSER_TESTS === '1' ? missingChromium : false;

/** SQuAD v1.1 dev's gold answers for `question` in the article titled `title`. */
function goldAnswers(title, question) {
  const dev = JSON.parse(gunzipSync(readFileSync(SQUAD_DEV)).toString('utf8'));
  const entry = dev.data.find((a) => a.title === title);
  for (const p of entry.paragraphs) {
    for (const qa of p.qas) if (qa.question === question) return qa.answers.map((a) => a.text);
  }
  throw new Error(`"${question}" is not a question of ${title} in ${SQUAD_DEV}`);
}

/** Click Ask and wait for it to finish, recording the progress texts shown meanwhile. */
async function ask(page, question, { timeout = 300_000 } = {}) {
  const before = Number(await page.getAttribute('body', 'data-asked'));
  await page.getByTestId('question-input').fill(question);
  await page.getByTestId('ask-button').click();
  const progress = new Set();
  const t0 = Date.now();
  while (Number(await page.getAttribute('body', 'data-asked')) === before) {
    assert.ok(Date.now() - t0 < timeout, `no answer within ${timeout / 1000} s`);
    progress.add(await page.evaluate(() => document.getElementById('progress-text').textContent));
    await new Promise((r) => setTimeout(r, 100));
  }
  return { ...(await readOutcome(page)), progress: [...progress] };
}

function readOutcome(page) {
  return page.evaluate(() => {
    const text = document.getElementById('passage-text');
    const mark = text.querySelector('mark.answer');
    const source = document.getElementById('source');
    const sourceMark = document.querySelector('[data-testid="source-mark"]');
    const msg = document.getElementById('message');
    const result = document.getElementById('result');
    return {
      documentText: text.textContent,
      mark: mark ? { text: mark.textContent, start: Number(mark.dataset.start), end: Number(mark.dataset.end) } : null,
      answerText: document.getElementById('answer-text').textContent,
      score: document.getElementById('answer-score').textContent,
      resultState: result.hidden ? null : result.dataset.state,
      timing: document.getElementById('timing').textContent,
      source: source.hidden ? null : {
        label: document.getElementById('source-label').textContent,
        passage: document.getElementById('source-passage').textContent,
        mark: sourceMark?.textContent ?? null,
      },
      message: msg.hidden ? null : msg.textContent,
      messageKind: msg.hidden ? null : msg.dataset.kind,
      askEnabled: !document.getElementById('ask').disabled,
    };
  });
}

async function selectArticle(page, id) {
  await page.locator(`[data-testid="article-item"][data-article-id="${id}"]`).click();
  await page.waitForFunction((key) => document.body.dataset.passage === key, `document:${id}`);
}

describe('asking a whole document in Chromium', { skip }, () => {
  let env;
  let page;
  let pageErrors;

  before(async () => {
    if (missingChromium) throw new Error(missingChromium);
    assert.ok(existsSync(CALIBRATOR), `${CALIBRATOR} is missing: the document mode needs the shipped calibrator`);
    env = await launch();
    let ready;
    ({ page, ready, pageErrors } = await openApp(env.context, env.server.url));
    assert.equal(ready.ok, true, ready.error);
  });

  after(async () => {
    await env?.close();
  });

  test('the bundled article is listed, with its questions and questions it does not answer', async () => {
    assert.deepEqual((await page.evaluate(() => window.__qa.info())).articles, articles.map((a) => a.id));
    await selectArticle(page, 'rhine');
    assert.equal(await page.getByTestId('passage-text').textContent(), article.context);
    assert.deepEqual(await page.getByTestId('suggested-question').allTextContents(), article.questions);
    assert.deepEqual(await page.getByTestId('suggested-question-without-answer').allTextContents(),
      article.questions_without_answer);
    assert.ok(article.questions.includes(QUESTION) && article.questions_without_answer.includes(QUESTION_WITHOUT_ANSWER));
  });

  test('a late-paragraph question: the answer is SQuAD\'s gold, shown in its passage', { timeout: 600_000 }, async (t) => {
    await selectArticle(page, 'rhine');
    const out = await ask(page, QUESTION);
    assert.equal(out.resultState, 'answer', `message: ${out.message}`);
    if (existsSync(SQUAD_DEV)) {
      const golds = goldAnswers('Rhine', QUESTION);
      assert.ok(golds.map(normalizeAnswer).includes(normalizeAnswer(out.answerText)),
        `answer ${JSON.stringify(out.answerText)}, gold ${JSON.stringify(golds)}`);
    } else {
      t.diagnostic(`${SQUAD_DEV} not found: checked against the Python pipeline's answer instead`);
      assert.equal(out.answerText, 'September 1944');
    }
    // Highlighted in the whole document, at its true offsets, and in the passage that answered.
    assert.equal(out.documentText, article.context);
    assert.equal(out.mark.text, out.answerText);
    assert.equal(article.context.slice(out.mark.start, out.mark.end), out.answerText);
    assert.ok(out.source, 'the answering passage is not shown');
    assert.equal(out.source.mark, out.answerText);
    assert.ok(article.context.includes(out.source.passage));
    // The shipped calibrator says how many passages are read (info.passages).
    const read = JSON.parse(readFileSync(CALIBRATOR, 'utf8')).info.passages;
    assert.match(out.source.label, new RegExp(`^From passage \\d+ of \\d+ \\(ranked [1-${read}] of the ${read} read`));
    assert.match(out.score, /% \(calibrated\)/);
    // The passages were embedded once, with progress, before the best were read.
    assert.ok(out.progress.some((p) => /^Embedding passages: \d+ of \d+/.test(p)), `progress: ${out.progress}`);
    assert.match(out.timing, new RegExp(`for ${read} windows \\(${read} of \\d+ passages read, ranked by BM25 and the sentence embedder`));
    assert.match(out.timing, /cut into \d+ passages and embedded in \d+ ms \(once\)/);
    const info = await page.evaluate(() => window.__qa.info());
    assert.ok(info.embedder && info.documentReady);
    t.diagnostic(`${QUESTION} -> ${out.answerText} (${out.score}); ${out.timing}`);
  });

  test('a question from another article: "No answer in this document"', { timeout: 300_000 }, async (t) => {
    await selectArticle(page, 'rhine');
    const out = await ask(page, QUESTION_WITHOUT_ANSWER);
    assert.equal(out.resultState, 'no-answer', `answer: ${out.answerText}; message: ${out.message}`);
    assert.equal(out.answerText, NO_ANSWER_TEXT);
    assert.match(out.score, /below the threshold/);
    assert.equal(out.mark, null);
    assert.equal(out.source, null);
    assert.match(out.timing, /came from the cache/);
    assert.ok(!out.progress.some((p) => /^Embedding/.test(p)), 'the document was embedded again');
    const r = await page.evaluate((q) => window.__qa.askDocument(q), QUESTION_WITHOUT_ANSWER);
    assert.equal(r.noAnswer, true);
    assert.ok(r.candidate.score < r.threshold);
    t.diagnostic(`${QUESTION_WITHOUT_ANSWER} -> ${out.answerText} (${out.score})`);
  });

  test('an uploaded .txt document: same answer, passages and embeddings from the cache', { timeout: 300_000 }, async () => {
    await page.getByTestId('paste-document').click();
    await page.getByTestId('document-file').setInputFiles({
      name: 'rhine.txt', mimeType: 'text/plain', buffer: Buffer.from(article.context, 'utf8') });
    await page.waitForFunction((n) => document.getElementById('custom-document').value.length === n,
      article.context.length);
    assert.match(await page.getByTestId('message').textContent(), /Loaded rhine\.txt/);
    const out = await ask(page, QUESTION);
    assert.equal(out.resultState, 'answer', `message: ${out.message}`);
    assert.equal(out.documentText, article.context);
    assert.equal(article.context.slice(out.mark.start, out.mark.end), out.answerText);
    assert.match(out.timing, /came from the cache/);
  });

  test('an empty pasted document gives a message', async () => {
    await page.getByTestId('paste-document').click();
    await page.getByTestId('custom-document').fill('  \n ');
    const out = await ask(page, QUESTION);
    assert.match(out.message, /document is empty/);
    assert.equal(out.resultState, null);
    assert.ok(out.askEnabled);
  });

  test('a missing calibrator: a clear error, and passages are still answered', { timeout: 120_000 }, async () => {
    const { page: p, ready, pageErrors: errs } = await openApp(env.context, env.server.url,
      '?calibrator=/models/missing_calibrator.json');
    try {
      assert.equal(ready.ok, true, ready.error);
      await selectArticle(p, 'rhine');
      const out = await ask(p, QUESTION);
      assert.equal(out.messageKind, 'error');
      assert.match(out.message, /answer calibrator \/models\/missing_calibrator\.json was not found \(HTTP 404/);
      assert.equal(out.resultState, null);
      assert.ok(out.askEnabled);
      await p.locator('[data-testid="passage-item"]').first().click();
      const passage = await ask(p, 'Where does the Rhine begin?');
      assert.equal(passage.resultState, 'answer', passage.message);
      assert.deepEqual(errs.map(String), []);
    } finally {
      await p.close();
    }
  });

  test('no page errors and no request left 127.0.0.1', () => {
    assert.deepEqual(pageErrors.map(String), []);
    assert.ok(env.requests.some((u) => u.endsWith('/models/minilm_embedder_dynamic_int8.tflite')));
    assert.ok(env.requests.some((u) => u.endsWith('/models/answer_calibrator.json')));
    assert.deepEqual(externalRequests(env.requests), []);
  });
});
