"""`QuestionAnsweringPipeline` from a run folder and from a SavedModel: the best span by brute
force over the model's own logits, at the offsets it names, and the same answers from both."""

import json
import pathlib

import numpy as np
import pytest

import keras_bert
from keras_bert.checkpoints.tf1_checkpoint import save_tf1_checkpoint
from keras_bert.models.bert_config import BertConfig
from tests.data_paths import first_dev_questions, shared_data_dir
from tests.test_case import randomize_weights

pytestmark = pytest.mark.large

TINY = {"vocab_size": 30522, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "intermediate_size": 32, "max_position_embeddings": 512}
VOCAB = str(shared_data_dir() / "vocab" / "bert-base-uncased-vocab.txt")


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    """A QA model (random weights, scaled up so spans differ) saved as a run's best/ folder."""
    folder = tmp_path_factory.mktemp("qa_run")
    best = folder / "best"
    model = keras_bert.BertQuestionAnswerer(
        keras_bert.BertEncoder.from_bert_config(BertConfig.from_dict(TINY)))
    randomize_weights(model, seed=1, scale=0.3)
    save_tf1_checkpoint(model, str(best / "bert_model.ckpt"))
    (best / "vocab.txt").write_text(open(VOCAB).read())
    return folder, model


def _questions(count):
    for paragraph in first_dev_questions(count)["data"][0]["paragraphs"]:
        for qa in paragraph["qas"]:
            yield qa["question"], paragraph["context"]


def test_a_run_folder_answers_with_the_best_span_of_its_logits(run_folder):
    folder, model = run_folder
    qa = keras_bert.QuestionAnsweringPipeline.from_pretrained(str(folder))
    tokenizer = keras_bert.ReferenceTokenizer(VOCAB)
    for question, context in list(_questions(6))[:6]:
        answer = qa(question, context)
        assert context[answer["start"]:answer["end"]].split() == answer["answer"].split()
        # Brute force over the one window's context tokens: the best start + end pair with
        # start <= end and at most 30 tokens is the answer's tokens.
        data = qa.windows(question, context)
        assert data.num_rows == 1  # these contexts fit one 384-token window
        logits = model.predict(data.inputs, verbose=0)
        start, end = logits["start_logits"][0], logits["end_logits"][0]
        doc = sorted(data.features.token_to_orig_map[0])
        best = max(((s, e) for s in doc for e in doc if s <= e < s + 30),
                   key=lambda span: start[span[0]] + end[span[1]])
        tokens = data.features.tokens[0][best[0]:best[1] + 1]
        assert " ".join(tokenizer.tokenize(answer["answer"])) == " ".join(tokens)
        assert answer["start_logit"] == pytest.approx(float(start[best[0]]), abs=1e-5)


def test_a_saved_model_answers_as_the_keras_model(run_folder, tmp_path):
    from keras_bert.export.serving.saved_model import export_saved_model

    folder, model = run_folder
    # As keras_bert.export.cli writes it: the vocabulary is an asset of the raw-text signature.
    version_dir = export_saved_model(model, str(tmp_path), "qa", VOCAB, max_seq_length=384,
                                     squad_options=dict(doc_stride=128, max_query_length=64))
    keras_qa = keras_bert.QuestionAnsweringPipeline.from_pretrained(str(folder))
    served = keras_bert.QuestionAnsweringPipeline.from_pretrained(version_dir)
    for question, context in list(_questions(4))[:4]:
        ours, theirs = keras_qa(question, context, top_k=3), served(question, context, top_k=3)
        assert [a["answer"] for a in ours] == [a["answer"] for a in theirs]
        np.testing.assert_allclose([a["score"] for a in ours], [a["score"] for a in theirs],
                                   atol=1e-4)


def test_empty_inputs_and_missing_models_are_one_line_errors(run_folder, tmp_path):
    qa = keras_bert.QuestionAnsweringPipeline.from_pretrained(str(run_folder[0]))
    with pytest.raises(keras_bert.pipelines.QaInputError, match="question is empty"):
        qa("  ", "Some context.")
    with pytest.raises(keras_bert.pipelines.QaInputError, match="passage is empty"):
        qa("Why?", "\n")
    with pytest.raises(FileNotFoundError, match="does not exist: pass a .tflite"):
        keras_bert.QuestionAnsweringPipeline.from_pretrained(str(tmp_path / "missing"))
    assert json.dumps(qa("Who?", "Nobody knows.")) != ""


def test_a_tflite_with_no_vocab_txt_beside_it_reads_the_one_in_its_metadata(tmp_path):
    """keras_bert.export.cli writes the .tflite alone, its vocabulary in the TFLite Metadata."""
    import shutil

    shipped = pathlib.Path(__file__).resolve().parents[3] / "apps" / "models"
    alone = shutil.copy(shipped / "squad_minilm_dynamic_int8.tflite", tmp_path)
    question, context = next(_questions(1))
    beside = keras_bert.QuestionAnsweringPipeline.from_pretrained(
        shipped / "squad_minilm_dynamic_int8.tflite")(question, context)
    assert keras_bert.QuestionAnsweringPipeline.from_pretrained(alone)(question, context) == beside
