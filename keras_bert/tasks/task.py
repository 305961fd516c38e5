"""`Task`: what one fine-tuning task owns (files, encoding, model, loss, decoding, scoring), and `TaskData`."""

import dataclasses

import numpy as np


@dataclasses.dataclass
class TaskData:
    """Examples of one file, encoded for the model.

    Attributes:
        path: str, the file they were read from (scoring re-reads gold answers from it).
        examples: list, the task's examples (`SquadExample`, `ClassificationExample`,
            `NerSentence`).
        inputs: dict of int32 arrays `[num_rows, max_seq_length]`: `token_ids`, `segment_ids`,
            `padding_mask`. One row per example, or per window (SQuAD).
        targets: tuple of what `fit` takes after the inputs: `(labels,)` or
            `(labels, sample_weight)`.
        features: the task's alignment of rows to examples (`SquadFeatures`, `NerFeatures`),
            or None.
        notes: list of str, what encoding cut or dropped (printed by the recipe).
    """

    path: object
    examples: list
    inputs: dict
    targets: tuple
    features: object = None
    notes: list = dataclasses.field(default_factory=list)

    @property
    def num_rows(self):
        return len(self.inputs["token_ids"])


class Task:
    """The base of `keras_bert.tasks`: one fine-tuning task, end to end.

    A task reads its files (`read`), encodes examples into model inputs and targets (`encode`),
    builds its model on an encoder (`build_model`), gives its loss and metrics (`compile_args`),
    predicts and decodes back to text or labels (`predict`), scores with the official metric
    (`score`) and writes its prediction files (`write_predictions`). The fine-tuning recipe
    (`keras_bert.training.finetune`) and the command-line tools know nothing else about it.

    Subclasses set `name`, `monitor` (the metric that picks the best checkpoint), `kind` and
    `model_class` (the `BertTask` it builds), and hold their encoding options (`max_seq_length`
    and the like) as attributes.

    Args:
        max_seq_length: int, tokens per model input after WordPiece.
        do_lower_case: bool, whether the vocabulary is uncased.
    """

    name = None
    monitor = None
    model_class = None
    # What the exporter builds signatures for: "question_answering", "classification" or
    # "token_classification".
    kind = None

    def __init__(self, max_seq_length=128, do_lower_case=True):
        if max_seq_length < 3:
            raise ValueError(f"max_seq_length={max_seq_length}: it must be at least 3 "
                             "([CLS], one token, [SEP]).")
        self.max_seq_length = max_seq_length
        self.do_lower_case = do_lower_case

    # === Data ===
    def read(self, path, training=False):
        """The examples of `path` (a `ValueError` subclass names the file and line if bad)."""
        raise NotImplementedError

    def encode(self, examples, tokenizer, training=False, path=None):
        """`TaskData` of `examples` tokenized by `tokenizer` (a `ReferenceTokenizer`)."""
        raise NotImplementedError

    def load(self, path, tokenizer, training=False):
        """`encode(read(path))`."""
        return self.encode(self.read(path, training), tokenizer, training, path)

    # === Model ===
    def build_model(self, encoder):
        """The task's model (a `BertTask`) on `encoder`."""
        raise NotImplementedError

    def compile_args(self):
        """`model.compile` keyword arguments besides the optimizer: `loss`, `loss_weights`,
        `metrics`."""
        raise NotImplementedError

    # === Prediction and scoring ===
    def outputs(self, model, data, batch_size=64, verbose=0, callbacks=None):
        """The model's raw outputs on `data`'s rows (numpy). `verbose`, `callbacks`:
        `model.predict`'s."""
        return model.predict(data.inputs, batch_size=batch_size, verbose=verbose,
                             callbacks=callbacks)

    def predict(self, model, data, batch_size=64, verbose=0, callbacks=None):
        """The task's predictions for `data`'s examples, decoded (answers, labels, tags)."""
        return self.decode(data, self.outputs(model, data, batch_size, verbose, callbacks))

    def decode(self, data, outputs):
        """Decodes the model's `outputs` on `data` into the task's predictions."""
        raise NotImplementedError

    def score(self, data, predictions):
        """The official metrics of `predictions` against `data`'s gold (None without gold)."""
        raise NotImplementedError

    def evaluate(self, model, data, batch_size=64):
        """`score(data, predict(model, data))` without what does not pick a checkpoint."""
        return self.score(data, self.predict(model, data, batch_size)) or {}

    def percent_scores(self, results):
        """The scores in `results` (what `score` returned) in percent, the unit the official
        scripts print (SQuAD's, conlleval) and GLUE's leaderboard shows: `{name: percent}`,
        without losses, counts or thresholds. A task that does not say: none (its scores are
        printed as they are)."""
        return {}

    def write_predictions(self, output_dir, data, predictions):
        """Writes the prediction files of google-research/bert's tools into `output_dir`
        (each whole or not at all)."""
        raise NotImplementedError

    # === Model anatomy (what export's int8 graphs rebuild) ===
    def head_dense(self, model):
        """The dense layer of `model`'s head (its logits' kernel and bias)."""
        return model.classification_head.dense

    # The encoder output the head reads ("sequence_output" or "pooled_output"), and the
    # names of the head's outputs when it splits its dense layer's units (None: one tensor).
    head_input = "pooled_output"
    split_outputs = None

    # === Helpers ===
    def subset(self, examples, indices):
        """The examples at `indices` (a `max_train_examples` subset), in file order."""
        return [examples[i] for i in np.asarray(indices)]
