"""The same BERT, with the same weights, in keras_bert, keras-hub and HF transformers (PyTorch).

Every builder takes a keras_bert model and copies its weights, so the candidates differ only in
the code that runs them. `check_same_outputs` proves it before a suite times anything.
"""

import keras
import numpy as np

import keras_bert
from keras_bert.checkpoints import collect_weights
from keras_bert.checkpoints.hf_checkpoint import hf_to_tf1
from keras_bert.checkpoints.keras_hub_checkpoint import encoder_to_keras_hub
from keras_bert.models.bert_config import BertConfig


def our_pretrainer(config, seed=0):
    """A `BertPretrainer` (encoder + MLM + NSP heads) of `config`, initialised from `seed`."""
    keras.utils.set_random_seed(seed)
    encoder = keras_bert.BertEncoder.from_bert_config(BertConfig(**config))
    return keras_bert.BertPretrainer(encoder)


def _tanh_gelu(x):
    return keras.activations.gelu(x, approximate=True)


class KerasHubPretrainer(keras.Model):
    """keras-hub's `BertBackbone` + `MaskedLMHead`, and a `Dense(2)` NSP head on the pooled
    output (keras-hub has none), holding a keras_bert `BertPretrainer`'s weights."""

    def __init__(self, pretrainer, **kwargs):
        import keras_hub

        super().__init__(**kwargs)
        self.backbone = encoder_to_keras_hub(pretrainer.encoder)
        config = pretrainer.encoder
        self.mlm_head = keras_hub.layers.MaskedLMHead(
            vocabulary_size=config.vocab_size,
            token_embedding=self.backbone.token_embedding,
            intermediate_activation=_tanh_gelu,
            layer_norm_epsilon=1e-12,
        )
        self.nsp_head = keras.layers.Dense(2)
        hidden = config.hidden_size
        self.mlm_head.build((None, None, hidden), mask_positions_shape=(None, None))
        self.nsp_head.build((None, hidden))
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


def hf_model(keras_model, hf_class="BertForPreTraining", attn_implementation="sdpa"):
    """An HF transformers BERT model (`hf_class`, e.g. `BertForQuestionAnswering`) holding the
    weights of `keras_model` (a keras_bert encoder or task model). Weights keras_bert has no
    counterpart for (a task head of another shape) keep HF's initialisation; every encoder
    weight must be copied."""
    import torch
    import transformers

    encoder = getattr(keras_model, "encoder", keras_model)
    config = transformers.BertConfig(
        vocab_size=encoder.vocab_size,
        hidden_size=encoder.hidden_size,
        num_hidden_layers=encoder.num_hidden_layers,
        num_attention_heads=encoder.num_attention_heads,
        intermediate_size=encoder.intermediate_size,
        hidden_act=encoder.hidden_act,
        hidden_dropout_prob=encoder.hidden_dropout_prob,
        attention_probs_dropout_prob=encoder.attention_probs_dropout_prob,
        max_position_embeddings=encoder.max_position_embeddings,
        type_vocab_size=encoder.type_vocab_size,
        layer_norm_eps=1e-12,
        attn_implementation=attn_implementation,
    )
    model = getattr(transformers, hf_class)(config)
    ours = collect_weights(keras_model)
    state = {}
    for name, tensor in model.state_dict().items():
        mapped = hf_to_tf1(name, tensor.numpy())
        if mapped is None or mapped[0] not in ours:
            continue  # buffers, the tied decoder, heads keras_bert's model does not have
        value = ours[mapped[0]]
        if mapped[0].endswith("/kernel"):
            value = value.T  # TF1 [in, out] -> PyTorch [out, in]
        state[name] = torch.from_numpy(np.ascontiguousarray(value))
    model.load_state_dict(state, strict=False)
    not_copied = [k for k in model.state_dict() if k.startswith("bert.") and k not in state
                  and not k.endswith("position_ids")]
    if not_copied:
        raise RuntimeError(f"Encoder weights not copied to HF: {not_copied[:5]}.")
    model.tie_weights()
    return model


def hf_forward(model, inputs):
    """`{mlm_logits, nsp_logits}` of `BertForPreTraining`, the vocabulary projected only at the
    masked positions (as keras_bert and keras-hub do), not at every token."""
    import torch

    outputs = model.bert(
        input_ids=inputs["token_ids"],
        token_type_ids=inputs["segment_ids"],
        attention_mask=inputs["padding_mask"],
    )
    sequence = outputs.last_hidden_state  # [B, S, H]
    positions = inputs["mask_positions"][:, :, None].expand(-1, -1, sequence.shape[-1])
    gathered = torch.gather(sequence, 1, positions)  # [B, P, H]
    mlm_logits, nsp_logits = model.cls(gathered, outputs.pooler_output)
    return {"mlm_logits": mlm_logits, "nsp_logits": nsp_logits}


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
