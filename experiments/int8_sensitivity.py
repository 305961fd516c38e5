"""Which int8 tensors cost a task model its score: the int8 graph with one family of fake quants off.
Makes: docs/lab/export_history.md, "Where the remaining 4.4 F1 goes" (the table of fake quants
turned off).
Rerun: the command below.

    .venv/bin/python experiments/int8_sensitivity.py --task_name=squad \
        --init_checkpoint=runs/squad_minilm/out \
        --calibration_file=../shared/data/squad/train-v1.1-reconstructed.json.gz \
        --predict_file=../shared/data/squad/dev-v1.1.json.gz --max_examples=160

Builds the calibrated full-int8 graph (`keras_bert.export.quantization.qat.int8_graph`, as `keras_bert.export.cli
--quantizations=full_int8` does, 200 calibration examples), then scores it in Keras (fake
quant, no conversion) with everything quantized, with weights or activations off, and with
each family of activation fake quants off (a regular expression over the layer path).
The rise when a family is off is what its int8 grid costs, so the largest rises say where a
better int8 scheme pays. Keras fake quant tracks the converted model on the reference kernels
to a step or two (tests/export/quantization/qat_test.py).
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from experiments.tflite_kernels import add_task_arguments, task_data  # noqa: E402

# Regular expressions over a fake quant's layer path (`.../transformer_layer_0/scores`).
FAMILIES = ("scores", "probs", "context", "query", "key", "value", "intermediate", "activation",
            "attention_output", "attention_sum", "output_sum", "mean", "inverse", "embedding",
            "table", "logits", "part", "sum_", "layer_norm", "layer_0/.*scores")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--init_checkpoint", required=True, help="a fine-tuning output dir")
    parser.add_argument("--calibration_file", required=True)
    parser.add_argument("--num_calibration_examples", type=int, default=200)
    parser.add_argument("--profile_ratio", type=float, default=4.0,
                        help="int8_profile's ratio: the peak ratio that starts a dimension group")
    parser.add_argument("--max_groups", type=int, default=3,
                        help="int8_profile's most dimension groups of the residual stream")
    parser.add_argument("--families", default=",".join(FAMILIES),
                        help="comma-separated families to turn off one at a time ('' for none)")
    add_task_arguments(parser)
    args = parser.parse_args()

    from keras_bert.export.quantization.fake_quant import FakeQuant, WeightFakeQuant, fake_quant_layers
    from keras_bert.export.quantization.int8_profile import int8_profile
    from keras_bert.export.quantization.qat import int8_graph
    from keras_bert.export.task.task_model import load_task_model
    from keras_bert.checkpoints.run_folder import VOCAB_FILE
    from keras_bert.checkpoints.run_folder import model_folder

    model = load_task_model(args.task_name, args.init_checkpoint)
    folder = model_folder(args.init_checkpoint)
    data, evaluation = task_data(args, os.path.join(folder, VOCAB_FILE))
    calibration = data.calibration_inputs(args.calibration_file, args.num_calibration_examples)
    print(evaluation.description)
    def predict(keras_model):  # the scorers take {"logits"} or {"start_logits", "end_logits"}
        outputs = keras_model.predict(evaluation.inputs, batch_size=16, verbose=0)
        return outputs if isinstance(outputs, dict) else {"logits": outputs}

    print(f"{'float':28s} {evaluation.score(predict(model))}")

    graph = int8_graph(model, calibration, ratio=args.profile_ratio, max_groups=args.max_groups)
    profile = int8_profile(model, calibration, ratio=args.profile_ratio, max_groups=args.max_groups)
    print(f"profile ratio {args.profile_ratio}, max_groups {args.max_groups}: stream groups of "
          f"{[len(g) for g in profile['groups']]} dimensions", flush=True)
    quantizers = fake_quant_layers(graph)

    def score(label, is_off):
        off = 0
        for layer in quantizers:
            layer.mode = "off" if is_off(layer) else "quantize"
            off += layer.mode == "off"
        graph.predict_function = None  # it baked in the old modes
        result = evaluation.score(predict(graph))
        print(f"{label:28s} {off:4d} off  {result}", flush=True)

    score("int8 (all on)", lambda layer: False)
    score("weights off", lambda layer: isinstance(layer, WeightFakeQuant))
    score("activations off", lambda layer: isinstance(layer, FakeQuant))
    for family in [f for f in args.families.split(",") if f]:
        score(f"{family} off",
              lambda layer, f=family: isinstance(layer, FakeQuant) and re.search(f, layer.path))


if __name__ == "__main__":
    main()
