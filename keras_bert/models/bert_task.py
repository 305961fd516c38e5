"""`BertTask`: the shared base of models that put a head on a `BertEncoder`."""

import keras

from keras_bert.models.functional_subclass import FunctionalSubclass


def head_dtype_policy(encoder):
    """The dtype policy of a task head on `encoder`: its weights' dtype (float32 under a mixed
    policy), so the logits and the losses on them are computed in float32. The heads are one
    small matmul each; computing them in float32 costs nothing measurable."""
    return keras.DTypePolicy(encoder.dtype_policy.variable_dtype)


class BertTask(FunctionalSubclass):
    """Base class for `BertEncoder` + head models (classifier, QA, NER, pretrainer).

    Holds the `encoder`, and gives every task the same serialization: `get_config` returns the
    serialized encoder plus the task's own constructor arguments (`task_config()`), and
    `from_config` rebuilds the encoder first. Subclasses build their functional graph and call
    `super().__init__(inputs=..., outputs=...)` like any functional subclass.
    """

    # Whether the head reads `pooled_output`. Checkpoints of span and token models (e.g. HF's
    # BertForQuestionAnswering) may ship without the pooler, which such models do not use.
    uses_pooled_output = True

    def task_config(self):
        """The subclass's own constructor arguments (besides `encoder`)."""
        return {}

    @property
    def checkpoint_items(self):
        """Named sub-objects for `tf.train.Checkpoint(**items)`: warm starts read `encoder`."""
        return {"encoder": self.encoder}

    def get_config(self):
        return {
            "encoder": keras.layers.serialize(self.encoder),
            **self.task_config(),
            "name": self.name,
            "trainable": self.trainable,
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["encoder"] = keras.layers.deserialize(config["encoder"])
        return cls(**config)
