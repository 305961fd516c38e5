r"""Retrieve-then-read over whole articles: EM/F1, abstention and the calibrator, from collected reads.

Makes: docs/retrieval.md, "Asking the whole article" (`docs/runs/retrieval/document_qa.json`,
`docs/images/document_qa_abstention.png`) and `apps/models/answer_calibrator.json`.
From the records `experiments.document_qa_collect` wrote (seconds; no model runs here):

    .venv/bin/python -m experiments.document_qa_benchmark \
        --train_jsonl=runs/document_qa/train_every100.jsonl \
        --dev_jsonl=runs/document_qa/dev_every10.jsonl \
        --output_json=docs/runs/retrieval/document_qa.json \
        --plot=docs/images/document_qa_abstention.png \
        --calibrator=apps/models/answer_calibrator.json

A setting is a ranker (BM25, the embedder's cosine, or their reciprocal-rank fusion) and the
number of its best passages the reader reads. For each setting and each set of calibrator
features, the calibrator is fitted on the training questions (own-article candidates: target
the span's F1; another article's: target 0) and its threshold chosen there
(`choose_threshold`: at most 4 % of training questions with an answer abstained on). On dev:
EM/F1 when always answering, the same with abstention (an abstained question scores 0), the
share of own-article questions abstained on (wrongly) and of other-article ones (rightly), and
the curve over thresholds. "logit merge" is today's pipeline: the span with the highest
start + end logit over the passages read, never abstaining.
"""

import argparse
import datetime
import json
import os
import sys

import numpy as np

from keras_bert.metrics.squad_evaluation import exact_match
from keras_bert.metrics.squad_evaluation import f1_v1
from keras_bert.retrieval.answer_calibrator import AnswerCalibrator
from keras_bert.retrieval.answer_calibrator import choose_threshold
from keras_bert.retrieval.answer_calibrator import span_features

RANKERS = ("bm25", "dense", "rrf")
FEATURE_SETS = {
    "reader": ("span_logit", "span_log_prob", "null_gap", "inverse_rank"),
    "reader+bm25": ("span_logit", "span_log_prob", "null_gap", "inverse_rank", "bm25_match"),
    "reader+cosine": ("span_logit", "span_log_prob", "null_gap", "inverse_rank", "cosine"),
    "reader+both": ("span_logit", "span_log_prob", "null_gap", "inverse_rank", "bm25_match",
                    "cosine"),
}
MAX_WRONG_ABSTENTION = 0.04


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def candidates(passages, ranker, k):
    """`[(features, text)]` of every span of the passages `ranker` puts in its first `k`."""
    out = []
    for p in passages:
        rank = p["rank"][ranker]
        if rank > k:
            continue
        for text, _, _, start_logit, end_logit in p["spans"]:
            features = span_features(start_logit, end_logit, p["cls"], p["lse"],
                                     cosine=p["cosine"],
                                     bm25_match=p["bm25"] / max(p["bm25_bound"], 1e-9),
                                     rank=rank)
            out.append((features, text))
    return out


def best_f1(text, golds):
    return max(f1_v1(text, g) for g in golds)


def best_em(text, golds):
    return max(float(exact_match(text, g)) for g in golds)


def training_rows(records, ranker, k):
    rows, targets = [], []
    for r in records:
        for features, text in candidates(r["in"], ranker, k):
            rows.append(features)
            targets.append(best_f1(text, r["golds"]))
        for features, _ in candidates(r["out"], ranker, k):
            rows.append(features)
            targets.append(0.0)
    return rows, targets


def best_of(cands, calibrator=None):
    """(text, probability or logit) of the best candidate, or ("", -inf) if none."""
    if not cands:
        return "", -np.inf
    if calibrator is None:
        scores = [f["span_logit"] for f, _ in cands]
    else:
        scores = calibrator.probability([f for f, _ in cands])
    i = int(np.argmax(scores))
    return cands[i][1], float(scores[i])


def evaluate(records, ranker, k, calibrator=None):
    """Per question: F1 and EM of the answer, its score; and the best score out of article."""
    f1, em, scores = _evaluate_in(records, ranker, k, calibrator)
    out_scores = [best_of(candidates(r["out"], ranker, k), calibrator)[1] for r in records]
    return f1, em, scores, np.array(out_scores)


def summary(f1, em, scores, out_scores, threshold):
    answered = scores >= threshold
    return {"f1_always_answer": 100 * f1.mean(), "em_always_answer": 100 * em.mean(),
            "f1": 100 * (f1 * answered).mean(), "em": 100 * (em * answered).mean(),
            "in_article_abstained": 100 * (1 - answered.mean()),
            "out_of_article_abstained": 100 * (out_scores < threshold).mean()}


def curve(scores, out_scores, f1, points=101):
    thresholds = np.linspace(0, 1, points)
    return [{"threshold": round(float(t), 3),
             "in_article_abstained": round(100 * float((scores < t).mean()), 2),
             "out_of_article_abstained": round(100 * float((out_scores < t).mean()), 2),
             "f1": round(100 * float((f1 * (scores >= t)).mean()), 2)} for t in thresholds]


def whole_dev(records, train, ship_ranker, ship_k, features):
    """EM/F1 on every dev question (own article only) for BM25 and the shipped ranker, whose
    first `ship_k` passages every record holds (`document_qa_collect --rankers=bm25,...`)."""
    out = {"questions": len(records)}
    for ranker in sorted({"bm25", ship_ranker}):
        for k in range(1, ship_k + 1):
            f1, em, _ = _evaluate_in(records, ranker, k)
            entry = {"logit merge": {"f1": 100 * f1.mean(), "em": 100 * em.mean()}}
            rows, targets = training_rows(train, ranker, k)
            calibrator = AnswerCalibrator.fit(rows, targets, features)
            train_scores = evaluate(train, ranker, k, calibrator)[2]
            calibrator.threshold = choose_threshold(train_scores, MAX_WRONG_ABSTENTION)
            f1, em, scores = _evaluate_in(records, ranker, k, calibrator)
            answered = scores >= calibrator.threshold
            entry["calibrated"] = {"f1_always_answer": 100 * f1.mean(),
                                   "em_always_answer": 100 * em.mean(),
                                   "f1": 100 * (f1 * answered).mean(),
                                   "em": 100 * (em * answered).mean(),
                                   "in_article_abstained": 100 * (1 - answered.mean())}
            out[f"{ranker} top {k}"] = entry
    return out


def _evaluate_in(records, ranker, k, calibrator=None):
    f1, em, scores = [], [], []
    for r in records:
        text, score = best_of(candidates(r["in"], ranker, k), calibrator)
        f1.append(best_f1(text, r["golds"]))
        em.append(best_em(text, r["golds"]))
        scores.append(score)
    return np.array(f1), np.array(em), np.array(scores)


def study(train, dev, max_k, rankers=RANKERS):
    results = {}
    for ranker in rankers:
        for k in range(1, max_k + 1):
            name = f"{ranker} top {k}"
            f1, em, scores, out = evaluate(dev, ranker, k)
            entry = {"logit merge": {"f1": 100 * f1.mean(), "em": 100 * em.mean()}}
            for feature_set, features in FEATURE_SETS.items():
                rows, targets = training_rows(train, ranker, k)
                calibrator = AnswerCalibrator.fit(rows, targets, features)
                _, _, train_scores, _ = evaluate(train, ranker, k, calibrator)
                calibrator.threshold = choose_threshold(train_scores, MAX_WRONG_ABSTENTION)
                f1, em, scores, out = evaluate(dev, ranker, k, calibrator)
                entry[feature_set] = {**summary(f1, em, scores, out, calibrator.threshold),
                                      "threshold": calibrator.threshold,
                                      "weights": dict(zip(features, calibrator.weights.tolist())),
                                      "bias": calibrator.bias}
            results[name] = entry
            print(name, json.dumps({s: {k2: round(v, 2) for k2, v in e.items()
                                        if isinstance(v, float)} for s, e in entry.items()}),
                  flush=True)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train_jsonl", required=True)
    parser.add_argument("--dev_jsonl", required=True)
    parser.add_argument("--dev_rest_jsonl", default=None,
                        help="Records of the other dev questions (own article only, some "
                             "rankers): with --dev_jsonl, the whole dev set for the settings "
                             "both hold.")
    parser.add_argument("--max_k", type=int, default=3)
    parser.add_argument("--rankers", default=",".join(RANKERS),
                        help="The rankers studied: those whose first --max_k passages the "
                             "records hold (document_qa_collect --rankers, --top).")
    parser.add_argument("--ship", default="rrf top 3/reader+both",
                        help="The setting and features of the shipped calibrator.")
    parser.add_argument("--output_json", default=None)
    parser.add_argument("--plot", default=None)
    parser.add_argument("--calibrator", default=None, help="Write the shipped calibrator here.")
    args = parser.parse_args(argv)
    train, dev = load(args.train_jsonl), load(args.dev_jsonl)
    print(f"{len(train)} training questions, {len(dev)} dev questions", flush=True)
    rankers = tuple(args.rankers.split(","))
    unknown = sorted(set(rankers) - set(RANKERS))
    if unknown:
        parser.error(f"--rankers: unknown {unknown}; choose from {', '.join(RANKERS)}.")
    results = study(train, dev, args.max_k, rankers)

    setting, feature_set = args.ship.split("/")
    ranker, k = setting.split(" top ")
    k = int(k)
    features = FEATURE_SETS[feature_set]
    rows, targets = training_rows(train, ranker, k)
    calibrator = AnswerCalibrator.fit(rows, targets, features)
    train_scores = evaluate(train, ranker, k, calibrator)[2]
    calibrator.threshold = choose_threshold(train_scores, MAX_WRONG_ABSTENTION)
    f1, em, scores, out = evaluate(dev, ranker, k, calibrator)
    shipped = {"setting": args.ship, "threshold": calibrator.threshold,
               **summary(f1, em, scores, out, calibrator.threshold),
               "curve": curve(scores, out, f1)}
    command = "python -m experiments.document_qa_benchmark " + " ".join(
        sys.argv[1:] if argv is None else argv)
    calibrator.info = {
        "ranker": ranker, "passages": k,
        "fitted_on": f"{len(train)} questions of {os.path.basename(args.train_jsonl)} "
                     "(SQuAD v1.1 reconstructed train), own article: target the span's F1; "
                     "next article: target 0",
        "threshold_rule": f"at most {100 * MAX_WRONG_ABSTENTION:g} % of the training questions "
                          "abstained on",
        "command": command, "date": datetime.date.today().isoformat()}
    record = {"command": command, "date": datetime.date.today().isoformat(),
              "train_questions": len(train), "dev_questions": len(dev),
              "reader_ms_median": float(np.median([p["ms"] for r in dev for p in r["in"]])),
              "question_embed_ms_median": float(np.median([r["question_embed_ms"] for r in dev])),
              "results": results, "shipped": shipped}
    paragraph = [r for r in dev if "gold_paragraph_answer" in r]
    if paragraph:
        record["gold_paragraph"] = {
            "questions": len(paragraph),
            "f1": 100 * float(np.mean([best_f1(r["gold_paragraph_answer"], r["golds"])
                                       for r in paragraph])),
            "em": 100 * float(np.mean([best_em(r["gold_paragraph_answer"], r["golds"])
                                       for r in paragraph]))}
    if args.dev_rest_jsonl:
        whole = dev + load(args.dev_rest_jsonl)
        record["whole_dev"] = whole_dev(whole, train, ranker, k, features)
    print(json.dumps({k2: v for k2, v in record.items() if k2 not in ("results", "shipped")},
                     indent=1))
    print(json.dumps({k2: v for k2, v in shipped.items() if k2 != "curve"}, indent=1))
    if args.output_json:
        from keras_bert.atomic_files import atomic_open

        with atomic_open(args.output_json, "w") as f:
            json.dump(record, f, indent=1)
            f.write("\n")
    if args.calibrator:
        calibrator.save(args.calibrator)
    if args.plot:
        plot(shipped, args.plot)


def plot(shipped, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from keras_bert.atomic_files import atomic_open

    points = shipped["curve"]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.plot([p["in_article_abstained"] for p in points],
            [p["out_of_article_abstained"] for p in points], label="thresholds 0 to 1")
    ax.plot([shipped["in_article_abstained"]], [shipped["out_of_article_abstained"]], "o",
            color="C3", label=f"threshold {shipped['threshold']:.3f}, chosen on training questions")
    ax.axvline(5, color="grey", lw=0.8, ls="--")
    ax.axhline(80, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("questions with an answer in the article: abstained on (%)")
    ax.set_ylabel("questions from another article: abstained on (%)")
    ax.set_title(f"'No answer' on SQuAD v1.1 dev ({shipped['setting']})")
    ax.set_xlim(0, 40)
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    with atomic_open(path, "wb") as f:
        fig.savefig(f, dpi=110, format="png")


if __name__ == "__main__":
    sys.exit(main())
