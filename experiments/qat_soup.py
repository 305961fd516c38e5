r"""Averages the weights of several QAT runs of one float parent ("model soup") into a QAT
checkpoint that `keras_bert.export.cli` converts to full int8.

Makes: docs/lab/export_history.md, "Run 11: a soup of runs 7, 8 and 10". Rerun:

    python -m experiments.qat_soup --task_name=squad --init_checkpoint=runs/squad_minilm_ship/out \
        --qat_dirs=runs/export_squad_ship/qat/squad,runs/export_squad_ship_qat1200/qat/squad \
        --output_dir=runs/export_squad_ship_soup/qat/squad --steps=600
    python -m keras_bert.export.cli --task_name=squad --init_checkpoint=runs/squad_minilm_ship/out \
        --export_dir=runs/export_squad_ship_soup --formats=tflite --quantizations=qat_int8 \
        --calibration_file=../shared/data/squad/train-v1.1-reconstructed.json.gz --qat_steps=600

The second command finds the soup at its last step, trains nothing, and converts it. Every run
must share the float parent and the int8 profile (the same graph); their calibrated ranges are
averaged with the weights. Wortsman et al. 2022 ("Model soups") average fine-tuned models of
one pretrained parent: runs from one parent stay in one basin, and their mean is often better
than each run. Here every run starts from the same fine-tuned float model.
"""

import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def write_qat_folder(checkpoint, profile, output_dir, step, state):
    """Writes `keras_bert.export.cli`'s `<export_dir>/qat/<name>` folder: `checkpoint` at `step`, the int8
    `profile` and `state.json` (`state` plus the step), so that `keras_bert.export.cli --qat_steps=step`
    converts it without training. Written under a temporary name and renamed when complete.
    Returns the checkpoint's path."""
    import tensorflow as tf

    partial = output_dir.rstrip("/") + ".tmp"
    if os.path.exists(partial):
        shutil.rmtree(partial)
    os.makedirs(partial)
    with open(os.path.join(partial, "int8_profile.json"), "w") as f:
        json.dump(profile, f)
    tf.train.CheckpointManager(checkpoint, os.path.join(partial, "ckpt"), 1).save(
        checkpoint_number=step)
    with open(os.path.join(partial, "state.json"), "w") as f:
        json.dump({"step": step, **state}, f)
    os.makedirs(os.path.dirname(os.path.abspath(output_dir)), exist_ok=True)
    os.rename(partial, output_dir)
    return tf.train.latest_checkpoint(os.path.join(output_dir, "ckpt"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task_name", required=True)
    parser.add_argument("--init_checkpoint", required=True, help="the float parent (a run's output_dir)")
    parser.add_argument("--qat_dirs", required=True,
                        help="comma-separated <export_dir>/qat/<name> folders of finished QAT runs")
    parser.add_argument("--output_dir", required=True, help="the soup's <export_dir>/qat/<name>")
    parser.add_argument("--steps", type=int, required=True,
                        help="the step the soup is written at: keras_bert.export.cli's --qat_steps")
    parser.add_argument("--parent_share", type=float, default=0.0,
                        help="share of the float parent's weights in the soup's weights (0-1; "
                             "WiSE-FT's interpolation): the int8 ranges stay the runs' mean")
    parser.add_argument("--max_seq_length", type=int, default=384)
    args = parser.parse_args()
    qat_dirs = args.qat_dirs.split(",")
    if not 0.0 <= args.parent_share < 1.0:
        sys.exit(f"--parent_share={args.parent_share}: give a share in [0, 1).")
    if len(qat_dirs) < 2 and not args.parent_share:
        sys.exit("--qat_dirs: give at least two QAT folders to average, or one with --parent_share.")
    profiles = []
    for folder in qat_dirs:
        path = os.path.join(folder, "int8_profile.json")
        if not os.path.exists(path):
            sys.exit(f"{path} not found: pass keras_bert.export.cli's <export_dir>/qat/<name> folders.")
        with open(path) as f:
            profiles.append(json.load(f))
    if any(profile != profiles[0] for profile in profiles[1:]):
        sys.exit("The QAT runs have different int8 profiles (graphs): they cannot be averaged.")
    if os.path.isdir(args.output_dir) and os.listdir(args.output_dir):
        sys.exit(f"{args.output_dir} is not empty: pick a new --output_dir.")

    import numpy as np
    import tensorflow as tf

    from keras_bert.export.quantization.qat import quantize_aware
    from keras_bert.export.task.task_model import load_task_model

    model = load_task_model(args.task_name, args.init_checkpoint)
    qat = quantize_aware(model, profile=profiles[0])
    shape = (1, args.max_seq_length)
    qat({"token_ids": np.zeros(shape, "int32"), "segment_ids": np.zeros(shape, "int32"),
         "padding_mask": np.ones(shape, "int32")})
    # The float model's own variables (qat shares them), read before any run is restored.
    parent = {id(v): v.numpy().astype("float64") for v in model.weights}
    checkpoint = tf.train.Checkpoint(model=qat)
    total = [np.zeros(v.shape, "float64") for v in qat.weights]
    for folder in qat_dirs:
        latest = tf.train.latest_checkpoint(os.path.join(folder, "ckpt"))
        if latest is None:
            sys.exit(f"No checkpoint in {folder}/ckpt.")
        checkpoint.restore(latest).assert_existing_objects_matched().expect_partial()
        for i, variable in enumerate(qat.weights):
            total[i] += variable.numpy()
        print(f"read {latest}")
    for variable, value in zip(qat.weights, total):
        value = value / len(qat_dirs)
        if id(variable) in parent:  # a float weight, not an int8 range
            value = (1.0 - args.parent_share) * value + args.parent_share * parent[id(variable)]
        variable.assign(value.astype(variable.dtype))

    saved = write_qat_folder(checkpoint, profiles[0], args.output_dir, args.steps,
                             {"soup_of": qat_dirs, "parent_share": args.parent_share})
    print(f"wrote {saved}: the mean of {len(qat_dirs)} runs' weights and ranges"
          + (f", weights mixed with {args.parent_share} of the parent's" if args.parent_share else ""))


if __name__ == "__main__":
    main()
