"""The Python QA pipeline the app ports follow: it reproduces the committed golden fixtures."""

import gzip
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

from apps import qa_gold
from apps.qa_pipeline import QaInputError, TfliteQa, utf16_offset
from tests.data_paths import shared_data_dir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "apps", "fixtures")


@pytest.fixture(scope="module")
def qa():
    return TfliteQa()


@pytest.fixture(scope="module")
def golden():
    with open(os.path.join(FIXTURES, "qa_golden.json"), encoding="utf-8") as f:
        return json.load(f)


# The int8 kernels LiteRT picks differ by CPU (XNNPACK's dynamic-int8 paths for AVX-512 VNNI and
# for AVX2 round differently): the fixtures' logits, written on an AVX-512 machine, came back
# within 0.26 on a 2-core AMD Zen 3 (AVX2 only; 2026-11-28), and bit-close (1e-6) on the machine
# that wrote them. Tokens, windows and decoding are checked exactly, on the fixtures' own logits.
CROSS_CPU_LOGIT_ATOL = 0.5


def test_fixtures_are_what_the_pipeline_gives_now(qa, golden):
    # If this fails after a deliberate change, regenerate: python -m apps.make_fixtures
    assert len(golden["cases"]) == 73 and sum(c["held_out"] for c in golden["cases"]) == 64
    for case in golden["cases"]:
        result = qa.answer(case["question"], case["context"])
        features = result["features"]
        assert len(features) == len(case["windows"]), case["id"]
        for i, window in enumerate(case["windows"]):
            assert features.tokens[i] == window["tokens"], case["id"]
            length = len(window["ids"])
            assert features.token_ids[i, :length].tolist() == window["ids"]
            assert not features.token_ids[i, length:].any()
            np.testing.assert_allclose(result["start_logits"][i], window["start_logits"],
                                       atol=CROSS_CPU_LOGIT_ATOL)
            np.testing.assert_allclose(result["end_logits"][i], window["end_logits"],
                                       atol=CROSS_CPU_LOGIT_ATOL)
        # The decoding of the fixture's own logits gives the fixture's answers exactly.
        data = qa.pipeline.windows(case["question"], case["context"])
        starts = np.array([w["start_logits"] for w in case["windows"]], np.float32)
        ends = np.array([w["end_logits"] for w in case["windows"]], np.float32)
        nbest = qa.pipeline.rank(data, starts, ends, case["context"])
        assert [e["answer"] for e in nbest] == [e["text"] for e in case["nbest"]], case["id"]
        assert [(utf16_offset(case["context"], e["start"]), utf16_offset(case["context"], e["end"]))
                for e in nbest] == [(e["start"], e["end"]) for e in case["nbest"]], case["id"]


def test_spans_point_at_the_answer_in_the_passage(golden):
    for case in golden["cases"]:
        units = case["context"].encode("utf-16-le")
        for entry in case["nbest"]:
            text = units[2 * entry["start"] : 2 * entry["end"]].decode("utf-16-le")
            # The answer text joins passage words with single spaces; the span is the passage's.
            assert text.split() == entry["text"].split(), (case["id"], text, entry["text"])


def test_fixture_answers_meet_the_gold_floor(golden):
    # SQuAD's gold answers, kept by hand in apps/fixtures/qa_gold.json: fixtures remade from a
    # broken model or decoder fall below its floors (tests/apps/fixture_gold_test.py shows it).
    assert qa_gold.problems(golden["cases"], qa_gold.load_json("qa_gold.json")) == []


def test_gold_answers_are_squads():
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt", encoding="utf-8") as f:
        squad = {qa["id"]: [a["text"] for a in qa["answers"]] for article in json.load(f)["data"]
                 for paragraph in article["paragraphs"] for qa in paragraph["qas"]}
    gold = qa_gold.load_json("qa_gold.json")["answers"]
    from_squad = {i: answers for i, answers in gold.items() if i in squad}
    assert len(from_squad) == 64 and all(squad[i] == a for i, a in from_squad.items())


def test_utf16_offsets_count_astral_characters_twice():
    assert utf16_offset("a\U0001F600b", 2) == 3
    assert utf16_offset("\u00e9t\u00e9", 3) == 3


def test_bad_input_says_what_to_do(qa, tmp_path):
    with pytest.raises(QaInputError, match="question is empty"):
        qa.answer("  \t", "Some passage.")
    with pytest.raises(QaInputError, match="passage is empty"):
        qa.answer("Who?", " \n ")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        TfliteQa(model_path=str(tmp_path / "missing.tflite"))
    corrupt = tmp_path / "corrupt.tflite"
    corrupt.write_bytes(b"not a flatbuffer" * 64)
    with pytest.raises(ValueError, match="not a valid .tflite"):
        TfliteQa(model_path=str(corrupt))


def test_shipped_manifest_is_what_sha256sum_computes():
    models = os.path.join(ROOT, "apps", "models")
    check = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=models, capture_output=True,
                           text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    listed = sorted(line.split(": ")[0] for line in check.stdout.splitlines())
    assert listed == sorted(f for f in os.listdir(models)
                            if f not in ("SHA256SUMS", "MODEL_CARD.md"))


def test_a_flipped_weight_byte_is_refused_before_it_answers(tmp_path):
    models = os.path.join(ROOT, "apps", "models")
    for name in ("squad_minilm_int8.tflite", "vocab.txt", "SHA256SUMS"):
        shutil.copy(os.path.join(models, name), tmp_path / name)
    model = tmp_path / "squad_minilm_int8.tflite"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0x01  # a weight byte: LiteRT itself loads and runs this file
    model.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"squad_minilm_int8\.tflite is corrupted") as error:
        TfliteQa(model_path=str(model), vocab_path=str(tmp_path / "vocab.txt"))
    assert "\n" not in str(error.value)
    os.remove(tmp_path / "SHA256SUMS")  # without the manifest the same file loads and answers
    answer = TfliteQa(model_path=str(model), vocab_path=str(tmp_path / "vocab.txt")).answer(
        "Who wrote it?", "The book was written by Jane Austen in 1815.")
    assert answer
