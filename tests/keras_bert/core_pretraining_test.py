"""Masked-LM pretraining with only the TensorFlow-free core, on every backend: real text, the
reference tokenizer, google's instances, numpy batches (`pack_pretraining_instances`), `fit`;
and the pretraining loss sums against a NumPy computation."""

import gzip
import random

import keras
import numpy as np
import pytest

from keras_bert import tensorflow_extra
from keras_bert.data.pretraining.masking import MaskingPolicy
from keras_bert.data.pretraining.masking import TokenMasker
from keras_bert.data.pretraining.instances import TrainingInstance
from keras_bert.data.pretraining.instances import create_training_instances
from keras_bert.data.pretraining.instances import pack_pretraining_instances
from keras_bert.data.pretraining.text_to_documents import text_to_documents
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from keras_bert.tokenization.vocab import load_vocabulary
from keras_bert.training.pretraining_loss import PretrainingSums
from keras_bert.training.pretraining_loss import pretraining_metrics
from keras_bert.training.pretraining_loss import pretraining_sums
from tests.data_paths import shared_data_dir

HAS_TENSORFLOW = tensorflow_extra.has_tensorflow()

pytestmark = pytest.mark.backend_portable

INSTANCES = [
    TrainingInstance(token_ids=(2, 4, 7, 3, 9, 3), segment_ids=(0, 0, 0, 0, 1, 1),
                     is_random_next=True, masked_lm_positions=(1, 4), masked_lm_labels=(6, 8)),
    TrainingInstance(token_ids=(2, 5, 3, 6, 3), segment_ids=(0, 0, 0, 1, 1),
                     is_random_next=False, masked_lm_positions=(3,), masked_lm_labels=(7,)),
]


def test_instances_pack_into_padded_arrays():
    inputs, labels = pack_pretraining_instances(INSTANCES, max_seq_length=8,
                                                max_predictions_per_seq=3)
    assert inputs["token_ids"].tolist() == [[2, 4, 7, 3, 9, 3, 0, 0], [2, 5, 3, 6, 3, 0, 0, 0]]
    assert inputs["padding_mask"].tolist() == [[1, 1, 1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 0, 0, 0]]
    assert inputs["segment_ids"][1].tolist() == [0, 0, 0, 1, 1, 0, 0, 0]
    assert inputs["mask_positions"].tolist() == [[1, 4, 0], [3, 0, 0]]
    assert labels["masked_lm_ids"].tolist() == [[6, 8, 0], [7, 0, 0]]
    assert labels["masked_lm_weights"].tolist() == [[1, 1, 0], [1, 0, 0]]
    assert labels["next_sentence_labels"].tolist() == [1, 0]
    assert inputs["token_ids"].dtype == np.int32 and labels["masked_lm_weights"].dtype == np.float32
    with pytest.raises(ValueError, match="more than max_predictions_per_seq=1"):
        pack_pretraining_instances(INSTANCES, 8, 1)


@pytest.mark.skipif(not HAS_TENSORFLOW, reason="compares with the TFRecord path")
def test_the_same_arrays_as_writing_and_parsing_tfrecords(tmp_path):
    import tensorflow as tf

    from keras_bert.data.pretraining.records import parse_pretraining_batch
    from keras_bert.data.pretraining.records import write_pretraining_records

    path = str(tmp_path / "records.tfrecord")
    write_pretraining_records(INSTANCES, [path], 8, 3)
    serialized = next(iter(tf.data.TFRecordDataset(path).batch(2)))
    parsed = parse_pretraining_batch(serialized, 8, 3)
    packed = pack_pretraining_instances(INSTANCES, 8, 3)
    for ours, theirs in zip(packed, parsed):
        assert set(ours) == set(theirs)
        for name in ours:
            np.testing.assert_array_equal(ours[name], theirs[name].numpy())


def test_pretraining_sums_are_the_weighted_cross_entropies():
    rng = np.random.default_rng(0)
    mlm_logits = rng.normal(0, 2, (3, 4, 11)).astype("float32")
    nsp_logits = rng.normal(0, 2, (3, 2)).astype("float32")
    ids = rng.integers(0, 11, (3, 4))
    weights = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 1, 1]], "float32")
    nsp = np.array([0, 1, 1])
    sums = pretraining_sums(
        {"mlm_logits": mlm_logits, "nsp_logits": nsp_logits},
        {"masked_lm_ids": ids, "masked_lm_weights": weights, "next_sentence_labels": nsp},
        padding_mask=np.ones((3, 9)))

    def cross_entropy(logits, labels):  # float64 log-softmax
        logits = logits.astype("float64")
        log_z = np.log(np.exp(logits - logits.max(-1, keepdims=True)).sum(-1)) + logits.max(-1)
        return log_z - np.take_along_axis(logits, labels[..., None], -1)[..., 0]

    value = lambda x: float(keras.ops.convert_to_numpy(x))  # noqa: E731
    np.testing.assert_allclose(value(sums.mlm_loss),
                               (cross_entropy(mlm_logits, ids) * weights).sum(), rtol=1e-5)
    np.testing.assert_allclose(value(sums.nsp_loss), cross_entropy(nsp_logits, nsp).sum(),
                               rtol=1e-5)
    assert value(sums.mlm_weight) == 7.0 and value(sums.nsp_count) == 3.0
    assert value(sums.tokens) == 27.0
    hits = (mlm_logits.argmax(-1) == ids) * weights
    assert value(sums.mlm_correct) == hits.sum()
    assert value(sums.nsp_correct) == (nsp_logits.argmax(-1) == nsp).sum()
    assert value(sums.examples) == 3.0
    # Packed sequences carry no next-sentence labels: the same masked-LM sums, no NSP.
    packed = pretraining_sums(
        {"mlm_logits": mlm_logits, "nsp_logits": nsp_logits},
        {"masked_lm_ids": ids, "masked_lm_weights": weights}, padding_mask=np.ones((3, 9)))
    assert [value(x) for x in packed] == [value(x) for x in sums[:3]] + [0.0, 0.0, 0.0, 27.0, 3.0]
    metrics = pretraining_metrics(PretrainingSums(*(value(x) for x in packed)))
    assert sorted(metrics) == ["loss", "mlm_accuracy", "mlm_loss"]
    assert metrics["loss"] == metrics["mlm_loss"] == pytest.approx(value(sums.mlm_loss) / 7.0)


def test_masked_lm_pretraining_with_fit_on_numpy_batches_learns_real_text():
    data = shared_data_dir()
    vocab = load_vocabulary(data / "vocab" / "bert-base-uncased-vocab.txt")
    tokenizer = ReferenceTokenizer(vocab)
    with gzip.open(data / "text" / "gutenberg" / "Dickens_A_Christmas_Carol.txt.gz", "rt") as f:
        text = f.read()[:60_000]
    documents = [[tokenizer.encode(sentence) for sentence in document]
                 for document in text_to_documents(text, max_sentences_per_document=40)]
    instances = create_training_instances(
        documents, TokenMasker(vocab, MaskingPolicy(max_predictions_per_seq=10)),
        vocab.index("[CLS]"), vocab.index("[SEP]"), max_seq_length=64, dupe_factor=1,
        rng=random.Random(0))
    inputs, labels = pack_pretraining_instances(instances, 64, 10)
    keras.utils.set_random_seed(0)
    pretrainer = BertPretrainer(BertEncoder(
        vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=64))
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    pretrainer.compile(optimizer=keras.optimizers.Adam(2e-3),
                       loss={"mlm_logits": loss, "nsp_logits": loss})
    targets = {"mlm_logits": labels["masked_lm_ids"], "nsp_logits": labels["next_sentence_labels"]}
    weights = {"mlm_logits": labels["masked_lm_weights"],
               "nsp_logits": np.ones(len(labels["next_sentence_labels"]), "float32")}
    history = pretrainer.fit(inputs, targets, sample_weight=weights, batch_size=16, epochs=3,
                             verbose=0)
    losses = history.history["loss"]
    print(f"{keras.config.backend()}: {len(instances)} instances, loss by epoch {losses}")
    # From about ln(30522) ~ 10.3 for the masked tokens: the common words are learnt first.
    assert losses[-1] < 0.8 * losses[0]
