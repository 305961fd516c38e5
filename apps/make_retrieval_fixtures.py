"""Writes the bundled whole article and the retrieval fixtures every port must reproduce.

    .venv/bin/python -m apps.make_retrieval_fixtures

- `apps/web/data/articles.json`: whole held-out SQuAD v1.1 dev articles (paragraphs joined by
  blank lines, as `experiments.retrieval_recall.article_document`) for the apps' "ask a whole
  document" mode, each with suggested questions: ones answered in its late paragraphs, and
  questions of another article, which it does not answer (CC BY-SA 4.0:
  apps/web/data/LICENSE.md).
- `apps/fixtures/retrieval_golden.json`: what the Python reference (`keras_bert.retrieval`)
  computes, for the JavaScript and Java ports to match: sentence spans, passage spans (with the
  shipped vocabulary), BM25 scores and bounds, reciprocal-rank fusion orders, window statistics,
  calibrator features and probabilities. Numbers from made-up logits where the reader is not
  the point; the texts are the real article's. Under "pipeline": what
  `DocumentQuestionAnsweringPipeline` answers on the article with a fake reader and embedder
  (formulas in the file, simple enough to write in any language) for every suggested question
  and several settings (rankers, passage counts, made-up and shipped calibrators, none): the
  ports' whole retrieve -> read -> calibrate -> merge must give the same spans and scores.
"""

import json
import os

import numpy as np

from keras_bert.atomic_files import atomic_open
from keras_bert.retrieval.answer_calibrator import AnswerCalibrator
from keras_bert.retrieval.answer_calibrator import span_features
from keras_bert.retrieval.answer_calibrator import window_statistics
from keras_bert.retrieval.bm25_ranker import Bm25Ranker
from keras_bert.retrieval.bm25_ranker import word_tokens
from keras_bert.retrieval.passage_splitter import PassageSplitter
from keras_bert.retrieval.rank_fusion import reciprocal_rank_fusion
from keras_bert.retrieval.sentence_splitter import split_sentences

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SQUAD_DEV = os.path.join(ROOT, "..", "shared", "data", "squad", "dev-v1.1.json.gz")
VOCAB = os.path.join(ROOT, "apps", "models", "vocab.txt")
# The bundled whole article: Rhine, 44 paragraphs (the last ten dev articles were never trained
# on); its "no answer" questions come from Force, another held-out article.
ARTICLE = "Rhine"
OTHER_ARTICLE = "Force"
LATE_QUESTIONS = 4
OTHER_QUESTIONS = 3
SENTENCE_CASES = [
    "Dr. Smith went to Washington, D.C. in May. He stayed! Did he?  Yes.",
    "The U.S. Army (see Fig. 3) left.\n\nA new paragraph \u201cbegins.\u201d Then 1914 came.",
    "J. R. R. Tolkien wrote it. e.g. this one... And that? \u6771\u4eac\u3002\u3067\u3059\uff01ok",
    "No end punctuation at all",
    "",
]
# A made-up calibrator with every feature, so the ports' arithmetic is checked on all of them.
CALIBRATOR = AnswerCalibrator([0.3, 0.2, 0.1, 4.0, 3.0, 0.5], -6.0,
                              ("span_logit", "span_log_prob", "null_gap", "cosine",
                               "bm25_match", "inverse_rank"), threshold=0.25)


# The pipeline cases' settings: calibrator (a made-up one, or a shipped file), ranker, passages.
CALIBRATOR_BM25 = AnswerCalibrator([0.3, 0.2, 0.1, 3.0, 0.5], -3.0,
                                   ("span_logit", "span_log_prob", "null_gap", "bm25_match",
                                    "inverse_rank"), threshold=0.6)
CALIBRATOR_COSINE = AnswerCalibrator([0.3, 0.2, 0.1, 2.0, 3.0, 0.5], -4.0,
                                     ("span_logit", "span_log_prob", "null_gap", "cosine",
                                      "bm25_match", "inverse_rank"), threshold=0.6)
PIPELINES = {
    "bm25_cal3": {"calibrator": "made_up_bm25", "ranker": "bm25", "passages": 3},
    "none2": {"calibrator": None, "ranker": "bm25", "passages": 2},
    "rrf_cal3": {"calibrator": "made_up_cosine", "ranker": "rrf", "passages": 3},
    "dense_cal2": {"calibrator": "made_up_cosine", "ranker": "dense", "passages": 2},
    "shipped_bm25": {"calibrator": "apps/models/answer_calibrator_bm25.json"},
    "shipped": {"calibrator": "apps/models/answer_calibrator.json"},
}
PIPELINE_TOP_K = 4
FAKE_READER = ("start[p] = float32(((id[p] * 7919 + p * 104729) % 1009) / 128 - 4), "
               "end[p] = float32(((id[p] * 6007 + p * 7727) % 997) / 128 - 3): id[p] the token "
               "id at position p of the 384-position window, padding included")
FAKE_EMBEDDER = ("float32 [26]: how many times each of a..z occurs in the text lower-cased "
                 "(Python's str.lower)")


def fake_reader(inputs):
    """`FAKE_READER` for a batch of windows: (start, end) float32 `[windows, 384]`."""
    ids = np.asarray(inputs["token_ids"], np.int64)  # [windows, 384]
    positions = np.arange(ids.shape[1])[None, :]  # [1, 384]
    start = ((ids * 7919 + positions * 104729) % 1009) / 128.0 - 4.0
    end = ((ids * 6007 + positions * 7727) % 997) / 128.0 - 3.0
    return start.astype(np.float32), end.astype(np.float32)


def fake_embedder(texts):
    """`FAKE_EMBEDDER` for a list of texts: float32 `[len(texts), 26]`."""
    out = np.zeros((len(texts), 26), np.float32)
    for i, text in enumerate(texts):
        for c in text.lower():
            if "a" <= c <= "z":
                out[i, ord(c) - ord("a")] += 1
    return out


def pipeline_fixture(article, tokenizer):
    from keras_bert.pipelines.document_question_answering_pipeline import (
        DocumentQuestionAnsweringPipeline)
    from keras_bert.pipelines.question_answering_pipeline import QuestionAnsweringPipeline

    reader = QuestionAnsweringPipeline(fake_reader, tokenizer)
    calibrators = {"made_up_bm25": CALIBRATOR_BM25, "made_up_cosine": CALIBRATOR_COSINE}
    cases = []
    for name, setting in PIPELINES.items():
        calibrator = setting["calibrator"]
        if calibrator is not None:
            calibrator = calibrators.get(calibrator) or AnswerCalibrator.load(
                os.path.join(ROOT, calibrator))
        qa = DocumentQuestionAnsweringPipeline(
            reader, embedder=fake_embedder, calibrator=calibrator,
            ranker=setting.get("ranker"), passages=setting.get("passages"))
        for question in article["questions"] + article["questions_without_answer"]:
            answers = qa(question, article["context"], top_k=PIPELINE_TOP_K)
            cases.append({"pipeline": name, "question": question, "answers": [
                {"text": a["answer"], "start": a["start"], "end": a["end"],
                 "passage": a["passage"], "score": a["score"], "no_answer": a["no_answer"]}
                for a in answers]})
    return {"reader": FAKE_READER, "embedder": FAKE_EMBEDDER, "top_k": PIPELINE_TOP_K,
            "calibrators": {k: c.to_dict() for k, c in calibrators.items()},
            "settings": PIPELINES, "cases": cases}


def _squad_articles():
    import gzip

    with gzip.open(SQUAD_DEV, "rt", encoding="utf-8") as f:
        return {a["title"]: a for a in json.load(f)["data"]}


def bundled_article(articles):
    article, other = articles[ARTICLE], articles[OTHER_ARTICLE]
    document = "\n\n".join(p["context"] for p in article["paragraphs"])
    late = [qa["question"] for p in article["paragraphs"][-2:] for qa in p["qas"]][:LATE_QUESTIONS]
    unanswerable = [p["qas"][0]["question"] for p in other["paragraphs"][:OTHER_QUESTIONS]]
    return {"id": ARTICLE.lower(), "title": f"{ARTICLE} (whole Wikipedia article, "
            f"{len(article['paragraphs'])} paragraphs)", "context": document,
            "questions": late, "questions_without_answer": unanswerable,
            "questions_without_answer_from": OTHER_ARTICLE}


def retrieval_fixture(article):
    from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer

    tokenizer = ReferenceTokenizer(VOCAB, do_lower_case=True)
    splitter = PassageSplitter(tokenizer)
    document = article["context"]
    passages = splitter(document)
    texts = [p.text for p in passages]
    bm25 = Bm25Ranker(texts)
    rng = np.random.default_rng(55)
    queries = []
    for question in article["questions"] + article["questions_without_answer"]:
        scores = bm25.scores(question)
        queries.append({"question": question, "terms": word_tokens(question),
                        "bm25": scores.tolist(), "bound": bm25.score_bound(question),
                        "order": np.argsort(-scores, kind="stable").tolist()})
    fusion = []
    for size in (1, 5, 12):
        a, b = rng.permutation(size), rng.permutation(size)
        fusion.append({"orders": [a.tolist(), b.tolist()],
                       "fused": reciprocal_rank_fusion(a, b).tolist()})
    windows = []
    for length, context in ((12, 5), (20, 9)):
        start, end = rng.normal(0, 3, length), rng.normal(0, 3, length)
        segments = [0] * (length - context - 1) + [1] * (context + 1)
        cls, lse = window_statistics(start, end, segments)
        windows.append({"start_logits": start.tolist(), "end_logits": end.tolist(),
                        "segment_ids": segments, "cls": list(cls), "lse": list(lse)})
    features = []
    for i in range(6):
        args = dict(start_logit=float(rng.normal(2, 3)), end_logit=float(rng.normal(2, 3)),
                    cls_logits=rng.normal(-4, 2, 2).tolist(), lse=rng.normal(6, 1, 2).tolist(),
                    cosine=float(rng.uniform(0, 0.9)), bm25_match=float(rng.uniform(0, 0.8)),
                    rank=i % 3 + 1)
        row = span_features(**args)
        features.append({"inputs": args, "features": row,
                         "probability": CALIBRATOR.probability(row)})
    return {
        "vocab": "apps/models/vocab.txt",
        "sentences": [{"text": t, "spans": [list(s) for s in split_sentences(t)]}
                      for t in SENTENCE_CASES],
        "document": {"id": article["id"], "max_tokens": splitter.max_tokens,
                     "overlap_tokens": splitter.overlap_tokens,
                     "passages": [[p.start, p.end, p.num_tokens] for p in passages]},
        "bm25": {"k1": bm25.k1, "b": bm25.b, "queries": queries},
        "fusion": fusion, "window_statistics": windows,
        "calibrator": CALIBRATOR.to_dict(), "features": features,
        "pipeline": pipeline_fixture(article, tokenizer),
    }


def _write_json(path, value):
    with atomic_open(path, "w") as f:
        json.dump(value, f, indent=1, ensure_ascii=False)
        f.write("\n")


def main():
    article = bundled_article(_squad_articles())
    _write_json(os.path.join(ROOT, "apps", "web", "data", "articles.json"), [article])
    _write_json(os.path.join(ROOT, "apps", "fixtures", "retrieval_golden.json"),
                retrieval_fixture(article))
    print(f"Wrote apps/web/data/articles.json ({len(article['context']):,} characters) and "
          "apps/fixtures/retrieval_golden.json")


if __name__ == "__main__":
    main()
