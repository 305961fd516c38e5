"""`DocumentQuestionAnsweringPipeline`: the shipped reader and embedder answering SQuAD v1.1 dev
questions from their whole article (gold answers and the official F1 as the oracle), reading only
the passages it picked, at offsets into the document."""

import gzip
import json

import pytest

import keras_bert
from keras_bert.metrics.squad_evaluation import f1_v1 as f1_score
from keras_bert.pipelines.question_answering_pipeline import QaInputError
from tests.data_paths import shared_data_dir

pytestmark = pytest.mark.large

READER = "apps/models/squad_minilm_dynamic_int8.tflite"
EMBEDDER = "apps/models/minilm_embedder_dynamic_int8.tflite"


@pytest.fixture(scope="module")
def article():
    """The first dev article as one document (paragraphs joined by blank lines), and the
    questions of its last 4 paragraphs with their gold answers."""
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt") as f:
        paragraphs = json.load(f)["data"][0]["paragraphs"]
    document = "\n\n".join(p["context"] for p in paragraphs)
    late = [(qa["question"], [a["text"] for a in qa["answers"]])
            for p in paragraphs[-4:] for qa in p["qas"]]
    return document, late


class CountingRunner:
    def __init__(self, runner):
        self.runner, self.windows = runner, 0

    def __call__(self, inputs):
        self.windows += len(inputs["token_ids"])
        return self.runner(inputs)


@pytest.fixture(scope="module")
def bm25_pipeline():
    """BM25, one passage, logits merged: the pipeline with no calibrator."""
    return keras_bert.DocumentQuestionAnsweringPipeline.from_pretrained(
        READER, num_threads=2, calibrator=None)


def test_late_paragraph_questions_are_answered_from_the_whole_article(article, bm25_pipeline):
    document, late = article
    counter = CountingRunner(bm25_pipeline.reader.runner)
    bm25_pipeline.reader.runner = counter
    try:
        scores = []
        for question, golds in late:
            answer = bm25_pipeline(question, document)
            assert document[answer["start"]:answer["end"]] == answer["answer"]
            assert answer["passage_start"] <= answer["start"] < answer["end"] <= answer["passage_end"]
            scores.append(max(f1_score(answer["answer"], gold) for gold in golds))
    finally:
        bm25_pipeline.reader.runner = counter.runner
    entry = bm25_pipeline.split(document)
    passages, ranker = entry.passages, entry.bm25
    assert len(passages) > 10  # a whole article, not one window
    # One passage of <= 254 tokens fits one window beside the question: one window a question.
    assert counter.windows == len(late)
    # Measured here: F1 52.9 (the gold paragraph given: 73.4); the floor leaves 8 points for
    # int8 kernels that round differently on other CPUs.
    assert sum(scores) / len(scores) >= 0.45, scores
    # BM25 puts a passage holding a gold answer in its top 3 for 52 of the 56 (measured).
    hits = [any(any(gold in passages[int(i)].text for gold in golds)
                for i in ranker.rank(question, top_k=3)) for question, golds in late]
    assert sum(hits) / len(hits) >= 0.85


def test_the_embedder_ranks_too(article):
    document, late = article
    qa = keras_bert.DocumentQuestionAnsweringPipeline.from_pretrained(
        READER, embedder_path=EMBEDDER, num_threads=2, calibrator=None)
    assert qa.ranker == "dense"
    entry = qa.split(document)
    passages, ranker = entry.passages, entry.dense
    # Measured here on these 56 questions: a gold answer in the top 3 for 51 (BM25: 52), and
    # F1 35.2 reading the top passage (BM25: 52.9; its recall@1 is higher, docs/retrieval.md).
    hits = [any(any(gold in passages[int(i)].text for gold in golds)
                for i in ranker.rank(question, top_k=3)) for question, golds in late]
    assert sum(hits) / len(hits) >= 0.85
    scores = [max(f1_score(qa(question, document)["answer"], gold) for gold in golds)
              for question, golds in late]
    assert sum(scores) / len(scores) >= 0.27, scores


@pytest.fixture(scope="module", params=["with the embedder", "BM25 only"])
def shipped(request):
    """The shipped settings: reader, embedder and apps/models/answer_calibrator.json (rank
    fusion), or without the embedder, answer_calibrator_bm25.json."""
    embedder = EMBEDDER if request.param == "with the embedder" else None
    qa = keras_bert.DocumentQuestionAnsweringPipeline.from_pretrained(
        READER, embedder_path=embedder, num_threads=2)
    assert qa.calibrator is not None and qa.ranker == qa.calibrator.info["ranker"]
    assert qa.passages == qa.calibrator.info["passages"] == 5
    assert ("cosine" in qa.calibrator.features) == (embedder is not None)
    return qa


def test_the_shipped_calibrators_answer_in_article_and_abstain_out_of_it(article, shipped):
    """The first dev article's late questions against it, and against the second dev article
    (which does not hold their answers): the SQuAD gold answers are the oracle."""
    document, late = article
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt") as f:
        other = "\n\n".join(p["context"] for p in json.load(f)["data"][1]["paragraphs"])
    answers = [shipped(question, document) for question, _ in late]
    f1 = [0.0 if a["no_answer"] else max(f1_score(a["answer"], g) for g in golds)
          for a, (_, golds) in zip(answers, late)]
    abstained_in = sum(a["no_answer"] for a in answers) / len(answers)
    elsewhere = [shipped(question, other) for question, _ in late]
    abstained_out = sum(a["no_answer"] for a in elsewhere) / len(elsewhere)
    # Measured here (56 questions, 2026-11-29, Zen 3, the files shipped since that day: the
    # reader retrained on negative passages, 5 passages): rank fusion + cosine: F1 51.8, 1 of 56
    # abstained in article, 56 of 56 out of it; BM25 only: F1 53.6, 1 and 55 (the files before,
    # 3 passages: 46.8, 0, 56; 54.8, 1, 51; docs/retrieval.md has all of dev). Floors: 8 points
    # of F1 below the first files, at most 10 % wrongly abstained, at least 80 % rightly (the
    # issue's bar).
    f1_floor = {"rrf": 0.38, "bm25": 0.46}[shipped.ranker]
    assert sum(f1) / len(f1) >= f1_floor, f1
    assert abstained_in <= 0.10
    assert abstained_out >= 0.80
    for a in answers:
        if not a["no_answer"]:
            assert document[a["start"]:a["end"]] == a["answer"]
            assert a["score"] >= shipped.calibrator.threshold
    rejected = [a for a in elsewhere if a["no_answer"]]
    assert all(a["answer"] == "" and a["start"] == -1 and
               a["candidate"]["score"] < shipped.calibrator.threshold for a in rejected)


def test_top_k_answers_are_distinct_spans_best_first(article, bm25_pipeline):
    document, late = article
    answers = bm25_pipeline(late[0][0], document, top_k=5)
    assert len(answers) == 5
    assert len({(a["start"], a["end"]) for a in answers}) == 5
    assert [a["score"] for a in answers] == sorted((a["score"] for a in answers), reverse=True)
    assert all(document[a["start"]:a["end"]] == a["answer"] for a in answers)


def test_bad_input_is_a_one_line_error(bm25_pipeline):
    with pytest.raises(QaInputError, match="The document is empty"):
        bm25_pipeline("Who?", "   ")
    with pytest.raises(QaInputError, match="The question is empty"):
        bm25_pipeline(" ", "Some text.")
    with pytest.raises(ValueError, match="needs an embedder"):
        keras_bert.DocumentQuestionAnsweringPipeline(bm25_pipeline.reader, ranker="dense")
