"""How much of QAT's hidden-state term is int8 error, and how much dropout noise?
Makes: docs/export.md, "QAT without dropout": the term at step 1 and after QAT, per block, with
QAT's training-mode forward pass (dropout on) and without dropout.
Rerun: the command below (about 1 min per checkpoint on 2 cores).

    .venv/bin/python -m experiments.qat_hidden_noise \
        --init_checkpoint=runs/squad_minilm_gpu/parent_from_dynamic \
        --profile=runs/export_squad_hidden_w3000/qat/squad/int8_profile.json \
        --qat_dir=runs/export_squad_hidden_w3000/qat/squad

Without `--qat_dir`, the int8 graph of the float model is calibrated here, as QAT's step 1
sees it. The term is `export.quantization.qat_training._HiddenDistillation.hidden_loss`: the
mean squared distance between every block's int8-graph output and the float model's, over
real tokens, on the first `--num_windows` windows of SQuAD train (the float model runs without
dropout, as in QAT).
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--init_checkpoint", required=True, help="the float model's folder")
    parser.add_argument("--profile", required=True, help="the QAT run's int8_profile.json")
    parser.add_argument("--qat_dir", default=None,
                        help="export.cli's <export_dir>/qat/squad; omitted: calibrate here")
    parser.add_argument("--train_file", default="../shared/data/squad/train-v1.1-reconstructed.json.gz")
    parser.add_argument("--num_windows", type=int, default=64)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--per_dimension", action="store_true",
                        help="also: per block, the share of the term in its 6 largest dimensions "
                             "and the term per dimension relative to the float model's variance")
    args = parser.parse_args()

    import numpy as np
    import tensorflow as tf

    from export.quantization.fake_quant import freeze_ranges
    from export.quantization.qat import calibrate
    from export.quantization.qat import quantize_aware
    from export.quantization.qat_training import _HiddenDistillation
    from export.quantization.qat_training import _frozen_copy
    from export.task.task_model import load_task_model
    from export.verification import data as export_data
    from keras_bert.checkpoints.run_folder import VOCAB_FILE
    from keras_bert.checkpoints.run_folder import model_folder

    vocab = os.path.join(model_folder(args.init_checkpoint), VOCAB_FILE)
    data = export_data.TaskData("squad", vocab, True, 384, dict(doc_stride=128, max_query_length=64))
    inputs, _ = data.training_data(args.train_file, args.num_windows)
    model = load_task_model("squad", args.init_checkpoint)
    teacher = _frozen_copy(model.encoder)  # before QAT's weights are restored into `model`
    with open(args.profile) as f:
        qat, blocks_model = quantize_aware(model, profile=json.load(f), with_blocks=True)
    distill = _HiddenDistillation(blocks_model, teacher, 1.0)
    distill({k: v[:1] for k, v in inputs.items()})
    if args.qat_dir:
        latest = tf.train.latest_checkpoint(os.path.join(args.qat_dir, "ckpt"))
        if latest is None:
            sys.exit(f"No QAT checkpoint in {args.qat_dir}/ckpt.")
        tf.train.Checkpoint(model=qat).restore(latest).expect_partial()
    else:
        latest = "the float model, calibrated"
        calibrate(qat, inputs, args.batch_size, num_batches=8)
    freeze_ranges(qat)
    n = min(args.num_windows, len(inputs["token_ids"]))
    squares, variances = [], []  # per block, dropout off: [tokens, H] of each batch
    for training in (True, False):
        per_batch = []
        for i in range(0, n - args.batch_size + 1, args.batch_size):
            x = {k: tf.constant(v[i:i + args.batch_size]) for k, v in inputs.items()}
            target = teacher(x, training=False)["encoder_outputs"]
            _, blocks = blocks_model(x, training=training)
            per_batch.append([float(distill.hidden_loss([s], [t], x["padding_mask"]))
                              for s, t in zip(blocks, target)])
            if not training:
                real = inputs["padding_mask"][i:i + args.batch_size] > 0
                squares.append([(np.asarray(s)[real] - np.asarray(t)[real]) ** 2
                                for s, t in zip(blocks, target)])
                variances.append([np.asarray(t)[real] for t in target])
        per_block = np.mean(per_batch, axis=0)
        print(f"{latest}, dropout {'on' if training else 'off'}: term {per_block.mean():.4f}, "
              f"per block {np.round(per_block, 4).tolist()}")
    if args.per_dimension:  # dropout off, over every real token of the windows
        for b in range(len(squares[0])):
            per_dim = np.concatenate([batch[b] for batch in squares]).mean(axis=0)  # [H]
            variance = np.concatenate([batch[b] for batch in variances]).var(axis=0)  # [H]
            top = np.argsort(-per_dim)[:6]
            print(f"block {b}: 6 largest dimensions {top.tolist()} hold "
                  f"{per_dim[top].sum() / per_dim.sum():.1%} of the term; term / float variance "
                  f"per dimension: mean {np.mean(per_dim / variance):.1%}")

if __name__ == "__main__":
    main()
