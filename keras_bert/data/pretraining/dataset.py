"""`tf.data` input pipeline over pretraining TFRecords, per input pipeline for tf.distribute."""

import os

import tensorflow as tf

from keras_bert.api_export import keras_bert_export
from keras_bert.data.pretraining.records import check_pretraining_records
from keras_bert.data.pretraining.records import parse_pretraining_batch


def expand_input_files(input_file):
    """google's `input_file`: comma-separated paths or glob patterns -> sorted file list."""
    patterns = [p.strip() for p in input_file.split(",") if p.strip()] if isinstance(
        input_file, str
    ) else list(input_file)
    files = []
    for pattern in patterns:
        matched = sorted(tf.io.gfile.glob(pattern))
        if not matched:
            raise FileNotFoundError(f"`input_file`: no file matches {pattern!r}.")
        folders = [path for path in matched if tf.io.gfile.isdir(path)]
        if folders:
            raise ValueError(f"`input_file` {folders[0]} is a folder, not a file: pass the files "
                             f"in it (a pattern such as {os.path.join(folders[0], '*')}).")
        files.extend(matched)
    return files


@keras_bert_export("keras_bert.data.pretraining_dataset")
def pretraining_dataset(
    input_files,
    batch_size,
    max_seq_length,
    max_predictions_per_seq,
    is_training=True,
    seed=0,
    shuffle_buffer_size=10_000,
    input_context=None,
    masker=None,
    start_batch=0,
):
    """Batches of `(inputs, labels)` for `BertPretrainer` from google-format pretraining records.

    Args:
        input_files: list of TFRecord paths (or a comma/glob string). Each file's first record is
            checked for the expected features and lengths first.
        batch_size: int, the batch size of this input pipeline (the per-replica batch times the
            replicas it feeds).
        max_seq_length, max_predictions_per_seq: int, as the records were created.
        is_training: bool. Training repeats forever, shuffles with `seed` and drops the last
            partial batch; evaluation reads each record once, in order.
        seed: int, for the file and record shuffles (and `masker`'s masks).
        shuffle_buffer_size: int. Defaults to 10,000.
        input_context: a `tf.distribute.InputContext`, or `None`. With several input pipelines
            (hosts), each reads whole files when there are at least as many files as pipelines,
            else every N-th record of the shared, identically shuffled stream, so the union of
            the pipelines' batches at a step is the global batch one pipeline would have read.
        masker: a `DynamicMasker` to draw new masks per batch, or `None` for the stored ones.
        start_batch: int, batches of this pipeline to skip: where a resumed run left off. The
            order is a pure function of `seed`, so the resumed stream continues exactly (the
            skipped records are read, not parsed).

    Returns:
        A `tf.data.Dataset` of `(inputs, labels)` as `parse_pretraining_batch` returns them.
    """
    files = expand_input_files(input_files) if isinstance(input_files, str) else list(input_files)
    if not files:
        raise ValueError("pretraining_dataset needs at least one input file.")
    next_sentence = check_pretraining_records(files, max_seq_length, max_predictions_per_seq)
    pipelines = input_context.num_input_pipelines if input_context else 1
    pipeline_id = input_context.input_pipeline_id if input_context else 0
    shard_files = pipelines > 1 and len(files) >= pipelines

    dataset = tf.data.Dataset.from_tensor_slices(files)
    if is_training:
        dataset = dataset.shuffle(len(files), seed=seed, reshuffle_each_iteration=False)
    if shard_files:
        dataset = dataset.shard(pipelines, pipeline_id)
    if is_training:
        dataset = dataset.repeat()
    dataset = dataset.interleave(
        tf.data.TFRecordDataset,
        cycle_length=min(len(files), 4),
        num_parallel_calls=tf.data.AUTOTUNE,
        deterministic=True,
    )
    if is_training and shuffle_buffer_size > 1:
        dataset = dataset.shuffle(shuffle_buffer_size, seed=seed)
    if pipelines > 1 and not shard_files:
        dataset = dataset.shard(pipelines, pipeline_id)
    dataset = dataset.batch(batch_size, drop_remainder=is_training)
    if start_batch:
        dataset = dataset.skip(start_batch)
    dataset = dataset.map(
        lambda records: parse_pretraining_batch(
            records, max_seq_length, max_predictions_per_seq, next_sentence),
        num_parallel_calls=tf.data.AUTOTUNE,
        deterministic=True,
    )
    if masker is not None:
        dataset = dataset.enumerate(start=start_batch).map(
            lambda index, batch: masker(index, *batch),
            num_parallel_calls=tf.data.AUTOTUNE,
            deterministic=True,
        )
    return dataset.prefetch(tf.data.AUTOTUNE)
