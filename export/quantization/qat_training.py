"""`quantization_aware_finetune`: a few hundred QAT steps on a task's training data, resumable."""

import json
import os
import time

import keras
import numpy as np
import tensorflow as tf

import keras_bert
from keras_bert.atomic_files import atomic_open
from keras_bert.training.distillation import mix_targets
from keras_bert.training.distillation import teacher_probabilities
from keras_bert.training.optimizer import decay_exempt_variables
from keras_bert.export.quantization.fake_quant import freeze_ranges
from keras_bert.export.quantization.fake_quant import learn_ranges
from keras_bert.export.quantization.int8_profile import int8_profile
from keras_bert.export.quantization.qat import calibrate
from keras_bert.export.quantization.qat import quantize_aware
from keras_bert.export.quantization.qat import record_attention
from keras_bert.layers.forward_ops import ForwardOps
from keras_bert.models.bert_encoder import encode


def _load_or_make_profile(model, inputs, output_dir, split_variance, log):
    """The run's int8 profile: made once, then read back (a resumed run needs the same graph)."""
    path = os.path.join(output_dir, "int8_profile.json")
    if os.path.exists(path):
        with open(path) as f:
            profile = json.load(f)
        if len(profile["groups"]) > 1 and bool(profile.get("split_variance")) != split_variance:
            log(f"{path} keeps split_variance={bool(profile.get('split_variance'))} (its run's "
                f"graph), not {split_variance}: use a new output directory for the other graph.")
        return profile
    profile = int8_profile(model, inputs, split_variance=split_variance)
    with atomic_open(path) as f:  # a stop mid-write must not leave half a profile to read back
        json.dump(profile, f)
    return profile


def _losses(qat, soft):
    loss = (keras.losses.CategoricalCrossentropy(from_logits=True) if soft
            else keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    if isinstance(qat.output, dict):  # question answering: mean of the start and end losses
        return {"start_logits": loss, "end_logits": loss}, {"start_logits": 0.5, "end_logits": 0.5}
    return loss, None


def _teacher_targets(model, inputs, labels, weight, output_dir, batch_size, log):
    """`labels` as distributions mixed with the float model's (`keras_bert.training.mix_targets`:
    padded span positions get 0). The teacher's probabilities are computed once, before any QAT
    step, and kept in `output_dir` for resumed runs (written under a temporary name first, so a
    stopped run never leaves half a file to resume from).
    """
    path = os.path.join(output_dir, "teacher.npz")
    if os.path.exists(path):
        teacher = dict(np.load(path))
    else:
        count = len(next(iter(inputs.values())))
        log(f"Teacher targets: the float model's predictions on {count} examples, once "
            f"(saved to {path}; SQuAD's 20,000 windows take about 25 min on 2 cores)")
        start = time.time()
        teacher = teacher_probabilities(model, inputs, batch_size)
        partial = path + ".tmp.npz"
        np.savez(partial, **teacher)
        os.replace(partial, path)
        log(f"Teacher targets done in {time.time() - start:.0f} s")
    return mix_targets(labels, teacher, weight)


class _AttentionRecorder(ForwardOps):
    """The float encoder's steps (`ForwardOps`), recording each block's attention probabilities
    `[B, N, S, S]` in `probs`, in block order."""

    def __init__(self):
        self.probs = []

    def block(self, layer, x, mask, training):
        return layer.call_with_ops(x, mask, training, self)  # [B, S, H]

    def attention(self, layer, x, mask, training):
        return layer.call_with_ops(x, mask, training, self)  # [B, S, H]

    def attend(self, layer, query, key, value, mask, training):
        probs = layer.attention_probs(query, key, **mask)  # [B, N, S, S]
        self.probs.append(probs)
        return layer.contexts(tf.cast(probs, value.dtype), value)  # [B, S, H]


class _HiddenDistillation(keras.Model):
    """Trains a QAT graph on its task loss plus distillation terms from the float model.

    The hidden-state term (TinyBERT's, Jiao et al. 2020) is `weight` times the mean, over
    blocks, of the squared distance between the int8 graph's block output and the float
    model's, averaged over real tokens and dimensions. It holds every block near the float
    model's representation, where QAT on the task loss alone leaves the float optimum
    (docs/lab/export_history.md). The attention term (after TinyBERT's attention loss) is
    `attention_weight` times the mean, over blocks, heads and real query tokens, of the
    squared distance between the int8 graph's attention distribution (on the int8 softmax's
    grid) and the float model's, summed over keys (each head's context is those weights times
    the values). On MiniLM's SQuAD parent it did not help: the attention maps differ mostly
    because of the LayerNorms before them (docs/lab/export_history.md). (A KL divergence needs the int8 probabilities that round to 0 floored;
    with the floor, QAT lowered the term below 0 by rounding more of them to 0.) The float
    model is a frozen copy, run on each batch.
    """

    def __init__(self, blocks_model, teacher_encoder, weight, attention_weight=0.0, **kwargs):
        super().__init__(**kwargs)
        self.blocks_model = blocks_model
        self.teacher_encoder = teacher_encoder
        self.teacher_encoder.trainable = False
        self.weight = weight
        self.attention_weight = attention_weight
        names = ["loss", "task_loss", "hidden_loss"] + ["attention_loss"] * (attention_weight > 0)
        self.trackers = [keras.metrics.Mean(name=n) for n in names]

    @property
    def metrics(self):
        return self.trackers

    def call(self, inputs, training=False):
        return self.blocks_model(inputs, training=training)[0]

    def hidden_loss(self, blocks, teacher_blocks, padding_mask):
        """Mean over blocks of the mean squared distance over real tokens; a float scalar."""
        real = tf.cast(padding_mask, tf.float32)[..., None]  # [B, S, 1]
        count = tf.reduce_sum(real) * tf.cast(tf.shape(blocks[0])[-1], tf.float32)
        return tf.add_n([tf.reduce_sum(tf.square(s - tf.cast(t, s.dtype)) * real) / count
                         for s, t in zip(blocks, teacher_blocks)]) / len(blocks)

    def attention_loss(self, probs, teacher_probs, padding_mask):
        """Mean over blocks, heads and real queries of the squared distance over keys; a scalar.

        `probs`, `teacher_probs`: lists (one per block) of `[B, N, S, S]` distributions.
        """
        real = tf.cast(padding_mask, tf.float32)[:, None, :]  # [B, 1, S]: real queries
        count = tf.reduce_sum(real) * tf.cast(tf.shape(probs[0])[1], tf.float32)
        return tf.add_n([
            tf.reduce_sum(tf.reduce_sum(tf.square(s - tf.cast(t, s.dtype)), axis=-1) * real) / count
            for s, t in zip(probs, teacher_probs)
        ]) / len(probs)

    def train_step(self, data):
        x, y = data[0], data[1]
        encoder, float_ops = self.teacher_encoder, _AttentionRecorder()
        teacher = encode(encoder.embeddings, encoder.transformer_layers, x,
                         encoder.attention_pattern, float_ops)  # [[B, S, H]]
        probs = []
        record_attention(self.blocks_model, probs.append if self.attention_weight else None)
        with tf.GradientTape() as tape:
            y_pred, blocks = self.blocks_model(x, training=True)
            task = self.compute_loss(x=x, y=y, y_pred=y_pred, training=True)
            hidden = self.hidden_loss(blocks, teacher, x["padding_mask"])
            loss = task + self.weight * hidden
            terms = [task, hidden]
            if self.attention_weight:
                attention = self.attention_loss(probs, float_ops.probs, x["padding_mask"])
                loss = loss + self.attention_weight * attention
                terms.append(attention)
        record_attention(self.blocks_model, None)
        values = [loss] + terms
        variables = self.trainable_variables
        self.optimizer.apply(tape.gradient(loss, variables), variables)
        for tracker, value in zip(self.trackers, values):
            tracker.update_state(value)
        return {t.name: t.result() for t in self.trackers}


def _frozen_copy(encoder):
    """A float copy of `encoder` with its current weights (the QAT graph trains the original)."""
    copy = type(encoder).from_config(encoder.get_config())
    copy.set_weights(encoder.get_weights())
    copy.trainable = False
    return copy


def quantization_aware_finetune(model, inputs, labels, output_dir, steps, batch_size=16,
                                learning_rate=2e-5, warmup_steps=20, save_every=25, seed=0,
                                teacher_weight=0.0, range_lr_multiplier=0.0, hidden_weight=0.0,
                                attention_weight=0.0, dropout=True, split_variance=True,
                                log=print):
    """Quantization-aware fine-tuning of a float task model, checkpointed and resumable.

    Builds the int8 graph (`keras_bert.export.quantization.int8_profile` + `quantize_aware`, sharing `model`'s
    variables), calibrates its ranges on the first batches and freezes them
    (`keras_bert.export.quantization.fake_quant.freeze_ranges`; or, with `range_lr_multiplier`, learns
    them too), then trains `steps` optimizer steps with `model.fit`:
    AdamW with warmup and linear decay (the BERT recipe), global clip norm 1.0, length-grouped
    batches. With `teacher_weight`, the targets mix in the float model's own predictions
    (knowledge distillation from the model being quantized). `output_dir/ckpt` holds model, ranges and optimizer every
    `save_every` steps; calling again with the same arguments resumes from the last one.

    Args:
        model: a float `BertQuestionAnswerer` or `BertClassifier` (trained in place).
        inputs: dict of int arrays `{token_ids, segment_ids, padding_mask}` `[n, seq]`.
        labels: `{start_logits, end_logits}` positions (QA) or an int array `[n]` (classes).
        output_dir: str, for the checkpoints, `int8_profile.json` and `state.json`.
        steps: int >= 1, optimizer steps.
        learning_rate: peak learning rate. Defaults to 2e-5 (4e-5 cost MiniLM's float
            weights 4.9 F1 in 300 steps; docs/lab/export_history.md).
        teacher_weight: float in [0, 1]; the float model's share of the targets (0: the
            labels only; 1: the float model's output distribution only). Defaults to 0.
        range_lr_multiplier: float >= 0. 0 (the default) keeps the calibrated ranges; above
            0 they are trained with the weights (LSQ gradient,
            `keras_bert.export.quantization.fake_quant.learn_ranges`), each end moving by up to about
            `learning_rate * range_lr_multiplier` of its range's width a step, and written into
            the ranges when training ends.
        hidden_weight: float >= 0. Above 0, the loss adds this times the mean squared distance
            of every block's int8-graph output from the float model's (`_HiddenDistillation`).
            Defaults to 0.
        attention_weight: float >= 0. Above 0, the loss adds this times the squared distance
            between the int8 graph's attention distributions and the float model's, per block,
            head and real query (`_HiddenDistillation.attention_loss`). Defaults to 0.
        dropout: bool. False sets every dropout rate of `model` to 0 for QAT (and leaves it
            so): then the hidden term measures the int8 graph's error alone. With MiniLM's
            0.1, dropout noise is two thirds of that term at step 1 (0.058 against 0.020
            without; docs/lab/export_history.md). Defaults to True (the model's own rates).
        split_variance: bool, the new profile's `split_variance`
            (`keras_bert.export.quantization.int8_profile.int8_profile`); a resumed run keeps the one in
            `output_dir/int8_profile.json`. Defaults to True.

    Returns:
        the trained `quantize_aware` model; convert it with
        `keras_bert.export.tflite.conversion.export_tflite(..., quantization="full_int8")`.
    """
    if keras_bert.tasks.task_for_model(model).kind == "token_classification":
        raise ValueError("QAT fine-tuning supports SQuAD and GLUE models; not token classifiers yet.")
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}.")
    if not 0.0 <= teacher_weight <= 1.0:
        raise ValueError(f"teacher_weight must be in [0, 1], got {teacher_weight}.")
    if range_lr_multiplier < 0.0:
        raise ValueError(f"range_lr_multiplier must be >= 0, got {range_lr_multiplier}.")
    if hidden_weight < 0.0:
        raise ValueError(f"hidden_weight must be >= 0, got {hidden_weight}.")
    if attention_weight < 0.0:
        raise ValueError(f"attention_weight must be >= 0, got {attention_weight}.")
    if len(inputs["token_ids"]) < batch_size:
        raise ValueError(
            f"QAT needs at least batch_size={batch_size} training examples, "
            f"got {len(inputs['token_ids'])}."
        )
    os.makedirs(output_dir, exist_ok=True)
    if not dropout:
        for layer in model._flatten_layers(include_self=False, recursive=True):
            if isinstance(layer, keras.layers.Dropout):
                layer.rate = 0.0
    profile = _load_or_make_profile(model, inputs, output_dir, split_variance, log)
    log(f"int8 dimension groups: {[g if len(g) < 10 else f'{len(g)} dims' for g in profile['groups']]}")
    if hidden_weight > 0.0 or attention_weight > 0.0:
        qat, blocks_model = quantize_aware(model, profile=profile, with_blocks=True)
        trained = _HiddenDistillation(blocks_model, _frozen_copy(model.encoder), hidden_weight,
                                      attention_weight)
    else:
        qat = trained = quantize_aware(model, profile=profile)
    deltas = learn_ranges(qat, range_lr_multiplier) if range_lr_multiplier else []
    optimizer = keras_bert.training.create_optimizer(
        qat, learning_rate, steps, min(warmup_steps, steps), global_clipnorm=1.0
    )
    if deltas:  # create_optimizer's exemptions are replaced, not extended, by a second call
        optimizer.exclude_from_weight_decay(var_list=decay_exempt_variables(qat) + deltas)
    if teacher_weight > 0.0:
        labels = _teacher_targets(model, inputs, labels, teacher_weight, output_dir, batch_size, log)
    loss, loss_weights = _losses(qat, soft=teacher_weight > 0.0)
    trained.compile(optimizer=optimizer, loss=loss, loss_weights=loss_weights)
    checkpoint = tf.train.Checkpoint(model=qat, optimizer=optimizer)
    manager = tf.train.CheckpointManager(checkpoint, os.path.join(output_dir, "ckpt"), 3)
    state_path = os.path.join(output_dir, "state.json")
    done = 0
    if manager.latest_checkpoint:
        optimizer.build(trained.trainable_variables)
        trained({k: v[:1] for k, v in inputs.items()})
        # Not assert_existing_objects_matched: fake quants added to the graph since the
        # checkpoint was written are allowed (and calibrated below).
        checkpoint.restore(manager.latest_checkpoint).assert_nontrivial_match().expect_partial()
        with open(state_path) as f:
            done = json.load(f)["step"]
        log(f"resumed from {manager.latest_checkpoint} at step {done}")
        # Ranges the checkpoint does not hold (a graph changed since it was written) are
        # calibrated now, with every restored range quantizing.
        calibrate(qat, inputs, batch_size, num_batches=8, only_unseen=True)
    else:
        calibrate(qat, inputs, batch_size, num_batches=8)
    freeze_ranges(qat)  # train the weights against the calibrated (or learned) ranges
    if done < steps:
        _fit(trained, inputs, labels, steps, done, batch_size, seed, manager, checkpoint,
             state_path, save_every)
    if deltas:
        learn_ranges(qat, 0.0)  # the learned ranges become the ranges the converter reads
    return qat


def _fit(qat, inputs, labels, steps, done, batch_size, seed, manager, checkpoint, state_path,
         save_every):
    """Trains `qat` from step `done` to `steps`, checkpointing every `save_every` steps."""
    dataset = keras_bert.data.length_grouped_dataset(
        inputs, (labels,), batch_size, steps, seed
    ).skip(done)
    from tqdm import tqdm

    bar = tqdm(total=steps, initial=done, desc="QAT", unit="step")

    class _Save(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            step = done + batch + 1
            bar.update(1)
            bar.set_postfix({k: f"{v:.4f}" for k, v in logs.items() if k.endswith("loss")})
            if step % save_every == 0 or step == steps:
                manager.save(checkpoint_number=step)
                with open(state_path, "w") as f:
                    json.dump({"step": step, **{k: float(v) for k, v in logs.items()
                                                 if k.endswith("loss")},
                               "time": time.strftime("%Y-%m-%d %H:%M:%S")}, f)

    qat.fit(dataset, epochs=1, steps_per_epoch=steps - done, callbacks=[_Save()], verbose=0)
    bar.close()

