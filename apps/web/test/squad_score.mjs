// The official SQuAD v1.1 scoring rules (evaluate-v1.1.py), for the gold check of
// qa_gold.test.mjs: normalized exact match and token F1, each the best over the gold answers.

// Python's string.punctuation: the script removes these and no other characters.
const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
// Python's \b in a str pattern: the edge of a run of letters, digits or "_".
const ARTICLES = /(?<![\p{L}\p{N}_])(a|an|the)(?![\p{L}\p{N}_])/gu;

/** Lower-case, drop punctuation and the articles a/an/the, collapse whitespace. */
export function normalizeAnswer(text) {
  const lowered = text.toLowerCase();
  const kept = Array.from(lowered).filter((c) => !PUNCTUATION.has(c)).join("");
  return kept.replace(ARTICLES, " ").split(/\s+/).filter(Boolean).join(" ");
}

/** Token-overlap F1 (0 when no token is shared). */
export function f1Score(prediction, gold) {
  const predicted = normalizeAnswer(prediction).split(" ").filter(Boolean);
  const counts = new Map();
  for (const token of normalizeAnswer(gold).split(" ").filter(Boolean)) {
    counts.set(token, (counts.get(token) ?? 0) + 1);
  }
  const goldLength = [...counts.values()].reduce((a, b) => a + b, 0);
  let same = 0;
  for (const token of predicted) {
    if ((counts.get(token) ?? 0) > 0) {
      counts.set(token, counts.get(token) - 1);
      same += 1;
    }
  }
  if (same === 0) return 0;
  const precision = same / predicted.length;
  const recall = same / goldLength;
  return (2 * precision * recall) / (precision + recall);
}

/** `{ scored, exactMatch (count), f1 (mean, 0-100), misses }` of `answers` (id -> text). */
export function scoreAgainstGold(answers, goldAnswers) {
  let exact = 0;
  let f1 = 0;
  const misses = [];
  const ids = Object.keys(goldAnswers);
  for (const id of ids) {
    const answer = answers.get(id);
    const hit = goldAnswers[id].some((g) => normalizeAnswer(answer) === normalizeAnswer(g));
    exact += hit ? 1 : 0;
    f1 += Math.max(...goldAnswers[id].map((g) => f1Score(answer, g)));
    if (!hit) misses.push(`${id}: "${answer}"`);
  }
  return { scored: ids.length, exactMatch: exact, f1: (100 * f1) / ids.length, misses };
}
