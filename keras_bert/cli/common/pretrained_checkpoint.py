"""The pretrained-checkpoint side the masked-LM CLIs share (`fill_mask`, `export_hf_checkpoint`):
the model's config, its vocabulary checked against it, and the pretrainer with its masked-LM head
loaded, each failure a one-line usage error."""

import os

from absl import app

from keras_bert.cli.common import usage


def load_pretrainer(init_checkpoint, vocab_file=None):
    """(`BertPretrainer` loaded from `init_checkpoint` with its heads, its `BertConfig`, the
    vocabulary's path: `vocab_file`, or the `vocab.txt` beside the checkpoint)."""
    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint
    from keras_bert.checkpoints.run_folder import VOCAB_FILE
    from keras_bert.checkpoints.run_folder import model_config
    from keras_bert.checkpoints.run_folder import model_folder
    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.models.bert_pretrainer import BertPretrainer

    from keras_bert.cli.common import path_flags

    path_flags.check_checkpoint("init_checkpoint", init_checkpoint)
    path_flags.check_input_file("vocab_file", vocab_file, VOCAB_FILE)
    try:
        config = model_config(init_checkpoint)
    except FileNotFoundError as e:
        raise app.UsageError(f"--init_checkpoint: {usage.flag_names(e)}") from None
    vocab_file = vocab_file or os.path.join(model_folder(init_checkpoint), VOCAB_FILE)
    if not os.path.isfile(vocab_file):
        raise app.UsageError(f"No vocabulary at {vocab_file}: pass --vocab_file (the checkpoint's vocab.txt).")
    with open(vocab_file, encoding="utf-8") as f:
        tokens = sum(1 for _ in f)
    if tokens != config.vocab_size:
        raise app.UsageError(f"--vocab_file has {tokens} tokens but the model has vocab_size="
                             f"{config.vocab_size}: pass the checkpoint's own vocab.txt.")
    pretrainer = BertPretrainer(BertEncoder.from_bert_config(config))
    try:
        print(load_init_checkpoint(pretrainer, init_checkpoint, require_heads=True))
    except (ValueError, FileNotFoundError) as e:
        raise app.UsageError(f"--init_checkpoint: {usage.flag_names(e)}") from None
    return pretrainer, config, vocab_file
