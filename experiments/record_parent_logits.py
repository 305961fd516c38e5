r"""Records the float parent's logits on a fixed dev slice, for the shipped int8 model's test.
Makes: apps/models/squad_minilm_int8.parent.npz, the float side of
tests/export/tflite/shipped_model_test.py (apps/models/MODEL_CARD.md).
Rerun: the command below.

    .venv/bin/python -m experiments.record_parent_logits --init_checkpoint=runs/squad_minilm_ship/out

The shipped `apps/models/squad_minilm_int8.tflite` is quantized from a fine-tuned float Keras
model. `tests/export/tflite/shipped_model_test.py` holds the `.tflite` against that parent:
per-window logit error, per-question answer agreement and both models' F1 by the official v1.1
rules, on the first `--num_questions` questions of the last `--last_articles` dev articles (which no
training saw). This writes the parent's side: the windows' token ids (the test checks it builds
the same windows) and the float32 start / end logits, compressed, next to the model. Re-run it
whenever the shipped model changes.
"""

import json
import os

import numpy as np
from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_string("init_checkpoint", None, "The float parent: a run_squad output dir (its best/).")
flags.DEFINE_string("predict_file", "../shared/data/squad/dev-v1.1.json.gz", "SQuAD v1.1 dev.")
flags.DEFINE_integer("last_articles", 10, "Take questions from the last N dev articles.")
flags.DEFINE_integer("num_questions", 200, "How many of their first questions.")
flags.DEFINE_string("output", "apps/models/squad_minilm_int8.parent.npz", "Where to write.")
flags.DEFINE_integer("batch_size", 16, "Windows per predict batch.")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    from keras_bert.export.task.task_model import load_task_model
    from keras_bert.export.verification.data import TaskData
    from keras_bert.checkpoints.run_folder import VOCAB_FILE
    from keras_bert.checkpoints.run_folder import model_folder

    vocab_file = os.path.join(model_folder(FLAGS.init_checkpoint), VOCAB_FILE)
    if not os.path.isfile(vocab_file):
        raise app.UsageError(f"{vocab_file} not found: pass a run_squad --output_dir.")
    data = TaskData("squad", vocab_file, True, 384,
                    dict(doc_stride=128, max_query_length=64))
    evaluation = data.evaluation(FLAGS.predict_file, FLAGS.last_articles, FLAGS.num_questions)
    model = load_task_model("squad", FLAGS.init_checkpoint)
    outputs = model.predict(evaluation.inputs, batch_size=FLAGS.batch_size, verbose=1)
    os.makedirs(os.path.dirname(FLAGS.output) or ".", exist_ok=True)
    temporary = FLAGS.output + ".tmp.npz"
    np.savez_compressed(
        temporary,
        token_ids=evaluation.inputs["token_ids"].astype(np.int32),
        start_logits=np.asarray(outputs["start_logits"], np.float32),
        end_logits=np.asarray(outputs["end_logits"], np.float32),
        about=np.array(json.dumps(dict(
            init_checkpoint=FLAGS.init_checkpoint, predict_file=FLAGS.predict_file,
            last_articles=FLAGS.last_articles, num_questions=FLAGS.num_questions,
            windows=int(len(evaluation.inputs["token_ids"])),
        ))),
    )
    os.replace(temporary, FLAGS.output)
    print(f"{FLAGS.output}: {len(evaluation.inputs['token_ids'])} windows of "
          f"{evaluation.description['questions']} questions.")


if __name__ == "__main__":
    flags.mark_flags_as_required(["init_checkpoint"])
    usage.run(main)
