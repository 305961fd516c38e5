r"""Scores a SQuAD `.tflite` on a whole dev file by the official v1.1 rules, resumably.

    .venv/bin/python -m tools.score_tflite_squad --model=apps/models/squad_minilm_int8.tflite \
        --predict_file=../shared/data/squad/dev-v1.1.json.gz --output_dir=runs/score_int8

Builds the windows as the export and the apps do (seq 384, stride 128, question cap 64; the
vocabulary from the model's own metadata unless --vocab_file is given), runs every window
through LiteRT one at a time (the app's batch of 1), and decodes the answers with keras_bert's
n-best rules. A full-int8 model takes ~0.2-0.3 s a window on 2 cores, so the whole dev set
(10,833 windows) is most of an hour: the logits are saved every --save_every windows in
`output_dir/logits_<shard>of<n>.npz` and a re-run continues from there. Writes `predictions.json` and
`eval_results.json` (EM / F1 over all questions, and over the last --last_articles articles).

Full int8 runs slower on 2 threads than on 1 here (docs/lab/export_history.md, run 6), so two
one-thread processes on shares of the windows finish in about half the time:

    for i in 0 1; do .venv/bin/python -m tools.score_tflite_squad --model=M --output_dir=D \
        --num_shards=2 --shard=$i --num_threads=1 & done; wait
    .venv/bin/python -m tools.score_tflite_squad --model=M --output_dir=D --num_shards=2

The last command finds every share done and only scores.
"""

import json
import os
import tempfile

import numpy as np
from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_string("model", None, "The QA .tflite (ids/mask/segment_ids -> start/end logits).")
flags.DEFINE_string("predict_file", "../shared/data/squad/dev-v1.1.json.gz", "SQuAD v1.1 JSON.")
flags.DEFINE_string("vocab_file", None, "vocab.txt (default: the one in the model's metadata).")
flags.DEFINE_string("output_dir", None, "Logits (resumable), predictions and scores go here.")
flags.DEFINE_integer("num_threads", 2, "LiteRT threads.")
flags.DEFINE_integer("save_every", 500, "Save the logits every this many windows.")
flags.DEFINE_integer("last_articles", 10, "Also score the last N articles (the held-out split).")
flags.DEFINE_integer("num_shards", 1, "Split the windows into this many contiguous shares.")
flags.DEFINE_integer("shard", None, "Run only this share (0-based); without it, run the shares "
                                    "not yet done one after another, then score.")


def _vocab_file(folder):
    if FLAGS.vocab_file:
        return FLAGS.vocab_file
    from keras_bert.export.tflite.metadata_reader import read_metadata

    with open(FLAGS.model, "rb") as f:
        files = read_metadata(f.read()).get("files", {})
    if "vocab.txt" not in files:
        raise app.UsageError(f"{FLAGS.model} carries no vocab.txt in its metadata: pass --vocab_file.")
    path = os.path.join(folder, "vocab.txt")
    with open(path, "wb") as f:
        f.write(files["vocab.txt"])
    return path


def _save(path, start, end, done):
    temporary = path + ".tmp.npz"
    np.savez(temporary, start_logits=start[:done], end_logits=end[:done])
    os.replace(temporary, path)


def _run_shard(runner, inputs, first, last, path):
    """Logits of windows [first, last) into `path`, continuing what an earlier run saved."""
    from tqdm import tqdm

    count = last - first
    start = np.zeros((count, 384), np.float32)
    end = np.zeros((count, 384), np.float32)
    done = 0
    if os.path.exists(path):
        saved = np.load(path)
        done = len(saved["start_logits"])
        start[:done], end[:done] = saved["start_logits"], saved["end_logits"]
    if done == count:
        return
    if done:
        print(f"{path}: resuming at window {first + done} of [{first}, {last}).")
    for i in tqdm(range(done, count), initial=done, total=count, unit="window"):
        window = first + i
        out = runner(**{k: v[window:window + 1].astype(np.int32) for k, v in inputs.items()})
        start[i], end[i] = out["start_logits"][0], out["end_logits"][0]
        if (i + 1) % FLAGS.save_every == 0:
            _save(path, start, end, i + 1)
    _save(path, start, end, count)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    if not os.path.isfile(FLAGS.model):
        raise app.UsageError(f"--model {FLAGS.model} does not exist.")
    import keras_bert
    from keras_bert.export.task.signature_names import exported_inputs
    from keras_bert.export.tflite.conversion import tflite_runner
    from keras_bert.export.verification.data import TaskData
    from keras_bert.export.verification.data import _load_json

    os.makedirs(FLAGS.output_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data = TaskData("squad", _vocab_file(tmp), True, 384,
                        dict(doc_stride=128, max_query_length=64))
        dataset = _load_json(FLAGS.predict_file)
        evaluation = data.evaluation(FLAGS.predict_file, len(dataset["data"]), None)
    inputs = exported_inputs(evaluation.inputs)
    total = len(inputs["ids"])
    bounds = np.linspace(0, total, FLAGS.num_shards + 1).astype(int)
    shards = [FLAGS.shard] if FLAGS.shard is not None else range(FLAGS.num_shards)
    runner = tflite_runner(FLAGS.model, num_threads=FLAGS.num_threads)
    for shard in shards:
        _run_shard(runner, inputs, bounds[shard], bounds[shard + 1],
                   os.path.join(FLAGS.output_dir, f"logits_{shard}of{FLAGS.num_shards}.npz"))
    if FLAGS.shard is not None:
        return
    start = np.concatenate([np.load(os.path.join(
        FLAGS.output_dir, f"logits_{i}of{FLAGS.num_shards}.npz"))["start_logits"]
        for i in range(FLAGS.num_shards)])
    end = np.concatenate([np.load(os.path.join(
        FLAGS.output_dir, f"logits_{i}of{FLAGS.num_shards}.npz"))["end_logits"]
        for i in range(FLAGS.num_shards)])
    predictions, _, _ = keras_bert.data.decode_squad_predictions(
        evaluation.examples, evaluation.features, start, end, n_best_size=20,
        max_answer_length=30, do_lower_case=True)
    results = {
        "model": FLAGS.model,
        "predict_file": FLAGS.predict_file,
        "windows": total,
        "all": keras_bert.metrics.evaluate_squad_v1(dataset, predictions),
        f"last_{FLAGS.last_articles}_articles": keras_bert.metrics.evaluate_squad_v1(
            {"data": dataset["data"][-FLAGS.last_articles:]}, predictions),
    }
    for name, value in (("predictions.json", predictions), ("eval_results.json", results)):
        path = os.path.join(FLAGS.output_dir, name)
        with open(path + ".tmp", "w") as f:
            json.dump(value, f, indent=1, ensure_ascii=False)
        os.replace(path + ".tmp", path)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    flags.mark_flags_as_required(["model", "output_dir"])
    usage.run(main)
