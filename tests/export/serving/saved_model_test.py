"""SavedModel export: TF Serving layout, signatures, parity with Keras and the Python pipelines."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from unittest import mock

import keras_bert
import numpy as np
import pytest
import tensorflow as tf

from keras_bert.export.serving.saved_model import export_saved_model
from keras_bert.data.tasks.conll_ner import CONLL2003_LABELS, NerSentence, convert_ner_sentences, word_predictions
from tests.data_paths import shared_data_dir
from tests.test_case import TINY, TestCase, randomize_weights

VOCAB = os.path.join(shared_data_dir(), "vocab", "bert-base-uncased-vocab.txt")
TEXTS = [
    "A gripping, beautifully acted film.",
    "Dull.",
    "Ünïcödé café — naïve résumé, 東京 and emoji 🙂!",
    "word " * 40,  # longer than the tiny max_seq_length: truncated
]


def tiny_encoder():
    config = dict(TINY, vocab_size=len(keras_bert.load_vocabulary(VOCAB)), max_position_embeddings=64)
    return keras_bert.BertEncoder(**config)


def loaded(version_dir):
    return tf.saved_model.load(version_dir).signatures


class ClassifierExportTest(TestCase):
    def setUp(self):
        super().setUp()
        self.model = keras_bert.BertClassifier(tiny_encoder(), num_classes=3)
        randomize_weights(self.model, scale=0.3)
        self.base = tempfile.mkdtemp()

    def export(self, **kwargs):
        args = dict(max_seq_length=16, labels=["neg", "neu", "pos"])
        args.update(kwargs)
        return export_saved_model(self.model, self.base, "sst", VOCAB, **args)

    def test_versioned_layout_assets_and_info(self):
        first = self.export()
        second = self.export()
        self.assertEqual(first, os.path.join(self.base, "sst", "1"))
        self.assertEqual(second, os.path.join(self.base, "sst", "2"))
        self.assertEqual(sorted(os.listdir(os.path.join(self.base, "sst"))), ["1", "2"])
        assets = os.listdir(os.path.join(first, "assets"))
        self.assertIn("vocab.txt", assets)
        self.assertIn("labels.txt", assets)
        with open(os.path.join(first, "assets", "labels.txt")) as f:
            self.assertEqual(f.read().split(), ["neg", "neu", "pos"])
        with open(os.path.join(first, "assets.extra", "keras_bert_export.json")) as f:
            info = json.load(f)
        self.assertEqual(info["task"], "classification")
        self.assertIs(info["do_lower_case"], True)
        self.assertEqual(info["signatures"], ["serving_default", "serve_text"])
        with self.assertRaisesRegex(FileExistsError, "immutable"):
            self.export(version=2)
        # Every file of the version is in its SHA256SUMS, and coreutils agrees with each digest.
        check = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=first,
                               capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        files = sorted(os.path.relpath(os.path.join(root, f), first)
                       for root, _, names in os.walk(first) for f in names)
        self.assertEqual(sorted(line.split(": ")[0] for line in check.stdout.splitlines()),
                         [f for f in files if f != "SHA256SUMS"])

    def test_each_weight_is_stored_once(self):
        # keras-team/keras#23553: a plain ExportArchive stores every weight twice.
        version_dir = self.export()
        stored = sum(
            int(np.prod(shape))
            for name, shape in tf.train.list_variables(os.path.join(version_dir, "variables", "variables"))
            if name != "_CHECKPOINTABLE_OBJECT_GRAPH"
        )
        self.assertEqual(stored, self.model.count_params())

    def test_ids_signature_matches_keras(self):
        signatures = loaded(self.export())
        preprocessor = keras_bert.BertPreprocessor(VOCAB, sequence_length=16)
        inputs = {k: v.numpy() for k, v in preprocessor(TEXTS).items()}
        expected = self.model.predict(inputs, verbose=0)
        out = signatures["serving_default"](
            ids=tf.constant(inputs["token_ids"]), mask=tf.constant(inputs["padding_mask"]),
            segment_ids=tf.constant(inputs["segment_ids"]),
        )
        self.assertAllClose(out["logits"].numpy(), expected, atol=1e-5)
        self.assertAllClose(out["probabilities"].numpy(), tf.nn.softmax(expected).numpy(), atol=1e-6)

    def test_xla_compiled_signature_matches_and_still_checks_its_inputs(self):
        plain = loaded(self.export(text_signature=False))["serving_default"]
        compiled_dir = self.export(text_signature=False, jit_compile=True)
        compiled = loaded(compiled_dir)["serving_default"]
        rng = np.random.default_rng(0)
        for length in (5, 16):  # two shapes: each compiles once
            ids = tf.constant(rng.integers(1, 30000, (2, length)), tf.int32)
            feed = dict(ids=ids, mask=tf.ones_like(ids), segment_ids=tf.zeros_like(ids))
            self.assertAllClose(compiled(**feed)["logits"], plain(**feed)["logits"], atol=1e-5)
        # The model call is XLA-compiled in the SavedModel itself, not by the caller.
        def must_compile(signature):
            library = signature.graph.as_graph_def().library.function
            return [f.signature.name for f in library if f.attr["_XlaMustCompile"].b]

        self.assertTrue(must_compile(compiled))
        self.assertFalse(must_compile(plain))
        bad = tf.constant([[101, 30522, 102]], tf.int32)
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError, "vocab_size"):
            compiled(ids=bad, mask=tf.ones_like(bad), segment_ids=tf.zeros_like(bad))

    def test_ids_signature_rejects_bad_ids_with_a_clear_message(self):
        signature = loaded(self.export())["serving_default"]
        ids = tf.constant([[101, 30522, 102]], tf.int32)  # one past the vocabulary
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError, "vocab_size"):
            signature(ids=ids, mask=tf.ones_like(ids), segment_ids=tf.zeros_like(ids))
        long = tf.ones([1, 65], tf.int32)
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError, "max_position_embeddings"):
            signature(ids=long, mask=long, segment_ids=tf.zeros_like(long))

    def test_text_signature_gives_the_python_pipeline_labels(self):
        signature = loaded(self.export())["serve_text"]
        out = signature(text_a=tf.constant(TEXTS))
        preprocessor = keras_bert.BertPreprocessor(VOCAB, sequence_length=16)
        logits = self.model.predict(preprocessor(TEXTS), verbose=0)
        self.assertAllClose(out["logits"].numpy(), logits, atol=1e-5)
        expected = [["neg", "neu", "pos"][i] for i in logits.argmax(-1)]
        self.assertEqual([x.decode() for x in out["label"].numpy()], expected)
        # The tokens the model saw, read back through the vocab.txt asset.
        tokens = [t.decode() for t in out["tokens"].numpy()[1] if t]
        self.assertEqual(tokens, ["[CLS]", "dull", ".", "[SEP]"])

    def test_text_pair_signature(self):
        signature = loaded(self.export(text_pair=True))["serve_text"]
        a = ["Who ran?", "It rained.", "a " * 20, "short"]
        b = ["Bo ran fast.", "The ground is wet.", "b " * 3, "c " * 30]  # both truncation cases
        out = signature(text_a=tf.constant(a), text_b=tf.constant(b))
        preprocessor = keras_bert.BertPreprocessor(VOCAB, sequence_length=16)
        logits = self.model.predict(preprocessor((a, b)), verbose=0)
        self.assertAllClose(out["logits"].numpy(), logits, atol=1e-5)
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError, "same batch size"):
            signature(text_a=tf.constant(a), text_b=tf.constant(b[:1]))

    def test_text_signature_uses_no_tensorflow_text_op_but_wordpiece(self):
        # Stock TF Serving images pin an older TensorFlow Text (tensorflow/serving#2267):
        # packing uses core ops, so WordPiece is the graph's only TensorFlow Text op.
        from tensorflow.core.protobuf import saved_model_pb2

        with open(os.path.join(self.export(text_pair=True), "saved_model.pb"), "rb") as f:
            graph = saved_model_pb2.SavedModel.FromString(f.read()).meta_graphs[0].graph_def
        nodes = list(graph.node) + [n for f in graph.library.function for n in f.node_def]
        self.assertEqual(
            sorted({n.op for n in nodes if not hasattr(tf.raw_ops, n.op)}),
            ["FastWordpieceTokenizeWithOffsets"],
        )

    def test_empty_text_is_a_clear_error(self):
        signature = loaded(self.export())["serve_text"]
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError, "text_a is empty"):
            signature(text_a=tf.constant(["fine", "  "]))

    def test_bad_arguments_write_nothing(self):
        cases = [
            (dict(max_seq_length=65), ValueError, "3 to 64 tokens"),
            (dict(labels=["a", "b"]), ValueError, "2 labels"),
            (dict(labels=None), ValueError, "needs its labels"),
            (dict(labels=["a", "a", "b"]), ValueError, "distinct"),
        ]
        for kwargs, error, message in cases:
            with self.assertRaisesRegex(error, message):
                self.export(**kwargs)
        with self.assertRaisesRegex(TypeError, "Cannot export a BertEncoder"):
            export_saved_model(tiny_encoder(), self.base, "sst", VOCAB, max_seq_length=16)
        with self.assertRaisesRegex(ValueError, "vocab_size"):
            vocab = os.path.join(self.base, "short_vocab.txt")
            keras_bert.write_vocabulary(keras_bert.load_vocabulary(VOCAB)[:-1], vocab)
            export_saved_model(self.model, self.base, "sst", vocab, max_seq_length=16, labels=list("abc"))
        # A failure half-way through (here: while tracing the text signature) leaves no
        # version directory and no staging directory behind.
        with mock.patch(
            "keras_bert.export.serving.saved_model.add_classifier_text_endpoint",
            side_effect=RuntimeError("boom"),
        ):
            with self.assertRaisesRegex(RuntimeError, "boom"):
                self.export()
        self.assertEqual(os.listdir(os.path.join(self.base, "sst")), [])


class TokenClassifierExportTest(TestCase):
    def test_text_signature_gives_the_python_pipeline_tags(self):
        labels = list(CONLL2003_LABELS)
        model = keras_bert.BertTokenClassifier(tiny_encoder(), num_classes=len(labels))
        randomize_weights(model, scale=0.5)
        base = tempfile.mkdtemp()
        signature = loaded(export_saved_model(model, base, "ner", VOCAB, max_seq_length=16, labels=labels))[
            "serve_text"
        ]
        sentences = [
            "EU rejects German call to boycott British lamb .",
            "Peter Blackburn",
            "Schäfer told Reuters : \" We do n't support any such recommendation \" in Brussels .",
            "\x07 control-char-only word and antidisestablishmentarianism",
        ]
        out = signature(text=tf.constant(sentences))
        tokenizer = keras_bert.ReferenceTokenizer(VOCAB, do_lower_case=True)
        ner = [NerSentence(s.split(), ["O"] * len(s.split()), 1) for s in sentences]
        features = convert_ner_sentences(ner, tokenizer, labels, max_seq_length=16)
        self.assertGreater(features.num_truncated, 0)  # the cut-off rule is exercised
        expected = word_predictions(features, model.predict(features.inputs(), verbose=0), labels)
        for row, words in enumerate(expected):
            n = int(out["num_words"][row])
            self.assertEqual([w.decode() for w in out["labels"].numpy()[row][:n]], words)
            self.assertEqual([w.decode() for w in out["words"].numpy()[row][:n]], ner[row].words)
        self.assertEqual(
            out["truncated"].numpy().tolist(),
            [None in positions for positions in features.word_positions],
        )


@pytest.mark.large
class FreshProcessTest(TestCase):
    def test_reloads_and_answers_with_only_tensorflow_and_tensorflow_text(self):
        model = keras_bert.BertClassifier(tiny_encoder(), num_classes=2)
        randomize_weights(model, scale=0.3)
        version_dir = export_saved_model(
            model, tempfile.mkdtemp(), "sst", VOCAB, max_seq_length=16, labels=["neg", "pos"]
        )
        preprocessor = keras_bert.BertPreprocessor(VOCAB, sequence_length=16)
        expected = model.predict(preprocessor(TEXTS[:2]), verbose=0)
        script = textwrap.dedent(
            f"""
            import json, sys
            import tensorflow as tf
            import tensorflow_text  # registers the text ops the signature uses
            signature = tf.saved_model.load({version_dir!r}).signatures["serve_text"]
            out = signature(text_a=tf.constant({TEXTS[:2]!r}))
            print(json.dumps({{
                "logits": out["logits"].numpy().tolist(),
                "ours": sorted(m for m in sys.modules if m.split(".")[0] in ("keras_bert", "export")),
            }}))
            """
        )
        result = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True,
            cwd=tempfile.mkdtemp(),
        )
        answer = json.loads(result.stdout.strip().splitlines()[-1])
        self.assertEqual(answer["ours"], [])
        self.assertAllClose(np.array(answer["logits"]), expected, atol=1e-5)
