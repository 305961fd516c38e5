"""TFRecord files of pretraining instances, with google-research/bert's feature names."""

import collections
import os

import numpy as np
import tensorflow as tf

from keras_bert.api_export import keras_bert_export
from keras_bert.atomic_files import atomic_paths
from keras_bert.data.pretraining.instances import instance_features

# Feature name -> (dtype, length key). The names and layout are google-research/bert's, so
# records from its create_pretraining_data.py are read here and ours are read there. Packed rows
# (`create_packed_instances`) have no next_sentence_labels.
FEATURES = {
    "input_ids": (tf.int64, "max_seq_length"),
    "input_mask": (tf.int64, "max_seq_length"),
    "segment_ids": (tf.int64, "max_seq_length"),
    "masked_lm_positions": (tf.int64, "max_predictions_per_seq"),
    "masked_lm_ids": (tf.int64, "max_predictions_per_seq"),
    "masked_lm_weights": (tf.float32, "max_predictions_per_seq"),
    "next_sentence_labels": (tf.int64, None),
}

RecordSummary = collections.namedtuple(
    "RecordSummary", ["files", "instances", "tokens", "masked_tokens", "is_next_fraction"]
)


def instance_to_example(instance, max_seq_length, max_predictions_per_seq):
    """A `tf.train.Example` for one `TrainingInstance`, zero-padded to the fixed lengths."""
    features = instance_features(instance, max_seq_length, max_predictions_per_seq)
    ints = lambda v: tf.train.Feature(int64_list=tf.train.Int64List(value=v))  # noqa: E731
    floats = lambda v: tf.train.Feature(float_list=tf.train.FloatList(value=v))  # noqa: E731
    return tf.train.Example(features=tf.train.Features(feature={
        name: (floats if FEATURES[name][0] == tf.float32 else ints)(value)
        for name, value in features.items()
    }))


def shard_paths(output_file, num_shards):
    """`output_file` as a comma list (google's form), or split into `num_shards` numbered files."""
    paths = [p.strip() for p in output_file.split(",") if p.strip()]
    if num_shards > 1:
        if len(paths) != 1:
            raise ValueError("Give one `output_file` path when asking for several shards.")
        paths = [f"{paths[0]}-{i:05d}-of-{num_shards:05d}" for i in range(num_shards)]
    return paths


@keras_bert_export("keras_bert.data.write_pretraining_records")
def write_pretraining_records(
    instances, paths, max_seq_length, max_predictions_per_seq, progress=None
):
    """Writes instances round-robin over the TFRecord files `paths`. Returns a `RecordSummary`.

    Args:
        instances: iterable of `TrainingInstance`.
        paths: list of str output files (their folders are created).
        max_seq_length, max_predictions_per_seq: int, the padded lengths.
        progress: optional callable `progress(num_written)`, called every 1,000 instances.
    """
    for path in paths:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    count = tokens = masked = is_next = packed = 0
    # The files take their names only when every one is complete (atomic_paths).
    with atomic_paths(paths) as temporary:
        writers = [tf.io.TFRecordWriter(path) for path in temporary]
        try:
            for count, instance in enumerate(instances, start=1):
                example = instance_to_example(instance, max_seq_length, max_predictions_per_seq)
                writers[(count - 1) % len(writers)].write(example.SerializeToString())
                tokens += len(instance.token_ids)
                masked += len(instance.masked_lm_positions)
                if instance.is_random_next is None:
                    packed += 1
                else:
                    is_next += not instance.is_random_next
                if progress and count % 1000 == 0:
                    progress(count)
        finally:
            for writer in writers:
                writer.close()
    return RecordSummary(
        files=list(paths),
        instances=count,
        tokens=tokens,
        masked_tokens=masked,
        is_next_fraction=None if packed else is_next / max(count, 1),
    )


def feature_spec(max_seq_length, max_predictions_per_seq, next_sentence=True):
    """`tf.io.parse_example` spec for the pretraining features (`next_sentence=False`: packed
    rows, without next_sentence_labels)."""
    lengths = {"max_seq_length": max_seq_length, "max_predictions_per_seq": max_predictions_per_seq}
    return {
        name: tf.io.FixedLenFeature([lengths[key] if key else 1], dtype)
        for name, (dtype, key) in FEATURES.items()
        if next_sentence or name != "next_sentence_labels"
    }


@keras_bert_export("keras_bert.data.check_pretraining_records")
def check_pretraining_records(paths, max_seq_length, max_predictions_per_seq):
    """Reads the first record of each file and checks names and lengths of its features.

    Raises a `ValueError` naming the file, the missing or mis-sized feature, and the flags to
    change, instead of failing later inside the training graph. Returns whether the records
    carry next-sentence labels (`False` for packed rows; every file must agree).
    """
    kinds = {}
    for path in paths:
        try:
            first = next(iter(tf.data.TFRecordDataset(path).take(1)), None)
        except tf.errors.DataLossError as e:
            raise ValueError(f"{path} is not a TFRecord file ({e.message.splitlines()[0]}).") from None
        if first is None:
            raise ValueError(f"{path} holds no records; re-create it with create_pretraining_data.")
        try:
            example = tf.train.Example.FromString(first.numpy())
        except Exception:  # noqa: BLE001  (protobuf raises its own DecodeError)
            raise ValueError(f"{path} does not hold tf.train.Example records.") from None
        found = example.features.feature
        kinds[path] = "next_sentence_labels" in found
        missing = [name for name in FEATURES if name not in found and name != "next_sentence_labels"]
        if missing:
            raise ValueError(
                f"{path} lacks the pretraining feature(s) {missing} (it has {sorted(found)}). "
                "Pretraining records need input_ids, input_mask, segment_ids, "
                "masked_lm_positions, masked_lm_ids, masked_lm_weights and (for sentence pairs) "
                "next_sentence_labels, as written by create_pretraining_data."
            )
        spec = feature_spec(max_seq_length, max_predictions_per_seq, kinds[path])
        for name, value in spec.items():
            feature = found[name]
            size = len(feature.float_list.value) + len(feature.int64_list.value)
            if size != value.shape[0]:
                argument = FEATURES[name][1]  # max_seq_length or max_predictions_per_seq
                raise ValueError(
                    f"{path}: feature {name} has length {size}, but `{argument}` gives "
                    f"{value.shape[0]}. Pass the values the records were created with."
                )
    if len(set(kinds.values())) > 1:
        pairs = [p for p, k in kinds.items() if k]
        packed = [p for p, k in kinds.items() if not k]
        raise ValueError(
            f"Sentence-pair records ({pairs[0]}) and packed records without next-sentence labels "
            f"({packed[0]}) cannot be read together: pass files of one kind."
        )
    return all(kinds.values())


def max_token_id(paths, records_per_file=100):
    """The largest token id in the first `records_per_file` records of each file (`input_ids`
    and `masked_lm_ids`), and the file that holds it: `(id, path)`. A cheap look at what
    vocabulary the records were made with, before a model with a smaller one trains on them
    (an id past its embeddings fails deep in the training step, or on a GPU is not noticed)."""
    largest, where = -1, None
    for path in paths:
        for record in tf.data.TFRecordDataset(path).take(records_per_file):
            found = tf.train.Example.FromString(record.numpy()).features.feature
            ids = [max(found[name].int64_list.value, default=-1)
                   for name in ("input_ids", "masked_lm_ids") if name in found]
            if max(ids, default=-1) > largest:
                largest, where = max(ids), path
    return largest, where


def parse_pretraining_batch(serialized, max_seq_length, max_predictions_per_seq,
                            next_sentence=True):
    """Parses a batch of records into int32 model inputs and labels (int64 on disk).

    Returns `(inputs, labels)`: `inputs` holds `token_ids`, `segment_ids`, `padding_mask`,
    `mask_positions`; `labels` holds `masked_lm_ids`, `masked_lm_weights` and, unless
    `next_sentence=False` (packed rows), `next_sentence_labels` (`[batch]`).
    """
    parsed = tf.io.parse_example(
        serialized, feature_spec(max_seq_length, max_predictions_per_seq, next_sentence))
    # TFRecords only store int64; the model (and TPUs) want int32.
    as_int32 = {k: tf.cast(v, tf.int32) for k, v in parsed.items() if v.dtype == tf.int64}
    inputs = {
        "token_ids": as_int32["input_ids"],
        "segment_ids": as_int32["segment_ids"],
        "padding_mask": as_int32["input_mask"],
        "mask_positions": as_int32["masked_lm_positions"],
    }
    labels = {
        "masked_lm_ids": as_int32["masked_lm_ids"],
        "masked_lm_weights": parsed["masked_lm_weights"],
    }
    if next_sentence:
        labels["next_sentence_labels"] = as_int32["next_sentence_labels"][:, 0]
    return inputs, labels


def read_records(path, max_seq_length, max_predictions_per_seq):
    """All records of one file as a dict of NumPy arrays (for tests and inspection)."""
    next_sentence = check_pretraining_records([path], max_seq_length, max_predictions_per_seq)
    dataset = tf.data.TFRecordDataset(path).batch(1 << 30)
    serialized = next(iter(dataset))
    parsed = tf.io.parse_example(
        serialized, feature_spec(max_seq_length, max_predictions_per_seq, next_sentence))
    return {k: np.asarray(v) for k, v in parsed.items()}
