"""Tests for keras_bert.data.tasks.squad_article_negatives."""

import collections
import copy
import gzip
import json

import pytest

from keras_bert.data.tasks.squad_article_negatives import with_article_negatives
from keras_bert.data.tasks.squad_examples import squad_examples_from_dataset
from tests.data_paths import shared_data_dir

pytestmark = pytest.mark.backend_portable


@pytest.fixture(scope="module")
def dev_articles():
    """The first three articles of SQuAD v1.1 dev (54 + 56 + 31 paragraphs)."""
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt", encoding="utf-8") as f:
        dataset = json.load(f)
    return {"version": "1.1", "data": dataset["data"][:3]}


def _questions(dataset):
    """{id: (article index, paragraph index, qa)}."""
    return {qa["id"]: (a, p, qa) for a, article in enumerate(dataset["data"])
            for p, paragraph in enumerate(article["paragraphs"]) for qa in paragraph["qas"]}


def test_each_question_is_asked_of_other_paragraphs_of_its_article_without_its_answers(dev_articles):
    before = copy.deepcopy(dev_articles)
    out = with_article_negatives(dev_articles, per_question=2, seed=3)
    assert dev_articles == before  # not changed in place
    assert out["version"] == "v2.0"
    original, added = _questions(dev_articles), _questions(out)
    # The original questions are all there, in the same place, unchanged.
    for qid, (a, p, qa) in original.items():
        assert added[qid] == (a, p, qa)
    negatives = {qid: v for qid, v in added.items() if qid not in original}
    per_source = collections.Counter(qid.rsplit("_neg", 1)[0] for qid in negatives)
    # Each question gets 2, or as many paragraphs as lack its answers (a few answers, such as
    # "Super Bowl 50", are in every paragraph of their article).
    for qid, (a, p, qa) in original.items():
        free = [o for o, other in enumerate(dev_articles["data"][a]["paragraphs"]) if o != p and
                all(x["text"].lower() not in other["context"].lower() for x in qa["answers"])]
        assert per_source[qid] == min(2, len(free)), qid
    assert sum(per_source.values()) > 1.9 * len(original)  # nearly all get both
    for qid, (a, p, qa) in negatives.items():
        source_a, source_p, source = original[qid.rsplit("_neg", 1)[0]]
        assert qa["is_impossible"] is True and qa["answers"] == []
        assert qa["question"] == source["question"]
        assert a == source_a and p != source_p  # same article, another paragraph
        context = out["data"][a]["paragraphs"][p]["context"].lower()
        assert not any(answer["text"].lower() in context for answer in source["answers"])
    # Two negatives of one question are two different paragraphs.
    places = collections.defaultdict(set)
    for qid, (a, p, _) in negatives.items():
        places[qid.rsplit("_neg", 1)[0]].add(p)
    assert all(len(v) == 2 for v in places.values())


def test_the_draw_follows_the_seed_and_zero_adds_nothing(dev_articles):
    def negatives(seed):
        return sorted((qid, p) for qid, (_, p, _) in
                      _questions(with_article_negatives(dev_articles, 1, seed)).items()
                      if "_neg" in qid)

    assert negatives(0) == negatives(0)
    assert negatives(0) != negatives(1)
    assert _questions(with_article_negatives(dev_articles, 0)) == _questions(dev_articles)


def test_a_paragraph_holding_the_answer_is_never_drawn_and_a_small_article_gives_what_it_has():
    # Three paragraphs; "Paris" is in two of them, so its question has one paragraph to draw.
    dataset = {"data": [{"title": "t", "paragraphs": [
        {"context": "Paris is the capital of France.",
         "qas": [{"id": "q1", "question": "What is the capital of France?",
                  "answers": [{"text": "Paris", "answer_start": 0}]}]},
        {"context": "PARIS hosted the games.", "qas": []},
        {"context": "Berlin is in Germany.", "qas": []},
    ]}]}
    out = with_article_negatives(dataset, per_question=5)
    assert [[qa["id"] for qa in p["qas"]] for p in out["data"][0]["paragraphs"]] == [
        ["q1"], [], ["q1_neg0"]]


def test_the_windows_of_a_negative_target_cls(dev_articles):
    from keras_bert.data.tasks.squad_features import convert_squad_examples
    from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer

    one = {"data": [{"title": "t", "paragraphs": dev_articles["data"][0]["paragraphs"][:3]}]}
    for paragraph in one["data"][0]["paragraphs"]:
        paragraph["qas"] = paragraph["qas"][:2]
    dataset = with_article_negatives(one, 1)
    examples = squad_examples_from_dataset(dataset, is_training=True, version_2_with_negative=True)
    negatives = [qa["id"] for p in dataset["data"][0]["paragraphs"] for qa in p["qas"]
                 if "_neg" in qa["id"]]
    assert [e.qas_id for e in examples if e.is_impossible] == negatives and negatives
    tokenizer = ReferenceTokenizer(shared_data_dir() / "vocab" / "bert-base-uncased-vocab.txt")
    features = convert_squad_examples(examples, tokenizer, max_seq_length=384, doc_stride=128,
                                      is_training=True)
    labels = features.labels()
    starts, ends = labels["start_logits"], labels["end_logits"]
    # One window each at 384 tokens: the negatives' targets are [CLS], the others' are not.
    assert len(starts) == len(examples)
    for example, start, end in zip(examples, starts, ends):
        assert (start == 0 and end == 0) == example.is_impossible, example.qas_id


def test_a_scorer_picks_the_highest_scoring_paragraphs_without_the_answer(dev_articles):
    # The scorer: how many of the question's lower-cased words a paragraph holds. The oracle
    # recomputes it here and checks each negative is a best qualifying paragraph.
    def words(text):
        return set(text.lower().replace("?", " ").replace(",", " ").replace(".", " ").split())

    calls = []

    def overlap(question, contexts):
        calls.append(id(contexts))
        return [len(words(question) & words(c)) for c in contexts]

    out = with_article_negatives(dev_articles, per_question=2, seed=0, scorer=overlap)
    assert len(set(calls)) == len(dev_articles["data"])  # one contexts list per article
    original = _questions(dev_articles)
    chosen = collections.defaultdict(list)
    for qid, (a, p, _) in _questions(out).items():
        if "_neg" in qid:
            chosen[qid.rsplit("_neg", 1)[0]].append(p)
    for qid, (a, p, qa) in original.items():
        paragraphs = dev_articles["data"][a]["paragraphs"]
        free = [o for o, other in enumerate(paragraphs) if o != p and
                all(x["text"].lower() not in other["context"].lower() for x in qa["answers"])]
        scores = {o: len(words(qa["question"]) & words(paragraphs[o]["context"])) for o in free}
        best = sorted(scores.values(), reverse=True)[:2]
        assert sorted((scores[o] for o in chosen[qid]), reverse=True) == best, qid
    # Scores that do not cover the article are refused in one line.
    with pytest.raises(ValueError, match="give one per context"):
        with_article_negatives(dev_articles, 1, scorer=lambda q, c: [1.0])
