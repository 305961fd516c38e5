"""Exports a fine-tuned model to TF Serving and TFLite, and verifies every variant on real data.

    python -m keras_bert.export.cli --task_name=squad --init_checkpoint=runs/squad_minilm/out \
        --export_dir=exports --model_name=squad_minilm --max_seq_length=384 \
        --calibration_file=../shared/data/squad/train-v1.1-reconstructed.json.gz \
        --verify --predict_file=../shared/data/squad/dev-v1.1.json.gz --eval_last_articles=10

Writes `<export_dir>/<model_name>/<version>/` (a TF Serving SavedModel with `serving_default`
on int ids and `serve_text` on strings), `<export_dir>/tflite/<model_name>_<variant>.tflite`
(builtin ops only, vocabulary and labels in the TFLite metadata) and, with `--verify`,
`<export_dir>/reports/<model_name>/verification.{md,json}`: score, size, max logit difference
against Keras and batch-1 latency of every variant on the same evaluation data.
"""

import os

from absl import app
from absl import flags
from absl import logging

from keras_bert.export.task.task_model import TASKS
from keras_bert.export.tflite.variant_names import QUANTIZATIONS
from keras_bert.export.tflite.variant_names import VARIANTS
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
FORMATS = ("saved_model", "tflite")

flags.DEFINE_enum("task_name", None, TASKS, "The fine-tuned task (picks the model and its data).")
flags.DEFINE_string("init_checkpoint", None, "A fine-tuning output_dir (its best/), or a TF1 checkpoint dir.")
flags.DEFINE_string("bert_config_file", None, "bert_config.json (default: next to the checkpoint).")
flags.DEFINE_string("vocab_file", None, "vocab.txt (default: next to the checkpoint).")
flags.DEFINE_bool("do_lower_case", True, "Lower-case input (uncased checkpoints).")
flags.DEFINE_list("labels", None, "Class names in class-id order (default: the task's).")
flags.DEFINE_integer("max_seq_length", None, "Sequence length (default: 384 for squad, else 128).")
flags.DEFINE_integer("doc_stride", 128, "SQuAD: tokens between consecutive window starts.")
flags.DEFINE_integer("max_query_length", 64, "SQuAD: question tokens kept.")
flags.DEFINE_string("export_dir", None, "Base directory for every artefact.")
flags.DEFINE_string("model_name", None, "TF Serving model name (default: the task name).")
flags.DEFINE_integer("version", None, "SavedModel version (default: the next free one).")
flags.DEFINE_bool("overwrite_version", False,
                  "Replace an existing --version (TF Serving versions are otherwise immutable: "
                  "an existing one is refused).")
flags.DEFINE_list("formats", list(FORMATS), "saved_model and/or tflite.")
flags.DEFINE_list("quantizations", list(QUANTIZATIONS),
                  f"TFLite variants, of {VARIANTS} (qat_int8: full int8 after QAT fine-tuning; "
                  "the default is every post-training one).")
flags.DEFINE_string("calibration_file", None, "Data for int8 calibration (mixed_int8, full_int8) and QAT (a train file).")
flags.DEFINE_integer("num_calibration_examples", 200, "Calibration inputs (padded ones included).")
flags.DEFINE_integer("qat_steps", 1200,
                     "qat_int8: quantization-aware fine-tuning steps (batch 16). 1200 steps on "
                     "20000 SQuAD questions kept MiniLM's F1 (docs/export.md).")
flags.DEFINE_float("qat_learning_rate", 2e-5, "qat_int8: peak learning rate.")
flags.DEFINE_float("qat_teacher_weight", 0.0,
                   "qat_int8: share of the float model's own predictions in the QAT targets "
                   "(knowledge distillation; 0: the labels only).")
flags.DEFINE_float("qat_range_lr_multiplier", 0.0,
                   "qat_int8: 0 keeps the calibrated int8 ranges; above 0 they are learned with "
                   "the weights (LSQ), each end moving up to ~lr * this * its width a step.")
flags.DEFINE_float("qat_hidden_weight", 0.0,
                   "qat_int8: weight of a term holding every block's int8 output near the float "
                   "model's (mean squared distance, TinyBERT's hidden-state loss); 0: off.")
flags.DEFINE_float("qat_attention_weight", 0.0,
                   "qat_int8: weight of a term holding every block's int8 attention distributions "
                   "near the float model's (squared distance, summed over keys); 0: off.")
flags.DEFINE_bool("qat_dropout", True,
                  "qat_int8: keep the model's dropout during QAT; --noqat_dropout turns it off, so "
                  "that --qat_hidden_weight's term sees the int8 error alone.")
flags.DEFINE_bool("qat_split_variance", True,
                  "qat_int8: in the int8 LayerNorms, keep the outlier dimensions' sum of squares "
                  "apart from the others' (docs/export.md); --noqat_split_variance: one sum, as "
                  "files before 2026-11-28.")
flags.DEFINE_integer("qat_seed", 0,
                     "qat_int8: seed of the sampled training examples and their batch order.")
flags.DEFINE_integer("num_qat_examples", 20000,
                     "qat_int8: training examples (questions) sampled; enough that QAT sees each "
                     "about once.")
flags.DEFINE_bool("verify", False, "Run and score every variant on the evaluation data.")
flags.DEFINE_string("predict_file", None, "Evaluation data (SQuAD JSON, GLUE dev TSV, CoNLL).")
flags.DEFINE_integer("eval_last_articles", 10, "SQuAD: score the last N articles of --predict_file.")
flags.DEFINE_integer("max_eval_examples", None,
                     "Score at most this many examples (SQuAD: the first questions of the articles).")
flags.DEFINE_integer("latency_runs", 30, "Timed batch-1 calls per variant and thread count.")


def _file_next_to_checkpoint(flag_value, name, flag):
    from keras_bert.checkpoints.run_folder import model_folder

    path = flag_value or os.path.join(model_folder(FLAGS.init_checkpoint), name)
    if not os.path.isfile(path):
        raise app.UsageError(f"No {name}: pass --{flag}, or an --init_checkpoint directory with {name}.")
    return path


def _labels():
    from keras_bert.export.task.task_model import task_labels

    return FLAGS.labels or task_labels(FLAGS.task_name)


def _model(config_file):
    from keras_bert.export.task.task_model import load_task_model

    return load_task_model(FLAGS.task_name, FLAGS.init_checkpoint, config_file, _labels())


def _quantization_aware_model(data, config_file, name):
    """QAT fine-tuning of a second copy of the model (the float one stays as trained)."""
    from keras_bert.export.quantization.qat_training import quantization_aware_finetune

    inputs, labels = data.training_data(FLAGS.calibration_file, FLAGS.num_qat_examples,
                                        seed=FLAGS.qat_seed)
    output_dir = os.path.join(FLAGS.export_dir, "qat", name)
    print(f"QAT: {FLAGS.qat_steps} steps on {len(inputs['token_ids'])} windows -> {output_dir}")
    return quantization_aware_finetune(
        _model(config_file), inputs, labels, output_dir, FLAGS.qat_steps,
        learning_rate=FLAGS.qat_learning_rate, teacher_weight=FLAGS.qat_teacher_weight,
        range_lr_multiplier=FLAGS.qat_range_lr_multiplier, hidden_weight=FLAGS.qat_hidden_weight,
        attention_weight=FLAGS.qat_attention_weight, dropout=FLAGS.qat_dropout, seed=FLAGS.qat_seed,
        split_variance=FLAGS.qat_split_variance,
    )


def main(argv):
    del argv
    logging.set_verbosity(logging.WARNING)  # TensorFlow's per-function export chatter
    import keras_bert  # noqa: F401  (after flag parsing: TensorFlow start-up is slow)

    name = FLAGS.model_name or FLAGS.task_name.replace("-", "")
    int8 = _check_flags(name)
    config_file = _file_next_to_checkpoint(FLAGS.bert_config_file, "bert_config.json", "bert_config_file")
    vocab_file = _file_next_to_checkpoint(FLAGS.vocab_file, "vocab.txt", "vocab_file")
    _check_model(config_file)
    data = _task_data(vocab_file)
    with usage.library_errors():
        model = _model(config_file)
    version_dir = _export_saved_model(model, data, name, vocab_file)
    tflite_paths = _export_tflite(model, data, name, vocab_file, config_file, int8)
    if FLAGS.verify:
        _verify(model, data, name, version_dir, tflite_paths)


def _check_flags(name):
    """Flag values and combinations absl cannot check, and the paths the flags name, before
    anything is read or written; returns the int8 variants asked for. `name`: the model's."""
    from keras_bert.cli.common import path_flags

    formats = sorted(set(FLAGS.formats) - set(FORMATS))
    if formats or not FLAGS.formats:
        raise app.UsageError(f"--formats={','.join(FLAGS.formats)}: "
                             + (f"unknown {formats}; " if formats else "")
                             + f"choose from {list(FORMATS)}.")
    unknown = sorted(set(FLAGS.quantizations) - set(VARIANTS))
    if unknown:
        raise app.UsageError(f"--quantizations: unknown {unknown}; choose from {VARIANTS}.")
    int8 = sorted({"mixed_int8", "full_int8", "qat_int8"} & set(FLAGS.quantizations))
    if int8 and "tflite" in FLAGS.formats and not FLAGS.calibration_file:
        verb = "needs" if len(int8) == 1 else "need"
        raise app.UsageError(f"{' and '.join(int8)} {verb} --calibration_file (real training examples).")
    if FLAGS.verify and not FLAGS.predict_file:
        raise app.UsageError("--verify needs --predict_file (the evaluation data).")
    path_flags.check_output_dir("export_dir", FLAGS.export_dir)
    path_flags.check_checkpoint("init_checkpoint", FLAGS.init_checkpoint)
    path_flags.check_input_file("bert_config_file", FLAGS.bert_config_file, "bert_config.json")
    path_flags.check_input_file("vocab_file", FLAGS.vocab_file, "vocab.txt")
    if FLAGS.max_seq_length is not None:
        with usage.library_errors():  # the task's own range (SQuAD: room for the question)
            _task()
    version = os.path.join(FLAGS.export_dir, name, str(FLAGS.version))
    if FLAGS.version is not None and "saved_model" in FLAGS.formats and os.path.exists(version) \
            and not FLAGS.overwrite_version:
        raise app.UsageError(f"--version={FLAGS.version}: {version} already exists (TF Serving "
                             "versions are immutable). Leave --version out for the next free "
                             "one, or pass --overwrite_version to replace it.")
    return int8


def _check_model(config_file):
    """--max_seq_length (or the task's default) fits the model's positions."""
    from keras_bert.models.bert_config import BertConfig

    with usage.library_errors():
        config = BertConfig.from_json_file(config_file)
    seq = FLAGS.max_seq_length or _task().max_seq_length
    if seq > config.max_position_embeddings:
        given = ("--max_seq_length" if FLAGS.max_seq_length
                 else f"--task_name={FLAGS.task_name}'s default max_seq_length")
        raise app.UsageError(f"{given}={seq} exceeds the model's max_position_embeddings="
                             f"{config.max_position_embeddings}: pass --max_seq_length="
                             f"{config.max_position_embeddings} or less.")


def _task():
    """The --task_name's `keras_bert.tasks` task (its defaults, and --max_seq_length and the
    SQuAD options when given)."""
    import keras_bert

    options = {}
    if FLAGS.max_seq_length is not None:
        options["max_seq_length"] = FLAGS.max_seq_length
        if FLAGS.task_name == "squad":
            options.update(_squad_options())
    return keras_bert.tasks.get_task(FLAGS.task_name, **options)


def _squad_options():
    return dict(doc_stride=FLAGS.doc_stride, max_query_length=FLAGS.max_query_length)


def _task_data(vocab_file):
    """The task's text → model-input conversion, shared by calibration, QAT and verification."""
    from keras_bert.export.verification import data as export_data

    seq = FLAGS.max_seq_length or _task().max_seq_length  # the task's default: SQuAD 384, else 128
    return export_data.TaskData(FLAGS.task_name, vocab_file, FLAGS.do_lower_case, seq, _squad_options())


def _export_saved_model(model, data, name, vocab_file):
    """The SavedModel with its text signatures, or None when --formats leaves it out."""
    from keras_bert.export.serving.saved_model import export_saved_model

    if "saved_model" not in FLAGS.formats:
        return None
    version_dir = export_saved_model(
        model, FLAGS.export_dir, name, vocab_file, data.max_seq_length,
        do_lower_case=FLAGS.do_lower_case, labels=_labels(), text_pair=data.text_pair,
        version=FLAGS.version, squad_options=_squad_options() if _task().split_outputs else None,
        overwrite=FLAGS.overwrite_version,
    )
    print(f"SavedModel: {version_dir}")
    return version_dir


def _export_tflite(model, data, name, vocab_file, config_file, int8):
    """The --quantizations TFLite variants: {variant: path}, empty when --formats leaves it out."""
    from keras_bert.export.tflite.tflite_variants import export_tflite_variants

    if "tflite" not in FLAGS.formats:
        return {}
    calibration = qat_model = None
    if int8:
        calibration = data.calibration_inputs(FLAGS.calibration_file, FLAGS.num_calibration_examples)
    if "qat_int8" in FLAGS.quantizations:
        qat_model = _quantization_aware_model(data, config_file, name)
    tflite_paths = export_tflite_variants(
        model, os.path.join(FLAGS.export_dir, "tflite"), name, data.max_seq_length,
        FLAGS.quantizations, vocab_file, _labels(), calibration, qat_model,
    )
    for variant, path in tflite_paths.items():
        print(f"TFLite {variant}: {path} ({os.path.getsize(path) / 1e6:.1f} MB)")
    return tflite_paths


def _verify(model, data, name, version_dir, tflite_paths):
    """Scores every exported variant against the Keras model on --predict_file; prints the report."""
    from keras_bert.export.verification import data as export_data
    from keras_bert.export.verification.verify import compare_variants, keras_outputs, write_report

    evaluation = data.evaluation(FLAGS.predict_file, FLAGS.eval_last_articles, FLAGS.max_eval_examples)
    bar = export_data.progress_bar()
    reference = keras_outputs(model, evaluation.inputs)
    rows = compare_variants(
        model, version_dir, tflite_paths, evaluation.inputs, evaluation.score,
        latency_runs=FLAGS.latency_runs, progress=bar, reference=reference,
    )
    extra = {"evaluation": evaluation.description}
    if version_dir is not None and evaluation.text_check is not None:
        extra["serve_text"] = evaluation.text_check(version_dir, reference)
    report = write_report(rows, os.path.join(FLAGS.export_dir, "reports", name),
                          f"{name}: export verification", extra)
    with open(report) as f:
        print(f.read())


if __name__ == "__main__":
    flags.mark_flags_as_required(["task_name", "init_checkpoint", "export_dir"])
    usage.run(main)
