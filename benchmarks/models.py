"""The same BERT, with the same weights, in keras_bert and keras-hub (HF: `hf_models`).

The keras-hub builders copy a keras_bert model's weights, so the candidates differ only in the
code that runs them. `check_same_outputs` proves it before a suite times anything.
"""

import keras
import numpy as np

import keras_bert
from keras_bert.checkpoints import collect_weights
from keras_bert.checkpoints.keras_hub_checkpoint import encoder_to_keras_hub
from keras_bert.models.bert_config import BertConfig


def our_encoder(config, seed=0):
    """A keras_bert `BertEncoder` of a benchmark config, initialised from `seed`."""
    keras.utils.set_random_seed(seed)
    return keras_bert.BertEncoder.from_bert_config(BertConfig(**config))


def our_pretrainer(config, seed=0):
    """A `BertPretrainer` (encoder + MLM + NSP heads) of `config`, initialised from `seed`."""
    return keras_bert.BertPretrainer(our_encoder(config, seed))


def pretraining_outputs(ours, hub, hf, batch):
    """`{candidate: {mlm_logits, nsp_logits}}` as NumPy, inference mode, for
    `check_same_outputs`: keras_bert's `BertPretrainer`, its keras-hub and its HF copy."""
    import torch

    from benchmarks.hf_models import hf_forward

    hf.eval()
    with torch.no_grad():
        hf_out = hf_forward(hf, {k: torch.from_numpy(v.astype(np.int64)) for k, v in batch.items()})
    return {
        "keras_bert": {k: np.asarray(v) for k, v in ours(batch, training=False).items()},
        "keras-hub": {k: np.asarray(v) for k, v in hub(batch, training=False).items()},
        "HF PyTorch": {k: v.numpy() for k, v in hf_out.items()},
    }


def _tanh_gelu(x):
    return keras.activations.gelu(x, approximate=True)


def keras_hub_backbone(config):
    """A freshly initialised keras-hub `BertBackbone` of a benchmark config."""
    import keras_hub

    return keras_hub.models.BertBackbone(
        vocabulary_size=config["vocab_size"],
        num_layers=config["num_hidden_layers"],
        num_heads=config["num_attention_heads"],
        hidden_dim=config["hidden_size"],
        intermediate_dim=config["intermediate_size"],
        max_sequence_length=config["max_position_embeddings"],
    )


class KerasHubPretrainer(keras.Model):
    """keras-hub's `BertBackbone` + `MaskedLMHead`, and a `Dense(2)` NSP head on the pooled
    output (keras-hub has none): freshly initialised from a benchmark `config`, or holding
    the weights of the keras_bert `BertPretrainer` `weights_from`."""

    def __init__(self, config, weights_from=None, **kwargs):
        import keras_hub

        super().__init__(**kwargs)
        self.backbone = (encoder_to_keras_hub(weights_from.encoder) if weights_from is not None
                         else keras_hub_backbone(config))
        # The heads in float32, as keras_bert's logits are (and as Keras's mixed precision guide
        # has it); keras-hub's MaskedLMHead under a mixed policy fails to add its float32 bias.
        self.mlm_head = keras_hub.layers.MaskedLMHead(
            vocabulary_size=config["vocab_size"],
            token_embedding=self.backbone.token_embedding,
            intermediate_activation=_tanh_gelu,
            layer_norm_epsilon=1e-12,
            dtype="float32",
        )
        self.nsp_head = keras.layers.Dense(2, dtype="float32")
        hidden = config["hidden_size"]
        self.mlm_head.build((None, None, hidden), mask_positions_shape=(None, None))
        self.nsp_head.build((None, hidden))
        if weights_from is not None:
            self._copy_heads(weights_from)

    def _copy_heads(self, pretrainer):
        ours = pretrainer.masked_lm_head
        self.mlm_head._intermediate_dense.set_weights(ours.dense.get_weights())
        self.mlm_head._intermediate_layer_norm.set_weights(ours.layer_norm.get_weights())
        self.mlm_head._bias.assign(ours.output_bias)
        # keras_bert keeps google-research's [classes, hidden] NSP matrix; Dense wants [in, out].
        weights = collect_weights(pretrainer)
        self.nsp_head.set_weights(
            [weights["cls/seq_relationship/output_weights"].T,
             weights["cls/seq_relationship/output_bias"]]
        )

    def call(self, inputs, training=False):
        encoded = self.backbone(
            {k: inputs[k] for k in ("token_ids", "segment_ids", "padding_mask")}, training=training
        )
        return {
            "mlm_logits": self.mlm_head(encoded["sequence_output"], inputs["mask_positions"]),
            "nsp_logits": self.nsp_head(encoded["pooled_output"]),
        }


# Max |diff| allowed between candidates' logits: float32 summation order over a 30k vocabulary
# (2e-3), or bf16 rounding (8-bit mantissa) of logits of order 1-10 under a mixed policy.
PARITY_ATOL = {"float32": 2e-3, "mixed_bfloat16": 0.25}


def check_same_outputs(outputs, atol=2e-3):
    """Raises unless every candidate's outputs (`{name: {key: array}}`) match the first's.

    The tolerance covers float32 summation order over a 30k vocabulary; a wrong weight or a
    different activation moves the logits by far more.
    """
    names = list(outputs)
    reference = outputs[names[0]]
    worst = {}
    for name in names[1:]:
        for key, expected in reference.items():
            error = float(np.max(np.abs(np.asarray(outputs[name][key]) - np.asarray(expected))))
            worst[f"{name}/{key}"] = error
            if error > atol:
                raise AssertionError(
                    f"{name} computes other {key} than {names[0]} (max |diff| {error:.3g} > "
                    f"{atol}): the candidates do not hold the same model; timings would "
                    "compare different work."
                )
    return worst


class KerasHubSpanModel(keras.Model):
    """keras-hub has no extractive-QA task: its `BertBackbone` with a `Dense(2)` span head,
    what a keras-hub user writes."""

    def __init__(self, backbone, **kwargs):
        super().__init__(**kwargs)
        self.backbone = backbone
        self.span = keras.layers.Dense(2)

    def call(self, inputs, training=False):
        logits = self.span(self.backbone(inputs, training=training)["sequence_output"])  # [B, S, 2]
        return {"start_logits": logits[..., 0], "end_logits": logits[..., 1]}
