"""`experiments.document_qa_ceiling` on hand-made records whose ceilings are worked out by hand."""

import json

import pytest

from experiments import document_qa_ceiling

pytestmark = pytest.mark.backend_portable


def _passage(rank, hit, spans, passages=3):
    return {"rank": {"bm25": rank, "rrf": rank}, "hit": hit, "passages": passages,
            "spans": [[text, 0, 1, 1.0, 1.0] for text in spans]}


RECORDS = [
    # Gold passage ranked 1; its best span is half right (F1 of "Denver Broncos" vs "Denver": 2/3).
    {"golds": ["Denver"], "in": [_passage(1, True, ["Denver Broncos", "Denver"]),
                                 _passage(2, False, ["Paris"])]},
    # Gold passage ranked 2: read only from k = 2; another passage holds the exact answer text.
    {"golds": ["Rhine"], "in": [_passage(1, False, ["Rhine", "Alps"]),
                                _passage(2, True, ["Rhine river"])]},
]


def test_ceilings_worked_by_hand():
    one = document_qa_ceiling.ceilings(RECORDS, "bm25", 1)
    # read: 1 of 2; top span of the gold passage: (2/3 + 0) / 2; best candidate: (1 + 1) / 2.
    assert one["gold_passage_read"] == 50.0
    assert one["gold_passage_top_span_f1"] == pytest.approx(100 * (2 / 3) / 2)
    assert one["best_candidate_f1"] == 100.0
    two = document_qa_ceiling.ceilings(RECORDS, "bm25", 2)
    # "Rhine river" against "Rhine": precision 1/2, recall 1, F1 2/3.
    assert two["gold_passage_read"] == 100.0
    assert two["gold_passage_top_span_f1"] == pytest.approx(100 * (2 / 3 + 2 / 3) / 2)
    # Records that did not read a ranker's first k passages give no ceiling for that k.
    assert document_qa_ceiling.ceilings(RECORDS, "bm25", 3) is None


def test_the_command_writes_its_json(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    out = tmp_path / "ceiling.json"
    document_qa_ceiling.main([f"--records={path}", "--max_k=3", f"--output_json={out}"])
    written = json.loads(out.read_text())
    assert written["questions"] == 2
    assert sorted(written["ceilings"]) == ["bm25 top 1", "bm25 top 2", "rrf top 1", "rrf top 2"]
