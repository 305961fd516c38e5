"""Per-layer measures of a pretraining run on held-out text: CKA, token-identity probe, behaviour."""

import os

import numpy as np

from keras_bert.analysis.cka import linear_cka
from keras_bert.analysis.token_probe import TokenIdentityProbe
from keras_bert.api_export import keras_bert_export

MASK_FRACTION = 0.15  # tokens hidden by [MASK] for the held-out masked-token accuracy


def _batches(inputs, batch_size):
    n = len(next(iter(inputs.values())))
    for start in range(0, n, batch_size):
        yield start, {k: v[start : start + batch_size] for k, v in inputs.items()}


@keras_bert_export("keras_bert.analysis.representation_measures")
def representation_measures(encoder, sentences, vocabulary, sequence_length=64, batch_size=64):
    """Per-layer CKA and token-identity probe of any `BertEncoder` on `sentences`.

    Each sentence is read unmasked as `[CLS] sentence [SEP]` with the encoder's own attention
    pattern. At every real, non-special token position, with layer 0 the embedding output:
      - `cka_to_input[l]`: linear CKA of layer l with layer 0;
      - `cka_to_previous[l]`: linear CKA of layer l with layer l - 1 (`None` for l = 0);
      - `token_probe_accuracy[l]`: a `TokenIdentityProbe` fitted on the first 80% of the
        sentences, scored on the rest: how much layer l still knows about its own input token.

    Args:
        encoder: a `BertEncoder`.
        sentences: list of str (at least 5, so that the probe has held-out sentences).
        vocabulary: vocab.txt path or list of tokens.
        sequence_length: int, tokens per sentence with [CLS] and [SEP].
        batch_size: int.

    Returns:
        `(measures, inputs, real)`: the JSON-serializable dict (with `num_sentences`,
        `num_positions`), the preprocessed inputs (dict of NumPy arrays) and the `[N, L]` mask
        of the positions measured.
    """
    import keras

    from keras_bert.tokenization.bert_preprocessor import BertPreprocessor
    from keras_bert.tokenization.vocab import load_vocabulary
    from keras_bert.tokenization.vocab import special_token_ids

    if len(sentences) < 5:
        raise ValueError(f"The layer analysis needs at least 5 sentences, got {len(sentences)}.")
    vocabulary = load_vocabulary(vocabulary)
    special = special_token_ids(vocabulary)
    inputs = {
        k: np.asarray(v)
        for k, v in BertPreprocessor(vocabulary, sequence_length=sequence_length)(sentences).items()
    }
    ids = inputs["token_ids"]
    real = (inputs["padding_mask"] > 0) & ~np.isin(ids, [special["[CLS]"], special["[SEP]"]])
    is_train = np.arange(len(ids)) < int(0.8 * len(ids))  # by sentence, not by position

    # === Representations: layer 0 (embeddings) .. L ===
    layers = [[] for _ in range(encoder.num_hidden_layers + 1)]
    for _, batch in _batches(inputs, batch_size):
        embedded = encoder.embeddings(batch["token_ids"], batch["segment_ids"], training=False)
        outputs = encoder(batch, training=False)["encoder_outputs"]
        for layer, value in zip(layers, [embedded, *outputs]):
            layer.append(keras.ops.convert_to_numpy(value))
    layers = [np.concatenate(layer)[real] for layer in layers]  # each [N, H]
    token_of = ids[real]
    train_rows = np.broadcast_to(is_train[:, None], ids.shape)[real]

    measures = {
        "attention_pattern": encoder.attention_pattern,
        "num_sentences": len(sentences),
        "num_positions": int(real.sum()),
        "cka_to_input": [linear_cka(h, layers[0]) for h in layers],
        "cka_to_previous": [None] + [linear_cka(b, a) for a, b in zip(layers, layers[1:])],
        "token_probe_accuracy": [
            TokenIdentityProbe()
            .fit(h[train_rows], token_of[train_rows])
            .accuracy(h[~train_rows], token_of[~train_rows])
            for h in layers
        ],
    }
    return measures, inputs, real


@keras_bert_export("keras_bert.analysis.analyse_layers")
def analyse_layers(run_dir, sentences, vocab_file, sequence_length=64, seed=0, batch_size=64):
    """`representation_measures` of a `run_pretraining` run, plus its held-out behaviour.

    The run's encoder is rebuilt with the attention pattern it was pretrained with (from its
    `pretraining_objective.json`), with its masked-LM head. Behaviour on the same text:
      - masked-LM runs: `masked_token_accuracy` (15% of tokens replaced by [MASK], top-1 of the
        head at them) and `observed_token_accuracy` (unmasked input; how often the head's top-1
        at a position is the token that is there: copying);
      - next-token runs: `next_token_accuracy` under the run's own attention pattern.

    Args:
        run_dir: a `run_pretraining --output_dir` (final `bert_model.ckpt` + configs).
        sentences: list of str, held-out text.
        vocab_file: the run's vocab.txt.
        sequence_length: int, tokens per sentence with [CLS] and [SEP].
        seed: int, for the masked positions.
        batch_size: int.

    Returns:
        A JSON-serializable dict of the measures plus `objective`.
    """
    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint
    from keras_bert.models.bert_config import BertConfig
    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.models.bert_pretrainer import BertPretrainer
    from keras_bert.tokenization.vocab import load_vocabulary
    from keras_bert.tokenization.vocab import special_token_ids
    from keras_bert.training.pretraining_objective import read_pretraining_objective

    record = read_pretraining_objective(run_dir)
    config = BertConfig.from_json_file(os.path.join(run_dir, "bert_config.json"))
    encoder = BertEncoder.from_bert_config(config, attention_pattern=record["attention_pattern"])
    model = BertPretrainer(encoder)
    # The final google-format checkpoint, which holds the masked-LM head too.
    load_init_checkpoint(model, os.path.join(run_dir, "bert_model.ckpt"), require_heads=True)
    vocabulary = load_vocabulary(vocab_file)
    results, inputs, real = representation_measures(
        encoder, sentences, vocabulary, sequence_length, batch_size
    )
    results["objective"] = record["objective"]

    # === Behaviour on the held-out text ===
    special = special_token_ids(vocabulary)
    ids = inputs["token_ids"]
    positions = np.tile(np.arange(sequence_length, dtype="int32"), (len(ids), 1))
    if record["objective"] == "mlm":
        rng = np.random.default_rng(seed)
        hidden = real & (rng.random(ids.shape) < MASK_FRACTION)
        masked = dict(inputs, token_ids=np.where(hidden, special["[MASK]"], ids).astype("int32"))
        results["masked_token_accuracy"] = _head_accuracy(model, masked, positions, ids, hidden, batch_size)
        results["observed_token_accuracy"] = _head_accuracy(model, inputs, positions, ids, real, batch_size)
    else:
        targets = np.concatenate([ids[:, 1:], np.zeros_like(ids[:, :1])], axis=1)
        has_target = np.concatenate([inputs["padding_mask"][:, 1:] > 0, np.zeros_like(real[:, :1])], 1)
        results["next_token_accuracy"] = _head_accuracy(
            model, inputs, positions, targets, has_target & (inputs["padding_mask"] > 0), batch_size
        )
    return results


def _head_accuracy(model, inputs, positions, targets, weights, batch_size):
    """Top-1 accuracy of the masked-LM head at every position, over positions where `weights`."""
    import keras

    hits = total = 0
    for start, batch in _batches(dict(inputs, mask_positions=positions), batch_size):
        logits = keras.ops.convert_to_numpy(model(batch, training=False)["mlm_logits"])  # [b, L, V]
        end = start + len(logits)
        keep = weights[start:end]
        hits += int(np.sum((np.argmax(logits, -1) == targets[start:end]) & keep))
        total += int(np.sum(keep))
    return hits / max(total, 1)


def read_sentences(path, limit, min_words=5):
    """Up to `limit` sentences of at least `min_words` words from a sentence-per-line text file,
    spread evenly over the file (so several books are sampled, not the first chapter)."""
    with open(path, encoding="utf-8") as f:
        lines = [line.strip() for line in f if len(line.split()) >= min_words]
    if not lines:
        raise ValueError(f"{path} has no sentence of {min_words} words or more.")
    step = max(1, len(lines) // limit)
    return lines[::step][:limit]
