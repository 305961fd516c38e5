"""TFRecords with google-research/bert's features: round trip, google-written records, bad files."""

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data.pretraining.instances import TrainingInstance
from keras_bert.data.pretraining.records import check_pretraining_records
from keras_bert.data.pretraining.records import parse_pretraining_batch
from keras_bert.data.pretraining.records import read_records
from keras_bert.data.pretraining.records import shard_paths
from keras_bert.data.pretraining.records import write_pretraining_records

INSTANCE = TrainingInstance(
    token_ids=(2, 4, 7, 3, 9, 3), segment_ids=(0, 0, 0, 0, 1, 1), is_random_next=True,
    masked_lm_positions=(1, 4), masked_lm_labels=(6, 8),
)


def google_example(**overrides):
    """A record laid out as google-research/bert's create_pretraining_data.py writes it."""
    ints = lambda v: tf.train.Feature(int64_list=tf.train.Int64List(value=v))  # noqa: E731
    features = {
        "input_ids": ints([101, 103, 2003, 102, 2023, 102, 0, 0]),
        "input_mask": ints([1, 1, 1, 1, 1, 1, 0, 0]),
        "segment_ids": ints([0, 0, 0, 0, 1, 1, 0, 0]),
        "masked_lm_positions": ints([1, 0, 0]),
        "masked_lm_ids": ints([2023, 0, 0]),
        "masked_lm_weights": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 0.0, 0.0])),
        "next_sentence_labels": ints([0]),
    }
    features.update(overrides)
    for name in [k for k, v in features.items() if v is None]:
        del features[name]
    return tf.train.Example(features=tf.train.Features(feature=features)).SerializeToString()


def test_round_trip_with_original_feature_names(tmp_path):
    paths = shard_paths(str(tmp_path / "out.tfrecord"), 2)
    assert [p.rsplit("/", 1)[1] for p in paths] == ["out.tfrecord-00000-of-00002", "out.tfrecord-00001-of-00002"]
    summary = write_pretraining_records([INSTANCE] * 3, paths, 8, 3)
    assert (summary.instances, summary.tokens, summary.masked_tokens) == (3, 18, 6)
    records = read_records(paths[0], 8, 3)  # instances 0 and 2 (round-robin)
    assert set(records) == {"input_ids", "input_mask", "segment_ids", "masked_lm_positions",
                            "masked_lm_ids", "masked_lm_weights", "next_sentence_labels"}
    np.testing.assert_array_equal(records["input_ids"][0], [2, 4, 7, 3, 9, 3, 0, 0])
    np.testing.assert_array_equal(records["input_mask"][0], [1, 1, 1, 1, 1, 1, 0, 0])
    np.testing.assert_array_equal(records["masked_lm_positions"][0], [1, 4, 0])
    np.testing.assert_array_equal(records["masked_lm_weights"][0], [1.0, 1.0, 0.0])
    assert records["next_sentence_labels"].tolist() == [[1], [1]]


def test_google_written_records_parse_into_model_inputs(tmp_path):
    path = str(tmp_path / "google.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        writer.write(google_example())
    check_pretraining_records([path], 8, 3)
    inputs, labels = parse_pretraining_batch(tf.constant([google_example()]), 8, 3)
    assert {k: v.dtype for k, v in inputs.items()} == {k: tf.int32 for k in inputs}
    assert inputs["token_ids"].numpy().tolist() == [[101, 103, 2003, 102, 2023, 102, 0, 0]]
    assert labels["next_sentence_labels"].numpy().tolist() == [0]


def test_bad_record_files_name_the_file_and_the_fix(tmp_path):
    missing = str(tmp_path / "missing.tfrecord")
    with tf.io.TFRecordWriter(missing) as writer:
        writer.write(google_example(masked_lm_weights=None))
    with pytest.raises(ValueError, match=r"missing.tfrecord lacks the pretraining feature\(s\) \['masked_lm_weights'\]"):
        check_pretraining_records([missing], 8, 3)
    good = str(tmp_path / "good.tfrecord")
    with tf.io.TFRecordWriter(good) as writer:
        writer.write(google_example())
    with pytest.raises(ValueError, match="input_ids has length 8, but `max_seq_length` gives 16"):
        check_pretraining_records([good], 16, 3)
    empty = tmp_path / "empty.tfrecord"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="holds no records"):
        check_pretraining_records([str(empty)], 8, 3)
    text = tmp_path / "text.tfrecord"
    text.write_text("just some text that is not a record\n" * 3)
    with pytest.raises(ValueError, match="not a TFRecord file"):
        check_pretraining_records([str(text)], 8, 3)


PACKED = TrainingInstance(
    token_ids=(2, 4, 7, 3, 9, 10, 4, 11), segment_ids=(0,) * 8, is_random_next=None,
    masked_lm_positions=(2, 6), masked_lm_labels=(8, 5),
)


def test_packed_rows_have_no_next_sentence_feature_and_parse_without_it(tmp_path):
    from keras_bert.data.pretraining.instances import pack_pretraining_instances

    path = str(tmp_path / "packed.tfrecord")
    summary = write_pretraining_records([PACKED] * 2, [path], 8, 3)
    assert summary.is_next_fraction is None and summary.tokens == 16
    first = tf.train.Example.FromString(next(iter(tf.data.TFRecordDataset(path))).numpy())
    assert "next_sentence_labels" not in first.features.feature
    assert check_pretraining_records([path], 8, 3) is False
    records = read_records(path, 8, 3)
    assert "next_sentence_labels" not in records
    np.testing.assert_array_equal(records["input_mask"], np.ones((2, 8)))  # no padding
    serialized = next(iter(tf.data.TFRecordDataset(path).batch(2)))
    inputs, labels = parse_pretraining_batch(serialized, 8, 3, next_sentence=False)
    assert sorted(labels) == ["masked_lm_ids", "masked_lm_weights"]
    packed = pack_pretraining_instances([PACKED] * 2, 8, 3)  # the numpy path agrees
    for ours, theirs in zip(packed, (inputs, labels)):
        assert set(ours) == set(theirs)
        for name in ours:
            np.testing.assert_array_equal(ours[name], theirs[name].numpy())
    with pytest.raises(ValueError, match="cannot be mixed"):
        pack_pretraining_instances([PACKED, INSTANCE], 8, 3)


def test_pair_and_packed_files_are_not_read_together(tmp_path):
    pairs, packed = str(tmp_path / "pairs.tfrecord"), str(tmp_path / "packed.tfrecord")
    write_pretraining_records([INSTANCE], [pairs], 8, 3)
    write_pretraining_records([PACKED], [packed], 8, 3)
    assert check_pretraining_records([pairs], 8, 3) is True
    with pytest.raises(ValueError, match=r"pairs.tfrecord\) and packed records .*packed.tfrecord"):
        check_pretraining_records([pairs, packed], 8, 3)
