"""`TokenClassificationTask`: a label per word (CoNLL-2003 named entities), scored by conlleval."""

import os

import numpy as np

from keras_bert.api_export import keras_bert_export
from keras_bert.tasks.task import Task
from keras_bert.tasks.task import TaskData


@keras_bert_export("keras_bert.tasks.TokenClassificationTask")
class TokenClassificationTask(Task):
    """`[CLS] pieces [SEP]` per sentence; each word's label is learned and predicted on its first
    WordPiece (BERT paper, section 5.3); entity-level precision / recall / F1 as `conlleval`.

    Args:
        labels: the tags in class-id order. Defaults to CoNLL-2003's.
        max_seq_length: int. Defaults to 128. Words past it are predicted `O`.
        do_lower_case: bool. Defaults to True.

    Example:
    >>> task = keras_bert.tasks.get_task("conll2003")
    >>> task.labels[:3], task.monitor
    (('O', 'B-PER', 'I-PER'), 'f1')
    """

    name = "conll2003"
    monitor = "f1"
    head_input = "sequence_output"
    kind = "token_classification"

    def __init__(self, labels=None, max_seq_length=128, do_lower_case=True):
        from keras_bert.data.tasks.conll_ner import CONLL2003_LABELS

        super().__init__(max_seq_length, do_lower_case)
        self.labels = tuple(labels or CONLL2003_LABELS)

    @property
    def model_class(self):
        from keras_bert.models.bert_token_classifier import BertTokenClassifier

        return BertTokenClassifier

    def data_file(self, data_dir, split):
        """`train`, `valid` or `test`.txt in `data_dir` (a `.gz` beside it counts)."""
        from keras_bert.data.data_files import find_data_file

        return find_data_file(data_dir, f"{split}.txt")

    # === Data ===
    def read(self, path, training=False):
        from keras_bert.data.tasks.conll_ner import read_conll

        return read_conll(path, labels=self.labels)

    def encode(self, examples, tokenizer, training=False, path=None):
        from keras_bert.data.tasks.conll_ner import convert_ner_sentences

        features = convert_ner_sentences(examples, tokenizer, self.labels, self.max_seq_length)
        notes = []
        if features.num_truncated:
            notes.append(f"{features.num_truncated} sentences longer than max_seq_length="
                         f"{self.max_seq_length} pieces; their cut-off words are predicted O")
        # Pieces after a word's first carry label -1 and weight 0, so the label value is moot.
        targets = (np.maximum(features.label_ids, 0), features.sample_weight())
        return TaskData(path, examples, features.inputs(), targets, features, notes)

    # === Model ===
    def build_model(self, encoder):
        return self.model_class(encoder, num_classes=len(self.labels))

    def compile_args(self):
        import keras

        return dict(loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

    # === Prediction and scoring ===
    def decode(self, data, outputs):
        """`{"tags": [[tag per word] per sentence]}`."""
        from keras_bert.data.tasks.conll_ner import word_predictions

        return {"tags": word_predictions(data.features, outputs, self.labels)}

    def score(self, data, predictions):
        """conlleval's entity-level scores, with `per_type`."""
        from keras_bert.metrics.conlleval import conlleval

        return conlleval([s.tags for s in data.examples], predictions["tags"])

    def evaluate(self, model, data, batch_size=64):
        results = super().evaluate(model, data, batch_size)
        return {k: v for k, v in results.items() if k != "per_type"}

    def percent_scores(self, results):
        """conlleval's scores, percent already."""
        return {name: results[name] for name in ("f1", "precision", "recall", "accuracy")
                if name in results}

    def write_predictions(self, output_dir, data, predictions, split="valid"):
        """`{split}_predictions.txt`: `word gold predicted` lines (conlleval's input)."""
        from keras_bert.atomic_files import atomic_open

        name = f"{split}_predictions.txt"
        with atomic_open(os.path.join(output_dir, name)) as out:
            for sentence, tags in zip(data.examples, predictions["tags"]):
                rows = zip(sentence.words, sentence.tags, tags)
                out.writelines(f"{w} {g} {p}\n" for w, g, p in rows)
                out.write("\n")
        return [name]
