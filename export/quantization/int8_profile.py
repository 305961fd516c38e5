"""`int8_profile`: float statistics of a BERT model that shape its full-int8 graph."""

import numpy as np
import tensorflow as tf

from keras_bert.export.quantization.fake_quant import SCORES_MIN_WIDTH
from keras_bert.export.quantization.fake_quant import check_quantizable
from keras_bert.layers.forward_ops import ForwardOps
from keras_bert.models.bert_encoder import encode


def _dimension_groups(peaks, ratio, max_groups):
    """Splits hidden dimensions into groups of similar peak |activation|, largest first.

    A new group starts where a dimension's peak falls below the current group's largest
    peak / `ratio`; the last group takes every dimension left (the bulk). Each group then gets
    its own int8 scale, so one outlier dimension no longer coarsens every other dimension.
    """
    order = [int(d) for d in np.argsort(-peaks, kind="stable")]
    bulk_peak = float(np.median(peaks))
    groups, current, top = [], [], None
    for dim in order:
        if len(groups) == max_groups - 1 or peaks[dim] <= bulk_peak * ratio:
            break
        if top is not None and peaks[dim] < top / ratio:
            groups.append(current)
            current, top = [], None
        if top is None:
            top = peaks[dim]
        current.append(dim)
    if current:
        groups.append(current)
    taken = {d for group in groups for d in group}
    bulk = [d for d in range(len(peaks)) if d not in taken]
    return [sorted(group) for group in groups] + [bulk]


def _head_peaks(attention, query, key, keep):
    """Each head's largest |attention score| `[N]` over real query and key tokens."""
    heads, size = attention.num_attention_heads, attention.head_size
    batch, seq = keep.shape

    def split(t):  # [B, S, N * D] -> [B, N, S, D]
        return np.asarray(t).reshape(batch, seq, heads, size).transpose(0, 2, 1, 3)

    query, key = split(query), split(key)
    scores = query @ key.transpose(0, 1, 3, 2) / np.sqrt(size)  # [B, N, S, S]
    pairs = (keep[:, :, None] & keep[:, None, :])[:, None]  # [B, 1, S, S]
    return np.abs(np.where(pairs, scores, 0.0)).max(axis=(0, 2, 3))


class _Recorder(ForwardOps):
    """The float steps (`ForwardOps`), recording what `quantize_aware` gives int8 ranges.

    It runs each layer's wiring on itself, and records the residual stream's real tokens
    (`stream`: each LayerNorm's input and output and each sublayer output added to the stream,
    `[tokens, H]` arrays) and each layer's per-head score peaks (`head_peaks`, `[N]` arrays).
    """

    def __init__(self, keep):
        self.keep = keep  # [B, S] bool: the real tokens
        self.stream = []
        self.head_peaks = []

    def embed(self, layer, token_ids, segment_ids, training):
        return layer.call_with_ops(token_ids, segment_ids, training, self)  # [B, S, H]

    def block(self, layer, x, mask, training):
        return layer.call_with_ops(x, mask, training, self)  # [B, S, H]

    def attention(self, layer, x, mask, training):
        return layer.call_with_ops(x, mask, training, self)  # [B, S, H]

    def attend(self, layer, query, key, value, mask, training):
        self.head_peaks.append(_head_peaks(layer, query, key, self.keep))  # [N]
        return super().attend(layer, query, key, value, mask, training)

    def residual(self, x, y, site, training):
        self.stream.append(np.asarray(y)[self.keep])
        return super().residual(x, y, site, training)

    def normalize(self, layer, x, training):
        self.stream.append(np.asarray(x)[self.keep])
        out = super().normalize(layer, x, training)
        self.stream.append(np.asarray(out)[self.keep])
        return out


def int8_profile(model, inputs, ratio=4.0, max_groups=3, examples=32, split_variance=True):
    """Measures where a float keras_bert model's activations need more than one int8 scale.

    BERT's residual stream carries a few outlier dimensions (in all-MiniLM-L6-v2, dimension
    99 reaches ~220 on separator tokens while 99 % of values stay under ~2.4). One per-tensor
    int8 scale for the whole stream then rounds every ordinary value to a step of ~1.7. The
    profile groups the hidden dimensions by peak magnitude (per-embedding-group quantization,
    Bondarenko et al. 2021); `quantize_aware` gives each group its own int8 tensors.
    Attention heads differ the same way: in MiniLM's first layer one head's scores span
    [-136, 110] while the others stay within ±26, so when some layer's widest head peaks over
    `ratio` times its narrowest, every head's scores get their own int8 tensor (`head_scales`).

    Args:
        model: a keras_bert task model (anything with an `encoder`).
        inputs: dict of int arrays `{token_ids, segment_ids, padding_mask}`; real examples.
        ratio: float > 1; the peak ratio that starts a new dimension group, and the spread of
            head peaks that gives heads their own scores tensors. Defaults to 4.
        max_groups: int >= 1; most dimension groups, the bulk included. Defaults to 3.
        examples: int; only the first `examples` inputs are run (peaks settle within a few
            dozen windows). Defaults to 32.
        split_variance: bool; with more than one dimension group, each LayerNorm's variance
            keeps the outlier groups' sum of squares apart from the bulk's (`_LayerNorm` in
            `keras_bert.export.quantization.qat`): one int8 sum of squares rounds ordinary tokens'
            variances to steps of ~160 when separator tokens reach ~40,900. On MiniLM's SQuAD
            parent it halved the int8 graph's span KL (docs/export.md). Defaults to True.

    Returns:
        a JSON-ready dict: `groups`, lists of hidden dimensions (one list: plain per-tensor);
        `peaks`, each dimension's largest |activation| on `inputs`; `head_peaks`, each layer's
        per-head largest |attention score|; and `head_scales`, whether those (each at least
        `SCORES_MIN_WIDTH / 2`) differ by more than `ratio` in some layer; and
        `split_variance`, `split_variance` where there are outlier groups (False otherwise).
    """
    if max_groups < 1 or ratio <= 1.0:
        raise ValueError(f"Need max_groups >= 1 and ratio > 1, got {max_groups} and {ratio}.")
    check_quantizable(model, "int8_profile")
    inputs = {k: np.asarray(v)[:examples] for k, v in inputs.items()}
    encoder = model.encoder
    keep = inputs["padding_mask"].astype(bool)
    if not keep.any():
        raise ValueError("int8_profile needs inputs with at least one non-padding token.")
    recorder = _Recorder(keep)
    encode(encoder.embeddings, encoder.transformer_layers,
           {k: tf.constant(v) for k, v in inputs.items()}, encoder.attention_pattern, recorder)
    head_peaks = recorder.head_peaks
    peaks = np.max([np.abs(t).max(axis=0) for t in recorder.stream], axis=0)  # [H]
    # Scores ranges are at least SCORES_MIN_WIDTH wide: heads below half that share a grid.
    floor = SCORES_MIN_WIDTH / 2.0
    spread = max(float(np.maximum(p, floor).max() / np.maximum(p, floor).min()) for p in head_peaks)
    groups = _dimension_groups(peaks, ratio, max_groups)
    return {
        "groups": groups,
        "peaks": [round(float(p), 4) for p in peaks],
        "head_peaks": [[round(float(p), 4) for p in layer] for layer in head_peaks],
        "head_scales": spread > ratio,
        "split_variance": bool(split_variance) and len(groups) > 1,
    }
