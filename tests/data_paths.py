"""Where tests find the project's shared data: $KERAS_BERT_SHARED_DATA, else `../shared/data`."""

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
