"""TFLite Metadata: the model still runs bit-identically, files are zipped verbatim, read back."""

import io
import os
import tempfile
import zipfile

import keras
import numpy as np
from ai_edge_litert.interpreter import Interpreter
from tensorflow.lite.python import schema_py_generated as tflite_schema
from tensorflow.lite.tools import flatbuffer_utils

import keras_bert
from keras_bert.export.tflite.conversion import export_tflite
from keras_bert.export.tflite.metadata import add_metadata
from keras_bert.export.tflite.metadata_reader import read_metadata
from tests.test_case import TINY, TestCase, randomize_weights

# 23 tokens: TINY's vocab_size.
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "who",
         "what", "dog", "ran", "a", "##s", "is", "where", ".", ",", "red", "blue",
         "big"]  # fmt: skip
INFO = dict(name="tiny", description="A tiny test model.", version="1", author="tests",
            license="Apache-2.0")  # fmt: skip
LABELS = ["negative", "neutral", "positive"]


def _write(directory, name, data):
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def _edit(tflite_bytes, change):
    """Applies `change(ModelT)` and repacks: a model off the export contract, cheaply."""
    model = flatbuffer_utils.read_model_from_bytearray(bytearray(tflite_bytes))
    change(model)
    return bytes(flatbuffer_utils.convert_object_to_bytearray(model))


def _run(tflite_bytes, inputs):
    interpreter = Interpreter(model_content=tflite_bytes)
    return interpreter.get_signature_runner()(**inputs)


def _subgraph_order(tflite_bytes):
    """Signature names of the subgraph's inputs and outputs, in the subgraph's own order."""
    interpreter = Interpreter(model_content=tflite_bytes)
    runner = interpreter.get_signature_runner()
    names = lambda details: {d["index"]: name for name, d in details.items()}  # noqa: E731
    inputs, outputs = names(runner.get_input_details()), names(runner.get_output_details())
    return (
        [inputs[d["index"]] for d in interpreter.get_input_details()],
        [outputs[d["index"]] for d in interpreter.get_output_details()],
    )


class MetadataTest(TestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.dir = tempfile.mkdtemp()
        cls.vocab = ("\n".join(VOCAB) + "\n").encode()
        cls.vocab_file = _write(cls.dir, "vocab.txt", cls.vocab)
        keras.utils.set_random_seed(7)
        # The Task Library's BertQuestionAnswerer only takes [1, 384].
        qa = keras_bert.BertQuestionAnswerer(
            keras_bert.BertEncoder(**dict(TINY, max_position_embeddings=384))
        )
        randomize_weights(qa, seed=1, scale=0.3)
        with open(export_tflite(qa, os.path.join(cls.dir, "qa.tflite"), 384), "rb") as f:
            cls.qa = f.read()
        classifier = keras_bert.BertClassifier(keras_bert.BertEncoder(**TINY), len(LABELS))
        randomize_weights(classifier, seed=2, scale=0.3)
        with open(export_tflite(classifier, os.path.join(cls.dir, "clf.tflite"), 7), "rb") as f:
            cls.classifier = f.read()

    def add(self, model, **kwargs):
        return add_metadata(model, **{**INFO, "vocab_file": self.vocab_file, **kwargs})

    def test_model_with_metadata_runs_bit_identically(self):
        rng = np.random.default_rng(3)
        lengths = np.arange(384) < 200
        inputs = {
            "ids": (rng.integers(1, 23, (1, 384)) * lengths).astype("int32"),
            "mask": lengths[None].astype("int32"),
            "segment_ids": ((np.arange(384) >= 20) * lengths)[None].astype("int32"),
        }
        expected = _run(self.qa, inputs)
        actual = _run(self.add(self.qa), inputs)
        self.assertEqual(sorted(actual), ["end_logits", "start_logits"])
        for name in expected:
            np.testing.assert_array_equal(actual[name], expected[name])

    def test_vocab_is_zipped_uncompressed_after_the_model(self):
        model = self.add(self.qa)
        with zipfile.ZipFile(io.BytesIO(model)) as archive:
            (info,) = archive.infolist()
            self.assertEqual(info.filename, "vocab.txt")
            self.assertEqual(info.compress_type, zipfile.ZIP_STORED)
            self.assertEqual(archive.read(info), self.vocab)
        # The Task Library maps the file in place: its exact bytes sit inside the model file,
        # after the flatbuffer, at the offset the zip records.
        self.assertEqual(model[info.header_offset : info.header_offset + 4], b"PK\x03\x04")
        self.assertGreater(info.header_offset, len(self.qa))
        self.assertGreater(model.find(self.vocab), info.header_offset)

    def test_read_metadata_round_trips_in_subgraph_order(self):
        metadata = read_metadata(self.add(self.qa))
        inputs, outputs = _subgraph_order(self.qa)
        self.assertEqual([t["name"] for t in metadata["inputs"]], inputs)
        self.assertEqual([t["name"] for t in metadata["outputs"]], outputs)
        self.assertEqual(sorted(inputs), ["ids", "mask", "segment_ids"])
        self.assertEqual({k: metadata[k] for k in INFO}, INFO)
        self.assertEqual(metadata["min_parser_version"], "1.1.0")
        (unit,) = metadata["input_process_units"]
        self.assertEqual(unit["options_type"], "BertTokenizerOptions")
        self.assertEqual([(f["name"], f["type"]) for f in unit["vocab_file"]],
                         [("vocab.txt", "VOCABULARY")])  # fmt: skip
        self.assertEqual(metadata["files"], {"vocab.txt": self.vocab})
        descriptions = {t["name"]: t["description"] for t in metadata["inputs"]}
        self.assertIn("padding", descriptions["mask"])

    def test_classifier_labels_annotate_its_scores(self):
        model = self.add(self.classifier, labels=LABELS,
                         output_descriptions={"logits": "Sentiment logits."})  # fmt: skip
        metadata = read_metadata(model)
        # BertNLClassifier looks its scores up as "probability".
        (output,) = metadata["outputs"]
        self.assertEqual(output["name"], "probability")
        self.assertEqual(output["description"], "Sentiment logits.")
        self.assertEqual([(f["name"], f["type"]) for f in output["associated_files"]],
                         [("labels.txt", "TENSOR_AXIS_LABELS")])  # fmt: skip
        self.assertEqual(metadata["files"]["labels.txt"], b"negative\nneutral\npositive\n")
        self.assertEqual(metadata["files"]["vocab.txt"], self.vocab)

    def test_adding_again_replaces_instead_of_duplicating(self):
        other_vocab = _write(self.dir, "other_vocab.txt", ("\n".join(VOCAB[::-1]) + "\n").encode())
        twice = self.add(self.add(self.qa, version="1"), version="2", vocab_file=other_vocab)
        # Same bytes as adding the second metadata to the plain model: one TFLITE_METADATA
        # entry, one buffer for it, and the first zip gone.
        self.assertEqual(twice, self.add(self.qa, version="2", vocab_file=other_vocab))
        model = tflite_schema.Model.GetRootAs(twice, 0)
        names = [model.Metadata(i).Name() for i in range(model.MetadataLength())]
        self.assertEqual(names.count(b"TFLITE_METADATA"), 1)
        metadata = read_metadata(twice)
        self.assertEqual(metadata["version"], "2")
        self.assertEqual(list(metadata["files"]), ["vocab.txt"])
        self.assertEqual(metadata["files"]["vocab.txt"][:6], b"big\nbl")

    def test_weight_buffers_stay_16_byte_aligned(self):
        # TFLite's schema asks for it (force_align: 16); the Python builder alone ignores it
        # (and the converter's own output has most of these buffers off 16).
        model = tflite_schema.Model.GetRootAs(self.add(self.qa), 0)
        starts = []
        for i in range(model.BuffersLength()):
            table = model.Buffers(i)._tab
            offset = table.Offset(4)  # Buffer.data, the first field
            if offset and table.VectorLen(offset):
                starts.append(table.Vector(offset))
        self.assertGreater(len(starts), 20)
        self.assertEqual([s % 16 for s in starts], [0] * len(starts))

    def test_model_without_metadata_reads_as_none(self):
        self.assertIsNone(read_metadata(self.qa))
        with self.assertRaisesRegex(ValueError, "Not a TFLite model"):
            read_metadata(b"PK\x03\x04 a zip, not a model")

    def test_bad_inputs_are_refused_clearly(self):
        blank_line = _write(self.dir, "blank.txt", b"[PAD]\n\n[UNK]\n[CLS]\n[SEP]\n")
        no_cls = _write(self.dir, "no_cls.txt", b"[PAD]\n[UNK]\n[SEP]\nthe\n")

        def rename_ids(model):
            for tensor_map in model.signatureDefs[0].inputs:
                if tensor_map.name == b"ids":
                    tensor_map.name = b"token_ids"

        def seq_128(model):
            for index in model.subgraphs[0].inputs:
                model.subgraphs[0].tensors[index].shape = np.array([1, 128], np.int32)

        cases = [
            (TypeError, "bytes", dict(model="qa.tflite")),
            (ValueError, "Not a TFLite model", dict(model=b"\x00" * 64)),
            (FileNotFoundError, "does not exist", dict(vocab_file="/nonexistent/vocab.txt")),
            (ValueError, r"line\(s\) \[2\] are empty", dict(vocab_file=blank_line)),
            (ValueError, r"lacks \['\[CLS\]'\]", dict(vocab_file=no_cls)),
            (ValueError, "has no classes", dict(labels=["a"])),
            (ValueError, r"Descriptions for \['logits'\]",
             dict(output_descriptions={"logits": "x"})),
            (ValueError, "2 labels for an output of 3 classes",
             dict(model=self.classifier, labels=LABELS[:2])),
            (ValueError, "one-line", dict(model=self.classifier, labels=["a", "b\nc", "d"])),
            (ValueError, "inputs are .*'token_ids'.* binds .*'ids'",
             dict(model=_edit(self.qa, rename_ids))),
            (ValueError, r"\[1, 128\].*needs \[1, 384\]", dict(model=_edit(self.qa, seq_128))),
        ]  # fmt: skip
        for error, pattern, kwargs in cases:
            with self.subTest(pattern):
                model = kwargs.pop("model", self.qa)
                with self.assertRaisesRegex(error, pattern):
                    self.add(model, **kwargs)

    def test_a_variant_is_written_once_with_its_metadata_or_not_at_all(self):
        """A failure (or a kill) between the conversion and the metadata must leave no model
        recorded as whole without its metadata: the bytes are written once, complete."""
        from unittest import mock

        from keras_bert.export.tflite import tflite_variants
        from keras_bert import integrity

        classifier = keras_bert.BertClassifier(keras_bert.BertEncoder(**TINY), len(LABELS))
        randomize_weights(classifier, seed=2, scale=0.3)
        out = os.path.join(self.dir, "variants")
        with mock.patch.object(tflite_variants, "add_metadata", side_effect=OSError("disk full")):
            with self.assertRaisesRegex(OSError, "disk full"):
                tflite_variants.export_tflite_variants(
                    classifier, out, "clf", 7, ["float32"], self.vocab_file, labels=LABELS)
        self.assertEqual([p for p in os.listdir(out) if p.endswith(".tflite")] if os.path.isdir(out)
                         else [], [])
        paths = tflite_variants.export_tflite_variants(
            classifier, out, "clf", 7, ["float32"], self.vocab_file, labels=LABELS)
        with open(paths["float32"], "rb") as f:
            files = read_metadata(f.read())["files"]
        self.assertEqual(files["labels.txt"].decode().split(), LABELS)
        self.assertEqual(integrity.verify_files(out), 1)
