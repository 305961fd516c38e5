"""Scores one `.tflite` under LiteRT's three kernel sets and finds int8 ops that compute wrong.
Makes: docs/lab/export_history.md, the kernel-set checks in "SST-2 classifier, full dev set"
(accuracy per resolver, int8 ops off by more than a step) and "The mask fix" (the three mask ADDs).
Rerun: the second command below with --max_examples=40 --check_input=6.

    .venv/bin/python experiments/tflite_kernels.py --task_name=squad \
        --tflite=runs/export_squad_int8_v2/tflite/squad_qat_int8.tflite \
        --vocab_file=runs/squad_minilm/out/best/vocab.txt \
        --predict_file=../shared/data/squad/dev-v1.1.json.gz --max_examples=160
    .venv/bin/python experiments/tflite_kernels.py --task_name=sst-2 \
        --tflite=runs/export_sst2/tflite/sst2_full_int8.tflite \
        --vocab_file=runs/glue_minilm/sst2/best/vocab.txt \
        --predict_file=../shared/data/glue/SST-2/dev.tsv --max_examples=300

Prints the task score of the same file under the default resolver (XNNPACK delegate, what
Android and the Task Library use), the optimized builtin kernels without XNNPACK, and the
reference kernels. Then, on one input, it lists the int8 ops that compute wrong under each
builtin kernel set: more than 1 grid step from exact arithmetic on their own int8 inputs
(`keras_bert.export.quantization.int8_ops.op_errors`; the XNNPACK delegate hides its ops' tensors). That is the
op itself, not error carried in. (Comparing two kernel sets' outputs cannot tell those
apart: coarse int8 softmax inputs turn a carried one-step difference into tens of steps.)
This found LiteRT's optimized int8 ADD mis-adding the attention mask (docs/lab/export_history.md).
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

RESOLVERS = ("AUTO", "BUILTIN_WITHOUT_DEFAULT_DELEGATES", "BUILTIN_REF")


def interpreter(path, resolver):
    """A LiteRT interpreter of `path` with one of `RESOLVERS`."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    return Interpreter(model_path=path, experimental_op_resolver_type=getattr(OpResolverType, resolver))


def add_task_arguments(parser):
    """The flags naming a task and its held-out data (shared with experiments/int8_sensitivity.py)."""
    parser.add_argument("--task_name", required=True, help="squad or a GLUE task (sst-2, ...)")
    parser.add_argument("--predict_file", required=True)
    parser.add_argument("--max_seq_length", type=int, default=None,
                        help="default: 384 for squad, else 128")
    parser.add_argument("--last_articles", type=int, default=10, help="SQuAD: the last N articles")
    parser.add_argument("--max_examples", type=int, default=160,
                        help="score the first N questions / examples")


def task_data(args, vocab_file):
    """`(TaskData, Evaluation)` for the flags of `add_task_arguments`."""
    from keras_bert.export.verification.data import TaskData

    import keras_bert

    seq = args.max_seq_length or keras_bert.tasks.get_task(args.task_name).max_seq_length
    data = TaskData(args.task_name, vocab_file, True, seq,
                    dict(doc_stride=128, max_query_length=64))
    return data, data.evaluation(args.predict_file, args.last_articles, args.max_examples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tflite", required=True)
    parser.add_argument("--vocab_file", required=True)
    parser.add_argument("--check_input", type=int, default=0,
                        help="the input whose ops are checked against exact arithmetic (-1: none)")
    parser.add_argument("--resolvers", default=",".join(RESOLVERS),
                        help=f"comma-separated, of {RESOLVERS}")
    add_task_arguments(parser)
    args = parser.parse_args()
    args.max_examples = args.max_examples or None  # 0: every held-out question
    resolvers = args.resolvers.split(",")
    if set(resolvers) - set(RESOLVERS):
        parser.error(f"--resolvers={args.resolvers}: each must be one of {RESOLVERS}")

    from keras_bert.export.quantization.int8_ops import op_errors
    from keras_bert.export.task.signature_names import exported_inputs

    _, evaluation = task_data(args, args.vocab_file)
    inputs = exported_inputs(evaluation.inputs)
    count = len(inputs["ids"])
    print(f"{evaluation.description}")
    for resolver in resolvers:
        runner = interpreter(args.tflite, resolver).get_signature_runner()
        outputs = [runner(**{k: v[i:i + 1] for k, v in inputs.items()}) for i in range(count)]
        logits = {k: np.concatenate([o[k] for o in outputs]) for k in outputs[0]}
        print(f"{resolver:34s} {evaluation.score(logits)}", flush=True)
    if args.check_input < 0:
        return

    feed = {k: v[args.check_input:args.check_input + 1] for k, v in inputs.items()}
    print(f"int8 ops more than 1 grid step from exact arithmetic on their own inputs "
          f"(input {args.check_input}):")
    for resolver in RESOLVERS[1:]:
        errors = op_errors(args.tflite, resolver, feed)
        wrong = [e for e in errors if e[3] > 1.0]
        print(f"  {resolver}: {len(wrong)} of {len(errors)} checked ops")
        for index, name, output, error in wrong[:20]:
            print(f"    op {index:4d} {name:16s} off by {error:5.1f} steps  {output[-60:]}")


if __name__ == "__main__":
    main()
