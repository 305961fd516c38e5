"""Where tests find the project's shared data: $KERAS_BERT_SHARED_DATA, else `../shared/data`."""

import gzip
import json
import os
import pathlib


def shared_data_dir():
    """The shared data folder; a clear error if it is not there.

    `KERAS_BERT_SHARED_DATA` wins (tools/bazel_ci.sh sets it, since Bazel runs tests from a
    sandbox); otherwise `<repo>/../shared/data`.
    """
    override = os.environ.get("KERAS_BERT_SHARED_DATA")
    repo_root = pathlib.Path(__file__).resolve().parents[1]
    path = pathlib.Path(override) if override else (repo_root / ".." / "shared" / "data").resolve()
    if not path.is_dir():
        raise FileNotFoundError(
            f"Shared test data not found at {path}. These tests read SQuAD, vocabularies and text "
            "from ../shared/data next to the repository (see its MANIFEST.md); check it out there."
        )
    return path


def first_dev_questions(count):
    """The first SQuAD v1.1 dev paragraphs holding at least `count` questions, as a SQuAD
    dataset dict (one article)."""
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt") as f:
        dev = json.load(f)
    paragraphs, seen = [], 0
    for paragraph in dev["data"][0]["paragraphs"]:
        if seen >= count:
            break
        paragraphs.append(paragraph)
        seen += len(paragraph["qas"])
    return {"version": "1.1", "data": [{"title": "subset", "paragraphs": paragraphs}]}
