"""The sentence embedder as a `.tflite`: the reader's input contract, one unit vector out, the
pooling and normalization in the graph, its vocabulary in the metadata, its digest in SHA256SUMS."""

import os
import subprocess
import tempfile

import numpy as np

import keras_bert
from keras_bert.export.tflite.conversion import tflite_op_names, tflite_runner
from keras_bert.export.tflite.metadata import add_metadata
from keras_bert.export.tflite.metadata_reader import read_metadata
from keras_bert.export.tflite.sentence_embedder import export_sentence_embedder
from keras_bert.retrieval import TfliteEmbedder
from keras_bert.tokenization.packing import encode_texts
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.export.tflite.metadata_test import VOCAB
from tests.test_case import TINY, TestCase, randomize_weights


class SentenceEmbedderExportTest(TestCase):
    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp()
        self.vocab_file = os.path.join(self.dir, "vocab.txt")
        with open(self.vocab_file, "w") as f:
            f.write("\n".join(VOCAB) + "\n")
        self.embedder = keras_bert.BertSentenceEmbedder(keras_bert.BertEncoder(**TINY))
        randomize_weights(self.embedder, scale=0.3)

    def test_float32_file_is_the_keras_model_with_the_reader_contract(self):
        path = export_sentence_embedder(self.embedder, os.path.join(self.dir, "e.tflite"),
                                        self.vocab_file, sequence_length=12,
                                        quantization="float32")
        runner = tflite_runner(path)
        details = runner.get_input_details()
        self.assertEqual(sorted(details), ["ids", "mask", "segment_ids"])
        for name, detail in details.items():
            self.assertEqual((list(detail["shape"]), detail["dtype"]), ([1, 12], np.int32), name)
        output = runner.get_output_details()["embedding"]
        self.assertEqual((list(output["shape"]), output["dtype"]), ([1, 8], np.float32))
        ops = tflite_op_names(path)
        self.assertFalse([op for op in ops if op.startswith("Flex") or op == "CUSTOM"], ops)

        # TfliteEmbedder (tokenize, pack, one text per call) against the Keras model on the same
        # packed inputs: pooling over real tokens and the normalization happen in the file.
        texts = ["the cat sat on the mat .", "who ran ?", "a big red dog is where the cat sat ."]
        tokenizer = ReferenceTokenizer(self.vocab_file)
        expected = self.embedder.predict(encode_texts(tokenizer, texts, sequence_length=12),
                                         verbose=0)["embedding"]
        embed = TfliteEmbedder(path, num_threads=1)
        actual = embed(texts)
        self.assertAllClose(actual, expected, atol=1e-5)
        self.assertAllClose(np.linalg.norm(actual, axis=1), np.ones(3), atol=1e-6)
        self.assertEqual((embed.sequence_length, len(embed.seconds), embed.truncated), (12, 3, 0))

        with open(path, "rb") as f:
            data = f.read()
        metadata = read_metadata(data)
        with self.assertRaisesRegex(ValueError, "A sentence embedder has no classes"):
            add_metadata(data, name="e", description="e", version="1", author="t",
                         license="Apache-2.0", vocab_file=self.vocab_file, labels=["a"] * 8)
        self.assertEqual(metadata["files"]["vocab.txt"], ("\n".join(VOCAB) + "\n").encode())
        self.assertEqual([t["name"] for t in metadata["outputs"]], ["embedding"])
        check = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=self.dir,
                               capture_output=True, text=True)
        self.assertEqual(check.stdout, "e.tflite: OK\n", check.stderr)

    def test_dynamic_int8_has_int8_weights_and_stays_close(self):
        # Wide enough that every kernel has over 1,024 weights, the converter's floor for int8.
        embedder = keras_bert.BertSentenceEmbedder(keras_bert.BertEncoder(
            **dict(TINY, hidden_size=48, intermediate_size=96)))
        randomize_weights(embedder, scale=0.1)
        path = export_sentence_embedder(embedder, os.path.join(self.dir, "q.tflite"),
                                        self.vocab_file, sequence_length=12)
        from ai_edge_litert.interpreter import Interpreter

        interpreter = Interpreter(model_path=path)
        tensors = {t["index"]: t for t in interpreter.get_tensor_details()}
        weights = {tensors[op["inputs"][1]]["dtype"] for op in interpreter._get_ops_details()
                   if op["op_name"] == "FULLY_CONNECTED"}
        self.assertEqual(weights, {np.int8})
        texts = ["the cat sat on the mat .", "where is the blue dog ?"]
        expected = embedder.predict(
            encode_texts(ReferenceTokenizer(self.vocab_file), texts, sequence_length=12),
            verbose=0)["embedding"]
        cosines = np.sum(TfliteEmbedder(path)(texts) * expected, axis=1)
        # Measured 0.999998 on both (2026-11-28); the real model's loss is the shipped-file test's.
        self.assertGreater(cosines.min(), 0.9999)

    def test_bad_arguments_are_clear(self):
        with self.assertRaisesRegex(ValueError, "no calibration set"):
            export_sentence_embedder(self.embedder, os.path.join(self.dir, "x.tflite"),
                                     self.vocab_file, 12, quantization="full_int8")
        with self.assertRaisesRegex(TypeError, "Expected a keras_bert.BertSentenceEmbedder"):
            export_sentence_embedder(self.embedder.encoder, os.path.join(self.dir, "x.tflite"),
                                     self.vocab_file, 12)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "x.tflite")))
