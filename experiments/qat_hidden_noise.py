"""How much of QAT's hidden-state term is int8 error, and how much dropout noise?
Makes: docs/lab/export_history.md, "QAT without dropout": the term at step 1 and after QAT, per
block, with QAT's training-mode forward pass (dropout on) and without dropout; and "Where the int8
graph's error arises" (`--off`: the hidden and attention terms, and the start/end distributions' KL
divergence from the float model's, with families of fake quants off).
Rerun: the command below (about 1 min per checkpoint on 2 cores), and for the second

    .venv/bin/python -m experiments.qat_hidden_noise \
        --init_checkpoint=runs/squad_minilm_gpu/parent_from_dynamic \
        --profile=runs/export_squad_hidden_w3000/qat/squad/int8_profile.json --num_windows=16 \
        --off="layer_norm,layer_norm/squares_sum,layer_norm/centered,scores,query|key,layer_0/"


    .venv/bin/python -m experiments.qat_hidden_noise \
        --init_checkpoint=runs/squad_minilm_gpu/parent_from_dynamic \
        --profile=runs/export_squad_hidden_w3000/qat/squad/int8_profile.json \
        --qat_dir=runs/export_squad_hidden_w3000/qat/squad

Without `--qat_dir`, the int8 graph of the float model is calibrated here, as QAT's step 1
sees it. The term is `keras_bert.export.quantization.qat_training._HiddenDistillation.hidden_loss`: the
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
                        help="keras_bert.export.cli's <export_dir>/qat/squad; omitted: calibrate here")
    parser.add_argument("--train_file", default="../shared/data/squad/train-v1.1-reconstructed.json.gz")
    parser.add_argument("--num_windows", type=int, default=64)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--off", default="",
                        help="comma-separated regular expressions over fake quants' layer paths: "
                             "with dropout off, the hidden and attention terms and the span "
                             "distributions' KL from the float model's, with each family of "
                             "activation fake quants off in turn (after all on)")
    parser.add_argument("--per_dimension", action="store_true",
                        help="also: per block, the share of the term in its 6 largest dimensions "
                             "and the term per dimension relative to the float model's variance")
    args = parser.parse_args()

    import numpy as np
    import tensorflow as tf

    import re

    from keras_bert.export.quantization.fake_quant import FakeQuant
    from keras_bert.export.quantization.fake_quant import fake_quant_layers
    from keras_bert.export.quantization.fake_quant import freeze_ranges
    from keras_bert.export.quantization.qat import calibrate
    from keras_bert.export.quantization.qat import quantize_aware
    from keras_bert.export.quantization.qat import record_attention
    from keras_bert.export.quantization.qat_training import _AttentionRecorder
    from keras_bert.export.quantization.qat_training import _HiddenDistillation
    from keras_bert.export.quantization.qat_training import _frozen_copy
    from keras_bert.export.task.task_model import load_task_model
    from keras_bert.export.verification import data as export_data
    from keras_bert.checkpoints.run_folder import VOCAB_FILE
    from keras_bert.checkpoints.run_folder import model_folder
    from keras_bert.models.bert_encoder import encode

    vocab = os.path.join(model_folder(args.init_checkpoint), VOCAB_FILE)
    data = export_data.TaskData("squad", vocab, True, 384, dict(doc_stride=128, max_query_length=64))
    inputs, _ = data.training_data(args.train_file, args.num_windows)
    model = load_task_model("squad", args.init_checkpoint)
    teacher = _frozen_copy(model.encoder)  # before QAT's weights are restored into `model`
    with open(args.profile) as f:
        qat, blocks_model = quantize_aware(model, profile=json.load(f), with_blocks=True)
    distill = _HiddenDistillation(blocks_model, teacher, 1.0, attention_weight=1.0)
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

    families = [f for f in args.off.split(",") if f]
    quantizers = fake_quant_layers(qat, FakeQuant)
    batches = [{k: tf.constant(v[i:i + args.batch_size]) for k, v in inputs.items()}
               for i in range(0, n - args.batch_size + 1, args.batch_size)] if families else []
    for layer in fake_quant_layers(qat):  # weights too: the float model's answers
        layer.mode = "off"
    float_spans = [blocks_model(x, training=False)[0] for x in batches]
    for layer in fake_quant_layers(qat):
        layer.mode = "quantize"

    def span_kl(x, float_span, int8_span):
        """KL(float || int8) of the start and end distributions over real positions, averaged."""
        real = tf.cast(x["padding_mask"], tf.float32)
        kls = []
        for name in ("start_logits", "end_logits"):
            f, q = (tf.nn.log_softmax(t[name] - 1e4 * (1.0 - real), axis=-1)
                    for t in (float_span, int8_span))
            kls.append(tf.reduce_mean(tf.reduce_sum(tf.exp(f) * (f - q), axis=-1)))
        return float(tf.reduce_mean(kls))

    for family in [None] + families:  # dropout off; None: every fake quant on
        for layer in quantizers:
            layer.mode = "off" if family and re.search(family, layer.path) else "quantize"
        hidden, attention, spans = [], [], []
        for x, float_span in zip(batches, float_spans):
            recorder, probs = _AttentionRecorder(), []
            target = encode(teacher.embeddings, teacher.transformer_layers, x,
                            teacher.attention_pattern, recorder)
            record_attention(blocks_model, probs.append)
            int8_span, blocks = blocks_model(x, training=False)
            hidden.append([float(distill.hidden_loss([s], [t], x["padding_mask"]))
                           for s, t in zip(blocks, target)])
            attention.append([float(distill.attention_loss([p], [t], x["padding_mask"]))
                              for p, t in zip(probs, recorder.probs)])
            spans.append(span_kl(x, float_span, int8_span))
        if hidden:
            off = sum(layer.mode == "off" for layer in quantizers)
            print(f"{family or 'all on'!s:28s} {off:4d} off: hidden {np.mean(hidden):.4f}, "
                  f"attention {np.mean(attention):.4f} (per block "
                  f"{np.round(np.mean(attention, axis=0), 4).tolist()}), "
                  f"span KL {np.mean(spans):.4f}")


if __name__ == "__main__":
    main()
