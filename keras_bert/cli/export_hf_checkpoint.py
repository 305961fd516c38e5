"""A pretrained model as a Hugging Face folder: encoder and masked-LM head, float32 or float16.

    python -m keras_bert.cli.export_hf_checkpoint --init_checkpoint=runs/pretrain_budget/model \
        --output_dir=runs/pretrain_budget/hf --dtype=float16

`--init_checkpoint` is a `run_pretraining` output directory (its latest `ckpt-N`, or a `ckpt-N`
prefix), a google-research checkpoint with its `cls/predictions` head, or another Hugging Face
`BertForPreTraining` folder. The folder written holds `config.json` and `model.safetensors`
(`BertForPreTraining`: transformers, `fill_mask` and every `--init_checkpoint` flag read it),
`bert_config.json` (the model's own config, dropout rates included) and `vocab.txt`.
`--dtype=float16` halves the size (each weight rounded to float16). Each file is written to a
temporary name and renamed; `config.json` comes last, so a folder with it is complete.
"""

import os

from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS

flags.DEFINE_string("init_checkpoint", None, "The pretraining checkpoint (with its masked-LM head).")
flags.DEFINE_string("output_dir", None, "The Hugging Face folder to write.")
flags.DEFINE_string("vocab_file", None, "vocab.txt (default: the one next to --init_checkpoint).")
flags.DEFINE_string("dtype", "float32", "Storage type of the weights: float32 or float16.")
flags.DEFINE_bool("do_lower_case", True, "The vocabulary is uncased (written to "
                  "tokenizer_config.json, which transformers.AutoTokenizer reads).")


def main(argv):
    del argv
    if FLAGS.dtype not in ("float32", "float16"):
        raise app.UsageError(f"--dtype={FLAGS.dtype}: choose float32 or float16.")
    from keras_bert.cli.common import path_flags

    path_flags.check_output_dir("output_dir", FLAGS.output_dir)
    path_flags.check_checkpoint("init_checkpoint", FLAGS.init_checkpoint)
    path_flags.check_input_file("vocab_file", FLAGS.vocab_file, "vocab.txt")
    from keras_bert.atomic_files import atomic_open
    from keras_bert.checkpoints.hf_checkpoint import save_hf_checkpoint
    from keras_bert.cli.common.pretrained_checkpoint import load_pretrainer

    pretrainer, config, vocab_file = load_pretrainer(FLAGS.init_checkpoint, FLAGS.vocab_file)
    os.makedirs(FLAGS.output_dir, exist_ok=True)
    config_file = os.path.join(FLAGS.output_dir, "config.json")
    if os.path.exists(config_file):  # rewriting: the folder is incomplete until config.json is back
        os.remove(config_file)
    with atomic_open(os.path.join(FLAGS.output_dir, "bert_config.json")) as f:
        f.write(config.to_json_string())
    save_hf_checkpoint(pretrainer, FLAGS.output_dir, vocab_file=vocab_file, dtype=FLAGS.dtype,
                       do_lower_case=FLAGS.do_lower_case)
    size = sum(os.path.getsize(os.path.join(FLAGS.output_dir, n)) for n in os.listdir(FLAGS.output_dir))
    print(f"Wrote {FLAGS.output_dir} (BertForPreTraining, {FLAGS.dtype}, {size / 1e6:.1f} MB)")


if __name__ == "__main__":
    flags.mark_flags_as_required(["init_checkpoint", "output_dir"])
    usage.run(main)
