r"""Which int8 recipe for CPUs: Google's ai-edge-quantizer or the package's own conversions?

Makes: docs/benchmarks.md, "Mixed int8: the package's conversions against ai-edge-quantizer"
(`docs/runs/quantizer_compare/verification.{md,json}`).
Rerun: `make quantizer-compare` (the command below, with ai-edge-quantizer installed by the
`quantizer` extra):

    python -m experiments.quantizer_compare --init_checkpoint=runs/squad_minilm_full/out \
        --calibration_file=../shared/data/squad/train-v1.1-reconstructed.json.gz \
        --predict_file=../shared/data/squad/dev-v1.1.json.gz \
        --output_dir=runs/quantizer_compare

From one fine-tuned SQuAD model, on the same held-out questions (the last --eval_last_articles
articles of the dev set) and the same 384-token windows:
  - the package's `float32`, `dynamic_int8` and `mixed_int8` (export/tflite/conversion.py:
    TFLite's converter; mixed = int8 fully-connected layers, float attention and LayerNorm);
  - ai-edge-quantizer 0.10 applied to the package's float32 file: `dynamic_wi8_afp32` (its
    recommendation for CPUs), and static int8 weights with int8 or int16 activations on the
    FULLY_CONNECTED ops only (everything else stays float: the same cut as `mixed_int8`),
    calibrated on the same windows.
Every file gets the export's own verification row (export/verification/verify.py): official
EM/F1, size, max |logit| difference against Keras and batch-1 latency on 1 and 2 threads.
"""

import os

import numpy as np
from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_string("init_checkpoint", None, "A fine-tuned SQuAD run folder (its best/ is used).")
flags.DEFINE_string("calibration_file", None, "SQuAD train JSON: calibration windows.")
flags.DEFINE_string("predict_file", None, "SQuAD dev JSON: the held-out questions.")
flags.DEFINE_string("output_dir", None, "The .tflite files and the report go here.")
flags.DEFINE_integer("num_calibration_examples", 200, "Calibration windows (padded ones included).")
flags.DEFINE_integer("eval_last_articles", 10, "Score the last N articles of --predict_file.")
flags.DEFINE_integer("max_eval_examples", None, "At most this many of their questions.")
flags.DEFINE_integer("latency_runs", 20, "Timed batch-1 calls per file and thread count.")
flags.DEFINE_list("ai_edge_recipes", None, "ai-edge-quantizer files to make and score (default: "
                  "all of AI_EDGE_RECIPES; aeq_fc_wi8_ai16 runs ~2 s a window on x86).")

SEQUENCE_LENGTH = 384
PACKAGE_VARIANTS = ("float32", "dynamic_int8", "mixed_int8")
# name -> (activation bits of a static FULLY_CONNECTED-only recipe, or None for the dynamic one)
AI_EDGE_RECIPES = {"aeq_dynamic_wi8_afp32": None, "aeq_fc_wi8_ai8": 8, "aeq_fc_wi8_ai16": 16}


def ai_edge_quantize(float_path, out_path, activation_bits, calibration_inputs):
    """Writes ai-edge-quantizer's version of the float `.tflite` at `float_path`.

    `activation_bits=None`: its `dynamic_wi8_afp32` recipe (every supported op). 8 or 16:
    int8 weights and static `activation_bits` activations on FULLY_CONNECTED only, calibrated
    on `calibration_inputs` (`{ids, mask, segment_ids}` int arrays `[n, seq]`, one window a
    call, as the app runs).
    """
    from ai_edge_quantizer import qtyping
    from ai_edge_quantizer import quantizer
    from ai_edge_quantizer import recipe

    qt = quantizer.Quantizer(float_path)
    if activation_bits is None:
        qt.load_quantization_recipe(recipe.dynamic_wi8_afp32())
        calibration = None
    else:
        qt.add_static_config(
            regex=".*", operation_name=qtyping.TFLOperationName.FULLY_CONNECTED,
            activation_num_bits=activation_bits, weight_num_bits=8,
        )
        rows = [{k: np.asarray(v[i : i + 1], np.int32) for k, v in calibration_inputs.items()}
                for i in range(len(calibration_inputs["ids"]))]
        calibration = qt.calibrate({"serving_default": rows})
    tmp = out_path + ".tmp"
    qt.quantize(calibration).export_model(tmp, overwrite=True)
    os.replace(tmp, out_path)
    return out_path


def main(argv):
    del argv
    from keras_bert.export.task.signature_names import exported_inputs
    from keras_bert.export.task.task_model import load_task_model
    from keras_bert.export.tflite.conversion import export_tflite
    from keras_bert.export.verification import data as export_data
    from keras_bert.export.verification.verify import compare_variants, write_report
    from keras_bert.checkpoints.run_folder import model_folder

    vocab_file = os.path.join(model_folder(FLAGS.init_checkpoint), "vocab.txt")
    model = load_task_model("squad", FLAGS.init_checkpoint)
    data = export_data.TaskData("squad", vocab_file, True, SEQUENCE_LENGTH,
                                dict(doc_stride=128, max_query_length=64))
    calibration = data.calibration_inputs(FLAGS.calibration_file, FLAGS.num_calibration_examples)
    tflite_dir = os.path.join(FLAGS.output_dir, "tflite")
    os.makedirs(tflite_dir, exist_ok=True)
    paths = {}
    for variant in PACKAGE_VARIANTS:
        paths[variant] = os.path.join(tflite_dir, f"squad_{variant}.tflite")
        if not os.path.isfile(paths[variant]):
            print(f"Converting {variant}...")
            export_tflite(model, paths[variant], SEQUENCE_LENGTH, variant, calibration)
    recipes = FLAGS.ai_edge_recipes or list(AI_EDGE_RECIPES)
    unknown = sorted(set(recipes) - set(AI_EDGE_RECIPES))
    if unknown:
        raise app.UsageError(f"--ai_edge_recipes: unknown {unknown}; choose from {list(AI_EDGE_RECIPES)}.")
    for name in recipes:
        bits = AI_EDGE_RECIPES[name]
        paths[name] = os.path.join(tflite_dir, f"squad_{name}.tflite")
        if not os.path.isfile(paths[name]):
            print(f"ai-edge-quantizer: {name}...")
            ai_edge_quantize(paths["float32"], paths[name], bits, exported_inputs(calibration))
    evaluation = data.evaluation(FLAGS.predict_file, FLAGS.eval_last_articles, FLAGS.max_eval_examples)
    rows = compare_variants(model, None, paths, evaluation.inputs, evaluation.score,
                            latency_runs=FLAGS.latency_runs, progress=export_data.progress_bar())
    report = write_report(rows, FLAGS.output_dir, "SQuAD int8 recipes: keras_bert vs ai-edge-quantizer",
                          {"evaluation": evaluation.description})
    with open(report) as f:
        print(f.read())


if __name__ == "__main__":
    flags.mark_flags_as_required(["init_checkpoint", "calibration_file", "predict_file", "output_dir"])
    usage.run(main)
