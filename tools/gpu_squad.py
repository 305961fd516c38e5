r"""SQuAD span fine-tuning on the lent GPU machine, without TensorFlow, to a Hugging Face folder.

The GPU machine has JAX but no TensorFlow. This runs `run_squad`'s own recipe there
(`keras_bert.training.finetune`, the code path of every backend: length-grouped batches, the
package's optimizer, bf16, resumable checkpoints in `<output_dir>/run`) on windows tokenized
beforehand, and writes the model as a Hugging Face checkpoint folder
(`keras_bert.checkpoints.save_hf_checkpoint`), which every `--init_checkpoint` reads back on the
CPU side (`run_squad --do_predict`, `keras_bert.export.cli` for QAT and the TFLite files). Issue 28's
2-epoch parent and issue 30's distilled student take minutes there instead of hours on 2 cores.

Here, first (the windows are tokenized here, not on the GPU's clock):

    .venv/bin/python -m tools.gpu_bundle --squad_windows=-1   # all train windows, in parts

There, with the bundle put back together (`.gpu/README`), then for the student:

    KERAS_BACKEND=jax python3 -m tools.gpu_squad --init_checkpoint=/tmp/minilm \
        --train_windows=/tmp/squad_windows.npz --predict_file=.gpu/dev-v1.1.json.gz \
        --num_train_epochs=2 --output_dir=/tmp/parent --parts_dir=/tmp/parent_parts
    KERAS_BACKEND=jax python3 -m tools.gpu_squad --init_checkpoint=/tmp/parent \
        --student_layers=0,2,4 --distill_weight=0.5 ...same data... --output_dir=/tmp/student

`--parts_dir` splits `model.safetensors` into 16 MB pieces (`part00/`, `part01/`, ...). The
device tool brings back at most 8 files of 16 MiB, 64 MiB in all, from `$OUT`. So a float32
MiniLM (6 pieces) takes two calls: `cp -r /tmp/parent_parts/part0[0-3] $OUT/`, then the pieces
left and the folder's small files (`config.json`, `bert_config.json`, `vocab.txt`,
`gpu_squad_results.json`). Here, `cat` the pieces in order into `model.safetensors` beside them.
Flags are `run_squad`'s where they mean the same; the defaults are its SQuAD recipe
(docs/fine_tuning.md): seq 384, batch 32, LR 2e-4, 10 % warm-up, linear decay, bf16.
"""

import json
import os
import time

from absl import app
from absl import flags

from keras_bert.cli.common import usage
from tools.squad_windows import load_windows

FLAGS = flags.FLAGS
flags.DEFINE_string("init_checkpoint", None, "A Hugging Face BERT folder: the pretrained encoder, "
                                             "or (with --student_layers) the fine-tuned teacher.")
flags.DEFINE_bool("random_init", False, "Read only --init_checkpoint's config and vocabulary and "
                                        "start from random weights of that shape (the random arm "
                                        "of experiments/downstream_proof.py).")
flags.DEFINE_string("train_windows", None, "Training windows (.npz) from tools.squad_windows.pack_windows.")
flags.DEFINE_string("predict_file", None, "SQuAD v1.1 JSON(.gz) scored at the end (optional).")
flags.DEFINE_string("output_dir", None, "The fine-tuned model's Hugging Face folder and scores.")
flags.DEFINE_string("parts_dir", None, "Also split model.safetensors into pieces here.")
flags.DEFINE_integer("part_mb", 16, "Largest piece in MB (the device tool returns <= 16 MiB).")
flags.DEFINE_enum("save_dtype", "float32", ["float32", "float16"],
                  "Weights of the saved folder: float16 halves it (91 -> 46 MB for MiniLM), so a "
                  "fine-tuned MiniLM comes back from the device in one call.")
flags.DEFINE_integer("pad_to_multiple_of", 64, "Round each batch's length up to a multiple of "
                                               "this: under JAX every new length is a new "
                                               "compilation, so 64 leaves 6 shapes at seq 384.")
flags.DEFINE_float("num_train_epochs", 2.0, "Epochs over the windows.")
flags.DEFINE_integer("num_train_steps", 0, "Stop after this many steps (0: the epochs decide).")
flags.DEFINE_integer("train_batch_size", 32, "Batch size.")
flags.DEFINE_float("learning_rate", 2e-4, "Peak learning rate (linear warm-up, linear decay).")
flags.DEFINE_float("warmup_proportion", 0.1, "Share of the steps spent warming up.")
flags.DEFINE_integer("max_seq_length", 384, "Window length of --predict_file's windows.")
flags.DEFINE_integer("doc_stride", 128, "Stride between --predict_file's windows.")
flags.DEFINE_integer("max_query_length", 64, "Question tokens kept.")
flags.DEFINE_integer("eval_batch_size", 128, "Prediction batch size.")
flags.DEFINE_list("student_layers", None, "Fine-tune a copy of --init_checkpoint with only these "
                                          "transformer layers (e.g. 0,2,4): a student.")
flags.DEFINE_float("distill_weight", 0.0, "With --student_layers: the teacher's share of the "
                                          "start/end targets (0-1).")
flags.DEFINE_integer("max_train_seconds", 0, "Stop training after this many seconds (0: never) "
                                              "and still save and score; the results say how "
                                              "many steps ran. A guard for a device call's limit.")
flags.DEFINE_integer("log_every", 500, "Print a progress line every this many steps.")
flags.DEFINE_string("dtype_policy", "mixed_bfloat16", "Keras dtype policy for training.")
flags.DEFINE_integer("random_seed", 0, "Seed of the initial head and the batch order.")


def _models():
    """(model to train, teacher or None), both from --init_checkpoint."""
    from keras_bert.checkpoints.hf_checkpoint import encoder_from_hf_checkpoint
    from keras_bert.checkpoints.hf_checkpoint import load_hf_checkpoint
    from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
    from keras_bert.models.layer_selection import select_layers

    if FLAGS.random_init:
        from keras_bert.checkpoints.hf_checkpoint import read_hf_config
        from keras_bert.models.bert_encoder import BertEncoder

        return BertQuestionAnswerer(BertEncoder.from_bert_config(
            read_hf_config(FLAGS.init_checkpoint))), None
    model = BertQuestionAnswerer(encoder_from_hf_checkpoint(FLAGS.init_checkpoint))
    report = load_hf_checkpoint(model, FLAGS.init_checkpoint)  # the span head too, if it has one
    if not FLAGS.student_layers:
        # A fine-tuned SQuAD folder continues with its own span head (a continuation on new
        # windows); a pretrained encoder's folder has none, and the head starts fresh.
        print("Span head: " + ("new (--init_checkpoint has none)" if report.heads_not_in_checkpoint
                               else f"continued from {FLAGS.init_checkpoint}"), flush=True)
        return model, None
    if report.heads_not_in_checkpoint:
        raise app.UsageError(f"--student_layers: {FLAGS.init_checkpoint} has no span head; "
                             "pass a fine-tuned SQuAD model as the teacher.")
    layers = [int(i) for i in FLAGS.student_layers]
    return select_layers(model, layers), model


def _targets(teacher, inputs, labels):
    """Gold positions, or (distilling) gold mixed with the teacher's distributions."""
    if teacher is None or not FLAGS.distill_weight:
        return labels, False
    from keras_bert.training.distillation import mix_targets
    from keras_bert.training.distillation import teacher_probabilities

    started = time.time()
    probabilities = teacher_probabilities(teacher, inputs, batch_size=FLAGS.eval_batch_size)
    print(f"Teacher distributions over {len(inputs['token_ids'])} windows: "
          f"{time.time() - started:.0f} s", flush=True)
    return mix_targets(labels, probabilities, FLAGS.distill_weight), True


def _score(model, task):
    """`(official v1.1 EM / F1 of `model` on --predict_file, {question id: answer})`."""
    from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer

    tokenizer = ReferenceTokenizer(os.path.join(FLAGS.init_checkpoint, "vocab.txt"))
    data = task.load(FLAGS.predict_file, tokenizer)
    predictions = task.predict(model, data, FLAGS.eval_batch_size)
    return task.score(data, predictions), predictions["predictions"]


def _progress_callback(steps, started):
    """Prints step, loss and rate every --log_every steps; stops at --max_train_seconds."""
    import keras

    class Progress(keras.callbacks.Callback):
        done = 0  # steps finished

        def on_train_batch_end(self, batch, logs=None):
            self.done += 1
            self.loss = float(logs["loss"])
            elapsed = time.time() - started
            if self.done % FLAGS.log_every == 0 or self.done == steps:
                print(f"step {self.done}/{steps} loss {self.loss:.4f} "
                      f"{elapsed:.0f} s ({self.done / elapsed:.1f} steps/s)", flush=True)
            if FLAGS.max_train_seconds and elapsed > FLAGS.max_train_seconds:
                print(f"--max_train_seconds={FLAGS.max_train_seconds}: stopping at step "
                      f"{self.done} of {steps}", flush=True)
                self.model.stop_training = True

    return Progress()


def _check_flags():
    if not 0.0 <= FLAGS.distill_weight <= 1.0:
        raise app.UsageError(f"--distill_weight must be in [0, 1], got {FLAGS.distill_weight}.")
    if FLAGS.max_train_seconds < 0:
        raise app.UsageError(f"--max_train_seconds must be >= 0 (0: no limit), got "
                             f"{FLAGS.max_train_seconds}.")
    if FLAGS.random_init and FLAGS.student_layers:
        raise app.UsageError("--random_init and --student_layers exclude each other: a student "
                             "starts from its teacher's weights.")
    if FLAGS.distill_weight and not FLAGS.student_layers:
        raise app.UsageError("--distill_weight needs --student_layers (the teacher is "
                             "--init_checkpoint).")
    for flag in ("init_checkpoint", "train_windows", "predict_file"):
        path = getattr(FLAGS, flag)
        if path and not os.path.exists(path):
            raise app.UsageError(f"--{flag} {path} does not exist.")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    _check_flags()
    import keras

    import keras_bert
    from keras_bert.checkpoints.hf_checkpoint import save_hf_checkpoint

    # The CPU's recipe (keras_bert.training.finetune), on the windows tokenized before; its
    # checkpoints and best model go to <output_dir>/run, the Hugging Face folder to output_dir.
    task = keras_bert.tasks.QuestionAnsweringTask(FLAGS.max_seq_length, FLAGS.doc_stride,
                                                  FLAGS.max_query_length)
    inputs, labels = load_windows(FLAGS.train_windows)
    windows = len(inputs["token_ids"])
    with usage.library_errors():
        config = keras_bert.training.FinetuneConfig(
            os.path.join(FLAGS.output_dir, "run"), init_checkpoint=FLAGS.init_checkpoint,
            train_batch_size=FLAGS.train_batch_size, eval_batch_size=FLAGS.eval_batch_size,
            learning_rate=FLAGS.learning_rate, num_train_epochs=FLAGS.num_train_epochs,
            num_train_steps=FLAGS.num_train_steps or None,
            warmup_proportion=FLAGS.warmup_proportion, iterations_per_loop=FLAGS.log_every,
            random_seed=FLAGS.random_seed, dtype_policy=FLAGS.dtype_policy,
            pad_to_multiple_of=FLAGS.pad_to_multiple_of)
        keras_bert.training.apply_precision(config)  # before the models are built
    keras.utils.set_random_seed(FLAGS.random_seed)
    model, teacher = _models()
    targets, soft = _targets(teacher, inputs, labels)
    steps = config.num_train_steps_for(windows)
    print(f"{keras.config.backend()}, {FLAGS.dtype_policy}: {steps} steps of "
          f"{FLAGS.train_batch_size} over {windows} windows "
          f"({steps * FLAGS.train_batch_size / windows:.2f} epochs)", flush=True)
    started = time.time()
    progress = _progress_callback(steps, started)
    result = keras_bert.training.finetune(
        task, config, train_data=keras_bert.tasks.TaskData(None, [], inputs, (labels,)),
        model=model, targets=(targets,), compile_args=task.compile_args(soft_targets=soft),
        callbacks=[progress], verbose=0)
    seconds = time.time() - started
    save_hf_checkpoint(result.model, FLAGS.output_dir,
                       vocab_file=os.path.join(FLAGS.init_checkpoint, "vocab.txt"),
                       dtype=FLAGS.save_dtype)
    # keras_bert's own config too: keras_bert.export.cli finds bert_config.json next to the weights.
    model.encoder.bert_config.to_json_file(os.path.join(FLAGS.output_dir, "bert_config.json"))
    results = dict(steps=steps, steps_done=progress.done, windows=windows,
                   train_seconds=round(seconds, 1), final_loss=getattr(progress, "loss", None),
                   backend=keras.config.backend(),
                   dtype_policy=FLAGS.dtype_policy, student_layers=FLAGS.student_layers,
                   distill_weight=FLAGS.distill_weight, learning_rate=FLAGS.learning_rate,
                   num_train_epochs=FLAGS.num_train_epochs, random_seed=FLAGS.random_seed,
                   save_dtype=FLAGS.save_dtype, random_init=FLAGS.random_init)
    from keras_bert.atomic_files import atomic_open

    if FLAGS.predict_file:
        results["eval"], predictions = _score(result.model, task)
        with atomic_open(os.path.join(FLAGS.output_dir, "predictions.json")) as f:
            json.dump(predictions, f)
    with atomic_open(os.path.join(FLAGS.output_dir, "gpu_squad_results.json")) as f:
        json.dump(results, f, indent=1)
    print(json.dumps(results), flush=True)
    if FLAGS.parts_dir:
        from tools.file_parts import split_file

        split_file(os.path.join(FLAGS.output_dir, "model.safetensors"), FLAGS.parts_dir,
                   FLAGS.part_mb * 1_000_000)


if __name__ == "__main__":
    flags.mark_flags_as_required(["init_checkpoint", "train_windows", "output_dir"])
    usage.run(main)
