"""experiments.reader_negatives_windows: a seeded subset of questions, each with its BM25-hardest
negative paragraph of its article, packed as tools.gpu_squad reads windows."""

import gzip
import json

import numpy as np
import pytest

from experiments import reader_negatives_windows
from keras_bert.retrieval.bm25_ranker import Bm25Ranker
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.data_paths import shared_data_dir
from tools.squad_windows import load_windows

pytestmark = pytest.mark.backend_portable
VOCAB = shared_data_dir() / "vocab" / "bert-base-uncased-vocab.txt"


def test_each_chosen_question_comes_with_its_hardest_negative(tmp_path, capsys):
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt", encoding="utf-8") as f:
        article = json.load(f)["data"][1]  # 56 paragraphs
    article["paragraphs"] = article["paragraphs"][:6]
    for paragraph in article["paragraphs"]:
        paragraph["qas"] = paragraph["qas"][:2]
    squad = tmp_path / "train.json"
    squad.write_text(json.dumps({"version": "1.1", "data": [article]}))
    out = tmp_path / "windows.npz"
    reader_negatives_windows.main([f"--squad={squad}", f"--vocab={VOCAB}", "--questions=4",
                                   f"--output={out}"])
    assert "8 questions (4 negatives)" in capsys.readouterr().out
    inputs, labels = load_windows(out)
    cls = (labels["start_logits"] == 0) & (labels["end_logits"] == 0)
    assert len(cls) == 8 and cls.sum() == 4  # short dev paragraphs: one window each
    # Each negative window is its question before the paragraph BM25 ranks first for it among
    # those of the article that hold none of its answers (computed here with the ranker alone).
    tokenizer = ReferenceTokenizer(str(VOCAB))
    contexts = [p["context"] for p in article["paragraphs"]]
    ranker = Bm25Ranker(contexts)

    def ids(text):
        return tokenizer.convert_tokens_to_ids(tokenizer.tokenize(text))

    questions = {tuple(ids(qa["question"])): (p, qa) for p, paragraph in
                 enumerate(article["paragraphs"]) for qa in paragraph["qas"]}
    sep = tokenizer.token_to_id("[SEP]")
    for row in np.flatnonzero(cls):
        tokens = list(inputs["token_ids"][row])
        first_sep = tokens.index(sep)
        own, qa = questions[tuple(tokens[1:first_sep])]
        scores = ranker.scores(qa["question"])
        free = [o for o in range(len(contexts)) if o != own and not any(
            a["text"].lower() in contexts[o].lower() for a in qa["answers"])]
        best = max(scores[o] for o in free)
        passage = tokens[first_sep + 1:tokens.index(sep, first_sep + 1)]
        chosen = [o for o in free if ids(contexts[o]) == passage]
        assert chosen and scores[chosen[0]] == best


def test_bad_arguments_are_one_line_errors(tmp_path, capsys):
    with pytest.raises(SystemExit):
        reader_negatives_windows.main([f"--squad={tmp_path / 'none.json'}",
                                       f"--output={tmp_path / 'w.npz'}"])
    assert "none.json does not exist" in capsys.readouterr().err
