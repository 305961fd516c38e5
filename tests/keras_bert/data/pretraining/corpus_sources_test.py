"""The corpus readers and `build_corpus`: documents per article, labels and questions dropped,
repeats kept once, evaluation sentences never kept."""

import gzip
import json
import os
import subprocess
import sys

import pytest

from keras_bert.data.pretraining import corpus_sources
from keras_bert.data.pretraining.corpus_sources import build_corpus
from keras_bert.data.pretraining.corpus_sources import normalized
from tests.data_paths import shared_data_dir

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 4))


def test_wikitext_articles_become_documents_with_joins_undone(tmp_path):
    path = tmp_path / "wiki.txt"
    path.write_text(
        " \n = First Article = \n \n A well @-@ known actor . He won 1 @,@ 000 prizes in 2 @.@ 5 "
        "years . <unk> It came <unk> later .\n \n = = Career = = \n \n He retired .\n"
        " = Second = \n \n Short text here .\n")
    documents = corpus_sources.wikitext_documents(str(path))
    assert documents == [
        ["A well-known actor .", "He won 1,000 prizes in 2.5 years .", "It came later .",
         "He retired ."],
        ["Short text here ."],
    ]


def test_conll_documents_follow_docstart_and_drop_tags(tmp_path):
    lines = ["-DOCSTART- -X- -X- O", "", "EU NNP B-NP B-ORG", "rejects VBZ B-VP O", "",
             "Peter NNP B-NP B-PER", "", "-DOCSTART- -X- -X- O", "", "Second NN B-NP O",
             "doc NN I-NP O", ""]
    path = tmp_path / "c.txt"
    path.write_text("\n".join(lines) + "\n")
    assert corpus_sources.conll_documents(str(path)) == [["EU rejects", "Peter"], ["Second doc"]]


def test_squad_documents_hold_contexts_not_questions(tmp_path):
    data = {"data": [{"title": "T", "paragraphs": [
        {"context": "First sentence here. Second one follows.",
         "qas": [{"id": "1", "question": "What QUESTION?", "answers": []}]},
        {"context": "Another paragraph.", "qas": []}]}]}
    path = tmp_path / "s.json.gz"
    with gzip.open(path, "wt") as f:
        json.dump(data, f)
    documents = corpus_sources.squad_documents(str(path))
    assert documents == [["First sentence here.", "Second one follows.", "Another paragraph."]]


def test_glue_texts_without_labels(tmp_path):
    (tmp_path / "train.tsv").write_text(
        "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tA said this.\tB said that.\n")
    assert corpus_sources.glue_documents(str(tmp_path), "mrpc") == [["A said this.", "B said that."]]


def test_repeats_and_held_out_sentences_are_dropped_and_counted():
    sources = [("a", [["Alpha one.", "Beta  two."], ["alpha ONE."], ["Only dev."]]),
               ("b", [["beta two.", "Gamma three."]])]
    documents, summary = build_corpus(sources, held_out=[["only   DEV."]])
    assert documents == [["Alpha one.", "Beta  two."], ["Gamma three."]]
    assert summary.duplicates == {"a": 1, "b": 1} and summary.held_out == {"a": 1, "b": 0}
    assert summary.documents == {"a": 1, "b": 1} and summary.sentences == {"a": 2, "b": 1}
    assert summary.words == {"a": 4, "b": 2}


@pytest.mark.large
def test_real_corpus_keeps_no_sentence_of_the_evaluation_sets(tmp_path):
    data = shared_data_dir()
    out = tmp_path / "corpus.txt"
    done = subprocess.run(
        [sys.executable, "-m", "keras_bert.cli.build_pretraining_corpus",
         f"--sources=squad:{data}/squad/train-v1.1-reconstructed.json.gz,"
         f"glue:{data}/glue/RTE,conll:{data}/conll2003/train.txt.gz",
         f"--held_out=squad:{data}/squad/dev-v1.1.json.gz,glue_dev:{data}/glue/RTE,"
         f"conll:{data}/conll2003/test.txt.gz", f"--output_file={out}"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    assert done.returncode == 0, done.stderr[-2000:]
    kept = {normalized(line) for line in out.read_text().splitlines() if line}
    # The held-out text, read here without the package's readers: dev contexts, RTE dev pairs,
    # CoNLL test sentences.
    with gzip.open(data / "squad" / "dev-v1.1.json.gz", "rt") as f:
        dev_contexts = [p["context"] for a in json.load(f)["data"] for p in a["paragraphs"]]
    rte = [line.split("\t") for line in (data / "glue" / "RTE" / "dev.tsv").read_text().splitlines()[1:]]
    with gzip.open(data / "conll2003" / "test.txt.gz", "rt") as f:
        conll, words = [], []
        for line in f:
            if line.strip() and not line.startswith("-DOCSTART-"):
                words.append(line.split()[0])
            elif words:
                conll.append(" ".join(words))
                words = []
    held = {normalized(s) for s in conll} | {normalized(s) for row in rte for s in row[:2]}
    assert not kept & held
    # Whole dev paragraphs never appear as kept sentences either.
    assert not kept & {normalized(c) for c in dev_contexts}
    summary = json.loads((tmp_path / "corpus.txt.json").read_text())
    assert summary["held_out"][f"conll:{data}/conll2003/train.txt.gz"] > 0  # shared headlines
    assert summary["documents"][f"squad:{data}/squad/train-v1.1-reconstructed.json.gz"] == 442
    lines = out.read_text().split("\n\n")
    assert len([d for d in lines if d.strip()]) == sum(summary["documents"].values())


def test_bad_entries_get_one_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "keras_bert.cli.build_pretraining_corpus",
         "--sources=novel:x.txt", f"--output_file={tmp_path / 'c.txt'}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "'novel:x.txt': give kind:path with kind one of" in done.stderr
    assert not (tmp_path / "c.txt").exists()
