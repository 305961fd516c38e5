"""The QA fixtures held against a truth outside the code: SQuAD's gold answers.

`apps/fixtures/qa_golden.json` is written by `apps.make_fixtures` from the shipped model, so it
can only say that the ports agree with the Python pipeline. `apps/fixtures/qa_gold.json` is
kept by hand: the SQuAD v1.1 dev answers of the held-out questions and the stated answers of
the constructed cases, with floors set from the shipped model's measured score. Each port
(here, `apps/web/test/qa_gold.test.mjs`, `QaGoldTest.java`) scores the answers it decodes by
the official v1.1 rules and fails below the floors, so fixtures remade from a broken model or
decoder fail everywhere.

    .venv/bin/python -m apps.qa_gold    # the fixtures' score against gold, and the floors
    .venv/bin/python -m apps.qa_gold --model=apps/models/squad_minilm_int8.tflite
        # another file's answers to the same cases (the Python pipeline), against the same gold
"""

import argparse
import json
import os
import sys

from keras_bert.metrics.squad_evaluation import exact_match, f1_v1

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def load_json(name, fixtures_dir=FIXTURES):
    with open(os.path.join(fixtures_dir, name), encoding="utf-8") as f:
        return json.load(f)


def score(answers, gold):
    """`answers` `{case id: text}` against `gold["answers"]` by the official v1.1 rules.

    Returns a dict: `scored` (cases with gold), `exact_match` (count), `f1` (mean, 0-100) and
    `misses` (`[(id, answer, golds)]` of the inexact ones).
    """
    exact, f1, misses = 0, 0.0, []
    for case_id, golds in gold["answers"].items():
        answer = answers[case_id]
        hit = max(exact_match(answer, g) for g in golds)
        exact += hit
        f1 += max(f1_v1(answer, g) for g in golds)
        if not hit:
            misses.append((case_id, answer, golds))
    n = len(gold["answers"])
    return dict(scored=n, exact_match=exact, f1=100.0 * f1 / n, misses=misses)


def problems(cases, gold):
    """What is wrong with fixture `cases` against `gold` (an empty list when nothing is)."""
    answers = {c["id"]: c["answer"]["text"] for c in cases}
    out = [f"case {i} has no gold answers in qa_gold.json"
           for i in (c["id"] for c in cases if c["held_out"]) if i not in gold["answers"]]
    out += [f"gold case {i} is not a fixture case" for i in gold["answers"] if i not in answers]
    if out:
        return out
    result = score(answers, gold)
    if result["exact_match"] < gold["min_exact_match"] or result["f1"] < gold["min_f1"]:
        out.append(
            f"the fixture answers score {result['exact_match']}/{result['scored']} exact, "
            f"F1 {result['f1']:.2f} against SQuAD gold; the floor is {gold['min_exact_match']} "
            f"exact and F1 {gold['min_f1']} (qa_gold.json). A broken model or decoder made "
            f"these fixtures; misses: {result['misses']}")
    return out


def model_answers(cases, model_path):
    """`{case id: best answer text}` of the `.tflite` at `model_path` on the fixture `cases`
    (their questions and passages, through the apps' Python pipeline)."""
    from apps.qa_pipeline import TfliteQa

    qa = TfliteQa(model_path=model_path)
    answers = {}
    for case in cases:
        nbest = qa.answer(case["question"], case["context"])["nbest"]
        answers[case["id"]] = nbest[0]["text"] if nbest else ""
    return answers


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="a .tflite to answer the fixture cases with; by default "
                        "the answers recorded in qa_golden.json are scored.")
    args = parser.parse_args()
    if args.model and not os.path.isfile(args.model):
        sys.exit(f"--model: {args.model} does not exist; give the path of a .tflite QA model.")
    cases = load_json("qa_golden.json")["cases"]
    gold = load_json("qa_gold.json")
    answers = (model_answers(cases, args.model) if args.model
               else {c["id"]: c["answer"]["text"] for c in cases})
    result = score(answers, gold)
    print(f"{result['exact_match']}/{result['scored']} exact, F1 {result['f1']:.2f} "
          f"(floors: {gold['min_exact_match']} exact, F1 {gold['min_f1']})")
    for case_id, answer, golds in result["misses"]:
        print(f"  {case_id}: {answer!r} not in {golds}")


if __name__ == "__main__":
    main()
