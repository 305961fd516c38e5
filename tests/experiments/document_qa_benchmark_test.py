"""`experiments.document_qa_benchmark` on hand-made records whose right answers are known: the
logit merge, the calibrated choice, abstention shares and the whole study end to end."""

import json

import numpy as np
import pytest

from experiments import document_qa_benchmark as bench
from keras_bert.retrieval.answer_calibrator import AnswerCalibrator

pytestmark = pytest.mark.backend_portable


def _passage(index, rank, spans, cosine, bm25=1.0):
    return {"passage": index, "rank": {"bm25": rank, "dense": rank, "rrf": rank},
            "bm25": bm25, "bm25_bound": 10.0, "cosine": cosine, "cls": [0.0, 0.0],
            "lse": [5.0, 5.0], "ms": 1.0,
            "spans": [[text, 0, len(text), logit / 2, logit / 2] for text, logit in spans]}


def _record(gold, right_rank, wrong_logit=9.0):
    """The right answer (logit 4) in the passage ranked `right_rank`, a wrong one with a higher
    logit in the other; the other article's passages hold only wrong spans, far off topic."""
    right = _passage(0, right_rank, [(gold, 4.0)], cosine=0.8, bm25=6.0)
    wrong = _passage(1, 3 - right_rank, [("wrong words", wrong_logit)], cosine=0.2)
    out = [_passage(5, 1, [("elsewhere", 3.0)], cosine=0.05, bm25=0.2),
           _passage(6, 2, [("far away", 2.0)], cosine=0.04, bm25=0.1)]
    return {"id": gold, "golds": [gold], "in": [right, wrong], "out": out,
            "question_embed_ms": 10.0}


def test_logit_merge_and_calibrated_choice():
    records = [_record("Denver Broncos", 2), _record("Paris", 1)]
    # Reading one passage: the right answer only where it is ranked first.
    f1, em, _, _ = bench.evaluate(records, "bm25", 1)
    assert f1.tolist() == [0.0, 1.0] and em.tolist() == [0.0, 1.0]
    # Two passages merged by logit: the wrong span's 9 beats the right one's 4 everywhere.
    f1, _, scores, _ = bench.evaluate(records, "bm25", 2)
    assert f1.tolist() == [0.0, 0.0] and scores.tolist() == [9.0, 9.0]
    # A calibrator that trusts the cosine picks the right passage, and abstains out of article.
    calibrator = AnswerCalibrator([10.0], -5.0, ("cosine",), threshold=0.5)
    f1, em, scores, out = bench.evaluate(records, "bm25", 2, calibrator)
    assert f1.tolist() == [1.0, 1.0]
    np.testing.assert_allclose(scores, 1 / (1 + np.exp(-3.0)))
    summary = bench.summary(f1, em, scores, out, calibrator.threshold)
    assert summary["f1"] == 100.0 and summary["in_article_abstained"] == 0.0
    assert summary["out_of_article_abstained"] == 100.0


def test_training_targets_are_f1_in_article_and_zero_outside():
    rows, targets = bench.training_rows([_record("Denver Broncos", 1)], "rrf", 2)
    assert targets == [1.0, 0.0, 0.0, 0.0]
    assert [r["inverse_rank"] for r in rows] == [1.0, 0.5, 1.0, 0.5]
    assert rows[0]["bm25_match"] == pytest.approx(0.6)


def test_the_study_end_to_end(tmp_path):
    rng = np.random.default_rng(0)
    golds = [f"answer {i}" for i in range(40)]
    records = [_record(g, int(rng.integers(1, 3)), wrong_logit=float(rng.uniform(2, 9)))
               for g in golds]
    for name, part in (("train", records[:20]), ("dev", records[20:])):
        with open(tmp_path / f"{name}.jsonl", "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in part)
    bench.main([f"--train_jsonl={tmp_path / 'train.jsonl'}",
                f"--dev_jsonl={tmp_path / 'dev.jsonl'}", "--max_k=2",
                "--ship=rrf top 2/reader+cosine", f"--output_json={tmp_path / 'out.json'}",
                f"--calibrator={tmp_path / 'c.json'}", f"--plot={tmp_path / 'curve.png'}"])
    record = json.loads((tmp_path / "out.json").read_text())
    shipped = record["shipped"]
    # The cosine separates right from wrong perfectly here: every dev question answered right,
    # every other-article question abstained on.
    assert shipped["f1"] == 100.0 and shipped["out_of_article_abstained"] == 100.0
    assert record["results"]["rrf top 2"]["logit merge"]["f1"] < 100.0
    calibrator = AnswerCalibrator.load(tmp_path / "c.json")
    assert calibrator.info["ranker"] == "rrf" and calibrator.info["passages"] == 2
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
    # --rankers keeps the study to the rankers the records hold; an unknown one is refused.
    bench.main([f"--train_jsonl={tmp_path / 'train.jsonl'}",
                f"--dev_jsonl={tmp_path / 'dev.jsonl'}", "--max_k=2", "--rankers=bm25,rrf",
                "--ship=rrf top 2/reader+cosine", f"--output_json={tmp_path / 'two.json'}"])
    two = json.loads((tmp_path / "two.json").read_text())
    assert sorted(two["results"]) == ["bm25 top 1", "bm25 top 2", "rrf top 1", "rrf top 2"]
    assert two["results"]["rrf top 2"] == record["results"]["rrf top 2"]
    with pytest.raises(SystemExit):
        bench.main([f"--train_jsonl={tmp_path / 'train.jsonl'}",
                    f"--dev_jsonl={tmp_path / 'dev.jsonl'}", "--rankers=bm25,tfidf"])
