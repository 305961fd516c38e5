"""Start/end logits of SQuAD windows from a fine-tuned QA model in any form: Keras, SavedModel, `.tflite`."""

import os
import time

import numpy as np


class KerasRunner:
    """A `BertQuestionAnswerer` (or any Keras model with its inputs and outputs)."""

    def __init__(self, model, batch_size=32):
        self.model = model
        self.batch_size = batch_size
        self.seconds = []

    def __call__(self, inputs):
        begin = time.perf_counter()
        outputs = self.model.predict(inputs, batch_size=self.batch_size, verbose=0)
        self.seconds = [time.perf_counter() - begin]
        return np.asarray(outputs["start_logits"]), np.asarray(outputs["end_logits"])


class SavedModelRunner:
    """`python -m keras_bert.export.cli`'s SavedModel: its `serving_default(ids, mask, segment_ids)`."""

    def __init__(self, path):
        from keras_bert.tensorflow_extra import import_tensorflow

        tf = import_tensorflow(f"Reading the SavedModel {path}")
        self.signature = tf.saved_model.load(path).signatures["serving_default"]
        self.seconds = []

    def __call__(self, inputs):
        begin = time.perf_counter()
        out = self.signature(ids=inputs["token_ids"], mask=inputs["padding_mask"],
                             segment_ids=inputs["segment_ids"])
        self.seconds = [time.perf_counter() - begin]
        return out["start_logits"].numpy(), out["end_logits"].numpy()


class TfliteRunner:
    """A QA `.tflite` with the TFLite Task Library's contract (`ids`, `mask`, `segment_ids`;
    one window per call), run by LiteRT. `seconds`: each window's time in the last call."""

    def __init__(self, path, num_threads=None):
        from ai_edge_litert.interpreter import Interpreter

        from keras_bert.integrity import verify_file

        # A SHA256SUMS beside it (apps/models/ has one; exports write one) must match: a
        # flipped bit in a weight would otherwise give wrong answers without an error.
        verify_file(path)
        try:
            interpreter = Interpreter(model_path=path, num_threads=num_threads)
        except ValueError as error:
            raise ValueError(f"{path} is not a valid .tflite model ({error}).") from None
        self.runner = interpreter.get_signature_runner()
        self.path = path
        self.seconds = []

    def __call__(self, inputs):
        starts, ends, self.seconds = [], [], []
        for i in range(len(inputs["token_ids"])):
            begin = time.perf_counter()
            out = self.runner(ids=inputs["token_ids"][i : i + 1],
                              mask=inputs["padding_mask"][i : i + 1],
                              segment_ids=inputs["segment_ids"][i : i + 1])
            self.seconds.append(time.perf_counter() - begin)
            starts.append(out["start_logits"][0])
            ends.append(out["end_logits"][0])
        return np.stack(starts), np.stack(ends)


def model_kind(path):
    """`"tflite"`, `"saved_model"` or `"checkpoint"` (any `init_checkpoint`) for `path`."""
    path = os.fspath(path)
    if path.endswith(".tflite"):
        return "tflite"
    if os.path.isdir(path) and os.path.exists(os.path.join(path, "saved_model.pb")):
        return "saved_model"
    return "checkpoint"
