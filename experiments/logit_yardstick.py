"""How far Keras and the float32 .tflite each are from a float64 NumPy forward pass.
Makes: docs/lab/export_history.md, "Results: the SQuAD model", the "Float32 TFLite vs Keras" bullet
(each side's distance from float64, per LiteRT kernel set).
Rerun: the command below.

    PYTHONPATH=. .venv/bin/python experiments/logit_yardstick.py \
        --model_dir=runs/squad_minilm/out \
        --tflite=runs/export_squad/tflite/squad_minilm_float32.tflite --num_windows=12

The SQuAD QA model's logits reach |10|; float32 rounding through six layers at sequence length
384 moves each implementation about 1e-5 from the exact (float64) result, in different
directions, so Keras and TFLite can differ from each other by twice that. This prints both
distances on windows of the last SQuAD v1.1 dev article (tests/reference/numpy_bert.py is the
float64 oracle), for the .tflite under each of LiteRT's kernel sets. Set
`TF_ENABLE_ONEDNN_OPTS=0` to compute the Keras side with TensorFlow's Eigen kernels.
"""

import argparse
import gzip
import json
import os
import tempfile

import numpy as np

import keras_bert
from experiments.tflite_kernels import RESOLVERS, interpreter
from keras_bert.export.task.signature_names import exported_inputs
from keras_bert.export.task.task_model import load_task_model
from keras_bert.checkpoints import collect_weights
from keras_bert.checkpoints.run_folder import CONFIG_FILE
from keras_bert.checkpoints.run_folder import VOCAB_FILE
from keras_bert.checkpoints.run_folder import model_folder
from tests.reference import numpy_bert


def qa_and_windows(model_dir, squad, num_windows):
    """The fine-tuned QA model, its config dict, and inputs for the first `num_windows`
    384-token windows of the last SQuAD dev article."""
    folder = model_folder(model_dir)
    config = keras_bert.BertConfig.from_json_file(os.path.join(folder, CONFIG_FILE))
    qa = load_task_model("squad", model_dir)
    with gzip.open(squad, "rt", encoding="utf-8") as f:
        dataset = json.load(f)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"data": dataset["data"][-1:]}, f)
    examples = keras_bert.data.read_squad_examples(f.name, is_training=False)
    os.unlink(f.name)
    tokenizer = keras_bert.ReferenceTokenizer(os.path.join(folder, VOCAB_FILE), do_lower_case=True)
    features = keras_bert.data.convert_squad_examples(examples, tokenizer, 384, 128, 64)
    return qa, config.to_dict(), {k: v[:num_windows] for k, v in features.inputs().items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", default="runs/squad_minilm/out")
    parser.add_argument("--tflite", required=True)
    parser.add_argument("--squad", default="../shared/data/squad/dev-v1.1.json.gz")
    parser.add_argument("--num_windows", type=int, default=12)
    args = parser.parse_args()
    qa, config, inputs = qa_and_windows(args.model_dir, args.squad, args.num_windows)
    n = args.num_windows
    keras_out = qa.predict(inputs, verbose=0)
    feed = exported_inputs(inputs)
    tflite_out = {}
    for resolver in RESOLVERS:
        runner = interpreter(args.tflite, resolver).get_signature_runner()
        tflite_out[resolver] = [runner(**{k: v[i:i + 1] for k, v in feed.items()}) for i in range(n)]
    weights = collect_weights(qa)
    sequence, _, _ = numpy_bert.encoder(weights, config, **inputs)
    exact = sequence @ np.asarray(weights["cls/squad/output_weights"], np.float64).T + np.asarray(
        weights["cls/squad/output_bias"], np.float64
    )  # [n, S, 2]
    print(f"TF oneDNN kernels: {os.environ.get('TF_ENABLE_ONEDNN_OPTS', 'default (on)')}")
    for j, name in enumerate(("start_logits", "end_logits")):
        print(f"{name}: |keras - float64| max {np.abs(keras_out[name] - exact[..., j]).max():.2e}, "
              f"max |logit| {np.abs(exact[..., j]).max():.2f}")
        for resolver, outputs in tflite_out.items():
            tfl = np.concatenate([o[name] for o in outputs])
            print(f"  tflite {resolver:34s} |tflite - float64| max "
                  f"{np.abs(tfl - exact[..., j]).max():.2e}, "
                  f"|tflite - keras| max {np.abs(tfl - keras_out[name]).max():.2e}")


if __name__ == "__main__":
    main()
