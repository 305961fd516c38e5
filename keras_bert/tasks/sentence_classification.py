"""`SentenceClassificationTask`: one label per sentence or sentence pair (GLUE, any TSV)."""

import os

import numpy as np

from keras_bert.api_export import keras_bert_export
from keras_bert.tasks.task import Task
from keras_bert.tasks.task import TaskData


@keras_bert_export("keras_bert.tasks.SentenceClassificationTask")
class SentenceClassificationTask(Task):
    """`[CLS] A [SEP] (B [SEP])` -> a label from the pooled output; GLUE's metrics.

    Args:
        layout: a `keras_bert.data.ClassificationTask`: the TSV columns, labels, file names and
            metrics (`keras_bert.data.GLUE_TASKS[...]`, or `from_tsv` for any TSV).
        max_seq_length: int. Defaults to 128.
        do_lower_case: bool. Defaults to True.

    Example:
    >>> task = keras_bert.tasks.get_task("mrpc")
    >>> task.labels, task.monitor
    (('0', '1'), 'f1')
    """

    kind = "classification"

    def __init__(self, layout, max_seq_length=128, do_lower_case=True):
        super().__init__(max_seq_length, do_lower_case)
        self.layout = layout
        self.name = layout.name
        self.labels = tuple(layout.labels)
        self.monitor = layout.metrics[0]

    @classmethod
    def from_tsv(cls, train_file, labels=None, **kwargs):
        """A task for a TSV of `text<TAB>label` or `text_a<TAB>text_b<TAB>label` rows (a
        header whose last column is `label` is skipped); `labels` in class-id order (default:
        the sorted labels of `train_file`)."""
        from keras_bert.data.tasks.classification_data import generic_tsv_task

        return cls(generic_tsv_task(train_file, labels), **kwargs)

    @property
    def model_class(self):
        from keras_bert.models.bert_classifier import BertClassifier

        return BertClassifier

    def data_file(self, data_dir, split):
        """The `train` or `dev` file of the task in `data_dir` (a `.gz` beside it counts)."""
        from keras_bert.data.data_files import find_data_file

        name = {"train": self.layout.train_file, "dev": self.layout.dev_file}[split]
        return find_data_file(data_dir, name)

    # === Data ===
    def read(self, path, training=False):
        from keras_bert.data.tasks.classification_data import read_classification_examples

        return read_classification_examples(path, self.layout)

    def encode(self, examples, tokenizer, training=False, path=None):
        from keras_bert.tokenization.packing import encode_texts

        pairs = examples[0].text_b is not None
        inputs = encode_texts(
            tokenizer, [e.text_a for e in examples],
            [e.text_b for e in examples] if pairs else None,
            sequence_length=self.max_seq_length,
        )
        labels = np.array([self.labels.index(e.label) for e in examples], "int32")
        return TaskData(path, examples, inputs, (labels,))

    # === Model ===
    def build_model(self, encoder):
        return self.model_class(encoder, num_classes=len(self.labels))

    def compile_args(self):
        import keras

        return dict(loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                    metrics=["accuracy"])

    # === Prediction and scoring ===
    def decode(self, data, outputs):
        """`{"logits": [n, classes], "probabilities": [n, classes], "labels": [str]}`."""
        logits = np.asarray(outputs, "float32")
        shifted = np.exp(logits - logits.max(-1, keepdims=True))
        return {"logits": logits, "probabilities": shifted / shifted.sum(-1, keepdims=True),
                "labels": [self.labels[i] for i in logits.argmax(-1)]}

    def score(self, data, predictions):
        """GLUE's metrics of the task (accuracy; F1 for MRPC; Matthews correlation for CoLA)
        as fractions, and `eval_loss`."""
        import keras

        from keras_bert.metrics.classification_metrics import classification_metrics

        gold = data.targets[0]
        logits = predictions["logits"]
        results = classification_metrics(gold, logits.argmax(-1), self.layout.metrics)
        results["eval_loss"] = float(
            keras.losses.SparseCategoricalCrossentropy(from_logits=True)(gold, logits))
        return results

    def percent_scores(self, results):
        """`score`'s fractions (accuracy, F1, Matthews correlation) times 100."""
        return {name: 100.0 * results[name] for name in self.layout.metrics if name in results}

    def write_predictions(self, output_dir, data, predictions):
        """eval_predictions.tsv: source line, label, prediction, probabilities."""
        from keras_bert.atomic_files import atomic_open

        with atomic_open(os.path.join(output_dir, "eval_predictions.tsv")) as f:
            f.write("source\tlabel\tprediction\t"
                    + "\t".join(f"p_{label}" for label in self.labels) + "\n")
            for example, label, p in zip(data.examples, predictions["labels"],
                                         predictions["probabilities"]):
                f.write(f"{example.source}\t{example.label}\t{label}\t"
                        + "\t".join(f"{v:.6f}" for v in p) + "\n")
        return ["eval_predictions.tsv"]
