"""Question + passage -> ranked answers with the shipped int8 `.tflite`, in Python.

This is the pipeline the web (`apps/web/src/qa/`) and Android (`apps/android/qa-core/`) ports
reproduce: `keras_bert.QuestionAnsweringPipeline` (google-research/bert's SQuAD windows and
decoding) on ai-edge-litert, with each answer's position in the passage as UTF-16 offsets (the
string indices of JavaScript and Java).
"""

import os

from keras_bert.pipelines import QaInputError  # noqa: F401 (the apps' error type)
from keras_bert.pipelines import QuestionAnsweringPipeline
from keras_bert.tasks import QuestionAnsweringTask

APPS = os.path.dirname(os.path.abspath(__file__))
# The default file: int8 weights with float activations, the fastest on CPUs (docs/benchmarks.md).
# FULL_INT8_MODEL is the full-int8 file for int8-only accelerators (apps/models/MODEL_CARD.md).
MODEL = os.path.join(APPS, "models", "squad_minilm_dynamic_int8.tflite")
FULL_INT8_MODEL = os.path.join(APPS, "models", "squad_minilm_int8.tflite")
VOCAB = os.path.join(APPS, "models", "vocab.txt")
# The Task Library contract the model was exported with (apps/models/MODEL_CARD.md).
MAX_SEQ_LENGTH, DOC_STRIDE, MAX_QUERY_LENGTH = 384, 128, 64
N_BEST_SIZE, MAX_ANSWER_LENGTH = 20, 30


def utf16_offset(text, index):
    """The UTF-16 code-unit offset of code point `index` of `text`."""
    return len(text[:index].encode("utf-16-le")) // 2


class TfliteQa:
    """Answers questions about a passage with a BERT QA `.tflite` (Task Library contract).

    `keras_bert.QuestionAnsweringPipeline` on a LiteRT runner, with the apps' conventions:
    answers keyed `text` / `probability`, offsets in UTF-16 code units, per-window latency.

    Args:
        model_path: the `.tflite`; defaults to the shipped dynamic-range int8 model.
        vocab_path: its `vocab.txt` (uncased WordPiece).
        num_threads: LiteRT CPU threads (None: the runtime's default).
    """

    def __init__(self, model_path=MODEL, vocab_path=VOCAB, num_threads=None):
        for path in (model_path, vocab_path):
            if not os.path.isfile(path):
                raise FileNotFoundError(
                    f"{path} does not exist. The shipped model and vocabulary are in apps/models/; "
                    "pass the paths of a QA .tflite exported by `python -m keras_bert.export.cli` and its vocab."
                )
        self.pipeline = QuestionAnsweringPipeline.from_pretrained(
            model_path, vocab_file=vocab_path, num_threads=num_threads,
            task=QuestionAnsweringTask(MAX_SEQ_LENGTH, DOC_STRIDE, MAX_QUERY_LENGTH, N_BEST_SIZE,
                                       MAX_ANSWER_LENGTH))
        self.model_path = model_path
        self.tokenizer = self.pipeline.tokenizer

    def features(self, question, context):
        """`(SquadExample, SquadFeatures)` of one question on one passage."""
        data = self.pipeline.windows(question, context)
        return data.examples[0], data.features

    def logits(self, features):
        """`(start [windows, 384], end [windows, 384], seconds per window)` from the model."""
        starts, ends = self.pipeline.runner(features.inputs())
        return starts, ends, list(self.pipeline.runner.seconds)

    def answer(self, question, context):
        """Ranked answers: a dict with `nbest` (each: text, start, end (UTF-16 offsets into
        `context`), start_logit, end_logit, probability), the features, logits and latency."""
        data = self.pipeline.windows(question, context)
        starts, ends = self.pipeline.runner(data.inputs)
        nbest = [_utf16(context, a) for a in self.pipeline.rank(data, starts, ends, context)]
        return dict(nbest=nbest, features=data.features, start_logits=starts, end_logits=ends,
                    seconds=list(self.pipeline.runner.seconds))


def _utf16(context, answer):
    """A pipeline answer in the apps' form: `text`, `probability`, UTF-16 `start` / `end`."""
    return dict(text=answer["answer"], start=utf16_offset(context, answer["start"]),
                end=utf16_offset(context, answer["end"]), start_logit=answer["start_logit"],
                end_logit=answer["end_logit"], probability=answer["score"])
