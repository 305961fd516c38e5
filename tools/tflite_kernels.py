"""Runs a SQuAD `.tflite` on LiteRT's three kernel sets and finds the ops where they disagree.

    .venv/bin/python tools/tflite_kernels.py --tflite=runs/export_squad_int8/tflite/squad_qat_int8.tflite \
        --vocab_file=runs/squad_minilm/out/best/vocab.txt \
        --predict_file=../shared/data/squad/dev-v1.1.json.gz --last_articles=10 --max_questions=160

Prints SQuAD EM / F1 of the same file under the default resolver (XNNPACK delegate, what
Android and the Task Library use), the optimized builtin kernels without XNNPACK, and the
reference kernels; then, on one window, every int8 op whose output differs from the reference
kernels by more than 2 grid steps while its inputs differ by at most 1 (the op itself, not
error carried in).
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

RESOLVERS = ("AUTO", "BUILTIN_WITHOUT_DEFAULT_DELEGATES", "BUILTIN_REF")


def _interpreter(path, resolver, keep_tensors=False):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    return Interpreter(model_path=path, experimental_op_resolver_type=getattr(OpResolverType, resolver),
                       experimental_preserve_all_tensors=keep_tensors)


def _window(features, i):
    return dict(ids=features.token_ids[i:i + 1], mask=features.padding_mask[i:i + 1],
                segment_ids=features.segment_ids[i:i + 1])


def _all_tensors(path, resolver, window):
    interpreter = _interpreter(path, resolver, keep_tensors=True)
    interpreter.get_signature_runner()(**window)
    values = {}
    for detail in interpreter.get_tensor_details():
        try:
            values[detail["index"]] = interpreter.get_tensor(detail["index"]).astype(np.float64)
        except ValueError:  # freed or never written
            pass
    return interpreter, values


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tflite", required=True)
    parser.add_argument("--vocab_file", required=True)
    parser.add_argument("--predict_file", required=True)
    parser.add_argument("--last_articles", type=int, default=10)
    parser.add_argument("--max_questions", type=int, default=160)
    args = parser.parse_args()

    from export.data import TaskData
    from export.verify import squad_scorer

    data = TaskData("squad", args.vocab_file, True, 384, dict(doc_stride=128, max_query_length=64))
    dataset = _subset(args.predict_file, args.last_articles, args.max_questions)
    subset_examples = data.squad_examples(dataset)
    features = data.squad_features(subset_examples)
    score = squad_scorer(subset_examples, features, dataset)
    print(f"{len(subset_examples)} questions, {len(features)} windows")
    for resolver in RESOLVERS:
        runner = _interpreter(args.tflite, resolver).get_signature_runner()
        outputs = [runner(**_window(features, i)) for i in range(len(features))]
        logits = {k: np.concatenate([o[k] for o in outputs]) for k in outputs[0]}
        scores = score(logits)
        print(f"{resolver:34s} EM {scores['exact_match']:.2f} F1 {scores['f1']:.2f}")

    window = _window(features, 0)
    reference_interpreter, reference = _all_tensors(args.tflite, "BUILTIN_REF", window)
    _, optimized = _all_tensors(args.tflite, "BUILTIN_WITHOUT_DEFAULT_DELEGATES", window)
    details = {d["index"]: d for d in reference_interpreter.get_tensor_details()}
    print("ops whose optimized builtin kernel differs from the reference kernel (window 0):")
    for op in reference_interpreter._get_ops_details():
        out = op["outputs"][0]
        if out not in reference or out not in optimized or details[out]["dtype"] != np.int8:
            continue
        inputs = [i for i in op["inputs"] if i >= 0 and i in reference and i in optimized]
        carried = max([np.abs(reference[i] - optimized[i]).max() for i in inputs] or [0.0])
        diff = np.abs(reference[out] - optimized[out])
        if diff.max() > 2 and carried <= 1:
            print(f"  {op['op_name']:14s} max {diff.max():5.0f} mean {diff.mean():7.3f} steps  "
                  f"{details[out]['name'][-60:]}")


def _subset(path, last_articles, max_questions):
    """The last articles of a SQuAD file, keeping the first `max_questions` questions."""
    import json

    import keras_bert

    with keras_bert.data.open_data_file(path, encoding="utf-8") as f:
        dataset = json.load(f)
    dataset["data"] = dataset["data"][-last_articles:]
    left = max_questions
    for article in dataset["data"]:
        for paragraph in article["paragraphs"]:
            paragraph["qas"] = paragraph["qas"][:max(left, 0)]
            left -= len(paragraph["qas"])
    return dataset


if __name__ == "__main__":
    main()
