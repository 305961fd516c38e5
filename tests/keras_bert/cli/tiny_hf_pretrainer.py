"""A tiny random Hugging Face `BertForPreTraining` folder written by transformers itself: the
source model of the masked-LM CLI tests (fill_mask, export_hf_checkpoint)."""

import torch
import transformers


def write_tiny_hf_pretrainer(folder, vocab, initializer_range):
    """Writes a seeded 2-layer, 16-wide `BertForPreTraining` and `vocab.txt` (`vocab`, a list of
    tokens) to `folder`; returns `folder`. A larger `initializer_range` gives peakier logits."""
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(vocab), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=32, initializer_range=initializer_range)
    transformers.BertForPreTraining(config).eval().save_pretrained(folder, safe_serialization=True)
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    return folder
