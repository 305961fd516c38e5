"""Run a `.tflite` with metadata through the real TFLite Task Library (tflite-support).

Standalone on purpose: it imports only tflite_support, numpy and the standard library, so it
runs in its own virtual environment (tflite-support pins protobuf<4, which clashes with
TensorFlow 2.21) and proves that the metadata alone is enough, with no keras_bert code:

    python3 -m venv .venv-tflite-support
    .venv-tflite-support/bin/pip install tflite-support==0.4.4
    # Debian: apt-get install libusb-1.0-0 (tflite-support's native library links it)
    .venv-tflite-support/bin/python tools/task_library_check.py model.tflite \
        --examples questions.json --output answers.json [--metadata_json metadata.json]

Question answering (`BertQuestionAnswerer`): `--examples` is a JSON list of
`{"id", "question", "context"}`; the output is `{id: [{"text", "start", "end", "logit"}]}`,
best first (`start`/`end` are the Task Library's token positions). Classification
(`--classifier`, `BertNLClassifier`): a list of `{"id", "text"}` gives
`{id: [{"label", "score"}]}`, best first (scores are the model's output as is: logits).
`MetadataDisplayer` parses the metadata in both modes; its JSON and the packed file names are
printed (and written to `--metadata_json`).
"""

import argparse
import json
import sys


def display_metadata(model_path):
    """`(metadata JSON str, [packed file names])` as tflite-support's MetadataDisplayer sees it."""
    from tflite_support import metadata

    displayer = metadata.MetadataDisplayer.with_model_file(model_path)
    return displayer.get_metadata_json(), sorted(displayer.get_packed_associated_file_list())


def answer_questions(model_path, examples):
    """`{id: [answer dicts]}` from the Task Library's `BertQuestionAnswerer`."""
    from tflite_support.task import text

    answerer = text.BertQuestionAnswerer.create_from_file(model_path)
    results = {}
    for example in examples:
        answers = answerer.answer(example["context"], example["question"]).answers
        results[example["id"]] = [
            {"text": a.text, "start": a.pos.start, "end": a.pos.end, "logit": float(a.pos.logit)}
            for a in answers
        ]
    return results


def classify_texts(model_path, examples):
    """`{id: [category dicts]}` from the Task Library's `BertNLClassifier`."""
    from tflite_support.task import text

    classifier = text.BertNLClassifier.create_from_file(model_path)
    results = {}
    for example in examples:
        categories = classifier.classify(example["text"]).classifications[0].categories
        ranked = sorted(categories, key=lambda c: c.score, reverse=True)
        results[example["id"]] = [
            {"label": c.category_name, "score": float(c.score)} for c in ranked
        ]
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="a .tflite with TFLite Metadata")
    parser.add_argument("--examples", help="JSON list of {id, question, context} or {id, text}")
    parser.add_argument("--output", help="where to write the results JSON (default: stdout)")
    parser.add_argument("--classifier", action="store_true", help="use BertNLClassifier")
    parser.add_argument("--metadata_json", help="also write MetadataDisplayer's JSON here")
    args = parser.parse_args(argv)

    metadata_json, files = display_metadata(args.model)
    print(metadata_json)
    print("packed associated files:", files)
    if args.metadata_json:
        with open(args.metadata_json, "w") as f:
            f.write(metadata_json)
    if not args.examples:
        return 0
    with open(args.examples) as f:
        examples = json.load(f)
    run = classify_texts if args.classifier else answer_questions
    results = run(args.model, examples)
    text = json.dumps(results, indent=1, ensure_ascii=False)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
        print(f"{len(results)} results -> {args.output}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
