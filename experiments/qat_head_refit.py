r"""Refits a finished SQuAD QAT run's span head to the float parent's answers, on the int8
graph's own final features, and writes the result as a QAT checkpoint that `keras_bert.export.cli`
converts to full int8.

Makes: docs/lab/export_history.md, "Three cheap levers on the finished runs". Rerun:

    .venv/bin/python -m experiments.qat_head_refit \
        --init_checkpoint=runs/squad_minilm_gpu/parent_from_dynamic \
        --qat_dir=runs/export_squad_hidden_w3000_nodrop/qat/squad \
        --output_dir=runs/export_squad_head_refit/qat/squad --steps=600
    .venv/bin/python -m keras_bert.export.cli --task_name=squad \
        --init_checkpoint=runs/squad_minilm_gpu/parent_from_dynamic \
        --export_dir=runs/export_squad_head_refit --formats=tflite --quantizations=qat_int8 \
        --calibration_file=../shared/data/squad/train-v1.1-reconstructed.json.gz --qat_steps=600

The head is the model's only part whose loss is convex given its input: with the int8
graph's last-block output fixed, matching the parent's start/end distributions (knowledge
distillation, cross-entropy to the parent's softmax) is a convex problem in the 384 x 2 kernel
and its bias. The features of `--num_windows` training windows are computed once (the int8
graph in Keras, dropout off, as the file computes); the head is then trained on them through
its own fake quantization (the int8 kernel, the grouped partial sums and the logits' grid, with
the run's frozen ranges: what the file computes). `--holdout` windows are kept out of the fit
and report the distillation loss and the label loss before and after.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _split(features, groups):
    import tensorflow as tf

    return [tf.gather(features, dims, axis=-1) for dims in groups]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--init_checkpoint", required=True, help="the float parent's folder")
    parser.add_argument("--qat_dir", required=True, help="a finished run's <export_dir>/qat/squad")
    parser.add_argument("--output_dir", required=True, help="the new <export_dir>/qat/squad")
    parser.add_argument("--steps", type=int, required=True,
                        help="the step the checkpoint is written at: keras_bert.export.cli's --qat_steps")
    parser.add_argument("--train_file", default="../shared/data/squad/train-v1.1-reconstructed.json.gz")
    parser.add_argument("--num_windows", type=int, default=2000)
    parser.add_argument("--holdout", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7,
                        help="which training windows (QAT's own seed was 0)")
    parser.add_argument("--label_weight", type=float, default=0.0,
                        help="share of the gold spans in the targets (0: the parent's only)")
    parser.add_argument("--fit_steps", type=int, default=300)
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--batch_size", type=int, default=16)
    args = parser.parse_args()
    if os.path.isdir(args.output_dir) and os.listdir(args.output_dir):
        sys.exit(f"{args.output_dir} is not empty: pick a new --output_dir.")
    profile_path = os.path.join(args.qat_dir, "int8_profile.json")
    if not os.path.exists(profile_path):
        sys.exit(f"{profile_path} not found: pass keras_bert.export.cli's <export_dir>/qat/squad folder.")

    import keras
    import numpy as np
    import tensorflow as tf

    from keras_bert.export.quantization.fake_quant import freeze_ranges
    from keras_bert.export.quantization.qat import quantize_aware
    from keras_bert.export.quantization.qat_training import _frozen_copy
    from keras_bert.export.task.task_model import load_task_model
    from experiments.qat_soup import write_qat_folder
    from keras_bert.export.verification import data as export_data
    from keras_bert.checkpoints.run_folder import VOCAB_FILE
    from keras_bert.checkpoints.run_folder import model_folder

    vocab = os.path.join(model_folder(args.init_checkpoint), VOCAB_FILE)
    data = export_data.TaskData("squad", vocab, True, 384, dict(doc_stride=128, max_query_length=64))
    inputs, labels = data.training_data(args.train_file, args.num_windows + args.holdout,
                                        seed=args.seed)
    model = load_task_model("squad", args.init_checkpoint)
    teacher = _frozen_copy(model.encoder)
    parent_kernel = model.span_head.dense.kernel.numpy()
    parent_bias = model.span_head.dense.bias.numpy()
    with open(profile_path) as f:
        profile = json.load(f)
    qat, blocks_model = quantize_aware(model, profile=profile, with_blocks=True)
    blocks_model({k: v[:1] for k, v in inputs.items()})
    latest = tf.train.latest_checkpoint(os.path.join(args.qat_dir, "ckpt"))
    if latest is None:
        sys.exit(f"No QAT checkpoint in {args.qat_dir}/ckpt.")
    tf.train.Checkpoint(model=qat).restore(latest).expect_partial()
    freeze_ranges(qat)
    head = qat.get_layer("head")
    groups = [list(g) for g in profile.get("groups", [range(parent_kernel.shape[0])])]

    # Once: the int8 graph's last-block output and the parent's logits, per window.
    count = len(inputs["token_ids"])
    features, targets = [], []
    for i in range(0, count, args.batch_size):
        x = {k: tf.constant(v[i:i + args.batch_size]) for k, v in inputs.items()}
        _, blocks = blocks_model(x, training=False)
        features.append(blocks[-1].numpy().astype(np.float32))  # [B, S, H]
        sequence = teacher(x, training=False)["sequence_output"]
        targets.append(np.asarray(sequence) @ parent_kernel + parent_bias)  # [B, S, 2]
        print(f"features {min(i + args.batch_size, count)}/{count}", flush=True)
    features, targets = np.concatenate(features), np.concatenate(targets)
    mask = inputs["padding_mask"].astype(np.float32)  # [N, S]
    gold = np.stack([labels["start_logits"], labels["end_logits"]], axis=-1)  # [N, 2]

    def cross_entropies(index, label_weight):
        """(to the parent's distributions, to the targets with `label_weight` of the gold
        spans) of the int8 head on windows `index`; padded positions take no probability."""
        logits = head(_split(tf.constant(features[index]), groups), training=False)
        logits = tf.stack([logits["start_logits"], logits["end_logits"]], axis=-1)  # [B, S, 2]
        padding = (tf.constant(mask[index])[..., None] - 1.0) * 1e4  # [B, S, 1]
        parent = tf.nn.softmax(tf.constant(targets[index]) + padding, axis=1)
        gold_spans = tf.transpose(tf.one_hot(gold[index], features.shape[1]), [0, 2, 1])
        log_probs = tf.nn.log_softmax(logits + padding, axis=1)  # over positions
        mixed = (1.0 - label_weight) * parent + label_weight * gold_spans
        return (-tf.reduce_mean(tf.reduce_sum(parent * log_probs, axis=1)),
                -tf.reduce_mean(tf.reduce_sum(mixed * log_probs, axis=1)))

    def held_out():
        """Mean (distillation, label) cross-entropies over the held-out windows."""
        sums = np.zeros(2)
        for i in range(args.num_windows, count, 64):
            index = np.arange(i, min(i + 64, count))
            sums += len(index) * np.array([float(c) for c in cross_entropies(index, 1.0)])
        return (sums / (count - args.num_windows)).tolist()

    before = held_out()
    variables = [model.span_head.dense.kernel, model.span_head.dense.bias]
    optimizer = keras.optimizers.Adam(args.learning_rate)
    rng = np.random.default_rng(args.seed)
    for step in range(1, args.fit_steps + 1):
        index = np.sort(rng.choice(args.num_windows, min(64, args.num_windows), replace=False))
        with tf.GradientTape() as tape:
            loss = cross_entropies(index, args.label_weight)[1]
        optimizer.apply(tape.gradient(loss, variables), variables)
        if step % 50 == 0:
            print(f"fit step {step}: loss {float(loss):.4f}", flush=True)
    after = held_out()
    print(f"held-out windows ({count - args.num_windows}): distillation CE {before[0]:.4f} -> "
          f"{after[0]:.4f}, label CE {before[1]:.4f} -> {after[1]:.4f}")

    saved = write_qat_folder(tf.train.Checkpoint(model=qat), profile, args.output_dir,
                             args.steps, {"head_refit_of": args.qat_dir,
                                          "holdout_before": before, "holdout_after": after})
    print(f"wrote {saved}")


if __name__ == "__main__":
    main()
