"""Scores the float weights of a QAT checkpoint (fake quant off) on a task's held-out data.
Makes: docs/lab/export_history.md, "Run 6" (the QAT checkpoint's float weights, EM 58.80 / F1 71.88:
what the int8 graph alone costs).
Rerun: the command below.

    .venv/bin/python experiments/qat_float_weights.py --task_name=squad \
        --init_checkpoint=runs/squad_minilm/out --qat_dir=runs/export_squad_int8_v6/qat/squad \
        --predict_file=../shared/data/squad/dev-v1.1.json.gz --max_examples=0

(`--max_examples=0`: all questions of the last `--last_articles` articles.)

QAT fine-tunes the shared float weights while it trains them for int8, so an int8 file can
score above the model it started from. This scores those trained weights in float (every fake
quant off): the int8 file's score minus this one is what the int8 graph costs alone.
With `--fake_quant=quantize` it scores the QAT graph itself (Keras fake quant, what QAT
trained): the int8 file's score minus that one is what conversion and LiteRT's kernels cost.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from experiments.tflite_kernels import add_task_arguments, task_data  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--init_checkpoint", required=True, help="the fine-tuning output dir")
    parser.add_argument("--qat_dir", required=True,
                        help="keras_bert.export.cli's <export_dir>/qat/<model_name> (ckpt/, int8_profile.json)")
    parser.add_argument("--fake_quant", choices=("off", "quantize"), default="off",
                        help="off: the float weights; quantize: the int8 graph in Keras")
    add_task_arguments(parser)
    args = parser.parse_args()
    args.max_examples = args.max_examples or None  # 0: every held-out question

    import tensorflow as tf

    from keras_bert.export.quantization.fake_quant import set_fake_quant_mode
    from keras_bert.export.quantization.qat import quantize_aware
    from keras_bert.export.task.task_model import load_task_model
    from keras_bert.export.verification.verify import keras_outputs
    from keras_bert.checkpoints.run_folder import VOCAB_FILE
    from keras_bert.checkpoints.run_folder import model_folder

    latest = tf.train.latest_checkpoint(os.path.join(args.qat_dir, "ckpt"))
    if latest is None:
        sys.exit(f"No QAT checkpoint in {args.qat_dir}/ckpt: pass keras_bert.export.cli's <export_dir>/qat/<name>.")
    model = load_task_model(args.task_name, args.init_checkpoint)
    with open(os.path.join(args.qat_dir, "int8_profile.json")) as f:
        qat = quantize_aware(model, profile=json.load(f))  # shares `model`'s variables
    _, evaluation = task_data(args, os.path.join(model_folder(args.init_checkpoint), VOCAB_FILE))
    qat({k: v[:1] for k, v in evaluation.inputs.items()})
    tf.train.Checkpoint(model=qat).restore(latest).expect_partial()
    set_fake_quant_mode(qat, args.fake_quant)
    scored, what = (model, "float weights") if args.fake_quant == "off" else (qat, "Keras fake quant")
    print(f"{latest}, {what}: {evaluation.score(keras_outputs(scored, evaluation.inputs))}")


if __name__ == "__main__":
    main()
