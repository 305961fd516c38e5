"""The canonical weight names (google-research/bert's TF1 names) and strict assignment to a model.

Every checkpoint format is converted to a flat `{tf1_name: np.ndarray}` dict in the layout the
original TF1 checkpoints use; `assign_weights` is then the one place that checks counts and shapes
and copies into Keras variables. `collect_weights` is the inverse, used to write checkpoints.
"""

import dataclasses

import numpy as np

# Checkpoint entries that are training state, not model weights: optimizer slots written by
# google-research/bert's AdamWeightDecayOptimizer, and the step counter.
_OPTIMIZER_SUFFIXES = ("/adam_m", "/adam_v")
_OPTIMIZER_NAMES = ("global_step",)


@dataclasses.dataclass
class LoadReport:
    """What `assign_weights` did: names loaded, heads left as initialized, entries not used."""

    loaded: list
    heads_not_in_checkpoint: list
    unused_head_weights: list
    ignored_training_state: list

    def summary(self):
        lines = [f"loaded {len(self.loaded)} tensors"]
        if self.heads_not_in_checkpoint:
            lines.append(
                "kept freshly initialized (not in the checkpoint): "
                + ", ".join(self.heads_not_in_checkpoint)
            )
        if self.unused_head_weights:
            lines.append(
                "checkpoint head weights this model has no head for: "
                + ", ".join(self.unused_head_weights)
            )
        if self.ignored_training_state:
            lines.append(f"ignored {len(self.ignored_training_state)} optimizer-state entries")
        return "; ".join(lines)


def _dense(prefix, layer):
    yield f"{prefix}/kernel", layer.kernel, False
    yield f"{prefix}/bias", layer.bias, False


def _layer_norm(prefix, layer):
    yield f"{prefix}/gamma", layer.gamma, False
    yield f"{prefix}/beta", layer.beta, False


def _output_layer(prefix, head):
    # run_classifier / run_squad / NSP store the output matrix as [classes, hidden]: the
    # transpose of a Keras Dense kernel.
    yield f"{prefix}output_weights", head.dense.kernel, True
    yield f"{prefix}output_bias", head.dense.bias, False


def _encoder_entries(encoder):
    embeddings = encoder.embeddings
    yield "bert/embeddings/word_embeddings", embeddings.token_embedding.embeddings, False
    yield "bert/embeddings/token_type_embeddings", embeddings.segment_embedding.embeddings, False
    yield "bert/embeddings/position_embeddings", embeddings.position_embeddings, False
    yield from _layer_norm("bert/embeddings/LayerNorm", embeddings.layer_norm)
    for i, layer in enumerate(encoder.transformer_layers):
        prefix = f"bert/encoder/layer_{i}"
        yield from _dense(f"{prefix}/attention/self/query", layer.attention.query_dense)
        yield from _dense(f"{prefix}/attention/self/key", layer.attention.key_dense)
        yield from _dense(f"{prefix}/attention/self/value", layer.attention.value_dense)
        yield from _dense(f"{prefix}/attention/output/dense", layer.attention_output_dense)
        yield from _layer_norm(f"{prefix}/attention/output/LayerNorm", layer.attention_layer_norm)
        yield from _dense(f"{prefix}/intermediate/dense", layer.intermediate_dense)
        yield from _dense(f"{prefix}/output/dense", layer.output_dense)
        yield from _layer_norm(f"{prefix}/output/LayerNorm", layer.output_layer_norm)
    yield from _dense("bert/pooler/dense", encoder.pooler.dense)


def _masked_lm(prefix, head):
    yield from _dense(f"{prefix}transform/dense", head.dense)
    yield from _layer_norm(f"{prefix}transform/LayerNorm", head.layer_norm)
    yield f"{prefix}output_bias", head.output_bias, False


# Head attribute of a task model -> (TF1 name prefix, entries), with the names of
# google-research/bert's run_pretraining.py, run_squad.py and run_classifier.py. The classifier's
# names have no scope ("output_weights", "output_bias").
_HEADS = {
    "masked_lm_head": ("cls/predictions/", _masked_lm),
    "next_sentence_head": ("cls/seq_relationship/", _output_layer),
    "span_head": ("cls/squad/", _output_layer),
    "classification_head": ("", _output_layer),
}


def _head_of(name):
    """The head attribute a TF1 name belongs to, or None for encoder / unknown names."""
    if name.startswith("bert/pooler/"):
        return "pooler"
    for attribute, (prefix, _) in _HEADS.items():
        if (name.startswith(prefix) if prefix else name in ("output_weights", "output_bias")):
            return attribute
    return None


def tf1_variable_map(model):
    """`{tf1_name: (keras_variable, transposed)}` for a `BertEncoder` or a `BertTask` model."""
    encoder = getattr(model, "encoder", model)
    entries = list(_encoder_entries(encoder))
    for attribute, (prefix, head_entries) in _HEADS.items():
        head = getattr(model, attribute, None)
        if head is not None:
            entries.extend(head_entries(prefix, head))
    return {name: (variable, transposed) for name, variable, transposed in entries}


def assign_weights(model, weights, source):
    """Copies `{tf1_name: array}` into `model`, strictly.

    Every encoder tensor must be present with the model's shape, and the checkpoint may hold no
    encoder tensor the model lacks (another size or depth is an error, not a partial load). Head
    tensors load when both sides have the head; a head missing from the checkpoint stays
    initialized (the usual fine-tuning warm start) and checkpoint heads the model lacks are
    skipped; both are listed in the returned `LoadReport`. Optimizer slots are ignored.

    Args:
        model: a `BertEncoder` or a model built on one (`BertPretrainer`, `BertClassifier`, ...).
        weights: dict of TF1 name -> array.
        source: str naming the checkpoint, used in error messages.
    """
    variables = tf1_variable_map(model)
    training_state = sorted(
        n for n in weights if n in _OPTIMIZER_NAMES or n.endswith(_OPTIMIZER_SUFFIXES)
    )
    weights = {n: w for n, w in weights.items() if n not in training_state}

    unknown = sorted(n for n in weights if n not in variables and _head_of(n) is None)
    # The pooler may be absent from checkpoints of models that never read it (HF builds
    # BertForQuestionAnswering / BertForTokenClassification without one).
    pooler_optional = not getattr(model, "uses_pooled_output", True)
    missing_encoder = sorted(
        n
        for n in variables
        if n.startswith("bert/")
        and n not in weights
        and not (pooler_optional and n.startswith("bert/pooler/"))
    )
    if unknown or missing_encoder:
        problems = []
        if missing_encoder:
            problems.append(
                f"{len(missing_encoder)} encoder tensor(s) the model needs are missing from the "
                f"checkpoint, e.g. {missing_encoder[:5]}"
            )
        if unknown:
            problems.append(
                f"{len(unknown)} checkpoint tensor(s) have no place in the model, e.g. "
                f"{unknown[:5]}"
            )
        raise ValueError(
            f"{source} does not match the model ({len(variables)} model tensors, "
            f"{len(weights)} checkpoint tensors): " + "; ".join(problems) + ". Build the model "
            "from the checkpoint's own config (BertConfig.from_json_file) so depth, width and "
            "vocabulary agree."
        )

    shape_errors = []
    for name, (variable, transposed) in variables.items():
        if name not in weights:
            continue
        # Compared in the checkpoint's (TF1) layout, so the message matches the names.
        expected = tuple(variable.shape)[::-1] if transposed else tuple(variable.shape)
        found = tuple(np.shape(weights[name]))
        if found != expected:
            shape_errors.append(f"{name}: checkpoint {found} vs model {expected}")
    if shape_errors:
        raise ValueError(
            f"{source} has tensors of another size than the model: "
            + "; ".join(shape_errors[:5])
            + (f" (and {len(shape_errors) - 5} more)" if len(shape_errors) > 5 else "")
            + ". Build the model from the checkpoint's own config (BertConfig.from_json_file)."
        )

    loaded, heads_not_in_checkpoint = [], set()
    for name, (variable, transposed) in variables.items():
        if name in weights:
            value = np.asarray(weights[name])
            variable.assign(value.T if transposed else value)
            loaded.append(name)
        else:
            heads_not_in_checkpoint.add(_head_of(name))
    return LoadReport(
        loaded=loaded,
        heads_not_in_checkpoint=sorted(heads_not_in_checkpoint),
        unused_head_weights=sorted(n for n in weights if n not in variables),
        ignored_training_state=training_state,
    )


def collect_weights(model):
    """The inverse of `assign_weights`: `{tf1_name: np.ndarray}` in the TF1 layout."""
    weights = {}
    for name, (variable, transposed) in tf1_variable_map(model).items():
        value = np.asarray(variable)
        weights[name] = value.T if transposed else value
    return weights
