"""`squad_text_function`: in-graph SQuAD answers equal the Python pipeline's, after export too."""

import gzip
import json
import os
import subprocess
import sys
import tempfile
import time

import keras
import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.export.serving.squad_signature import squad_text_function
from keras_bert.data.tasks.squad_examples import SquadExample, split_on_whitespace
from tests.data_paths import shared_data_dir
from tests.keras_bert.tokenization.hard_cases import HARD_CASES
from tests.test_case import TINY, TestCase, randomize_weights

REAL_RUN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "runs", "squad_minilm", "out")
SIGNATURE = [
    tf.TensorSpec([None], tf.string, name="question"),
    tf.TensorSpec([None], tf.string, name="context"),
]
SQUAD_LENGTHS = dict(max_seq_length=64, doc_stride=16, max_query_length=12)
HARD_LENGTHS = dict(max_seq_length=32, doc_stride=8, max_query_length=6)

# Contexts aimed at the text -> words -> wordpieces -> windows -> original text path.
HARD_CONTEXTS = [
    "The Treaty of Paris was signed in (1996). Smith's heirs—the Joneses—disputed it; "
    '"really?" they asked, citing pp. 12–14 and the 1895-1943 records.',
    "Le café de Flore, dirigé par Zoë Bérénice (née à Québec), ouvre à 7h. Ñandú! Ærø Øst "
    "naïve coöperate.",
    "他在東京工作了三年，然後搬到大阪。The company 株式会社ソニー was founded in 1946 日本.",
    "  Alpha  beta\n\ngamma\tdelta \r\n epsilon\u202fzeta\u00a0eta   theta.\t iota\n",
    "ΟΔΟΣ ΟΔΟΣ. Σίσυφος straße STRASSE İstanbul ﬁnance x² ½ e\u0301 \u0301 word",
    "singing ringing bringing things (1895-1943) U.S.A. e.g. 3.14159 $100,000 rock'n'roll",
    "A word " + "x" * 250 + " is unknown; so is I ❤️ 🍕 pizza 😀 a lot.",
    "zero\u200bwidth soft\u00adhyphen \ufeffbom ctrl\x00nul a\x0bb\x0cc \x1c\x1dd end.",
    "\u0301",  # one word, no wordpieces: no span at all
]
QUESTIONS = [
    "Who?",
    "What is the name of the very long question that goes on and on about many things?",
]


def squad_dev(num_articles=None, last=False):
    """`(questions, contexts)` of SQuAD v1.1 dev, all or of the first/last `num_articles`."""
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt", encoding="utf-8") as f:
        articles = json.load(f)["data"]
    if num_articles:
        articles = articles[-num_articles:] if last else articles[:num_articles]
    pairs = [
        (qa["question"], paragraph["context"])
        for article in articles
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    ]
    return [q for q, _ in pairs], [c for _, c in pairs]


def hard_cases():
    """`(questions, contexts)`: every non-blank tokenizer hard case and `HARD_CONTEXTS`."""
    contexts = [text for _, text in HARD_CASES if text.strip()] + HARD_CONTEXTS
    return [QUESTIONS[i % 2] for i in range(len(contexts))], contexts


def vocab(casing="uncased"):
    return os.fspath(shared_data_dir() / "vocab" / f"bert-base-{casing}-vocab.txt")


def tiny_qa(vocab_path, seed=0):
    vocab_size = len(keras_bert.load_vocabulary(vocab_path))
    encoder = keras_bert.BertEncoder(
        **dict(TINY, vocab_size=vocab_size, max_position_embeddings=64)
    )
    qa = keras_bert.BertQuestionAnswerer(encoder)
    randomize_weights(qa, seed=seed)
    return qa


def python_answers(model, vocab_path, questions, contexts, do_lower_case=True, n_best_size=20,
                   max_answer_length=30, batch_size=32, **lengths):
    """The Python pipeline: `[(text, start_logit, end_logit)]`, one per question."""
    tokenizer = keras_bert.ReferenceTokenizer(vocab_path, do_lower_case=do_lower_case)
    words = {c: split_on_whitespace(c)[0] for c in set(contexts)}
    examples = [
        SquadExample(str(i), q, words[c]) for i, (q, c) in enumerate(zip(questions, contexts))
    ]
    features = keras_bert.data.convert_squad_examples(examples, tokenizer, **lengths)
    logits = model.predict(features.inputs(), batch_size=batch_size, verbose=0)
    _, nbest, _ = keras_bert.data.decode_squad_predictions(
        examples, features, logits["start_logits"], logits["end_logits"], n_best_size,
        max_answer_length, do_lower_case=do_lower_case,
    )
    best = [nbest[str(i)][0] for i in range(len(examples))]
    return [(b["text"], b["start_logit"], b["end_logit"]) for b in best]


def as_lists(outputs):
    return {
        "text": [t.decode("utf-8") for t in np.asarray(outputs["answer_text"])],
        "start_logit": np.asarray(outputs["start_logit"]),
        "end_logit": np.asarray(outputs["end_logit"]),
        "score": np.asarray(outputs["score"]),
        "answer_start": np.asarray(outputs["answer_start"]),
        "answer_end": np.asarray(outputs["answer_end"]),
    }


class SquadSignatureTest(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.qa = tiny_qa(vocab(), seed=0)
        cls.serve = {}

    def serve_fn(self, **kwargs):
        """One function per argument set, run eagerly (the same ops; tracing a graph costs ~10 s,
        which the large SavedModel test pays)."""
        key = tuple(sorted(kwargs.items()))
        if key not in self.serve:
            self.serve[key] = squad_text_function(self.qa, vocab(), **kwargs)
        return self.serve[key]

    def assertSameAnswers(self, actual, expected, contexts):
        actual = as_lists(actual)
        texts = [text for text, _, _ in expected]
        mismatches = [(i, a, e) for i, (a, e) in enumerate(zip(actual["text"], texts)) if a != e]
        self.assertEqual(mismatches, [])
        starts = np.array([s for _, s, _ in expected])
        ends = np.array([e for _, _, e in expected])
        self.assertAllClose(actual["start_logit"], starts, atol=1e-5)
        self.assertAllClose(actual["end_logit"], ends, atol=1e-5)
        self.assertAllClose(actual["score"], starts + ends, atol=1e-5)
        # The offsets point at the answer in the raw context (up to whitespace runs).
        for text, start, end, context in zip(
            actual["text"], actual["answer_start"], actual["answer_end"], contexts
        ):
            if text:
                self.assertEqual(" ".join(split_on_whitespace(context[start:end])[0]), text)
            else:
                self.assertEqual((start, end), (-1, -1))
        return actual

    def test_squad_dev_answers_equal_the_python_pipeline(self):
        questions, contexts = squad_dev(num_articles=48)
        questions, contexts = questions[::350], contexts[::350]  # 31 questions, 31 articles
        expected = python_answers(self.qa, vocab(), questions, contexts, **SQUAD_LENGTHS)
        outputs = self.serve_fn(**SQUAD_LENGTHS)(tf.constant(questions), tf.constant(contexts))
        actual = self.assertSameAnswers(outputs, expected, contexts)
        # Sanity of the test itself: long contexts, several windows, truncated questions, and
        # answers that are not all alike.
        self.assertGreater(len(set(actual["text"])), 20)
        self.assertTrue(any(len(q.split()) > 12 for q in questions))

    def test_hard_cases_equal_the_python_pipeline_over_several_weights(self):
        questions, contexts = hard_cases()
        serve = self.serve_fn(**HARD_LENGTHS)
        texts = set()
        try:
            for seed in range(4):
                randomize_weights(self.qa, seed=seed)
                expected = python_answers(self.qa, vocab(), questions, contexts, **HARD_LENGTHS)
                outputs = serve(tf.constant(questions), tf.constant(contexts))
                texts |= set(self.assertSameAnswers(outputs, expected, contexts)["text"])
        finally:
            randomize_weights(self.qa, seed=0)
        # Some answers went through google's fallback (the whole original words) and some were
        # cut out of a longer word.
        self.assertGreater(len(texts), 60)

    def test_equal_scores_in_identical_windows_go_to_the_first_like_python(self):
        # 8 one-piece words per unit and doc_stride 8: the full windows hold the same ids, so
        # they score the same spans equally; Python keeps the first window. Only the casing of
        # the original words tells the windows apart.
        words = "the red fox ran to the old barn".split()
        # Unit u capitalizes the words whose bit is set in u: 8 units, 8 spellings.
        context = " ".join(
            w.upper() if (u >> (i % 3)) & 1 else w for u in range(8) for i, w in enumerate(words)
        )
        questions = ["Who ran?", "Where?", "What fox?", "Who?", "Which barn is old?", "When?"]
        contexts = [context] * len(questions)
        serve = self.serve_fn(**HARD_LENGTHS)
        try:
            for seed in range(3):
                randomize_weights(self.qa, seed=seed)
                expected = python_answers(self.qa, vocab(), questions, contexts, **HARD_LENGTHS)
                outputs = serve(tf.constant(questions), tf.constant(contexts))
                self.assertSameAnswers(outputs, expected, contexts)
        finally:
            randomize_weights(self.qa, seed=0)

    def test_equal_logits_in_one_window_tie_like_python(self):
        # Without position embeddings the encoder cannot tell equal tokens apart, so every
        # "fox" gets the same logits: the top-k order and the first of equal-score pairs decide,
        # and the casing of the original words shows which span won.
        qa = tiny_qa(vocab(), seed=7)
        position = next(w for w in qa.weights if "position_embeddings" in w.path)
        position.assign(np.zeros(position.shape, "float32"))
        spellings = ["fox", "Fox", "FOX", "fOx", "foX", "FoX"]
        contexts = [" ".join(spellings * 3), " ".join(["the"] + spellings + ["the"] + spellings)]
        questions = ["Which fox?", "Who?"]
        for n_best_size in (20, 3):
            lengths = dict(HARD_LENGTHS, n_best_size=n_best_size)
            expected = python_answers(qa, vocab(), questions, contexts, **lengths)
            fn = squad_text_function(qa, vocab(), **lengths)
            outputs = fn(tf.constant(questions), tf.constant(contexts))
            self.assertSameAnswers(outputs, expected, contexts)

    def test_no_valid_span_gives_an_empty_answer_like_python(self):
        lengths = dict(HARD_LENGTHS, n_best_size=2, max_answer_length=2)
        questions, contexts = hard_cases()
        expected = python_answers(self.qa, vocab(), questions, contexts, **lengths)
        outputs = self.serve_fn(**lengths)(tf.constant(questions), tf.constant(contexts))
        actual = self.assertSameAnswers(outputs, expected, contexts)
        self.assertIn("", actual["text"])
        self.assertNotEqual(set(actual["text"]), {""})

    def test_cased_vocabulary_keeps_case_and_accents(self):
        questions, contexts = hard_cases()
        qa = tiny_qa(vocab("cased"), seed=5)
        fn = squad_text_function(qa, vocab("cased"), do_lower_case=False, **HARD_LENGTHS)
        expected = python_answers(
            qa, vocab("cased"), questions, contexts, do_lower_case=False, **HARD_LENGTHS
        )
        self.assertSameAnswers(fn(tf.constant(questions), tf.constant(contexts)), expected,
                               contexts)

    def test_vocabulary_list_works_like_the_file(self):
        questions, contexts = hard_cases()
        fn = squad_text_function(self.qa, keras_bert.load_vocabulary(vocab()), **HARD_LENGTHS)
        expected = python_answers(self.qa, vocab(), questions, contexts, **HARD_LENGTHS)
        self.assertSameAnswers(fn(tf.constant(questions), tf.constant(contexts)), expected,
                               contexts)

    def test_an_empty_batch_gives_empty_outputs(self):
        outputs = self.serve_fn(**HARD_LENGTHS)(tf.constant([], tf.string),
                                                tf.constant([], tf.string))
        self.assertEqual({k: tuple(v.shape) for k, v in outputs.items()},
                         {k: (0,) for k in outputs})

    def test_bad_input_names_the_field_and_the_example(self):
        serve = self.serve_fn(**HARD_LENGTHS)
        cases = [
            (["Who?", "  "], ["Bo ran.", "Al ran."], r"question\[1\] is empty or only whitespace"),
            (["Who?", "Why?"], ["Bo ran.", "\u00a0\n\t"], r"context\[1\] is empty or only"),
            ([""], ["Bo ran."], r"question\[0\] is empty or only whitespace"),
            (["Who?", "Why?"], ["Bo ran."], "question and context need the same batch size"),
        ]
        for questions, contexts, message in cases:
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError, message):
                serve(tf.constant(questions), tf.constant(contexts))
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError, r"context\[1\] is not valid"):
            serve(tf.constant(["Who?", "Who?"]), tf.constant([b"ok", b"caf\xe9"]))

    def test_bad_arguments_are_rejected_when_building(self):
        with self.assertRaisesRegex(ValueError, "leaves no room for the context"):
            squad_text_function(self.qa, vocab(), max_seq_length=16, max_query_length=13)
        with self.assertRaisesRegex(ValueError, "doc_stride must be >= 1"):
            squad_text_function(self.qa, vocab(), doc_stride=0)

    @pytest.mark.large
    def test_saved_model_answers_in_a_process_without_keras_bert(self):
        questions, contexts = hard_cases()
        sq, sc = squad_dev(num_articles=48)
        questions, contexts = questions + sq[::350], contexts + sc[::350]
        expected = python_answers(self.qa, vocab(), questions, contexts, **HARD_LENGTHS)
        fn = squad_text_function(self.qa, vocab(), **HARD_LENGTHS)
        path = self.enterContext(tempfile.TemporaryDirectory())
        write_text_archive(self.qa, fn, path)
        self.assertEqual(os.listdir(os.path.join(path, "assets")), ["bert-base-uncased-vocab.txt"])
        outputs = run_in_fresh_process(path, questions, contexts, batch_size=16)
        self.assertSameAnswers(outputs, expected, contexts)


def write_text_archive(model, fn, path):
    """The export recipe: track the model and the function (tokenizer, vocabulary asset)."""
    archive = keras.export.ExportArchive()
    archive.track(model)
    archive.track(fn)
    archive.add_endpoint("serve_text", fn, input_signature=SIGNATURE)
    archive.write_out(path, verbose=False)


_LOADER = """
import json, sys, time
import tensorflow as tf
import tensorflow_text  # registers the WordPiece op
path, questions, contexts, batch_size = json.load(sys.stdin)
began = time.perf_counter()
serve = tf.saved_model.load(path).signatures["serve_text"]
result = {"load_s": time.perf_counter() - began, "batch_s": []}
for name in ("answer_text", "score", "start_logit", "end_logit", "answer_start", "answer_end"):
    result[name] = []
for i in range(0, len(questions), batch_size):
    began = time.perf_counter()
    outputs = serve(question=tf.constant(questions[i:i + batch_size]),
                    context=tf.constant(contexts[i:i + batch_size]))
    result["batch_s"].append(time.perf_counter() - began)
    for name, value in outputs.items():
        result[name] += value.numpy().tolist()
result["answer_text"] = [t.decode("utf-8") for t in result["answer_text"]]
try:
    serve(question=tf.constant(["Who?", "Who?"]), context=tf.constant(["Bo ran.", " \\n"]))
except tf.errors.InvalidArgumentError as e:
    result["error"] = e.message
result["imported"] = sorted({m.split(".")[0] for m in sys.modules} & {"keras_bert", "export"})
print(json.dumps(result))
"""


def run_in_fresh_process(path, questions, contexts, batch_size=64):
    """Runs the `serve_text` signature in a new Python that imports only TF and TF Text."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH="")
    done = subprocess.run(
        [sys.executable, "-c", _LOADER],
        input=json.dumps([path, questions, contexts, batch_size]),
        capture_output=True, text=True, env=env, cwd=tempfile.gettempdir(), check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["imported"] == [], f"the serving process imported {result['imported']}"
    assert "context[1] is empty or only whitespace" in result.get("error", "no error")
    result["answer_text"] = [t.encode("utf-8") for t in result["answer_text"]]
    return result


def measure_real_model(batch_size=32):
    """The fine-tuned MiniLM on the last 10 SQuAD dev articles: Python pipeline vs the
    SavedModel reloaded in a fresh process. Run it as a script (see the bottom of this file);
    it is not a pytest test, since an `extra_large` marker would size this whole file
    `enormous` for Bazel."""
    from keras_bert.export.task.task_model import load_task_model

    best = os.path.join(REAL_RUN, "best")
    qa = load_task_model("squad", REAL_RUN)
    vocab_path = os.path.join(best, "vocab.txt")
    questions, contexts = squad_dev(num_articles=10, last=True)
    lengths = dict(max_seq_length=384, doc_stride=128, max_query_length=64)

    began = time.perf_counter()
    expected = python_answers(qa, vocab_path, questions, contexts, batch_size=batch_size,
                              **lengths)
    python_s = time.perf_counter() - began
    with tempfile.TemporaryDirectory() as path:
        write_text_archive(qa, squad_text_function(qa, vocab_path, **lengths), path)
        result = run_in_fresh_process(path, questions, contexts, batch_size=batch_size)
    texts = [t.decode("utf-8") for t in result["answer_text"]]
    disagreements = [(q, e[0], t) for q, e, t in zip(questions, expected, texts) if e[0] != t]
    scores = np.array([s + e for _, s, e in expected])
    return {
        "questions": len(questions),
        "agree": len(questions) - len(disagreements),
        "disagreements": disagreements[:10],
        "max_abs_score_diff": float(np.abs(np.array(result["score"]) - scores).max()),
        "python_pipeline_s": round(python_s, 1),
        "saved_model_load_s": round(result["load_s"], 1),
        "saved_model_first_batch_s": round(result["batch_s"][0], 1),
        "saved_model_total_s": round(sum(result["batch_s"]), 1),
        "batch_size": batch_size,
    }


if __name__ == "__main__":
    # PYTHONPATH=. TF_CPP_MIN_LOG_LEVEL=2 .venv/bin/python -m tests.export.serving.squad_signature_test
    print(json.dumps(measure_real_model(), indent=1))
