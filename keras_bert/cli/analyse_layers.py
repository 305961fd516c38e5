"""Per-layer measures of any BERT checkpoint on your text: CKA between layers, token-identity probe.

    python -m keras_bert.cli.analyse_layers --init_checkpoint=runs/bert \
        --input_file=held_out.txt --output_json=layers.json --png=layers.png

--init_checkpoint: a run_pretraining or fine-tuning output_dir, a google TF1 checkpoint, or a
Hugging Face BERT directory (config and vocab found next to it, or --bert_config_file /
--vocab_file). --input_file: text, one sentence per line (run prepare_pretraining_text on raw
books first); --max_sentences are sampled evenly from it. For every layer (0 = embeddings)
the JSON holds linear CKA with the embeddings and with the previous layer and the held-out
accuracy of a linear probe of each position's own token; the PNG draws them. A keras_bert
pretraining run is read with the attention pattern it was trained with (causal for
--objective=causal_lm) unless --attention_pattern says otherwise.
"""

import json
import os

from absl import app
from absl import flags

from keras_bert.cli.common import finetuning_flags
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS

finetuning_flags.define_model_flags()
flags.DEFINE_string("input_file", None, "Text, one sentence per line.")
flags.DEFINE_integer("max_sentences", 600, "Sentences to read, spread evenly over the file.")
flags.DEFINE_string("output_json", None, "Where to write the measures.")
flags.DEFINE_string("png", None, "Where to draw them (default: next to --output_json).")
flags.DEFINE_enum(
    "attention_pattern", None, ["bidirectional", "causal", "hide_next"],
    "Override the pattern (default: the run's pretraining_objective.json, else bidirectional).",
)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    from keras_bert.analysis.masking_lab.experiments import Variant
    from keras_bert.analysis.masking_lab.plots import plot_layers
    from keras_bert.analysis.layer_analysis import read_sentences
    from keras_bert.analysis.layer_analysis import representation_measures
    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint
    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.models.bert_pretrainer import BertPretrainer
    from keras_bert.training.pretraining_objective import read_pretraining_objective

    config = finetuning_flags.bert_config()
    vocabulary = finetuning_flags.tokenizer().vocabulary
    folder = FLAGS.init_checkpoint if os.path.isdir(FLAGS.init_checkpoint) else os.path.dirname(
        FLAGS.init_checkpoint
    )
    pattern = FLAGS.attention_pattern or read_pretraining_objective(folder)["attention_pattern"]
    try:
        sentences = read_sentences(FLAGS.input_file, FLAGS.max_sentences)
        encoder = BertEncoder.from_bert_config(config, attention_pattern=pattern)
        # Loaded through the pretraining model, which every checkpoint kind can fill (its
        # heads where the checkpoint has them; only the encoder is measured).
        print("Loaded", load_init_checkpoint(BertPretrainer(encoder), FLAGS.init_checkpoint))
        measures, _, _ = representation_measures(
            encoder, sentences, vocabulary, FLAGS.max_seq_length
        )
    except (ValueError, FileNotFoundError) as e:
        raise usage.flag_error(e) from None
    measures["init_checkpoint"] = FLAGS.init_checkpoint
    os.makedirs(os.path.dirname(os.path.abspath(FLAGS.output_json)), exist_ok=True)
    with open(FLAGS.output_json, "w") as f:
        json.dump(measures, f, indent=1)
    png = FLAGS.png or os.path.splitext(FLAGS.output_json)[0] + ".png"
    label = "/".join(os.path.normpath(FLAGS.init_checkpoint).split(os.sep)[-2:])
    plot_layers({"model": {0: {"analysis": measures}}}, [Variant("model", label)], png,
                f"{label}: {measures['num_positions']:,} positions of {len(sentences)} sentences",
                show_seeds=False)
    for name in ("token_probe_accuracy", "cka_to_input", "cka_to_previous"):
        print(f"{name:>22}:", " ".join("   -  " if v is None else f"{v:.3f}" for v in measures[name]))
    print(f"Wrote {FLAGS.output_json} and {png}")


if __name__ == "__main__":
    flags.mark_flags_as_required(["init_checkpoint", "input_file", "output_json"])
    usage.run(main)
