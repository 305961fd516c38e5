"""Documents of tokenized sentences to pretraining instances: BERT's sentence pairs (NSP + MLM),
or packed full-length rows (MLM only)."""

import dataclasses
import random

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.data.TrainingInstance")
@dataclasses.dataclass(frozen=True)
class TrainingInstance:
    """One pretraining example before padding: `[CLS] A [SEP] B [SEP]`, masked; or a packed row.

    Attributes:
        token_ids: tuple of int, the masked sequence, unpadded.
        segment_ids: tuple of int, 0 over `[CLS] A [SEP]`, 1 over `B [SEP]` (all 0 when packed).
        is_random_next: bool, B came from another document ("NotNext", label 1); `None` for a
            packed row, which is no sentence pair and has no next-sentence label.
        masked_lm_positions: tuple of int, the prediction targets, increasing.
        masked_lm_labels: tuple of int, the original ids at those positions.
    """

    token_ids: tuple
    segment_ids: tuple
    is_random_next: bool
    masked_lm_positions: tuple
    masked_lm_labels: tuple


def _truncate_pair(tokens_a, tokens_b, max_num_tokens, rng):
    """Shortens the longer side one token at a time, from a random end (google's rule)."""
    while len(tokens_a) + len(tokens_b) > max_num_tokens:
        longer = tokens_a if len(tokens_a) > len(tokens_b) else tokens_b
        # Dropping from both the front and the back avoids a bias toward sentence starts.
        if rng.random() < 0.5:
            del longer[0]
        else:
            longer.pop()


def _pairs_from_document(documents, index, max_seq_length, short_seq_prob, rng):
    """Yields `(tokens_a, tokens_b, is_random_next)` for documents[index] (google's algorithm)."""
    document = documents[index]
    max_num_tokens = max_seq_length - 3  # [CLS], [SEP], [SEP]
    # Mostly full-length sequences; sometimes short ones, so fine-tuning on short inputs is not
    # a distribution shift.
    target_length = max_num_tokens
    if rng.random() < short_seq_prob:
        target_length = rng.randint(2, max_num_tokens)

    chunk, chunk_length, i = [], 0, 0
    while i < len(document):
        chunk.append(document[i])
        chunk_length += len(document[i])
        if i == len(document) - 1 or chunk_length >= target_length:
            is_random_next = rng.random() < 0.5
            if not is_random_next and len(chunk) == 1 and i + 1 < len(document):
                i += 1  # an IsNext pair needs a second sentence: take the next one
                chunk.append(document[i])
            if not is_random_next and len(chunk) == 1 and len(chunk[0]) < 2:
                is_random_next = True  # a one-token last sentence cannot be split
            if is_random_next:
                a_end = 1 if len(chunk) == 1 else rng.randint(1, len(chunk) - 1)
                tokens_a = [t for sentence in chunk[:a_end] for t in sentence]
                target_b = target_length - len(tokens_a)
                # Any other document, uniformly (never this one).
                other = rng.randrange(len(documents) - 1)
                other += other >= index
                random_document = documents[other]
                tokens_b = []
                for sentence in random_document[rng.randrange(len(random_document)) :]:
                    tokens_b.extend(sentence)
                    if len(tokens_b) >= target_b:
                        break
                # The unused sentences of this chunk go back, so no text is wasted.
                i -= len(chunk) - a_end
            elif len(chunk) == 1:
                # The document's last sentence, alone: its two halves are a true continuation.
                split = rng.randint(1, len(chunk[0]) - 1)
                tokens_a, tokens_b = list(chunk[0][:split]), list(chunk[0][split:])
            else:
                a_end = rng.randint(1, len(chunk) - 1)
                tokens_a = [t for sentence in chunk[:a_end] for t in sentence]
                tokens_b = [t for sentence in chunk[a_end:] for t in sentence]
            _truncate_pair(tokens_a, tokens_b, max_num_tokens, rng)
            yield tokens_a, tokens_b, is_random_next
            chunk, chunk_length = [], 0
        i += 1


@keras_bert_export("keras_bert.data.create_training_instances")
def create_training_instances(
    documents,
    masker,
    cls_token_id,
    sep_token_id,
    max_seq_length=128,
    dupe_factor=10,
    short_seq_prob=0.1,
    rng=None,
):
    """Sentence-pair instances with next-sentence labels and masked-LM targets.

    google-research/bert's recipe: walk each document, gathering sentences up to a target length
    (the full `max_seq_length - 3`, or with probability `short_seq_prob` a random shorter one);
    split the gathered sentences at a random point into A and B. With probability 0.5 B is
    instead taken from a random *other* document ("NotNext") and the unused sentences are put
    back. The labels are balanced exactly in expectation: google-research/bert makes every
    one-sentence chunk NotNext, which skews its data toward NotNext (long sentences, short
    targets, documents' last sentences); here an IsNext chunk of one sentence takes the next
    sentence as B, or at a document's end is split inside the sentence. The longer side is truncated from a
    random end until the pair fits; then the pair is packed and masked. The whole corpus is
    processed `dupe_factor` times, each time with new pairings and masks, and the result is
    shuffled.

    Args:
        documents: list of documents; a document is a list of sentences; a sentence a non-empty
            list of int token ids. At least two documents (NotNext partners come from another
            document).
        masker: a `TokenMasker`.
        cls_token_id, sep_token_id: int ids of `[CLS]` and `[SEP]`.
        max_seq_length: int >= 5. Defaults to 128.
        dupe_factor: int >= 1. Defaults to 10 (google's value).
        short_seq_prob: float in [0, 1]. Defaults to 0.1.
        rng: `random.Random`; defaults to `random.Random(12345)` (google's `--random_seed`).

    Returns:
        list of `TrainingInstance`, shuffled.
    """
    rng = rng or random.Random(12345)
    documents = [[list(s) for s in doc if len(s)] for doc in documents]
    documents = [doc for doc in documents if doc]
    if len(documents) < 2:
        raise ValueError(
            f"Next-sentence prediction needs at least 2 non-empty documents, got {len(documents)}. "
            "Separate documents with a blank line in the input files."
        )
    if max_seq_length < 5:
        raise ValueError(f"max_seq_length must be >= 5 ([CLS] a [SEP] b [SEP]), got {max_seq_length}.")
    if dupe_factor < 1:
        raise ValueError(f"dupe_factor must be >= 1, got {dupe_factor}.")
    if not 0.0 <= short_seq_prob <= 1.0:
        raise ValueError(f"short_seq_prob must be in [0, 1], got {short_seq_prob}.")

    instances = []
    for _ in range(dupe_factor):
        for index in range(len(documents)):
            for tokens_a, tokens_b, is_random_next in _pairs_from_document(
                documents, index, max_seq_length, short_seq_prob, rng
            ):
                token_ids = [cls_token_id, *tokens_a, sep_token_id, *tokens_b, sep_token_id]
                segment_ids = [0] * (len(tokens_a) + 2) + [1] * (len(tokens_b) + 1)
                masked, positions, labels = masker(token_ids, rng)
                instances.append(
                    TrainingInstance(
                        token_ids=tuple(masked),
                        segment_ids=tuple(segment_ids),
                        is_random_next=is_random_next,
                        masked_lm_positions=tuple(positions),
                        masked_lm_labels=tuple(labels),
                    )
                )
    rng.shuffle(instances)
    return instances


@keras_bert_export("keras_bert.data.create_packed_instances")
def create_packed_instances(
    documents, masker, cls_token_id, sep_token_id, max_seq_length=128, dupe_factor=1, rng=None
):
    """Full-length masked-LM rows with no padding and no sentence pairs.

    For a small compute budget (Cramming, Geiping & Goldstein 2022; RoBERTa's FULL-SENTENCES):
    no position is spent on padding and no loss on next-sentence prediction. Each pass over
    the corpus (`dupe_factor` passes, each in a new random document order) concatenates the
    documents into one stream of tokens, each document followed by `[SEP]`, and cuts it into rows
    of `[CLS]` + `max_seq_length - 1` tokens. Every row is exactly `max_seq_length` long; a
    `[SEP]` marks each document boundary inside a row (attention is not blocked there: the model
    learns that text after `[SEP]` is unrelated); a document may run on into the next row. The
    stream's last, partial row is dropped. Segment ids are 0 and `is_random_next` is `None`.

    Args:
        documents: list of documents; a document is a list of sentences; a sentence a list of
            int token ids.
        masker: a `TokenMasker` (`[CLS]` and `[SEP]` are never selected).
        cls_token_id, sep_token_id: int ids of `[CLS]` and `[SEP]`.
        max_seq_length: int >= 2. Defaults to 128.
        dupe_factor: int >= 1, passes over the corpus. Defaults to 1 (mask dynamically instead).
        rng: `random.Random`; defaults to `random.Random(12345)`.

    Returns:
        list of `TrainingInstance`, shuffled.

    Example:
    >>> import random
    >>> from keras_bert.data.pretraining.masking import MaskingPolicy, TokenMasker
    >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + list("abcdefgh")
    >>> masker = TokenMasker(vocab, MaskingPolicy(masked_lm_prob=0.01, mask_token_rate=0.0,
    ...                                           random_token_rate=0.0))
    >>> rows = keras_bert.data.create_packed_instances(
    ...     [[[5, 6], [7]], [[8, 9, 10]], [[11, 12]]], masker, cls_token_id=2,
    ...     sep_token_id=3, max_seq_length=5, rng=random.Random(0))
    >>> [list(row.token_ids) for row in rows]  # 5 6 7 | 11 12 | 8 9 10 |: rows of 4, 3 dropped
    [[2, 11, 12, 3, 8], [2, 5, 6, 7, 3]]
    """
    rng = rng or random.Random(12345)
    if max_seq_length < 2:
        raise ValueError(f"max_seq_length must be >= 2 ([CLS] and a token), got {max_seq_length}.")
    if dupe_factor < 1:
        raise ValueError(f"dupe_factor must be >= 1, got {dupe_factor}.")
    documents = [[token for sentence in doc for token in sentence] for doc in documents]
    documents = [doc for doc in documents if doc]
    row_length = max_seq_length - 1
    instances = []
    for _ in range(dupe_factor):
        order = list(range(len(documents)))
        rng.shuffle(order)
        stream = []
        for index in order:
            stream.extend(documents[index])
            stream.append(sep_token_id)
        for start in range(0, len(stream) - row_length + 1, row_length):
            row = [cls_token_id, *stream[start:start + row_length]]
            masked, positions, labels = masker(row, rng)
            instances.append(TrainingInstance(
                token_ids=tuple(masked), segment_ids=(0,) * max_seq_length, is_random_next=None,
                masked_lm_positions=tuple(positions), masked_lm_labels=tuple(labels),
            ))
    if not instances:
        raise ValueError(
            f"The documents hold fewer than {row_length} tokens: not one packed row of "
            f"max_seq_length={max_seq_length}. Give more text or a shorter `max_seq_length`."
        )
    rng.shuffle(instances)
    return instances


def instance_features(instance, max_seq_length, max_predictions_per_seq):
    """google-research/bert's feature lists for one instance, zero-padded to the fixed lengths.

    Returns `{input_ids, input_mask, segment_ids, masked_lm_positions, masked_lm_ids,
    masked_lm_weights, next_sentence_labels}` (lists; padded prediction slots get weight 0, so
    they add nothing to the loss; a packed row has no `next_sentence_labels`). The TFRecord
    writer and `pack_pretraining_instances` share it.
    """
    if len(instance.token_ids) > max_seq_length:
        raise ValueError(
            f"An instance has {len(instance.token_ids)} tokens, more than max_seq_length="
            f"{max_seq_length}; create instances with the same max_seq_length."
        )
    if len(instance.masked_lm_positions) > max_predictions_per_seq:
        raise ValueError(
            f"An instance has {len(instance.masked_lm_positions)} masked positions, more than "
            f"max_predictions_per_seq={max_predictions_per_seq}."
        )

    def padded(values, length):
        return list(values) + [0] * (length - len(values))

    num_predictions = len(instance.masked_lm_positions)
    features = {
        "input_ids": padded(instance.token_ids, max_seq_length),
        "input_mask": padded([1] * len(instance.token_ids), max_seq_length),
        "segment_ids": padded(instance.segment_ids, max_seq_length),
        "masked_lm_positions": padded(instance.masked_lm_positions, max_predictions_per_seq),
        "masked_lm_ids": padded(instance.masked_lm_labels, max_predictions_per_seq),
        "masked_lm_weights": padded([1.0] * num_predictions, max_predictions_per_seq),
    }
    if instance.is_random_next is not None:
        features["next_sentence_labels"] = [int(instance.is_random_next)]
    return features


@keras_bert_export("keras_bert.data.pack_pretraining_instances")
def pack_pretraining_instances(instances, max_seq_length, max_predictions_per_seq):
    """Pretraining instances as numpy batches, without TensorFlow or TFRecords.

    Returns `(inputs, labels)` with the names and dtypes that reading the TFRecords gives
    (`parse_pretraining_batch`): `inputs` `token_ids`, `segment_ids`, `padding_mask` `[N, L]`
    and `mask_positions` `[N, P]` (int32); `labels` `masked_lm_ids` `[N, P]` (int32),
    `masked_lm_weights` `[N, P]` (float32), `next_sentence_labels` `[N]` (int32; not for packed
    rows, `create_packed_instances`). With Keras
    `fit` on any backend (`instances` from `create_training_instances`):

        inputs, labels = keras_bert.data.pack_pretraining_instances(instances, 128, 20)
        pretrainer.fit(inputs, {"mlm_logits": labels["masked_lm_ids"],
                                "nsp_logits": labels["next_sentence_labels"]},
                       sample_weight={"mlm_logits": labels["masked_lm_weights"],
                                      "nsp_logits": np.ones(len(inputs["token_ids"]))})
    """
    import numpy as np

    rows = [instance_features(i, max_seq_length, max_predictions_per_seq) for i in instances]
    if not rows:
        raise ValueError("No pretraining instances to pack: create some from at least 2 documents.")
    column = lambda name, dtype: np.asarray([r[name] for r in rows], dtype)  # noqa: E731
    inputs = {
        "token_ids": column("input_ids", "int32"),
        "segment_ids": column("segment_ids", "int32"),
        "padding_mask": column("input_mask", "int32"),
        "mask_positions": column("masked_lm_positions", "int32"),
    }
    labels = {
        "masked_lm_ids": column("masked_lm_ids", "int32"),
        "masked_lm_weights": column("masked_lm_weights", "float32"),
    }
    with_labels = {"next_sentence_labels" in r for r in rows}
    if len(with_labels) > 1:
        raise ValueError("Sentence pairs and packed rows cannot be mixed in one set of instances.")
    if with_labels.pop():
        labels["next_sentence_labels"] = column("next_sentence_labels", "int32")[:, 0]
    return inputs, labels
