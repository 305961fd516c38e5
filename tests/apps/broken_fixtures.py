"""Fixtures made the way `apps.make_fixtures` makes them, from a deliberately broken model or
decoder, and the three ports' gold checks run on them (tests/apps/fixture_gold_test.py)."""

import contextlib
import json
import os
import shutil
import subprocess

import numpy as np

from apps import make_fixtures
from apps.qa_pipeline import MODEL, TfliteQa
from keras_bert.data.tasks import squad_predictions
from tests.data_paths import shared_data_dir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def shuffle_weight_matrix(dst, name_part, model_path=MODEL, seed=0):
    """Writes `model_path` to `dst` with the entries of one constant weight matrix (the first
    2-D int8 tensor whose name contains `name_part`) permuted at random. Returns its name.

    The matrix's bytes are found in the flatbuffer by content (they occur exactly once), so
    nothing here depends on the schema.
    """
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_path=model_path)
    interpreter.allocate_tensors()
    with open(model_path, "rb") as f:
        data = bytearray(f.read())
    for detail in interpreter.get_tensor_details():
        if name_part not in detail["name"] or len(detail["shape"]) != 2:
            continue
        if detail["dtype"] != np.int8 or min(detail["shape"]) < 64:
            continue
        try:
            values = interpreter.get_tensor(detail["index"])
        except ValueError:
            continue  # an activation, not a constant
        raw = values.tobytes()
        if data.count(raw) != 1:
            continue
        at = data.index(raw)
        flat = values.reshape(-1).copy()
        np.random.default_rng(seed).shuffle(flat)
        data[at : at + len(raw)] = flat.tobytes()
        with open(dst, "wb") as f:
            f.write(data)
        return detail["name"]
    raise ValueError(f"no constant 2-D int8 matrix named like {name_part!r} in {model_path}")


@contextlib.contextmanager
def off_by_one_span_end():
    """The decoder with an off-by-one bug: each span's text runs one token past its end."""
    original = squad_predictions._span_text

    def span_text(example, features, candidate, do_lower_case):
        last = max(features.token_to_orig_map[candidate.window])
        candidate = candidate._replace(end=min(candidate.end + 1, last))
        return original(example, features, candidate, do_lower_case)

    squad_predictions._span_text = span_text
    try:
        yield
    finally:
        squad_predictions._span_text = original


def write_fixtures(root, qa):
    """`root`/apps/fixtures as `make_fixtures` would write it with `qa`; returns that folder.

    The hand-kept gold file and the vocabulary are the repository's.
    """
    passages, articles = make_fixtures.bundled_passages(
        str(shared_data_dir() / "squad" / "dev-v1.1.json.gz"))
    fixtures = os.path.join(root, "apps", "fixtures")
    os.makedirs(fixtures)
    os.makedirs(os.path.join(root, "apps", "models"))
    make_fixtures._write_json(os.path.join(fixtures, "qa_golden.json"),
                              make_fixtures.qa_fixture(qa, passages, articles))
    for name in ("qa_gold.json", "tokenizer_golden.json"):
        shutil.copy(os.path.join(ROOT, "apps", "fixtures", name), fixtures)
    shutil.copy(os.path.join(ROOT, "apps", "models", "vocab.txt"),
                os.path.join(root, "apps", "models"))
    return fixtures


def load_cases(fixtures):
    with open(os.path.join(fixtures, "qa_golden.json"), encoding="utf-8") as f:
        return json.load(f)["cases"]


def run_js_test(fixtures, name):
    """`node --test` of one web-port test file on `fixtures`: (returncode, output)."""
    done = subprocess.run(
        ["node", "--test", os.path.join(ROOT, "apps", "web", "test", name)],
        env={**os.environ, "QA_FIXTURES_DIR": fixtures}, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def run_js_gold_test(fixtures):
    """The web port's gold test (`qa_gold.test.mjs`) on `fixtures`: (returncode, output)."""
    return run_js_test(fixtures, "qa_gold.test.mjs")


def run_java_gold_test(fixtures):
    """The Android port's `QaGoldTest` under JUnit on `fixtures`: (returncode, output)."""
    done = subprocess.run(
        [os.path.join(ROOT, "apps", "android", "qa-core", "run_tests.sh"), "QaGoldTest"],
        env={**os.environ, "FIXTURES_DIR": fixtures}, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def broken_qa(tmp_path, name_part):
    """A `TfliteQa` on the shipped model with one weight matrix shuffled, and that matrix."""
    path = str(tmp_path / "broken.tflite")
    name = shuffle_weight_matrix(path, name_part)
    return TfliteQa(model_path=path, num_threads=1), name
