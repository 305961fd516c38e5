"""The same BERT in HF transformers (PyTorch). No TensorFlow import unless weights are copied
from a keras_bert model, so a PyTorch-only process (start-up and memory probes) stays one."""

import numpy as np


def hf_config(config, attn_implementation="sdpa"):
    """`transformers.BertConfig` of a benchmark config dict (`bert_config.json` keys)."""
    import transformers

    return transformers.BertConfig(
        vocab_size=config["vocab_size"],
        hidden_size=config["hidden_size"],
        num_hidden_layers=config["num_hidden_layers"],
        num_attention_heads=config["num_attention_heads"],
        intermediate_size=config["intermediate_size"],
        hidden_act=config["hidden_act"],
        hidden_dropout_prob=config.get("hidden_dropout_prob", 0.1),
        attention_probs_dropout_prob=config.get("attention_probs_dropout_prob", 0.1),
        max_position_embeddings=config["max_position_embeddings"],
        type_vocab_size=config.get("type_vocab_size", 2),
        layer_norm_eps=1e-12,
        attn_implementation=attn_implementation,
    )


def hf_model(config, hf_class="BertForPreTraining", weights_from=None):
    """An HF BERT model (`hf_class`, e.g. `BertForQuestionAnswering`) of a benchmark config,
    holding the weights of the keras_bert model `weights_from` if given. Weights keras_bert has
    no counterpart for (a task head of another shape) keep HF's initialisation; every encoder
    weight must be copied."""
    import transformers

    model = getattr(transformers, hf_class)(hf_config(config))
    if weights_from is not None:
        _copy_weights(model, weights_from)
    return model


def _copy_weights(model, keras_model):
    import torch

    from keras_bert.checkpoints import collect_weights
    from keras_bert.checkpoints.hf_checkpoint import hf_to_tf1

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


def hf_encoder_forward(model, inputs):
    """An HF task model on keras_bert's input names."""
    return model(
        input_ids=inputs["token_ids"],
        token_type_ids=inputs["segment_ids"],
        attention_mask=inputs["padding_mask"],
    )
