"""Fine-tuned keras_bert models -> TF Serving SavedModels in `<base>/<model_name>/<version>/`."""

import json
import os
import shutil
import tempfile

import keras
import keras_bert
import tensorflow as tf

from keras_bert.export.serving.classifier_signature import add_classifier_text_endpoint
from keras_bert.export.serving.serving_warmup import write_warmup_requests
from keras_bert.export.serving.squad_signature import squad_text_function
from keras_bert.export.serving.token_classifier_signature import add_token_classifier_text_endpoint
from keras_bert.export.task import task_kind as kinds
from keras_bert.export.task.signature_names import EXPORT_INPUTS, exported_outputs, model_inputs
from keras_bert import integrity

# The signature TF Serving uses when a request names none; int32 ids work in any TF Serving build.
DEFAULT_SIGNATURE = "serving_default"
# Strings in, answers out; needs TensorFlow Text ops in the serving binary.
TEXT_SIGNATURE = "serve_text"
EXPORT_INFO = "keras_bert_export.json"


def export_saved_model(
    model,
    export_base,
    model_name,
    vocab_file,
    max_seq_length,
    do_lower_case=True,
    labels=None,
    text_pair=False,
    version=None,
    text_signature=True,
    squad_options=None,
    jit_compile=False,
    overwrite=False,
):
    """Writes `model` as `<export_base>/<model_name>/<version>/`, TF Serving's layout.

    Signatures:
    - `serving_default`: int32 `ids`, `mask`, `segment_ids` `[batch, seq]` (any `seq` up to the
      model's `max_position_embeddings`) -> `start_logits` / `end_logits` (QA) or `logits`
      (and `probabilities` for classifiers). Works in any TF Serving build.
    - `serve_text` (unless `text_signature=False`): raw strings in, with the WordPiece
      tokenizer in the graph and `vocab.txt` (plus `labels.txt`) as assets. QA takes
      `question` / `context` and returns the answer text (sliding windows over long
      contexts, as `run_squad.py`); classifiers take `text_a` (and `text_b` for pairs) and
      return `label`; token classifiers take `text` and return per-word `labels`.

    `assets.extra/tf_serving_warmup_requests` holds one request per signature (TF Serving
    runs them as the version loads); `assets.extra/keras_bert_export.json` records the task,
    lengths, `do_lower_case`, labels, signatures and the bert_config.
    Everything is written to a temporary directory next to the target and renamed into place
    at the end, so TF Serving (which polls for new numeric versions) never sees a partial
    export, and a failure leaves nothing behind.

    Args:
        model: a fine-tuned `BertQuestionAnswerer`, `BertClassifier` or `BertTokenClassifier`.
        export_base: str, the directory TF Serving's `--model_base_path` points at the parent
            of (models live in `<export_base>/<model_name>`).
        model_name: str, TF Serving's model name.
        vocab_file: str, the model's `vocab.txt`.
        max_seq_length: int, the text signature's sequence length (QA: window length).
        do_lower_case: bool, lower-case and strip accents (google's name); match the model.
        labels: list of str, class names in class-id order (classifiers, token classifiers).
        text_pair: bool, the classifier's text signature takes `text_a` and `text_b`.
        version: int, the version directory; defaults to one more than the newest there.
        text_signature: bool, add `serve_text`.
        squad_options: dict of extra `squad_text_function` arguments (`doc_stride`,
            `max_query_length`, `n_best_size`, `max_answer_length`).
        jit_compile: bool, XLA-compile the model inside `serving_default` (the input checks
            stay outside). Faster per request on the CPU, but every new `[batch, seq]` shape
            compiles once (seconds), so use it where clients send a few fixed shapes (padding
            to `max_seq_length`, as the apps do). Defaults to `False`.
        overwrite: bool, replace an existing `version` (the new one is written whole first, then
            takes its place). Defaults to `False`: an existing version is refused.

    Returns:
        str, the version directory written.
    """
    kind = kinds.task_kind(model)
    encoder = model.encoder
    _check_length(max_seq_length, encoder, kind, squad_options or {})
    labels = _check_labels(labels, model, kind)
    vocab = keras_bert.load_vocabulary(vocab_file)
    if len(vocab) != encoder.vocab_size:
        raise ValueError(
            f"{vocab_file} has {len(vocab)} tokens but the model's vocab_size is "
            f"{encoder.vocab_size}: pass the vocab.txt the model was trained with."
        )
    model_dir = os.path.join(os.fspath(export_base), model_name)
    os.makedirs(model_dir, exist_ok=True)
    version = _next_version(model_dir) if version is None else int(version)
    final_dir = os.path.join(model_dir, str(version))
    if os.path.exists(final_dir) and not overwrite:
        raise FileExistsError(
            f"{final_dir} already exists; TF Serving versions are immutable. Pass a new version "
            "(or none, for the next free one), or overwrite=True to replace it."
        )

    staging = tempfile.mkdtemp(prefix=f".tmp-{version}-", dir=model_dir)
    try:
        sources = os.path.join(staging, "sources")  # copied into assets/ by the saver
        os.makedirs(sources)
        vocab_copy = os.path.join(sources, "vocab.txt")
        keras_bert.write_vocabulary(vocab, vocab_copy)
        labels_copy = None
        if labels is not None:
            labels_copy = os.path.join(sources, "labels.txt")
            with open(labels_copy, "w", encoding="utf-8") as f:
                f.write("".join(label + "\n" for label in labels))

        archive = keras.export.ExportArchive()
        archive.track(model)
        _add_ids_endpoint(archive, model, kind, jit_compile)
        if text_signature:
            _add_text_endpoint(
                archive, model, kind, vocab_copy, labels_copy, max_seq_length, do_lower_case,
                text_pair, squad_options or {},
            )
        target = os.path.join(staging, "model")
        write_archive(archive, target)
        info = {
            "task": kind,
            "max_seq_length": max_seq_length,
            "do_lower_case": do_lower_case,
            "labels": labels,
            "text_pair": text_pair if kind == kinds.CLASSIFICATION else None,
            "signatures": [DEFAULT_SIGNATURE] + ([TEXT_SIGNATURE] if text_signature else []),
            "squad_options": squad_options or None,
            "bert_config": encoder.bert_config.to_dict(),
            "keras_bert_version": keras_bert.__version__,
        }
        write_warmup_requests(
            target, _warmup_requests(kind, vocab_copy, max_seq_length, do_lower_case, text_pair,
                                     text_signature),
            model_name=model_name,
        )
        with open(os.path.join(target, "assets.extra", EXPORT_INFO), "w") as f:
            json.dump(info, f, indent=1)
        # Every file of the version, for the stand-in's check on load (and `sha256sum -c`).
        integrity.write_manifest(target, sorted(os.listdir(target)))
        if os.path.exists(final_dir):  # overwrite: the old version leaves with the staging folder
            os.rename(final_dir, os.path.join(staging, "replaced"))
        os.rename(target, final_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return final_dir


# Served once by TF Serving as each version loads, so the first client request does not pay for
# graph initialization (TF Serving's SavedModel warmup).
_WARMUP_TEXT = {
    kinds.QUESTION_ANSWERING: {
        "question": ["Where do exported models run?"],
        "context": ["Exported keras_bert models run behind TF Serving and on Android phones."],
    },
    kinds.CLASSIFICATION: {"text_a": ["A short warmup sentence."]},
    kinds.TOKEN_CLASSIFICATION: {"text": ["A warmup request from Berlin ."]},
}


def _warmup_requests(kind, vocab_file, max_seq_length, do_lower_case, text_pair,
                     text_signature):
    texts = dict(_WARMUP_TEXT[kind])
    if kind == kinds.CLASSIFICATION and text_pair:
        texts["text_b"] = ["And its partner sentence."]
    preprocessor = keras_bert.BertPreprocessor(
        vocab_file, max_seq_length, do_lower_case=do_lower_case
    )
    first = next(iter(texts.values()))
    ids = {k: v.numpy() for k, v in preprocessor(first).items()}
    requests = [{"signature_name": DEFAULT_SIGNATURE, "inputs": {
        "ids": ids["token_ids"], "mask": ids["padding_mask"], "segment_ids": ids["segment_ids"]}}]
    if text_signature:
        requests.append({"signature_name": TEXT_SIGNATURE, "inputs": texts})
    return requests


def write_archive(archive, directory):
    """`archive.write_out(directory)`, storing each weight once.

    Keras 3.15's ExportArchive saves every weight twice, as the `keras.Variable` wrappers that
    `track()` collects and as the `tf.Variable`s the endpoints capture (keras-team/keras#23553:
    2x the files and 2x the variable memory in TF Serving). The endpoints only read the
    captured ones, so the wrapper collections are emptied before writing; the signatures are
    unaffected (tests compare them with Keras, and check the stored value count).
    """
    trackable = archive._tf_trackable
    if all(hasattr(trackable, name) for name in
           ("variables", "trainable_variables", "non_trainable_variables")):
        trackable.variables = []
        trackable.trainable_variables = []
        trackable.non_trainable_variables = []
    archive.write_out(directory, verbose=False)


def _next_version(model_dir):
    versions = [int(name) for name in os.listdir(model_dir) if name.isdigit()]
    return max(versions, default=0) + 1


def _check_length(max_seq_length, encoder, kind, squad_options):
    limit = encoder.max_position_embeddings
    floor = 3
    if kind == kinds.QUESTION_ANSWERING:
        # [CLS] question [SEP] at least one context token [SEP]
        floor = squad_options.get("max_query_length", 64) + 4
    if not isinstance(max_seq_length, int) or not floor <= max_seq_length <= limit:
        raise ValueError(
            f"max_seq_length={max_seq_length!r}: this model takes sequences of {floor} to {limit} "
            f"tokens (max_position_embeddings={limit}"
            + (", and a QA window must hold the question" if kind == kinds.QUESTION_ANSWERING else "")
            + ")."
        )


def _check_labels(labels, model, kind):
    if kind == kinds.QUESTION_ANSWERING:
        if labels:
            raise ValueError("A question-answering model has no labels; do not pass labels.")
        return None
    if not labels:
        raise ValueError(
            f"Exporting a {type(model).__name__} needs its labels (class names in class-id "
            f"order, {model.num_classes} of them)."
        )
    labels = [str(label) for label in labels]
    if len(labels) != model.num_classes:
        raise ValueError(
            f"{len(labels)} labels {labels} for a model with {model.num_classes} classes."
        )
    bad = [label for label in labels if not label or "\n" in label]
    if bad or len(set(labels)) != len(labels):
        raise ValueError(f"Labels must be distinct, non-empty and single-line; got {labels}.")
    return labels


def _add_ids_endpoint(archive, model, kind, jit_compile=False):
    encoder = model.encoder

    def run_model(inputs):
        return model(inputs, training=False)

    if jit_compile:
        run_model = tf.function(run_model, jit_compile=True)

    def serving_default(ids, mask, segment_ids):
        checks = [
            tf.debugging.assert_equal(
                tf.shape(ids), tf.shape(mask), message="ids and mask must have the same shape."
            ),
            tf.debugging.assert_equal(
                tf.shape(ids), tf.shape(segment_ids),
                message="ids and segment_ids must have the same shape.",
            ),
            tf.debugging.assert_less_equal(
                tf.shape(ids)[1], encoder.max_position_embeddings,
                message=f"Sequences are longer than the model's max_position_embeddings "
                f"({encoder.max_position_embeddings}).",
            ),
            tf.debugging.assert_non_negative(ids, message="ids must be >= 0."),
            tf.debugging.assert_less(
                ids, encoder.vocab_size,
                message=f"ids must be < vocab_size ({encoder.vocab_size}).",
            ),
            tf.debugging.assert_less(
                segment_ids, encoder.type_vocab_size,
                message=f"segment_ids must be < type_vocab_size ({encoder.type_vocab_size}).",
            ),
        ]
        with tf.control_dependencies(checks):  # the checks run before any model op reads them
            ids, mask, segment_ids = (tf.identity(t) for t in (ids, mask, segment_ids))
        inputs = model_inputs({"ids": ids, "mask": mask, "segment_ids": segment_ids})
        outputs = exported_outputs(run_model(inputs))
        if kind == kinds.CLASSIFICATION:
            outputs["probabilities"] = tf.nn.softmax(outputs["logits"], axis=-1)
        return outputs

    archive.add_endpoint(
        DEFAULT_SIGNATURE,
        serving_default,
        input_signature=[tf.TensorSpec([None, None], tf.int32, name=n) for n in EXPORT_INPUTS],
    )


def _add_text_endpoint(
    archive, model, kind, vocab_file, labels_file, max_seq_length, do_lower_case, text_pair,
    squad_options,
):
    if kind == kinds.CLASSIFICATION:
        add_classifier_text_endpoint(
            archive, model, vocab_file, labels_file, max_seq_length, do_lower_case, text_pair,
            name=TEXT_SIGNATURE,
        )
    elif kind == kinds.TOKEN_CLASSIFICATION:
        add_token_classifier_text_endpoint(
            archive, model, vocab_file, labels_file, max_seq_length, do_lower_case,
            name=TEXT_SIGNATURE,
        )
    else:
        serve = squad_text_function(
            model, vocab_file, do_lower_case=do_lower_case, max_seq_length=max_seq_length,
            **squad_options,
        )
        archive.track(serve)
        archive.add_endpoint(
            TEXT_SIGNATURE,
            serve,
            input_signature=[
                tf.TensorSpec([None], tf.string, name="question"),
                tf.TensorSpec([None], tf.string, name="context"),
            ],
        )
