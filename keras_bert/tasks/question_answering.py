"""`QuestionAnsweringTask`: SQuAD v1.1 / v2.0 extractive question answering (start/end spans)."""

import os

from keras_bert.api_export import keras_bert_export
from keras_bert.tasks.task import Task
from keras_bert.tasks.task import TaskData


@keras_bert_export("keras_bert.tasks.QuestionAnsweringTask")
class QuestionAnsweringTask(Task):
    """SQuAD: `[CLS] question [SEP] window [SEP]` windows, a start/end span head, official EM/F1.

    Contexts longer than a window are read in overlapping windows `doc_stride` tokens apart
    (google-research/bert's `run_squad.py`); an answer is the best span over all of its
    question's windows.

    Args:
        max_seq_length: int. Tokens per window. Defaults to 384.
        doc_stride: int. Tokens between window starts. Defaults to 128.
        max_query_length: int. Question tokens kept. Defaults to 64.
        n_best_size: int. Candidates per window, and the n-best list's size. Defaults to 20.
        max_answer_length: int. Longest answer, in WordPiece tokens. Defaults to 30.
        version_2_with_negative: bool. SQuAD v2.0 (questions may have no answer).
        null_score_diff_threshold: float. v2.0: no answer if null score - best > this.
        do_lower_case: bool. Defaults to True.

    Example:
    >>> task = keras_bert.tasks.QuestionAnsweringTask(max_seq_length=64, doc_stride=32)
    >>> task.name, task.monitor
    ('squad', 'f1')
    """

    name = "squad"
    monitor = "f1"
    head_input = "sequence_output"
    split_outputs = ("start_logits", "end_logits")
    kind = "question_answering"

    def __init__(self, max_seq_length=384, doc_stride=128, max_query_length=64, n_best_size=20,
                 max_answer_length=30, version_2_with_negative=False,
                 null_score_diff_threshold=0.0, do_lower_case=True):
        super().__init__(max_seq_length, do_lower_case)
        for name, value in (("doc_stride", doc_stride), ("max_query_length", max_query_length),
                            ("n_best_size", n_best_size),
                            ("max_answer_length", max_answer_length)):
            if value < 1:
                raise ValueError(f"{name}={value}: it must be >= 1.")
        self.doc_stride = doc_stride
        self.max_query_length = max_query_length
        self.n_best_size = n_best_size
        self.max_answer_length = max_answer_length
        self.version_2_with_negative = version_2_with_negative
        self.null_score_diff_threshold = null_score_diff_threshold

    @property
    def model_class(self):
        from keras_bert.models.bert_question_answerer import BertQuestionAnswerer

        return BertQuestionAnswerer

    # === Data ===
    def read(self, path, training=False):
        from keras_bert.data.tasks.squad_examples import read_squad_examples

        return read_squad_examples(path, training, self.version_2_with_negative)

    def encode(self, examples, tokenizer, training=False, path=None):
        from keras_bert.data.tasks.squad_features import convert_squad_examples

        features = convert_squad_examples(
            examples, tokenizer, self.max_seq_length, self.doc_stride, self.max_query_length,
            is_training=training,
        )
        notes = [f"{len(examples)} questions -> {len(features)} windows of "
                 f"{self.max_seq_length} tokens"]
        if features.num_questions_truncated:
            notes.append(f"{features.num_questions_truncated} questions longer than "
                         f"max_query_length={self.max_query_length} tokens were cut to it")
        if features.num_answers_outside_windows:
            notes.append(f"{features.num_answers_outside_windows} answers fit in no window "
                         "(longer than one); their windows train on [CLS]")
        return TaskData(path, examples, features.inputs(), (features.labels(),), features, notes)

    # === Model ===
    def build_model(self, encoder):
        return self.model_class(encoder)

    def head_dense(self, model):
        return model.span_head.dense

    def compile_args(self, soft_targets=False):
        """google-research/bert's loss: the mean of the start and end cross-entropies.
        `soft_targets`: the targets are distributions (distillation), not positions."""
        import keras

        loss = (keras.losses.CategoricalCrossentropy(from_logits=True) if soft_targets
                else keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        return dict(loss={"start_logits": loss, "end_logits": loss},
                    loss_weights={"start_logits": 0.5, "end_logits": 0.5})

    # === Prediction and scoring ===
    def decode(self, data, outputs, with_offsets=False):
        """`{"predictions": {id: text}, "nbest": {id: [...]}, "null_odds": {id: float}}`;
        `with_offsets`: n-best entries also locate their text in the context words."""
        from keras_bert.data.tasks.squad_predictions import decode_squad_predictions

        predictions, nbest, null_odds = decode_squad_predictions(
            data.examples, data.features, outputs["start_logits"], outputs["end_logits"],
            n_best_size=self.n_best_size, max_answer_length=self.max_answer_length,
            do_lower_case=self.do_lower_case,
            version_2_with_negative=self.version_2_with_negative,
            null_score_diff_threshold=self.null_score_diff_threshold, with_offsets=with_offsets,
        )
        return {"predictions": predictions, "nbest": nbest, "null_odds": null_odds}

    def score(self, data, predictions):
        """The official SQuAD script's scores (v1.1: exact_match, f1; v2.0: its breakdown),
        against `data.path`'s gold answers; None when the file has none."""
        from keras_bert.metrics.squad_evaluation import evaluate_squad_file

        return evaluate_squad_file(
            data.path, predictions["predictions"],
            predictions["null_odds"] if self.version_2_with_negative else None,
            version_2_with_negative=self.version_2_with_negative,
        )

    def percent_scores(self, results):
        """The official scores, percent already (v2.0's breakdown included, not its thresholds)."""
        return {name: value for name, value in results.items()
                if name.endswith(("exact_match", "exact", "f1"))}

    def write_predictions(self, output_dir, data, predictions):
        """predictions.json, nbest_predictions.json (and null_odds.json for v2.0)."""
        import json

        from keras_bert.atomic_files import atomic_open

        files = {"predictions.json": predictions["predictions"],
                 "nbest_predictions.json": predictions["nbest"]}
        if self.version_2_with_negative:
            files["null_odds.json"] = predictions["null_odds"]
        for name, value in files.items():
            with atomic_open(os.path.join(output_dir, name)) as f:
                json.dump(value, f, indent=1, ensure_ascii=False)
        return sorted(files)
