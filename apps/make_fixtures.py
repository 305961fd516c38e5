"""Writes the apps' bundled passages and the golden fixtures every port must reproduce.

    .venv/bin/python -m apps.make_fixtures

- `apps/web/data/passages.json`: the first paragraph of six held-out SQuAD v1.1 dev articles
  (the last ten articles, which fine-tuning and QAT never saw), each with three of its
  questions, for the web and Android apps' passage list (CC BY-SA 4.0: apps/web/data/LICENSE.md).
- `apps/fixtures/tokenizer_golden.json`: text -> WordPiece tokens and ids (ReferenceTokenizer).
- `apps/fixtures/qa_golden.json`: question + passage -> each 384-token window (tokens, ids,
  segment ids, alignment maps), the default shipped model's logits under ai-edge-litert, and the
  decoded n-best answers with their UTF-16 spans in the passage. The bundled questions are
  `held_out`, with the rest of their paragraphs' questions and those of the next paragraphs
  (SQuAD dev questions the model never saw); the other cases cover whitespace, Unicode, long passages and long questions.

It then scores the answers against `apps/fixtures/qa_gold.json` (SQuAD's gold answers, kept by
hand, never written here) and exits nonzero below its floors: fixtures from a broken model or
decoder fail every port's tests (apps/qa_gold.py).
"""

import argparse
import gzip
import json
import os
import sys

from apps import qa_gold
from apps.qa_pipeline import (
    DOC_STRIDE, MAX_ANSWER_LENGTH, MAX_QUERY_LENGTH, MAX_SEQ_LENGTH, N_BEST_SIZE, TfliteQa,
)
from keras_bert import integrity
from keras_bert.atomic_files import atomic_open
from keras_bert.data.tasks.squad_examples import split_on_whitespace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What apps/models ships besides its card: the models, their vocabulary, the float parent's
# logits (export's int8 checks), the sentence embedder (python -m tools.export_embedder) and the
# answer calibrators (python -m experiments.document_qa_benchmark); all listed in
# apps/models/SHA256SUMS.
SHIPPED_MODEL_FILES = ("squad_minilm_dynamic_int8.tflite", "squad_minilm_int8.tflite", "vocab.txt",
                       "squad_minilm_int8.parent.npz", "minilm_embedder_dynamic_int8.tflite",
                       "answer_calibrator.json", "answer_calibrator_bm25.json")
ARTICLES = ("Rhine", "Chloroplast", "Prime_number", "Scottish_Parliament",
            "French_and_Indian_War", "Force")
QUESTIONS_PER_PASSAGE = 3

TOKENIZER_CASES = [
    "Hello, World!", "UNwant\u00e9d,running", "  \tleading and trailing whitespace \n",
    "Caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u00c5ngstr\u00f6m", "don't stop-believing (1895\u20131943)",
    "\u4e2d\u6587\u5b57\u7b26 mixed with English", "\u6771\u4eac\u30bf\u30ef\u30fc\u306f\u3069\u3053",
    "\ud55c\uad6d\uc5b4 \ubb38\uc7a5", "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645",
    "\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd", "emoji \U0001F600\U0001F44D\U0001F3FD and \u2764\ufe0f",
    "\u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3 \u03a3\u03bf\u03c6\u03af\u03b1",
    "zero\u200bwidth soft\u00adhyphen ctrl\u0007char nul\u0000x replace\ufffdment",
    "non\u00a0breaking\u2003em\u202fnarrow", "?!...;;", "$100 \u20ac5 \u00a93 50% #tag @user",
    "a" * 201, "pneumonoultramicroscopicsilicovolcanoconiosis", "",
    "I\u0307stanbul \u0130stanbul stra\u00dfe \ufb01ne", "x\u0301\u0302 \u0301 combining-only",
]


def _held_out_articles(squad_path):
    with gzip.open(squad_path, "rt", encoding="utf-8") as f:
        articles = json.load(f)["data"][-10:]
    return {a["title"]: a for a in articles}


def bundled_passages(squad_path):
    articles = _held_out_articles(squad_path)
    passages = []
    for title in ARTICLES:
        paragraph = articles[title]["paragraphs"][0]
        qas = paragraph["qas"][:QUESTIONS_PER_PASSAGE]
        passages.append(dict(
            id=title.lower(), title=title.replace("_", " "), context=paragraph["context"],
            questions=[qa["question"] for qa in qas], question_ids=[qa["id"] for qa in qas],
            gold_answers=[[a["text"] for a in qa["answers"]] for qa in qas],
        ))
    return passages, articles


def more_held_out_questions(articles):
    """`(id, question, context, gold answers)` of the held-out articles' other questions: the
    rest of each bundled paragraph's and all of its next paragraph's. They give the gold check
    (apps/qa_gold.py) enough questions to tell a broken model from a working one."""
    out = []
    for title in ARTICLES:
        first, second = articles[title]["paragraphs"][:2]
        for paragraph, qas in ((first, first["qas"][QUESTIONS_PER_PASSAGE:]),
                               (second, second["qas"])):
            out += [(qa["id"], qa["question"], paragraph["context"],
                     [a["text"] for a in qa["answers"]]) for qa in qas]
    return out


def extra_cases(articles):
    """(id, question, context) pairs that exercise the pre- and post-processing."""
    rhine = articles["Rhine"]["paragraphs"]
    long_context = "\n\n".join(p["context"] for p in rhine[:6])  # ~700 words: several windows
    force = articles["Force"]["paragraphs"][0]["context"]
    return [
        ("long_passage_windows", "What is the longest river in Switzerland?", long_context),
        ("whitespace_runs", "Where does the Rhine begin?",
         "  The Rhine\tbegins in the\n\nSwiss canton of   Graub\u00fcnden in the\u202fAlps.  "),
        ("accents_and_case", "Who described the CAF\u00c9?",
         "Le Caf\u00e9 de Flore was described by \u00c9mile Zola and Andr\u00e9 Gide in Paris."),
        ("emoji_passage", "What did the team win? \U0001F3C6",
         "\U0001F389 The team \U0001F44F won the championship trophy \U0001F3C6 in 2019 after a "
         "long season \U0001F600."),
        ("cjk_mixed", "Where is Tokyo Tower?",
         "Tokyo Tower (\u6771\u4eac\u30bf\u30ef\u30fc) is a tower in Minato, Tokyo, Japan; "
         "\u5b83\u9ad8333\u7c73."),
        ("rtl_passage", "What does marhaba mean?",
         "The Arabic word \u0645\u0631\u062d\u0628\u0627 (marhaba) means hello; in Hebrew one "
         "says \u05e9\u05dc\u05d5\u05dd (shalom)."),
        ("punctuation_question", "?!?", force),
        ("long_question_truncated",
         " ".join(["What is the name of the force that"] * 12) + " pulls objects down?", force),
        ("possessive_projection", "Whose theory is mentioned?",
         "Newton's theory of gravitation, and Einstein's relativity (1915), changed physics."),
    ]


def _case(qa, case_id, question, context, held_out):
    result = qa.answer(question, context)
    features = result["features"]
    windows = []
    for i in range(len(features)):
        length = int(features.padding_mask[i].sum())
        windows.append(dict(
            tokens=features.tokens[i],
            ids=features.token_ids[i, :length].tolist(),
            segment_ids=features.segment_ids[i, :length].tolist(),
            token_to_orig=sorted(features.token_to_orig_map[i].items()),
            max_context=sorted(features.token_is_max_context[i].items()),
            start_logits=[float(x) for x in result["start_logits"][i]],
            end_logits=[float(x) for x in result["end_logits"][i]],
        ))
    best = result["nbest"][0] if result["nbest"] else dict(text="", start=-1, end=-1)
    return dict(
        id=case_id, question=question, context=context, held_out=held_out,
        doc_words=split_on_whitespace(context)[0],
        windows=windows, nbest=result["nbest"],
        answer=dict(text=best["text"], start=best["start"], end=best["end"]),
    )


def _write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with atomic_open(path, encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


def qa_fixture(qa, passages, articles):
    """The content of `qa_golden.json`: every case answered by `qa` (a `TfliteQa`)."""
    cases = []
    for passage in passages:
        for question, qas_id in zip(passage["questions"], passage["question_ids"]):
            cases.append(_case(qa, qas_id, question, passage["context"], held_out=True))
    for qas_id, question, context, _ in more_held_out_questions(articles):
        cases.append(_case(qa, qas_id, question, context, held_out=True))
    for case_id, question, context in extra_cases(articles):
        cases.append(_case(qa, case_id, question, context, held_out=False))
    return dict(
        model=os.path.relpath(qa.model_path, ROOT), vocab="apps/models/vocab.txt",
        max_seq_length=MAX_SEQ_LENGTH, doc_stride=DOC_STRIDE, max_query_length=MAX_QUERY_LENGTH,
        n_best_size=N_BEST_SIZE, max_answer_length=MAX_ANSWER_LENGTH, do_lower_case=True,
        cases=cases,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--squad", default=os.path.join(ROOT, "..", "shared", "data", "squad",
                                                        "dev-v1.1.json.gz"))
    args = parser.parse_args()
    # The ship step: the files now in apps/models are the shipped ones; record their digests
    # (apps/models/SHA256SUMS), which every app checks before it loads the model.
    models = os.path.join(ROOT, "apps", "models")
    integrity.write_manifest(models, SHIPPED_MODEL_FILES)
    print(f"{os.path.join(models, integrity.MANIFEST)}: {', '.join(SHIPPED_MODEL_FILES)}")
    qa = TfliteQa()
    passages, articles = bundled_passages(args.squad)
    _write_json(os.path.join(ROOT, "apps", "web", "data", "passages.json"),
                [{k: p[k] for k in ("id", "title", "context", "questions")} for p in passages])

    tokenizer = qa.tokenizer
    _write_json(os.path.join(ROOT, "apps", "fixtures", "tokenizer_golden.json"), dict(
        vocab="apps/models/vocab.txt", do_lower_case=True,
        cases=[dict(text=t, tokens=tokenizer.tokenize(t), ids=tokenizer.encode(t))
               for t in TOKENIZER_CASES],
    ))
    fixture = qa_fixture(qa, passages, articles)
    _write_json(os.path.join(ROOT, "apps", "fixtures", "qa_golden.json"), fixture)
    cases = fixture["cases"]
    print(f"{len(cases)} QA cases ({sum(c['held_out'] for c in cases)} held out), "
          f"{len(TOKENIZER_CASES)} tokenizer cases.")
    gold = qa_gold.load_json("qa_gold.json")
    squad_answers = [(i, answers) for p in passages
                     for i, answers in zip(p["question_ids"], p["gold_answers"])]
    squad_answers += [(i, answers) for i, _, _, answers in more_held_out_questions(articles)]
    for qas_id, answers in squad_answers:
        if gold["answers"].get(qas_id) != answers:
            sys.exit(f"apps/fixtures/qa_gold.json gives {qas_id} the answers "
                     f"{gold['answers'].get(qas_id)}; SQuAD dev gives {answers}. Copy SQuAD's.")
    result = qa_gold.score({c["id"]: c["answer"]["text"] for c in cases}, gold)
    print(f"Against SQuAD gold (apps/fixtures/qa_gold.json): {result['exact_match']}/"
          f"{result['scored']} exact, F1 {result['f1']:.2f}.")
    wrong = qa_gold.problems(cases, gold)
    if wrong:
        sys.exit("The fixtures are written, but every port's tests will fail on them: "
                 + "; ".join(wrong))


if __name__ == "__main__":
    main()
