"""`BertConfig`: the hyperparameters of a BERT encoder, keyed exactly as google-research's `bert_config.json`."""

import dataclasses
import json
import math
import os

from keras_bert.api_export import keras_bert_export
from keras_bert.atomic_files import atomic_open
from keras_bert.layers.activations import HIDDEN_ACTS

# The published BERT family (Turc et al. 2019 "Well-Read Students Learn Better" for the small
# sizes, Devlin et al. 2018 for Base and Large): name -> (num_hidden_layers, hidden_size).
# Heads are hidden_size / 64 and the feed-forward width is 4 * hidden_size, as published.
NAMED_SIZES = {
    "tiny": (2, 128),
    "mini": (4, 256),
    "small": (4, 512),
    "medium": (8, 512),
    "base": (12, 768),
    "large": (24, 1024),
}

# The activations `hidden_act` may name are `HIDDEN_ACTS` (keras_bert.layers.activations). "gelu"
# is the exact erf form used by google-research BERT and HF; "gelu_new" is HF's name for the tanh
# approximation (keras-hub's default).

_UNCASED_VOCAB_SIZE = 30522


@keras_bert_export("keras_bert.BertConfig")
@dataclasses.dataclass(frozen=True)
class BertConfig:
    """Hyperparameters of a BERT encoder.

    The fields are exactly the keys of google-research/bert's `bert_config.json`, so a config
    file published with a Google checkpoint loads as is and `to_json_file` writes one that
    google-research/bert reads back.

    Args:
        vocab_size: int. Size of the WordPiece vocabulary.
        hidden_size: int. Width of every Transformer layer.
        num_hidden_layers: int. Number of Transformer layers.
        num_attention_heads: int. Attention heads; must divide `hidden_size`.
        intermediate_size: int. Width of the feed-forward layer.
        hidden_act: str. Feed-forward activation, one of `HIDDEN_ACTS`. Defaults to `"gelu"`
            (exact, erf-based).
        hidden_dropout_prob: float. Dropout on embeddings and sublayer outputs. Defaults to 0.1.
        attention_probs_dropout_prob: float. Dropout on attention probabilities. Defaults to 0.1.
        max_position_embeddings: int. Longest sequence the model accepts. Defaults to 512.
        type_vocab_size: int. Number of segment ids. Defaults to 2.
        initializer_range: float. Stddev of the truncated-normal initializer. Defaults to 0.02.

    Example:
    >>> config = keras_bert.BertConfig.mini()
    >>> (config.num_hidden_layers, config.hidden_size, config.num_attention_heads)
    (4, 256, 4)
    """

    vocab_size: int
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    intermediate_size: int = 3072
    hidden_act: str = "gelu"
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    initializer_range: float = 0.02

    def __post_init__(self):
        for name in (
            "vocab_size",
            "hidden_size",
            "num_hidden_layers",
            "num_attention_heads",
            "intermediate_size",
            "max_position_embeddings",
            "type_vocab_size",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"BertConfig.{name} must be a positive integer, got {value!r}.")
        if self.hidden_size % self.num_attention_heads:
            raise ValueError(
                f"BertConfig.hidden_size ({self.hidden_size}) must be a multiple of "
                f"num_attention_heads ({self.num_attention_heads}): each head gets "
                "hidden_size / num_attention_heads dimensions."
            )
        if self.hidden_act not in HIDDEN_ACTS:
            raise ValueError(
                f"BertConfig.hidden_act={self.hidden_act!r} is not supported. "
                f"Use one of {HIDDEN_ACTS} ('gelu' is BERT's exact GELU)."
            )
        for name in ("hidden_dropout_prob", "attention_probs_dropout_prob"):
            value = getattr(self, name)
            if not _is_number(value) or not 0.0 <= value < 1.0:
                raise ValueError(f"BertConfig.{name} must be a number in [0, 1), got {value!r}.")
        if not _is_number(self.initializer_range) or not 0.0 < self.initializer_range < math.inf:
            raise ValueError("BertConfig.initializer_range must be a positive number, got "
                             f"{self.initializer_range!r}.")

    # === Named sizes ===

    @classmethod
    def from_name(cls, name, vocab_size=_UNCASED_VOCAB_SIZE, **overrides):
        """A published size by name: one of `NAMED_SIZES` (tiny, mini, small, medium, base, large)."""
        if name not in NAMED_SIZES:
            raise ValueError(
                f"Unknown BERT size {name!r}. Known sizes: {', '.join(NAMED_SIZES)}."
            )
        layers, hidden = NAMED_SIZES[name]
        fields = dict(
            vocab_size=vocab_size,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=hidden // 64,
            intermediate_size=4 * hidden,
        )
        fields.update(overrides)
        return cls(**fields)

    @classmethod
    def tiny(cls, **overrides):
        """BERT-Tiny: 2 layers, hidden 128, 2 heads."""
        return cls.from_name("tiny", **overrides)

    @classmethod
    def mini(cls, **overrides):
        """BERT-Mini: 4 layers, hidden 256, 4 heads."""
        return cls.from_name("mini", **overrides)

    @classmethod
    def small(cls, **overrides):
        """BERT-Small: 4 layers, hidden 512, 8 heads."""
        return cls.from_name("small", **overrides)

    @classmethod
    def medium(cls, **overrides):
        """BERT-Medium: 8 layers, hidden 512, 8 heads."""
        return cls.from_name("medium", **overrides)

    @classmethod
    def base(cls, **overrides):
        """BERT-Base: 12 layers, hidden 768, 12 heads."""
        return cls.from_name("base", **overrides)

    @classmethod
    def large(cls, **overrides):
        """BERT-Large: 24 layers, hidden 1024, 16 heads."""
        return cls.from_name("large", **overrides)

    # === JSON ===

    @classmethod
    def from_dict(cls, values, source="config"):
        """Builds a config from a `bert_config.json`-shaped dict; unknown keys are ignored.

        HF `config.json` files carry the same keys plus their own (`model_type`,
        `layer_norm_eps`, ...), so they load too; a `layer_norm_eps` other than BERT's 1e-12
        is refused because this encoder hard-codes BERT's value.
        """
        fields = {f.name: f for f in dataclasses.fields(cls)}
        required = [n for n, f in fields.items() if f.default is dataclasses.MISSING]
        required += ["hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"]
        missing = [name for name in required if name not in values]
        if missing:
            raise ValueError(
                f"{source} is missing required BERT config key(s) {missing}. A bert_config.json "
                f"needs at least {sorted(set(required))}; see BertConfig for every key."
            )
        eps = values.get("layer_norm_eps", 1e-12)
        if not _is_number(eps) or not abs(eps - 1e-12) <= 1e-15:
            raise ValueError(
                f"{source} sets layer_norm_eps={eps}; keras_bert implements BERT's 1e-12 only."
            )
        try:
            return cls(**{k: v for k, v in values.items() if k in fields})
        except ValueError as e:
            raise ValueError(f"{source}: {e}") from None

    @classmethod
    def from_json_file(cls, path):
        """Reads a google-research `bert_config.json` (or an HF BERT `config.json`)."""
        path = os.fspath(path)
        try:
            with open(path, encoding="utf-8") as f:
                values = json.load(f)
        except FileNotFoundError:
            raise FileNotFoundError(
                f"BERT config file {path!r} does not exist. Pass the bert_config.json that "
                "came with the checkpoint."
            ) from None
        except IsADirectoryError:
            hint = (f"pass {os.path.join(path, 'bert_config.json')}"
                    if os.path.isfile(os.path.join(path, "bert_config.json"))
                    else "pass the bert_config.json that came with the checkpoint")
            raise IsADirectoryError(
                f"BERT config file {path!r} is a folder, not a file: {hint}.") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"BERT config file {path!r} is not valid JSON: {e}.") from None
        except UnicodeDecodeError as e:
            raise ValueError(
                f"BERT config file {path!r} is not UTF-8 text (byte {e.start}); is it a "
                "bert_config.json?"
            ) from None
        if not isinstance(values, dict):
            raise ValueError(f"BERT config file {path!r} must hold a JSON object.")
        return cls.from_dict(values, source=f"BERT config file {path!r}")

    def to_dict(self):
        return dataclasses.asdict(self)

    def to_json_string(self):
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"

    def to_json_file(self, path):
        with atomic_open(path, encoding="utf-8") as f:
            f.write(self.to_json_string())


def _is_number(value):
    """An int or float (not a bool, which JSON's true/false become)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)
