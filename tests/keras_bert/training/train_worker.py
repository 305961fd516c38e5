"""Subprocess for the distributed tests: trains a tiny pretrainer and saves its final weights.

    python -m tests.keras_bert.training.train_worker --records=F --out=W.npz --strategy=mirrored \
        --num_cpu_devices=2 --steps=3 --batch=8 [--accumulation=2]

Logical CPU devices must be configured before TensorFlow starts, so every strategy runs in a
fresh process. Under multi_worker_mirrored, TF_CONFIG (set by the test) names the worker.
"""

import argparse
import json

import numpy as np

SEQ, PREDICTIONS = 12, 3
CONFIG = dict(
    vocab_size=40, hidden_size=8, num_hidden_layers=2, num_attention_heads=2,
    intermediate_size=12, max_position_embeddings=16, type_vocab_size=2,
    hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--output_dir", required=True)
    parser.add_argument("--strategy", default="one_device")
    parser.add_argument("--num_cpu_devices", type=int, default=1)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--accumulation", type=int, default=1)
    args = parser.parse_args()

    import tensorflow as tf

    if args.num_cpu_devices > 1:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * args.num_cpu_devices
        )
    from keras_bert.data.pretraining.dataset import pretraining_dataset
    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.models.bert_pretrainer import BertPretrainer
    from keras_bert.training.tf_distribute import get_distribution_strategy
    from keras_bert.training.optimizer import create_optimizer
    from keras_bert.training.pretraining_trainer import PretrainingTrainer

    devices = [f"/cpu:{i}" for i in range(args.num_cpu_devices)] if args.strategy == "mirrored" else None
    strategy = get_distribution_strategy(args.strategy, devices=devices)
    with strategy.scope():
        model = BertPretrainer(BertEncoder(**CONFIG))
        optimizer = create_optimizer(model, 1e-2, num_train_steps=10, num_warmup_steps=2)
    rng = np.random.default_rng(0)  # identical starting weights in every process
    for variable in model.weights:
        variable.assign(rng.normal(0.0, 0.3, variable.shape).astype(variable.dtype))
    trainer = PretrainingTrainer(
        model, optimizer, strategy, args.output_dir, args.batch,
        gradient_accumulation_steps=args.accumulation, steps_per_loop=1,
        save_checkpoints_steps=100, verbose=False,
    )

    def dataset_fn(context, batch_size, start_batch):
        return pretraining_dataset(
            [args.records], batch_size, SEQ, PREDICTIONS, seed=5, input_context=context,
            start_batch=start_batch,
        )

    losses = []
    for _ in range(args.steps):
        metrics = trainer.train(dataset_fn, int(trainer.global_step.numpy()) + 1)
        losses.append(metrics["loss"])
    np.savez(args.out, *[np.asarray(w) for w in model.weights])
    # Every replica's own copy of every weight (MirroredVariable components).
    copies, replica_diff = 0, 0.0
    for weight in model.weights:
        values = [np.asarray(v) for v in strategy.experimental_local_results(weight.value)]
        copies = len(values)
        replica_diff = max(replica_diff, max(float(np.max(np.abs(v - values[0]))) for v in values))
    with open(args.out + ".json", "w") as f:
        json.dump({"losses": losses, "replicas": strategy.num_replicas_in_sync,
                   "local_copies": copies, "replica_max_diff": replica_diff}, f)


if __name__ == "__main__":
    main()
