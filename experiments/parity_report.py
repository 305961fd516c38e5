"""Prints keras_bert vs HF transformers parity on the real all-MiniLM-L6-v2 weights.
Makes: docs/parity.md, "keras_bert vs HF transformers on the real all-MiniLM-L6-v2 weights" (the
max abs difference table).
Rerun: the command below.

    .venv/bin/python experiments/parity_report.py

Uses the 18-sentence padded batch of tests/keras_bert/checkpoints/hf_checkpoint_test.py, and
a float64 NumPy forward pass (tests/reference/numpy_bert.py) to show how far each float32
implementation is from exact arithmetic, separately at real and at padded positions.
"""

import pathlib
import platform
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402

from keras_bert.checkpoints.hf_checkpoint import encoder_from_hf_checkpoint  # noqa: E402
from keras_bert.checkpoints.weight_map import collect_weights  # noqa: E402
from tests.keras_bert.checkpoints.hf_checkpoint_test import (  # noqa: E402
    MINILM,
    SENTENCES,
    hf_batch,
    our_inputs,
)
from tests.reference import numpy_bert  # noqa: E402


def split(diff, real):
    return f"real tokens {diff[real].max():.2e}, padded positions {diff[~real].max():.2e}"


def main():
    encoder = encoder_from_hf_checkpoint(MINILM)
    batch = hf_batch(SENTENCES)
    inputs = our_inputs(batch)
    real = inputs["padding_mask"].astype(bool)
    model = transformers.BertModel.from_pretrained(str(MINILM)).eval()
    with torch.no_grad():
        hf = model(**{k: torch.tensor(v) for k, v in batch.items()})
    hf_sequence, hf_pooled = hf.last_hidden_state.numpy(), hf.pooler_output.numpy()
    ours = encoder.predict(inputs, verbose=0)
    weights, config = collect_weights(encoder), encoder.bert_config.to_dict()
    exact, exact_pooled, _ = numpy_bert.encoder(weights, config, **inputs)
    numpy_bert.as_float64 = lambda w: {k: np.asarray(v, np.float32) for k, v in w.items()}
    numpy32, _, _ = numpy_bert.encoder(weights, config, **inputs)

    print(f"all-MiniLM-L6-v2, {len(SENTENCES)} sentences padded to {real.shape[1]}, "
          f"{real.sum()} real tokens; torch {torch.__version__}, transformers "
          f"{transformers.__version__}, {platform.processor() or platform.machine()}")
    print("max |diff| of last_hidden_state / sequence_output:")
    print("  keras_bert vs HF BertModel:     ", split(np.abs(ours["sequence_output"] - hf_sequence), real))
    print("  keras_bert vs float64 NumPy:    ", split(np.abs(ours["sequence_output"] - exact), real))
    print("  HF BertModel vs float64 NumPy:  ", split(np.abs(hf_sequence - exact), real))
    print("  float32 NumPy vs float64 NumPy: ", split(np.abs(numpy32 - exact), real))
    print("max |diff| of pooler_output:")
    print(f"  keras_bert vs HF BertModel:      {np.abs(ours['pooled_output'] - hf_pooled).max():.2e}")
    print(f"  keras_bert vs float64 NumPy:     {np.abs(ours['pooled_output'] - exact_pooled).max():.2e}")


if __name__ == "__main__":
    main()
