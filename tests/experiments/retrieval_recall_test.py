"""The retrieval study's definitions: documents keep every paragraph at its offsets, gold spans are
the annotators' answers, hits and fusion are what docs/retrieval.md says."""

import gzip
import json

import numpy as np

from experiments.retrieval_recall import (
    article_document, first_hit, gold_spans, recall, reciprocal_rank_fusion, span_hits, text_hits,
)
from tests.data_paths import shared_data_dir


def test_every_dev_answer_is_at_its_place_in_its_article_document():
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt") as f:
        articles = json.load(f)["data"]
    questions = 0
    for article in articles:
        document, spans = article_document(article)
        assert len(spans) == len(article["paragraphs"])
        for paragraph, (start, end) in zip(article["paragraphs"], spans):
            assert document[start:end] == paragraph["context"]
            for qa in paragraph["qas"]:
                questions += 1
                texts = {document[s:e] for s, e in gold_spans(qa, start)}
                assert texts == {a["text"] for a in qa["answers"]}
    assert questions == 10570


def test_hits():
    units = [(0, 10), (8, 20), (20, 30)]
    # The span (9, 12) lies whole in unit 1 only; (25, 27) in unit 2.
    assert span_hits(units, [(9, 12)]).tolist() == [False, True, False]
    assert span_hits(units, [(9, 12), (25, 27)]).tolist() == [False, True, True]
    assert span_hits(units, [(5, 15)]).tolist() == [False, False, False]  # straddles: no hit
    assert text_hits(["The Rhine", "rhine river", "Alps"], ["RHINE"]).tolist() == [True, True, False]


def test_ranks_recall_and_fusion():
    hits = np.array([False, True, False, True])
    assert first_hit([2, 3, 1], hits) == 2
    assert first_hit([0, 2], hits) is None
    assert recall([1, 2, None, 4, 6], 5) == {"recall@1": 0.2, "recall@3": 0.4, "recall@5": 0.6}
    # Unit scores: 0: 1/61 + 1/63; 1: 1/62 + 1/61; 2: 1/63 + 1/62 -> 1 (0.03252) > 0
    # (0.03227) > 2 (0.03200).
    assert reciprocal_rank_fusion([0, 1, 2], [1, 2, 0]).tolist() == [1, 0, 2]
    assert reciprocal_rank_fusion([0, 1], [0, 1]).tolist() == [0, 1]
