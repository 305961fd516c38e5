"""`experiments.document_qa_collect` on a tiny SQuAD-format file read by the shipped models: the
records hold what the benchmark needs, the gold passage is marked where the annotators put the
answer, and a rerun resumes instead of reading again."""

import gzip
import json

import pytest

from experiments import document_qa_collect

pytestmark = pytest.mark.large

RHINE = ("The Rhine is a European river that begins in the Swiss canton of Graubünden in the "
         "southeastern Swiss Alps. It flows into the North Sea in the Netherlands.")
TESLA = ("Nikola Tesla was a Serbian-American inventor. He is best known for his contributions "
         "to the design of the modern alternating current electricity supply system.")


def _squad(path):
    start = RHINE.index("North Sea")
    data = {"data": [
        {"title": "Rhine", "paragraphs": [
            {"context": RHINE, "qas": [{"id": "q1", "question": "Which sea does the Rhine flow into?",
                                        "answers": [{"text": "North Sea", "answer_start": start}]}]},
            {"context": "The river is 1,230 km long.", "qas": []}]},
        {"title": "Tesla", "paragraphs": [{"context": TESLA, "qas": []}]}]}
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump(data, f)


def test_records_and_resume(tmp_path):
    squad, out = tmp_path / "tiny.json.gz", tmp_path / "reads.jsonl"
    _squad(squad)
    args = [f"--squad={squad}", f"--output_jsonl={out}", "--num_threads=2"]
    document_qa_collect.main(args)
    [record] = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["id"] == "q1" and record["golds"] == ["North Sea"]
    assert record["gold_paragraph_answer"] == "North Sea"
    assert record["out_article"] == 1 and record["out"]
    document = RHINE + "\n\n" + "The river is 1,230 km long."
    hits = [p for p in record["in"] if p["hit"]]
    assert hits and all(p["start"] <= document.index("North Sea") < p["end"] for p in hits)
    for passage in record["in"] + record["out"]:
        assert 0 <= passage["bm25"] < passage["bm25_bound"]
        assert set(passage["rank"]) == {"bm25", "dense", "rrf"}
        assert passage["windows"] == 1 and len(passage["cls"]) == len(passage["lse"]) == 2
        # The log-sum-exp over the passage bounds each of its spans' logits from above.
        for _, _, _, start_logit, end_logit in passage["spans"]:
            assert start_logit <= passage["lse"][0] and end_logit <= passage["lse"][1]
    best = max((s for p in hits for s in p["spans"]), key=lambda s: s[3] + s[4])
    assert best[0] == "North Sea" and document[best[1]:best[2]] == "North Sea"
    document_qa_collect.main(args)  # resumes: nothing left to read
    assert len(out.read_text().splitlines()) == 1
