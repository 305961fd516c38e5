"""Question + passage -> ranked answers with the shipped int8 `.tflite`, in Python.

This is the pipeline the web (`apps/web/src/qa/`) and Android (`apps/android/qa-core/`) ports
reproduce: keras_bert's SQuAD windows and decoding (google-research/bert's), run through
ai-edge-litert, with each answer's position in the passage as UTF-16 offsets (the string
indices of JavaScript and Java).
"""

import os
import time

import numpy as np

from keras_bert import integrity
from keras_bert.data import answer_char_span, convert_squad_examples, decode_squad_predictions
from keras_bert.data.tasks.squad_examples import SquadExample, split_on_whitespace
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer

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


class QaInputError(ValueError):
    """A question or passage the model cannot answer from; the message says what to change."""


class TfliteQa:
    """Answers questions about a passage with a BERT QA `.tflite` (Task Library contract).

    Args:
        model_path: the `.tflite`; defaults to the shipped dynamic-range int8 model.
        vocab_path: its `vocab.txt` (uncased WordPiece).
        num_threads: LiteRT CPU threads (None: the runtime's default).
    """

    def __init__(self, model_path=MODEL, vocab_path=VOCAB, num_threads=None):
        from ai_edge_litert.interpreter import Interpreter

        for path in (model_path, vocab_path):
            if not os.path.isfile(path):
                raise FileNotFoundError(
                    f"{path} does not exist. The shipped model and vocabulary are in apps/models/; "
                    "pass the paths of a QA .tflite exported by `python -m export.cli` and its vocab."
                )
            # A SHA256SUMS beside it (apps/models/ has one; exports write one) must match:
            # a flipped bit in a weight would otherwise give wrong answers without an error.
            integrity.verify_file(path)
        try:
            interpreter = Interpreter(model_path=model_path, num_threads=num_threads)
        except ValueError as error:
            raise ValueError(f"{model_path} is not a valid .tflite model ({error}).") from None
        self._runner = interpreter.get_signature_runner()
        self.model_path = model_path
        self.tokenizer = ReferenceTokenizer(vocab_path, do_lower_case=True)

    def features(self, question, context):
        """`(SquadExample, SquadFeatures)` of one question on one passage."""
        if not question.strip():
            raise QaInputError("The question is empty: type a question about the passage.")
        words, _ = split_on_whitespace(context)
        if not words:
            raise QaInputError("The passage is empty: pick or paste a passage first.")
        example = SquadExample(qas_id="q", question_text=question, doc_tokens=words)
        return example, convert_squad_examples(
            [example], self.tokenizer, MAX_SEQ_LENGTH, DOC_STRIDE, MAX_QUERY_LENGTH
        )

    def logits(self, features):
        """`(start [windows, 384], end [windows, 384], seconds per window)` from the model."""
        starts, ends, seconds = [], [], []
        for i in range(len(features)):
            begin = time.perf_counter()
            out = self._runner(
                ids=features.token_ids[i : i + 1],
                mask=features.padding_mask[i : i + 1],
                segment_ids=features.segment_ids[i : i + 1],
            )
            seconds.append(time.perf_counter() - begin)
            starts.append(out["start_logits"][0])
            ends.append(out["end_logits"][0])
        return np.stack(starts), np.stack(ends), seconds

    def answer(self, question, context):
        """Ranked answers: a dict with `nbest` (each: text, start, end (UTF-16 offsets into
        `context`), start_logit, end_logit, probability), the features, logits and latency."""
        example, features = self.features(question, context)
        starts, ends, seconds = self.logits(features)
        nbest = rank_answers(example, features, starts, ends, context)
        return dict(nbest=nbest, features=features, start_logits=starts, end_logits=ends,
                    seconds=seconds)


def rank_answers(example, features, start_logits, end_logits, context):
    """The n-best answers of one example with their UTF-16 spans in `context`."""
    _, nbest, _ = decode_squad_predictions(
        [example], features, start_logits, end_logits, N_BEST_SIZE, MAX_ANSWER_LENGTH,
        with_offsets=True,
    )
    ranked = []
    for entry in nbest[example.qas_id]:
        if not entry["text"]:
            continue  # decode's placeholder when no window has a valid span
        start, end = answer_char_span(context, entry)
        ranked.append(dict(
            text=entry["text"], start=utf16_offset(context, start), end=utf16_offset(context, end),
            start_logit=entry["start_logit"], end_logit=entry["end_logit"],
            probability=entry["probability"],
        ))
    return ranked
