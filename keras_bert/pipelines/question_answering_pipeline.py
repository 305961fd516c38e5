"""`QuestionAnsweringPipeline`: (question, context) -> answers, from a fine-tuned QA model in any form."""

import os

from keras_bert.api_export import keras_bert_export
from keras_bert.pipelines import model_runners


class QaInputError(ValueError):
    """A question or context the model cannot answer from; the message says what to change."""


@keras_bert_export("keras_bert.QuestionAnsweringPipeline")
class QuestionAnsweringPipeline:
    """Answers a question from a context of any length with a fine-tuned SQuAD model.

    The context is read in `[CLS] question [SEP] window [SEP]` windows `doc_stride` tokens
    apart, and the answer is the best span over all windows, decoded back onto the context's
    own characters (google-research/bert's `run_squad.py` decoding, which `run_squad`, the
    export checks and the apps share). Hugging Face users know this as
    `pipeline("question-answering")`.

    Args:
        runner: a callable from the windows' inputs dict to `(start_logits, end_logits)`
            (`model_runners.KerasRunner`, `SavedModelRunner`, `TfliteRunner`).
        tokenizer: the model's `ReferenceTokenizer`.
        task: a `QuestionAnsweringTask` with the window and decoding settings; default
            `QuestionAnsweringTask()` (384-token windows, stride 128, 20 candidates, answers
            of at most 30 tokens).

    Example:
    ```python
    qa = keras_bert.QuestionAnsweringPipeline.from_pretrained("apps/models/squad_minilm_dynamic_int8.tflite")
    qa("Where is the Rhine's source?", context)
    # {'answer': 'the Swiss Alps', 'score': 0.93, 'start': 31, 'end': 45, ...}
    ```
    """

    def __init__(self, runner, tokenizer, task=None):
        from keras_bert.tasks.question_answering import QuestionAnsweringTask

        self.runner = runner
        self.tokenizer = tokenizer
        self.task = task or QuestionAnsweringTask()

    @classmethod
    def from_pretrained(cls, path, vocab_file=None, num_threads=None, task=None):
        """A pipeline on the model at `path`.

        Args:
            path: a `.tflite` (`python -m keras_bert.export.cli`, or the shipped apps/models files); a
                SavedModel folder (its `serving_default`); or anything `init_checkpoint`
                reads holding a span head: a fine-tuning run's `output_dir` or its `best/`,
                a Hugging Face `BertForQuestionAnswering` folder, a TF1 checkpoint.
            vocab_file: the model's `vocab.txt`; default: the one beside the model (a
                SavedModel's `assets/vocab.txt`; for a `.tflite` without one, the vocabulary
                in its TFLite Metadata).
            num_threads: LiteRT CPU threads for a `.tflite` (None: the runtime's default).
            task: a `QuestionAnsweringTask` with other window or decoding settings.
        """
        from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer

        path = os.fspath(path)
        if not os.path.exists(path):
            raise FileNotFoundError(f"{path} does not exist: pass a .tflite, a SavedModel "
                                    "folder, or a fine-tuned run's output_dir.")
        kind = model_runners.model_kind(path)
        if kind == "tflite":
            runner = model_runners.TfliteRunner(path, num_threads)
        elif kind == "saved_model":
            runner = model_runners.SavedModelRunner(path)
        else:
            runner = model_runners.KerasRunner(_load_keras_model(path))
        vocab_file = vocab_file or _vocab_beside(path, kind)
        return cls(runner, ReferenceTokenizer(vocab_file, do_lower_case=True), task)

    def windows(self, question, context):
        """`TaskData` of one question on one context: its windows and their alignment."""
        from keras_bert.data.tasks.squad_examples import SquadExample
        from keras_bert.data.tasks.squad_examples import split_on_whitespace

        if not isinstance(question, str) or not question.strip():
            raise QaInputError("The question is empty: type a question about the passage.")
        words, _ = split_on_whitespace(context if isinstance(context, str) else "")
        if not words:
            raise QaInputError("The passage is empty: give the context text to find the answer in.")
        example = SquadExample(qas_id="q", question_text=question, doc_tokens=words)
        return self.task.encode([example], self.tokenizer)

    def rank(self, data, start_logits, end_logits, context):
        """The n-best answers of `data`'s one question, best first: dicts with `answer`,
        `score` (softmax over the n-best), `start`, `end` (character offsets into `context`:
        `context[start:end]` is the answer), `start_logit`, `end_logit`."""
        from keras_bert.data.tasks.squad_predictions import answer_char_span

        predictions = self.task.decode(data, {"start_logits": start_logits,
                                              "end_logits": end_logits}, with_offsets=True)
        ranked = []
        for entry in predictions["nbest"][data.examples[0].qas_id]:
            if not entry["text"]:
                continue  # decode's placeholder when no window has a valid span
            start, end = answer_char_span(context, entry)
            ranked.append(dict(answer=entry["text"], score=entry["probability"], start=start,
                               end=end, start_logit=entry["start_logit"],
                               end_logit=entry["end_logit"]))
        return ranked

    def __call__(self, question, context, top_k=1):
        """The best answer (a dict, see `rank`), or with `top_k` > 1 a list of the best
        `top_k`. Raises `QaInputError` for an empty question or context."""
        data = self.windows(question, context)
        start_logits, end_logits = self.runner(data.inputs)
        ranked = self.rank(data, start_logits, end_logits, context)
        if top_k == 1:
            return ranked[0] if ranked else dict(answer="", score=0.0, start=-1, end=-1,
                                                 start_logit=0.0, end_logit=0.0)
        return ranked[:top_k]


def _load_keras_model(path):
    """The QA model of a checkpoint `init_checkpoint` reads, span head included."""
    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint
    from keras_bert.checkpoints.run_folder import model_config
    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.tasks.question_answering import QuestionAnsweringTask

    model = QuestionAnsweringTask().build_model(BertEncoder.from_bert_config(model_config(path)))
    load_init_checkpoint(model, path, require_heads=True)
    return model


def _vocab_beside(path, kind):
    from keras_bert.checkpoints import run_folder

    folder = {"tflite": os.path.dirname(os.path.abspath(path)),
              "saved_model": os.path.join(path, "assets")}.get(kind) or run_folder.model_folder(path)
    candidate = os.path.join(folder, run_folder.VOCAB_FILE)
    if os.path.exists(candidate):
        return candidate
    if kind == "tflite":  # the export writes it into the TFLite Metadata
        packed = _metadata_vocabulary(path)
        if packed:
            return packed
    raise FileNotFoundError(f"No vocab.txt beside {path}: pass vocab_file (the model's "
                            "vocabulary).")


def _metadata_vocabulary(path):
    """The tokens of the `vocab.txt` that TFLite Metadata zips after the model (the files
    `keras_bert.export` writes, and the shipped ones, carry it), or None."""
    import zipfile

    from keras_bert.checkpoints import run_folder

    try:
        with zipfile.ZipFile(path) as files:
            return files.read(run_folder.VOCAB_FILE).decode("utf-8").splitlines()
    except (zipfile.BadZipFile, KeyError):
        return None
