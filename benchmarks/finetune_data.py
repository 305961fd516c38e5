"""Real variable-length fine-tuning data for the benchmarks: SST-2 sentences, SQuAD windows.

Read from the project's shared data folder (`--data_dir`, see ../shared/data/MANIFEST.md), a
seeded sample, tokenized with bert-base-uncased's vocabulary as a user's run would.
"""

import gzip
import os

import numpy as np

VOCAB = "vocab/bert-base-uncased-vocab.txt"


def _existing(data_dir, relative):
    path = os.path.join(data_dir, relative)
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"{path} not found: the fine-tuning suite reads SST-2 and SQuAD from --data_dir "
            "(the layout of ../shared/data, see its MANIFEST.md)."
        )
    return path


def sst2(data_dir, num_examples, max_seq_length=128, seed=0):
    """`(inputs, labels)`: `num_examples` SST-2 train sentences packed to `max_seq_length`, as
    the sst-2 task (`keras_bert.tasks`) encodes them."""
    import keras_bert

    task = keras_bert.tasks.get_task("sst-2", max_seq_length=max_seq_length)
    examples = task.read(_existing(data_dir, "glue/SST-2/train.tsv.gz"))
    order = np.random.default_rng(seed).permutation(len(examples))[:num_examples]
    tokenizer = keras_bert.ReferenceTokenizer(_existing(data_dir, VOCAB), do_lower_case=True)
    data = task.encode(task.subset(examples, order), tokenizer)
    return data.inputs, data.targets[0]


def squad(data_dir, num_windows, max_seq_length=384, seed=0):
    """`(inputs, labels)`: `num_windows` training windows (doc stride 128) of a seeded sample of
    the reconstructed SQuAD v1.1 train questions, as the squad task encodes them; labels
    `{start_logits, end_logits}`."""
    import keras_bert

    task = keras_bert.tasks.QuestionAnsweringTask(max_seq_length=max_seq_length)
    examples = task.read(_existing(data_dir, "squad/train-v1.1-reconstructed.json.gz"),
                         training=True)
    order = np.random.default_rng(seed).permutation(len(examples))[:num_windows]
    tokenizer = keras_bert.ReferenceTokenizer(_existing(data_dir, VOCAB), do_lower_case=True)
    data = task.encode(task.subset(examples, order), tokenizer, training=True)
    keep = slice(0, num_windows)
    inputs = {k: v[keep] for k, v in data.inputs.items()}
    labels = {k: v[keep] for k, v in data.targets[0].items()}
    return inputs, labels


def padded_batches(inputs, labels, batch_size, seed=0):
    """Random batches, each padded to the full `max_seq_length` (what a fixed-shape input
    pipeline feeds); the remainder is dropped."""
    order = np.random.default_rng(seed).permutation(len(inputs["token_ids"]))
    return [_take(inputs, labels, order[i : i + batch_size])
            for i in range(0, len(order) - batch_size + 1, batch_size)]


def trimmed_batches(inputs, labels, batch_size, grouped, pad_to_multiple_of=1, seed=0):
    """Batches cut to their longest row (`keras_bert.data.trim_batch_padding`), the length
    rounded up to `pad_to_multiple_of`. `grouped`: batches of similar length, as keras_bert's
    fine-tuning CLIs build them (`length_grouped_dataset`); else random batches, as HF's
    `DataCollatorWithPadding` pads them."""
    import tensorflow as tf

    from keras_bert.data.batch_trimming import trim_batch_padding
    from keras_bert.data.tf_length_grouping import length_grouped_dataset

    num_batches = len(inputs["token_ids"]) // batch_size
    if grouped:
        dataset = length_grouped_dataset(
            inputs, (labels,), batch_size, num_batches, seed, pad_to_multiple_of=pad_to_multiple_of
        )
    else:
        order = np.random.default_rng(seed).permutation(len(inputs["token_ids"]))
        shuffled = _take(inputs, labels, order)
        dataset = (
            tf.data.Dataset.from_tensor_slices(shuffled)
            .batch(batch_size, drop_remainder=True)
            .map(lambda x, y: trim_batch_padding(x, y, pad_to_multiple_of=pad_to_multiple_of))
        )
    return [
        tf.nest.map_structure(lambda t: t.numpy(), (batch[0], batch[1]))
        for batch in dataset.take(num_batches)
    ]


def _take(inputs, labels, rows):
    take = lambda v: v[rows]  # noqa: E731
    labels = {k: take(v) for k, v in labels.items()} if isinstance(labels, dict) else take(labels)
    return {k: take(v) for k, v in inputs.items()}, labels
