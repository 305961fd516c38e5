"""The model shapes benchmarked, as `bert_config.json` keys, and their FLOP counts."""

# vocab 30522 is bert-base-uncased's. The activation is the tanh GELU ("gelu_new") because
# keras-hub's BertBackbone has no other: every candidate then computes the same function with
# the same weights, which the suites check before timing anything.
_COMMON = {"vocab_size": 30522, "hidden_act": "gelu_new", "max_position_embeddings": 512}

# The implementations the start-up and memory probes run, each in a process of its own.
IMPLS = ("keras_bert", "keras-hub", "hf")

CONFIGS = {
    # For tests only.
    "tiny": dict(_COMMON, vocab_size=1000, hidden_size=64, num_hidden_layers=2,
                 num_attention_heads=2, intermediate_size=128),
    # google-research/bert's BERT-Mini.
    "mini": dict(_COMMON, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                 intermediate_size=1024),
    # all-MiniLM-L6-v2's shape, the model the QA app ships.
    "minilm": dict(_COMMON, hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                   intermediate_size=1536),
    "base": dict(_COMMON, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                 intermediate_size=3072),
}


def bert_config(name):
    """The config dict called `name`; a clear error for an unknown one."""
    if name not in CONFIGS:
        raise ValueError(f"Unknown benchmark config {name!r}; choose one of {sorted(CONFIGS)}.")
    return dict(CONFIGS[name])


def encoder_flops(config, seq_length):
    """Forward multiply-add FLOPs (2 per MAC) of the encoder for one sequence of `seq_length`.

    Counts the matmuls: Q, K, V and output projections (4 S H^2), the feed-forward (2 S H I)
    and the attention scores and contexts (2 S^2 H), per layer. Embeddings, LayerNorm, softmax
    and GELU are not matmuls and are left out, as MFU counts do.
    """
    s, h, i = seq_length, config["hidden_size"], config["intermediate_size"]
    per_layer = 4 * s * h * h + 2 * s * h * i + 2 * s * s * h
    return 2.0 * config["num_hidden_layers"] * per_layer


def pretraining_step_flops(config, seq_length, predictions, batch_size):
    """FLOPs of one MLM + NSP training step: forward, and backward at twice the forward."""
    h, v = config["hidden_size"], config["vocab_size"]
    head = 2.0 * predictions * (h * h + h * v) + 2.0 * (h * h + 2 * h)  # MLM transform+vocab, pooler+NSP
    return 3.0 * batch_size * (encoder_flops(config, seq_length) + head)
