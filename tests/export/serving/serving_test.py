"""TF Serving compatibility: warmup records, the REST stand-in, saved_model_cli on tiny exports."""

import base64
import functools
import json
import os
import pathlib
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request

import keras
import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.protobuf import meta_graph_pb2
from tensorflow.core.protobuf import saved_model_pb2
from tensorflow_serving.apis import predict_pb2

import keras_bert
from keras_bert.export.serving import serving_standin
from keras_bert.export.serving.serving_warmup import read_warmup_requests
from keras_bert.export.serving.serving_warmup import run_predict_request
from keras_bert.export.serving.serving_warmup import write_warmup_requests
from tests.test_case import TINY, TestCase, randomize_weights, tiny_inputs

ROOT = pathlib.Path(__file__).resolve().parents[3]
STANDIN = ROOT / "export" / "serving" / "serving_standin.py"
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "who", "ran", "?", "bo", "h", "##é",
         "##llo"]
TEXTS = ["Who ran?", "bo ran", "h\u00e9llo who"]
NAN = float("nan")


def _signature_def(inputs, outputs):
    """A SignatureDef from `{name: (dtype, shape)}` maps (shape None: unknown rank)."""
    signature = meta_graph_pb2.SignatureDef(method_name="tensorflow/serving/predict")
    for field, specs in (("inputs", inputs), ("outputs", outputs)):
        for name, (dtype, shape) in specs.items():
            info = getattr(signature, field)[name]
            info.name, info.dtype = f"{name}:0", dtype.as_datatype_enum
            if shape is None:
                info.tensor_shape.unknown_rank = True
            for size in shape or ():
                info.tensor_shape.dim.add(size=size)
    return signature


SIGNATURES = {
    "serving_default": _signature_def(
        {name: (tf.int32, [-1, 4]) for name in ("ids", "mask", "segment_ids")},
        {"logits": (tf.float32, [-1, 2])},
    ),
    "text": _signature_def({"text": (tf.string, [-1])}, {"logits": (tf.float32, [-1, 2])}),
    "scores": _signature_def({"x": (tf.float32, None), "flag": (tf.bool, [-1])}, {}),
}
ROW = {"ids": [1, 2, 3, 0], "mask": [1, 1, 1, 0], "segment_ids": [0, 0, 1, 0]}


def _decode(request):
    return serving_standin.decode_predict_request(json.dumps(request), SIGNATURES)


class StandinJsonTest(TestCase):
    """TF Serving's JSON request and response forms, without a server."""

    def test_row_instances_are_stacked_per_input(self):
        signature, form, inputs = _decode({"instances": [ROW, dict(ROW, ids=[4, 5, 6, 7])]})
        self.assertEqual((signature, form), ("serving_default", "row"))
        self.assertEqual(inputs["ids"].dtype, np.int32)
        np.testing.assert_array_equal(inputs["ids"], [[1, 2, 3, 0], [4, 5, 6, 7]])
        np.testing.assert_array_equal(inputs["segment_ids"], [[0, 0, 1, 0]] * 2)

    def test_columnar_object_and_bare_value(self):
        columns = {name: [value] for name, value in ROW.items()}
        _, form, inputs = _decode({"inputs": columns})
        self.assertEqual(form, "columnar")
        np.testing.assert_array_equal(inputs["mask"], [[1, 1, 1, 0]])
        _, form, inputs = _decode({"signature_name": "text", "inputs": ["a", {"b64": "Yg=="}]})
        self.assertEqual((form, inputs["text"].tolist()), ("columnar", [b"a", b"b"]))

    def test_bare_string_instances_with_utf8_and_b64(self):
        raw = b"\xff\x00bin"
        b64 = base64.b64encode(raw).decode()
        _, _, inputs = _decode({"signature_name": "text", "instances": ["h\u00e9", {"b64": b64}]})
        self.assertEqual(inputs["text"].tolist(), ["h\u00e9".encode("utf-8"), raw])

    def test_floats_bools_and_unknown_rank(self):
        _, _, inputs = _decode({"signature_name": "scores",
                                "inputs": {"x": [[1, 2.5], [NAN, 3]], "flag": [True, False]}})
        self.assertEqual(inputs["x"].dtype, np.float32)
        self.assertTrue(np.isnan(inputs["x"][1, 0]))
        np.testing.assert_array_equal(inputs["flag"], [True, False])

    def test_bad_requests_say_what_is_wrong(self):
        cases = [
            ({}, "neither"),
            ({"instances": [ROW], "inputs": {}}, "both"),
            ({"instances": [ROW], "signature": "x"}, "Unknown request keys ['signature']"),
            ({"signature_name": 3, "instances": [ROW]}, "must be a string"),
            ({"signature_name": "nope", "instances": [ROW]}, '"nope" not found'),
            ({"signature_name": "__saved_model_init_op", "instances": [ROW]}, "not found"),
            ({"instances": []}, "non-empty list"),
            ({"instances": {"ids": [1]}}, "non-empty list"),
            ({"instances": [[1, 2, 3, 4]]}, "plain list"),
            ({"instances": [{"ids": [1, 2, 3, 4], "mask": [1, 1, 1, 1]}]},
             "missing: ['segment_ids']"),
            ({"instances": [dict(ROW, extra=[1])]}, "unknown: ['extra']"),
            ({"instances": [ROW, [1, 2, 3, 4]]}, "instances[1] is not an object"),
            ({"instances": [dict(ROW, ids=[1, 2, 3.5, 0])]},
             'input "ids" is int32, but the JSON value 3.5 (Number) at instances[0][2]'),
            ({"instances": [dict(ROW, ids=["1", 2, 3, 0])]}, '"1" (String)'),
            ({"instances": [dict(ROW, ids=[True, 2, 3, 0])]}, "(Boolean)"),
            ({"instances": [dict(ROW, ids=[2**31, 2, 3, 0])]}, "outside int32"),
            ({"inputs": dict({k: [v] for k, v in ROW.items()}, ids=[[1, 2], [3]])},
             'input "ids" is ragged'),
            ({"inputs": dict({k: [v] for k, v in ROW.items()}, ids=[[1, [2]]])},
             'input "ids" is ragged'),
            ({"instances": [ROW, dict(ROW, ids=[1, 2, 3])]}, "ragged instances"),
            ({"instances": [dict(ROW, ids=[1, 2])] * 2}, "takes [-1, 4]"),
            ({"inputs": [[1, 2, 3, 4]]}, "plain value"),
            ({"inputs": {"ids": [[1, 2, 3, 4]]}}, "missing: ['mask', 'segment_ids']"),
            ({"signature_name": "text", "instances": [{"b64": "%%%"}]}, "not valid base64"),
            ({"signature_name": "text", "instances": [5]}, "5 (Number)"),
            ({"signature_name": "scores", "inputs": {"x": [2**25], "flag": [True]}},
             "without loss of precision"),
            ({"signature_name": "scores", "inputs": {"x": [1e39], "flag": [True]}},
             "without loss of precision"),
            ({"signature_name": "scores", "inputs": {"x": [1.0], "flag": [1]}}, "(Number)"),
        ]
        for request, expected in cases:
            with self.subTest(request=request):
                with self.assertRaises(serving_standin.RequestError) as raised:
                    _decode(request)
                self.assertEqual(raised.exception.status, 400)
                self.assertIn(expected, str(raised.exception))
        with self.assertRaisesRegex(serving_standin.RequestError, "JSON Parse error"):
            serving_standin.decode_predict_request(b'{"instances": [', SIGNATURES)
        with self.assertRaisesRegex(serving_standin.RequestError, "must be a JSON object"):
            serving_standin.decode_predict_request(b"[1]", SIGNATURES)

    def test_response_shapes_follow_tf_serving(self):
        logits = np.array([[0.1, -2.0], [3.5, 1e-7]], np.float32)
        words = np.array([b"a", "h\u00e9".encode("utf-8")], object)
        encode = serving_standin.encode_predict_response
        # One output: its name is omitted.
        row = json.loads(encode({"logits": logits}, "row"))
        self.assertEqual(list(row), ["predictions"])
        np.testing.assert_array_equal(np.array(row["predictions"], np.float32), logits)
        columnar = json.loads(encode({"logits": logits}, "columnar"))
        np.testing.assert_array_equal(np.array(columnar["outputs"], np.float32), logits)
        # Several outputs: a list of objects (row) or one object of lists (columnar); "_bytes"
        # outputs are base64 objects, other strings UTF-8 text.
        many = {"logits": logits, "words": words, "words_bytes": words}
        b64 = [{"b64": base64.b64encode(w).decode()} for w in words]
        rows = json.loads(encode(many, "row"))["predictions"]
        self.assertEqual([sorted(r) for r in rows], [["logits", "words", "words_bytes"]] * 2)
        self.assertEqual([r["words"] for r in rows], ["a", "h\u00e9"])
        self.assertEqual([r["words_bytes"] for r in rows], b64)
        np.testing.assert_array_equal(np.array([r["logits"] for r in rows], np.float32), logits)
        columns = json.loads(encode(many, "columnar"))["outputs"]
        self.assertEqual((columns["words"], columns["words_bytes"]), (["a", "h\u00e9"], b64))
        np.testing.assert_array_equal(np.array(columns["logits"], np.float32), logits)
        with self.assertRaisesRegex(serving_standin.RequestError, "batched alike"):
            encode({"logits": logits, "scalar": np.float32(1.0)}, "row")
        with self.assertRaisesRegex(serving_standin.RequestError, "batched alike"):
            encode({"logits": logits, "other": logits[:1]}, "row")

    def test_floats_read_back_exactly_and_special_values(self):
        values = np.random.default_rng(0).normal(0, 1e3, 200).astype(np.float32)
        values[:4] = [np.nan, np.inf, -np.inf, 3.0]
        text = serving_standin.encode_predict_response({"v": values}, "columnar")
        self.assertIn("[NaN,Infinity,-Infinity,3.0,", text)
        back = np.array(json.loads(text)["outputs"], np.float32)
        np.testing.assert_array_equal(back, values)  # exact, NaN included
        ints = {"i": np.array([2**40, -1], np.int64), "b": np.array([True, False])}
        self.assertEqual(json.loads(serving_standin.encode_predict_response(ints, "row")),
                         {"predictions": [{"i": 2**40, "b": True}, {"i": -1, "b": False}]})

    def test_non_utf8_string_output_falls_back_to_b64(self):
        text = serving_standin.encode_predict_response({"s": np.array([b"\xff"], object)}, "row")
        self.assertEqual(json.loads(text), {"predictions": [{"b64": "/w=="}]})


def _tiny_archive(path):
    """A small ExportArchive SavedModel: int32 ids/mask [-1, 7] and a string signature."""
    dense = keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="ones")
    dense.build((None, 7))
    archive = keras.export.ExportArchive()
    archive.track(dense)
    archive.add_endpoint(
        "serving_default",
        lambda ids, mask: {"logits": dense(tf.cast(ids * mask, tf.float32))},
        input_signature=[tf.TensorSpec([None, 7], tf.int32, name="ids"),
                         tf.TensorSpec([None, 7], tf.int32, name="mask")],
    )
    archive.add_endpoint(
        "text",
        lambda text: {"length": tf.strings.length(text, unit="UTF8_CHAR")},
        input_signature=[tf.TensorSpec([None], tf.string, name="text")],
    )
    archive.write_out(path, verbose=False)
    return path


class WarmupTest(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.version_dir = _tiny_archive(os.path.join(cls.tmp.name, "tiny", "3"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_written_requests_parse_back_and_run(self):
        ids = np.arange(14, dtype=np.int64).reshape(2, 7)  # int64 values fit int32: accepted
        mask = np.ones((2, 7), np.int32)
        path = write_warmup_requests(self.version_dir, [
            {"inputs": {"ids": ids, "mask": mask}},
            {"signature_name": "text", "inputs": {"text": ["h\u00e9", b"abc"]}},
        ])
        self.assertEqual(path, os.path.join(self.version_dir, "assets.extra",
                                            "tf_serving_warmup_requests"))
        requests = read_warmup_requests(self.version_dir)
        self.assertEqual([r.model_spec.name for r in requests], ["tiny", "tiny"])
        self.assertEqual([r.model_spec.signature_name for r in requests],
                         ["serving_default", "text"])
        self.assertEqual(requests[0].inputs["ids"].dtype, tf.int32.as_datatype_enum)
        model = tf.saved_model.load(self.version_dir)
        # Dense(2) with ones everywhere: each logit is sum(ids * mask) + 1.
        logits = run_predict_request(model, requests[0])["logits"]
        np.testing.assert_array_equal(logits, [[22.0, 22.0], [71.0, 71.0]])
        lengths = run_predict_request(model, requests[1])["length"]
        np.testing.assert_array_equal(lengths, [2, 3])

    def test_bad_requests_are_refused_before_writing(self):
        good = {"ids": np.zeros((1, 7), np.int32), "mask": np.ones((1, 7), np.int32)}
        cases = [
            ([], "Got 0 warmup requests"),
            ([{"inputs": good}] * 1001, "Got 1001 warmup requests"),
            ([{"inputs": good, "extra": 1}], "must be a dict"),
            ([good], "must be a dict"),
            ([{"signature_name": "nope", "inputs": good}], '"nope" is not in the SavedModel'),
            ([{"inputs": {"ids": good["ids"]}}], "takes inputs ['ids', 'mask']"),
            ([{"inputs": dict(good, other=1)}], "takes inputs ['ids', 'mask']"),
            ([{"inputs": dict(good, ids=np.zeros((1, 7), np.float32))}],
             'input "ids" is int32; got float32 values'),
            ([{"inputs": dict(good, ids=np.full((1, 7), 2**31))}], "out of its range"),
            ([{"inputs": dict(good, ids=np.zeros((1, 6), np.int32))}],
             "has shape [1, 6]; the signature takes [-1, 7]"),
            ([{"inputs": dict(good, ids=np.zeros(7, np.int32))}], "has shape [7]"),
            ([{"inputs": dict(good, ids=[[1] * 7, [1] * 6])}], "is ragged"),
            ([{"signature_name": "text", "inputs": {"text": [1, 2]}}], "pass str or bytes"),
        ]
        for requests, expected in cases:
            with self.subTest(expected=expected):
                with self.assertRaises(ValueError) as raised:
                    write_warmup_requests(self.version_dir, requests, model_name="x")
                self.assertIn(expected, str(raised.exception))
        with self.assertRaisesRegex(FileNotFoundError, "not a SavedModel version directory"):
            write_warmup_requests(self.tmp.name, [{"inputs": good}])


# === Large: a tiny keras_bert export, served by the stand-in in its own process ===


def _tiny_qa_export(base):
    """Exports a tiny QA model (int signature with an in-graph assert) and its text signatures."""
    qa = keras_bert.BertQuestionAnswerer(keras_bert.BertEncoder(**TINY))
    randomize_weights(qa, seed=3, scale=0.3)
    preprocessor = keras_bert.BertPreprocessor(VOCAB, sequence_length=7)
    archive = keras.export.ExportArchive()
    archive.track(qa)
    archive.track(preprocessor)

    def serve(ids, mask, segment_ids):
        check = tf.debugging.assert_less(ids, TINY["vocab_size"], message="ids must be < vocab_size")
        with tf.control_dependencies([check]):  # the check runs before the embedding gather
            ids = tf.identity(ids)
        outputs = qa({"token_ids": ids, "padding_mask": mask, "segment_ids": segment_ids})
        return {"start_logits": outputs["start_logits"], "end_logits": outputs["end_logits"]}

    def text(text):
        outputs = qa(preprocessor(text))
        return {"start_logits": outputs["start_logits"], "text_bytes": tf.identity(text),
                "text_echo": tf.identity(text)}

    ids_spec = [tf.TensorSpec([None, None], tf.int32, name=n)
                for n in ("ids", "mask", "segment_ids")]
    text_spec = [tf.TensorSpec([None], tf.string, name="text")]
    archive.add_endpoint("serving_default", serve, input_signature=ids_spec)
    archive.add_endpoint("text", text, input_signature=text_spec)

    def text_start(text):
        return {"start_logits": qa(preprocessor(text))["start_logits"]}

    archive.add_endpoint("text_start", text_start, input_signature=text_spec)
    version_dir = os.path.join(base, "tiny_qa", "10")
    archive.write_out(version_dir, verbose=False)
    # Not versions TF Serving would pick: "9" is lower than 10 numerically (not as text), and
    # "tmp" is not a number. If either were loaded, the server would fail to start.
    os.makedirs(os.path.join(base, "tiny_qa", "9"))
    pathlib.Path(base, "tiny_qa", "9", "saved_model.pb").write_bytes(b"not a SavedModel")
    shutil.copytree(version_dir, os.path.join(base, "tiny_qa", "tmp"))
    return qa, preprocessor, version_dir


@functools.lru_cache(maxsize=None)
def _shared_tiny_qa():
    """One export for the large tests of this module; removed when the process exits."""
    tmp = tempfile.TemporaryDirectory()
    qa, preprocessor, version_dir = _tiny_qa_export(tmp.name)
    return tmp, qa, preprocessor, version_dir


def _keras_reference(qa, preprocessor):
    inputs = tiny_inputs(seed=21)
    rows = {"ids": inputs["token_ids"], "mask": inputs["padding_mask"],
            "segment_ids": inputs["segment_ids"]}
    expected = keras.tree.map_structure(np.asarray, qa(inputs))
    expected_text = np.asarray(qa(preprocessor(tf.constant(TEXTS)))["start_logits"])
    return rows, expected, expected_text


class _Server:
    """`export/serving/serving_standin.py` in a subprocess on a free port."""

    def __init__(self, base, name):
        self.log = tempfile.TemporaryFile("w+")
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
        self.process = subprocess.Popen(
            [sys.executable, str(STANDIN), f"--model_base_path={base}/{name}",
             f"--model_name={name}", "--port=0", "--debug_modules"],
            stdout=subprocess.PIPE, stderr=self.log, text=True, env=env, cwd=tempfile.gettempdir(),
        )
        lines = queue.Queue()
        threading.Thread(target=lambda: lines.put(self.process.stdout.readline()),
                         daemon=True).start()
        try:
            line = lines.get(timeout=240)
        except queue.Empty:
            line = ""
        if "http://127.0.0.1:" not in line:
            self.stop()
            raise RuntimeError(f"The stand-in did not start: {line!r}\n{self.stderr()}")
        self.url = line.split(" at ")[1].strip()  # http://127.0.0.1:PORT/v1/models/NAME
        self.root = self.url.split("/v1/")[0]

    def stderr(self):
        self.log.seek(0)
        return self.log.read()[-4000:]

    def call(self, path, body=None):
        """GET (body None) or POST (dict, or raw bytes); returns (status, parsed JSON)."""
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.root + path, data=body)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        self.process.stdout.close()


@pytest.mark.large
class StandinServerTest(TestCase):
    @classmethod
    def setUpClass(cls):
        tmp, cls.qa, cls.preprocessor, cls.version_dir = _shared_tiny_qa()
        cls.rows, cls.expected, cls.expected_text = _keras_reference(cls.qa, cls.preprocessor)
        cls.server = _Server(tmp.name, "tiny_qa")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def columns(self):
        """The reference inputs as one TF Serving columnar `inputs` object."""
        return {name: value.tolist() for name, value in self.rows.items()}

    def instance(self, i):
        """Reference input row `i` as one TF Serving row-format instance."""
        return {name: value[i].tolist() for name, value in self.rows.items()}

    def predict(self, body, path="/v1/models/tiny_qa:predict"):
        status, answer = self.server.call(path, body)
        self.assertEqual(status, 200, answer)
        return answer

    def assertMatchesKeras(self, answer):
        if "predictions" in answer:
            for name in ("start_logits", "end_logits"):
                got = np.array([row[name] for row in answer["predictions"]], np.float32)
                self.assertAllClose(got, self.expected[name], atol=1e-5)
        else:
            for name in ("start_logits", "end_logits"):
                got = np.array(answer["outputs"][name], np.float32)
                self.assertAllClose(got, self.expected[name], atol=1e-5)

    def test_status_and_latest_numeric_version(self):
        status, answer = self.server.call("/v1/models/tiny_qa")
        self.assertEqual(status, 200)
        self.assertEqual(answer, {"model_version_status": [{
            "version": "10", "state": "AVAILABLE",
            "status": {"error_code": "OK", "error_message": ""}}]})
        self.assertEqual(self.server.call("/v1/models/tiny_qa/versions/9")[0], 404)
        status, answer = self.server.call("/v1/models/other")
        self.assertEqual((status, answer), (404, {
            "error": "Servable not found for request: Latest(other)"}))

    def test_metadata_lists_signatures_with_named_inputs_and_outputs(self):
        status, answer = self.server.call("/v1/models/tiny_qa/versions/10/metadata")
        self.assertEqual(status, 200)
        self.assertEqual(answer["model_spec"], {"name": "tiny_qa", "signature_name": "",
                                                "version": "10"})
        signatures = answer["metadata"]["signature_def"]["signature_def"]
        self.assertEqual(set(signatures) - {"__saved_model_init_op"},
                         {"serving_default", "text", "text_start"})
        default = signatures["serving_default"]
        self.assertEqual(default["method_name"], "tensorflow/serving/predict")
        self.assertEqual(sorted(default["inputs"]), ["ids", "mask", "segment_ids"])
        self.assertEqual(default["inputs"]["ids"]["dtype"], "DT_INT32")
        self.assertEqual(default["inputs"]["ids"]["tensor_shape"],
                         {"dim": [{"size": "-1", "name": ""}] * 2, "unknown_rank": False})
        self.assertEqual(sorted(default["outputs"]), ["end_logits", "start_logits"])
        self.assertEqual(default["outputs"]["start_logits"]["dtype"], "DT_FLOAT")
        self.assertEqual(signatures["text"]["inputs"]["text"]["dtype"], "DT_STRING")

    def test_row_and_columnar_predictions_match_keras(self):
        instances = [self.instance(i) for i in range(len(self.rows["ids"]))]
        self.assertMatchesKeras(self.predict({"instances": instances}))
        columns = self.columns()
        answer = self.predict({"signature_name": "serving_default", "inputs": columns})
        self.assertMatchesKeras(answer)
        self.assertMatchesKeras(self.predict(
            {"inputs": columns}, path="/v1/models/tiny_qa/versions/10:predict"))

    def test_text_signature_runs_tf_text_ops_and_encodes_strings(self):
        instances = [TEXTS[0], {"b64": base64.b64encode(TEXTS[1].encode()).decode()}, TEXTS[2]]
        answer = self.predict({"signature_name": "text", "instances": instances})
        rows = answer["predictions"]
        self.assertAllClose(np.array([r["start_logits"] for r in rows], np.float32),
                            self.expected_text, atol=1e-5)
        self.assertEqual([r["text_echo"] for r in rows], TEXTS)
        self.assertEqual([base64.b64decode(r["text_bytes"]["b64"]).decode() for r in rows], TEXTS)
        # The graph needs TF Text kernels, which the stand-in loaded without tensorflow_text's
        # Python package (which imports Keras).
        self.assertIn("FastWordpieceTokenizeWithOffsets", _custom_ops(self.version_dir))

    def test_single_output_signature_omits_the_output_name(self):
        answer = self.predict({"signature_name": "text_start", "instances": TEXTS})
        self.assertAllClose(np.array(answer["predictions"], np.float32), self.expected_text,
                            atol=1e-5)
        answer = self.predict({"signature_name": "text_start", "inputs": TEXTS[:1]})
        self.assertAllClose(np.array(answer["outputs"], np.float32), self.expected_text[:1],
                            atol=1e-5)

    def test_errors_are_400_json_and_the_server_keeps_serving(self):
        row = self.instance(0)
        out_of_vocab = dict(row, ids=[TINY["vocab_size"]] + row["ids"][1:])
        cases = [
            ({"instances": [out_of_vocab]}, "ids must be < vocab_size"),  # tf.debugging.assert
            ({"instances": [row], "inputs": {}}, "both"),
            ({"instances": [dict(row, ids=[1.5] * 7)]}, "is int32"),
            ({"instances": [dict(row, ids=row["ids"][:3])]}, "Incompatible shapes"),
            ({"instances": [row, dict(row, ids=row["ids"][:3])]}, "ragged instances"),
            ({"instances": [row], "signature_name": "nope"}, '"nope" not found'),
            ({"instances": [dict(row, typo=[1])]}, "unknown: ['typo']"),
            (b"{not json", "JSON Parse error"),
        ]
        for body, expected in cases:
            with self.subTest(expected=expected):
                status, answer = self.server.call("/v1/models/tiny_qa:predict", body)
                self.assertEqual(status, 400, answer)
                self.assertEqual(list(answer), ["error"])
                self.assertIn(expected, answer["error"])
        self.assertEqual(self.server.call("/v1/models/tiny_qa:classify", {})[0], 501)
        self.assertIsNone(self.server.process.poll(), self.server.stderr())
        columns = self.columns()
        self.assertMatchesKeras(self.predict({"inputs": columns}))

    def test_server_process_never_imported_keras_or_keras_bert(self):
        status, answer = self.server.call("/v1/debug/modules")
        self.assertEqual(status, 200)
        modules = set(answer["modules"])
        self.assertIn("tensorflow", modules)
        self.assertFalse(modules & {"keras", "keras_bert", "tf_keras", "tensorflow_text"},
                         sorted(modules & {"keras", "keras_bert", "tf_keras", "tensorflow_text"}))


def _custom_ops(version_dir):
    """Op types in a SavedModel's graph that core TensorFlow does not define."""
    path = os.path.join(version_dir, "saved_model.pb")
    graph = saved_model_pb2.SavedModel.FromString(pathlib.Path(path).read_bytes()).meta_graphs[0]
    nodes = list(graph.graph_def.node)
    nodes += [node for f in graph.graph_def.library.function for node in f.node_def]
    return sorted({node.op for node in nodes if not hasattr(tf.raw_ops, node.op)})


@pytest.mark.large
class ExportToolsTest(TestCase):
    """saved_model_cli and gRPC-form requests on the tiny keras_bert export."""

    @classmethod
    def setUpClass(cls):
        _, cls.qa, cls.preprocessor, cls.version_dir = _shared_tiny_qa()
        cls.rows, cls.expected, cls.expected_text = _keras_reference(cls.qa, cls.preprocessor)

    def test_saved_model_cli_lists_signatures_and_named_tensors(self):
        cli = shutil.which("saved_model_cli", path=os.path.dirname(sys.executable))
        self.assertIsNotNone(cli, "saved_model_cli is installed next to the Python interpreter")
        result = subprocess.run([cli, "show", "--dir", self.version_dir, "--all"],
                                capture_output=True, text=True, timeout=300,
                                env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
        self.assertEqual(result.returncode, 0, result.stderr[-3000:])
        out = result.stdout
        for line in ["signature_def['serving_default']:", "inputs['ids'] tensor_info:",
                     "inputs['mask'] tensor_info:", "inputs['segment_ids'] tensor_info:",
                     "outputs['start_logits'] tensor_info:", "outputs['end_logits'] tensor_info:",
                     "signature_def['text']:", "inputs['text'] tensor_info:",
                     "dtype: DT_STRING", "shape: (-1, -1)",
                     "Method name is: tensorflow/serving/predict"]:
            self.assertIn(line, out)
        default = out.split("signature_def['serving_default']:")[1].split("signature_def[")[0]
        self.assertEqual(default.count("dtype: DT_INT32"), 3)
        self.assertEqual(default.count("dtype: DT_FLOAT"), 2)

    def test_warmup_records_run_through_the_signatures_like_keras(self):
        path = write_warmup_requests(self.version_dir, [
            {"inputs": self.rows},
            {"signature_name": "text", "inputs": {"text": TEXTS}},
        ])
        self.assertTrue(os.path.isfile(path))
        requests = read_warmup_requests(self.version_dir)
        self.assertEqual([(r.model_spec.name, r.model_spec.signature_name) for r in requests],
                         [("tiny_qa", "serving_default"), ("tiny_qa", "text")])
        model = tf.saved_model.load(self.version_dir)
        outputs = run_predict_request(model, requests[0])
        self.assertAllClose(outputs["start_logits"], self.expected["start_logits"], atol=1e-5)
        self.assertAllClose(outputs["end_logits"], self.expected["end_logits"], atol=1e-5)
        outputs = run_predict_request(model, requests[1])
        self.assertAllClose(outputs["start_logits"], self.expected_text, atol=1e-5)
        self.assertEqual(outputs["text_echo"].tolist(), [t.encode() for t in TEXTS])

    def test_grpc_predict_request_round_trips_through_the_signature(self):
        request = predict_pb2.PredictRequest()
        request.model_spec.name = "tiny_qa"
        request.model_spec.signature_name = "serving_default"
        for name, value in self.rows.items():
            request.inputs[name].CopyFrom(tf.make_tensor_proto(value, dtype=tf.int32))
        wire = request.SerializeToString()  # what a gRPC client sends
        outputs = run_predict_request(self.version_dir, predict_pb2.PredictRequest.FromString(wire))
        self.assertAllClose(outputs["start_logits"], self.expected["start_logits"], atol=1e-5)
        self.assertAllClose(outputs["end_logits"], self.expected["end_logits"], atol=1e-5)
