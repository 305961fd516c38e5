"""Every TFLite variant of one model, each with the vocabulary (and labels) in its metadata."""

import os

import keras_bert

from keras_bert.export.task import task_kind as kinds
from keras_bert.export.tflite.conversion import convert_model, write_atomically
from keras_bert.export.tflite.metadata import add_metadata
from keras_bert.export.tflite.variant_names import QUANTIZATIONS
from keras_bert.export.tflite.variant_names import VARIANTS

# Every variant: the post-training conversions, and full int8 after QAT fine-tuning.

_DESCRIPTIONS = {
    kinds.QUESTION_ANSWERING: "BERT extractive question answering (SQuAD): start and end logits.",
    kinds.CLASSIFICATION: "BERT sentence classifier: one logit per label.",
    kinds.TOKEN_CLASSIFICATION: "BERT token classifier (NER): logits per WordPiece position.",
}


def export_tflite_variants(
    model, out_dir, name, sequence_length, variants, vocab_file, labels=None,
    representative_inputs=None, qat_model=None,
):
    """Writes `<out_dir>/<name>_<variant>.tflite` for each variant; returns `{variant: path}`.

    Variants are `VARIANTS`: `variant_names.QUANTIZATIONS` and `qat_int8`, which is
    `qat_model` (a trained `quantize_aware` model of `model`, see
    `keras_bert.export.quantization.qat_training`) converted to full int8.

    Each file carries TFLite Metadata (Task Library conventions): a BERT tokenizer process unit
    with `vocab.txt` and, for classifiers, `labels.txt`, so an app cannot pair a model with
    the wrong vocabulary. The QA model must have `sequence_length=384`, the size the TFLite
    BERT QA example and `BertQuestionAnswerer` use.
    """
    kind = kinds.task_kind(model)
    if kind == kinds.QUESTION_ANSWERING and sequence_length != 384:
        raise ValueError(
            f"sequence_length={sequence_length}: the on-device QA contract (TFLite BERT QA "
            "example, Task Library BertQuestionAnswerer) is [1, 384]."
        )
    if "qat_int8" in variants and qat_model is None:
        raise ValueError("The qat_int8 variant needs qat_model (keras_bert.export.quantization.qat_training).")
    paths = {}
    for variant in variants:
        path = os.path.join(out_dir, f"{name}_{variant}.tflite")
        # Converted and given its metadata in memory, then written once: a kill between two
        # writes must never leave a model without its metadata recorded as whole.
        if variant == "qat_int8":
            plain = convert_model(qat_model, sequence_length, "full_int8", representative_inputs)
        else:
            plain = convert_model(model, sequence_length, variant, representative_inputs)
        with_metadata = add_metadata(
            plain,
            name=f"{name} ({variant})",
            description=_DESCRIPTIONS[kind],
            version=keras_bert.__version__,
            author="keras_bert",
            license="Apache-2.0",
            vocab_file=vocab_file,
            labels=labels if kind != kinds.QUESTION_ANSWERING else None,
        )
        write_atomically(path, with_metadata)
        paths[variant] = path
    return paths
