"""Calibration and evaluation data for export, per task (SQuAD, GLUE, CoNLL-2003)."""

import dataclasses
import json
import os

import keras_bert
import numpy as np
import tensorflow as tf

from keras_bert.export.serving.saved_model import TEXT_SIGNATURE
from keras_bert.export.verification.scorers import classification_scorer, squad_scorer


@dataclasses.dataclass
class Evaluation:
    """Inputs to run every variant on, how to score them, and the raw-text signature check
    (`text_check(version_dir, keras_outputs)`: `serve_text` vs the Python pipeline)."""

    inputs: dict
    score: object
    description: dict
    text_check: object = None
    examples: list = None  # SQuAD: the questions and their windows, for callers that decode
    features: object = None


def progress_bar():
    """A `(variant, done, total)` callback drawing one tqdm bar per variant."""
    from tqdm import tqdm

    bars = {}

    def update(variant, done, total):
        if variant not in bars:
            bars[variant] = tqdm(total=total, desc=f"{variant:>14}", unit="input")
        bars[variant].update(1)
        if done == total:
            bars[variant].close()

    return update


def _load_json(path):
    with keras_bert.data.open_data_file(path, encoding="utf-8") as f:
        return json.load(f)


def _existing(path, what):
    """`path`, or `path.gz` when only that exists."""
    try:
        return keras_bert.data.find_data_file(os.path.dirname(path) or ".", os.path.basename(path))
    except FileNotFoundError:
        raise FileNotFoundError(f"{what} {path} (or {path}.gz) does not exist.") from None


def _seeded_sample(size, count, seed):
    """Sorted indices of a seeded random sample of `count` of `size` items (all if fewer)."""
    return np.sort(np.random.default_rng(seed).permutation(size)[:count])


def _first_questions(dataset, count):
    """A SQuAD dict cut to its first `count` questions (articles and paragraphs in order)."""
    left = count
    articles = []
    for article in dataset["data"]:
        paragraphs = []
        for paragraph in article["paragraphs"]:
            qas = paragraph["qas"][:max(left, 0)]
            left -= len(qas)
            if qas:
                paragraphs.append(dict(paragraph, qas=qas))
        if paragraphs:
            articles.append(dict(article, paragraphs=paragraphs))
    return dict(dataset, data=articles)


class TaskData:
    """Reads a task's files into model inputs through its `keras_bert.tasks` task, as its
    `run_*` tool does."""

    def __init__(self, task_name, vocab_file, do_lower_case, max_seq_length, squad_options):
        self.task_name = task_name
        self.vocab_file = vocab_file
        self.do_lower_case = do_lower_case
        self.max_seq_length = max_seq_length
        self.squad_options = squad_options
        options = dict(max_seq_length=max_seq_length, do_lower_case=do_lower_case)
        if keras_bert.tasks.get_task(task_name).split_outputs:  # the window settings
            options.update(doc_stride=squad_options["doc_stride"],
                           max_query_length=squad_options["max_query_length"])
        self.task = keras_bert.tasks.get_task(task_name, **options)
        layout = getattr(self.task, "layout", None)
        self.text_pair = bool(layout and layout.text_b is not None)
        self.tokenizer = keras_bert.ReferenceTokenizer(vocab_file, do_lower_case=do_lower_case)

    # --- SQuAD -------------------------------------------------------------------------------
    def squad_features(self, examples, is_training=False):
        """Windows of SQuAD `examples`; with answer positions when `is_training`."""
        return self.task.encode(examples, self.tokenizer, training=is_training).features

    def squad_examples(self, dataset):
        """`SquadExample`s of a SQuAD dict (e.g. a subset of a file's articles)."""
        return keras_bert.data.squad_examples_from_dataset(dataset, is_training=False)

    def _sample(self, path, count, seed, training=False):
        """`TaskData` of a seeded sample of `count` of `path`'s examples."""
        examples = self.task.read(path, training)
        order = _seeded_sample(len(examples), count, seed)
        return self.task.encode([examples[i] for i in order], self.tokenizer, training)

    def calibration_inputs(self, path, count, seed=0):
        """`count` real inputs from `path` (seeded sample), padded ones included."""
        path = _existing(path, "Calibration file")
        if count < 1:
            raise ValueError(f"The calibration set is empty (count={count}); use 100 or more.")
        # A seeded sample of the examples, then of their rows (SQuAD: a question's windows).
        inputs = self._sample(path, count, seed).inputs
        order = _seeded_sample(len(inputs["token_ids"]), count, seed)
        inputs = {k: np.asarray(v)[order] for k, v in inputs.items()}
        if len(inputs["token_ids"]) == 0:
            raise ValueError(f"The calibration set from {path} is empty.")
        return inputs

    def training_data(self, path, count, seed=0):
        """`(inputs, labels)` of `count` seeded training examples from `path`, for QAT.

        SQuAD: windows of `count` questions with start / end positions; GLUE: sentences with
        class ids."""
        path = _existing(path, "Training file")
        if self.task.kind == "token_classification":
            raise ValueError("QAT (qat_int8) supports SQuAD and GLUE tasks; not CoNLL-2003 yet.")
        data = self._sample(path, count, seed, training=True)
        return data.inputs, data.targets[0]

    def evaluation(self, path, last_articles, max_examples):
        """The evaluation set: SQuAD's last `last_articles` articles, or GLUE's examples of
        `path`; at most the first `max_examples` questions / examples (`None`: all)."""
        path = _existing(path, "Evaluation file")
        if self.task.kind == "token_classification":
            raise ValueError(
                "Verification scores SQuAD and GLUE models; for CoNLL-2003 use "
                "keras_bert.cli.run_ner --do_eval on the checkpoint."
            )
        if self.task.split_outputs:
            return self._squad_evaluation(path, last_articles, max_examples)
        return self._glue_evaluation(path, max_examples)

    def _squad_evaluation(self, path, last_articles, max_questions):
        dataset = _load_json(path)
        dataset = {"version": dataset.get("version"), "data": dataset["data"][-last_articles:]}
        if max_questions is not None:
            dataset = _first_questions(dataset, max_questions)
        examples = self.squad_examples(dataset)
        features = self.squad_features(examples)
        score = squad_scorer(examples, features, dataset, do_lower_case=self.do_lower_case)

        contexts = {
            qa["id"]: paragraph["context"]
            for article in dataset["data"]
            for paragraph in article["paragraphs"]
            for qa in paragraph["qas"]
        }

        def text_check(version_dir, outputs):
            return squad_text_agreement(
                version_dir, outputs, examples, features, contexts, self.do_lower_case
            )

        return Evaluation(
            features.inputs(), score,
            {"file": path, "articles": f"last {last_articles}", "questions": len(examples),
             "windows": len(features)},
            text_check, examples, features,
        )

    def _glue_evaluation(self, path, max_examples):
        data = self.task.encode(self.task.read(path)[:max_examples], self.tokenizer)
        examples, inputs, labels = data.examples, data.inputs, data.targets[0]

        def text_check(version_dir, outputs):
            return classifier_text_agreement(version_dir, outputs, examples)

        return Evaluation(
            inputs, classification_scorer(labels, self.task.layout.metrics),
            {"file": path, "examples": len(examples)}, text_check,
        )


def _signature(version_dir):
    return tf.saved_model.load(version_dir).signatures[TEXT_SIGNATURE]


def squad_text_agreement(version_dir, outputs, examples, features, contexts, do_lower_case,
                         batch_size=8):
    """Runs `serve_text` on every question (with its original context, `{qas_id: context}`);
    counts answers equal to the Python pipeline's (Keras `outputs` on `features`, decoded)."""
    expected, _, _ = keras_bert.data.decode_squad_predictions(
        examples, features, outputs["start_logits"], outputs["end_logits"],
        do_lower_case=do_lower_case,
    )
    signature = _signature(version_dir)
    differences, same = [], 0
    for start in range(0, len(examples), batch_size):
        batch = examples[start : start + batch_size]
        out = signature(
            question=tf.constant([e.question_text for e in batch]),
            context=tf.constant([contexts[e.qas_id] for e in batch]),
        )
        for example, answer in zip(batch, out["answer_text"].numpy()):
            answer = answer.decode("utf-8")
            if answer == expected[example.qas_id]:
                same += 1
            else:
                differences.append(
                    {"id": example.qas_id, "python": expected[example.qas_id], "serve_text": answer}
                )
    return {"questions": len(examples), "same_answer": same, "differences": differences[:20]}


def classifier_text_agreement(version_dir, outputs, examples, batch_size=32):
    """Runs `serve_text` on every example; counts labels equal to the Keras model's
    (`outputs["logits"]` on the examples' inputs)."""
    expected = outputs["logits"].argmax(-1)
    signature = _signature(version_dir)
    got = []
    for start in range(0, len(examples), batch_size):
        batch = examples[start : start + batch_size]
        feed = {"text_a": tf.constant([e.text_a for e in batch])}
        if batch[0].text_b is not None:
            feed["text_b"] = tf.constant([e.text_b for e in batch])
        got.extend(signature(**feed)["label_id"].numpy().tolist())
    same = int((np.asarray(got) == expected).sum())
    return {"examples": len(examples), "same_label": same}
