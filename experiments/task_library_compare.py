"""The real Task Library `BertQuestionAnswerer` vs keras_bert's SQuAD pipeline, same model.
Makes: docs/lab/export_history.md, "The TFLite Task Library runs our `.tflite`" (the Task Library vs
ours table).
Rerun: make task-library-check.

    .venv/bin/python experiments/task_library_compare.py --num_questions 100 --every 100 \
        --work_dir /tmp/tlc

Exports the fine-tuned QA model (`--model_dir`, a fine-tuning run's output directory) to a
float32 `.tflite` at `[1, 384]` with inputs `ids` / `mask` / `segment_ids`, adds TFLite
Metadata (its own `vocab.txt`), and answers `--num_questions` SQuAD v1.1 dev questions
(every `--every`-th) whose context fits one 384-token window three ways:
  * keras: `convert_squad_examples` (384 / stride 128 / query 64) + Keras `predict` +
    `decode_squad_predictions`, the Python pipeline;
  * tflite: the same pipeline on the `.tflite`'s logits (isolates float differences);
  * task_library: `tools/task_library_check.py` in the tflite-support virtual environment
    (`--task_library_python`), which sees only the `.tflite` file.
It also re-creates the Task Library's preprocessing in Python (context split on ' ' only,
ASCII lower-casing, no accent stripping, RE2 split on [\\t\\n\\f\\r ] / punctuation / CJK,
WordPiece with a 100-byte limit) to tell tokenization differences from decoding ones, and
prints every disagreement with its cause. A JSON report goes to `<work_dir>/report.json`.
"""

import argparse
import collections
import gzip
import json
import os
import pathlib
import subprocess
import sys
import unicodedata

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import keras_bert  # noqa: E402
from keras_bert.export.task.task_model import load_task_model  # noqa: E402
from keras_bert.export.tflite.conversion import export_tflite, run_tflite  # noqa: E402
from keras_bert.export.tflite.metadata import add_metadata  # noqa: E402
from keras_bert.checkpoints.run_folder import VOCAB_FILE, model_folder  # noqa: E402
from keras_bert.metrics import normalize_answer  # noqa: E402

SEQ, STRIDE, QUERY = 384, 128, 64
_RE2_SPACE = "\t\n\f\r "  # RE2's \s: ASCII only (no U+00A0, U+202F, ...)
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))  # fmt: skip


def _kept_delimiter(char):
    code = ord(char)
    ascii_punct = 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126
    cjk = any(lo <= code <= hi for lo, hi in _CJK)
    return ascii_punct or cjk or unicodedata.category(char).startswith("P")


def _wordpiece(word, vocab):
    if len(word.encode("utf-8")) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = ("##" if start else "") + word[start:end]
            if piece in vocab:
                break
            end -= 1
        if end == start:
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces


def task_library_tokenize(text, vocab):
    """The Task Library BertTokenizer on already lower-cased text (RE2 split + WordPiece)."""
    words, current = [], ""
    for char in text:
        if char in _RE2_SPACE or _kept_delimiter(char):
            if current:
                words.append(current)
            current = ""
            if char not in _RE2_SPACE:
                words.append(char)
        else:
            current += char
    if current:
        words.append(current)
    return [piece for word in words for piece in _wordpiece(word, vocab)]


def task_library_inputs(question, context, vocab):
    """`(tokens, token_to_orig, orig_words)` as BertQuestionAnswerer::Preprocess builds them."""
    lower = lambda s: "".join(c.lower() if "A" <= c <= "Z" else c for c in s)  # noqa: E731
    orig_words = [w for w in context.split(" ") if w]
    query = task_library_tokenize(lower(question), vocab)[:QUERY]
    doc, doc_to_orig = [], []
    for i, word in enumerate(orig_words):
        for piece in task_library_tokenize(lower(word), vocab):
            doc.append(piece)
            doc_to_orig.append(i)
    keep = SEQ - len(query) - 3
    tokens = ["[CLS]", *query, "[SEP]", *doc[:keep], "[SEP]"]
    token_to_orig = {len(query) + 2 + i: doc_to_orig[i] for i in range(len(doc[:keep]))}
    return tokens, token_to_orig, orig_words


def load_model(model_dir):
    return load_task_model("squad", model_dir)


def select_questions(squad_path, tokenizer, count, every=1):
    """`count` dev questions whose context fits one 384-token window: every `every`-th
    question in file order (the dev set has 48 articles; `every` > 1 spreads the sample)."""
    with gzip.open(squad_path, "rt", encoding="utf-8") as f:
        raw = json.load(f)
    contexts, golds = {}, {}
    for article in raw["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                contexts[qa["id"]] = paragraph["context"]
                golds[qa["id"]] = [a["text"] for a in qa["answers"]]
    examples = keras_bert.data.read_squad_examples(squad_path, is_training=False)
    chosen = []
    for example in examples[::every]:
        features = keras_bert.data.convert_squad_examples([example], tokenizer, SEQ, STRIDE, QUERY)
        if len(features) == 1:
            chosen.append(example)
        if len(chosen) == count:
            break
    return chosen, contexts, golds


def best_span(nbest_entry, starts, ends):
    """Window positions of the n-best entry (its logits come straight from these arrays)."""
    start = int(np.flatnonzero(starts == nbest_entry["start_logit"])[0])
    end = int(np.flatnonzero(ends == nbest_entry["end_logit"])[0])
    return start, end


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model_dir", default=str(ROOT / "runs/squad_minilm/out"))
    parser.add_argument("--squad", default=str(ROOT.parent / "shared/data/squad/dev-v1.1.json.gz"))
    parser.add_argument("--num_questions", type=int, default=100)
    parser.add_argument("--every", type=int, default=1, help="take every k-th dev question")
    parser.add_argument("--work_dir", default="/tmp/task_library_compare")
    parser.add_argument(
        "--task_library_python", default=str(ROOT / ".venv-tflite-support/bin/python")
    )
    args = parser.parse_args(argv)
    work = pathlib.Path(args.work_dir)
    work.mkdir(parents=True, exist_ok=True)
    vocab_file = os.path.join(model_folder(args.model_dir), VOCAB_FILE)

    qa = load_model(args.model_dir)
    model_path = work / "squad_minilm_384_metadata.tflite"
    if not model_path.exists():
        plain = export_tflite(qa, work / "squad_minilm_384.tflite", sequence_length=SEQ)
        with open(plain, "rb") as f:
            model = add_metadata(
                f.read(), name="MiniLM-L6 SQuAD v1.1 question answerer",
                description="all-MiniLM-L6-v2 fine-tuned on SQuAD v1.1 (keras_bert).",
                version="1", author="keras_bert", license="Apache-2.0", vocab_file=vocab_file,
            )  # fmt: skip
        model_path.write_bytes(model)

    tokenizer = keras_bert.ReferenceTokenizer(vocab_file, do_lower_case=True)
    examples, contexts, golds = select_questions(
        args.squad, tokenizer, args.num_questions, args.every
    )
    features = keras_bert.data.convert_squad_examples(examples, tokenizer, SEQ, STRIDE, QUERY)
    keras_out = qa.predict(features.inputs(), batch_size=8, verbose=0)
    tflite_out = [run_tflite(model_path, {k: v[i : i + 1] for k, v in features.inputs().items()})
                  for i in range(len(features))]  # fmt: skip
    tflite_starts = np.concatenate([o["start_logits"] for o in tflite_out])
    tflite_ends = np.concatenate([o["end_logits"] for o in tflite_out])
    decode = keras_bert.data.decode_squad_predictions
    keras_starts, keras_ends = keras_out["start_logits"], keras_out["end_logits"]
    keras_pred, keras_nbest, _ = decode(examples, features, keras_starts, keras_ends)
    tflite_pred, _, _ = decode(examples, features, tflite_starts, tflite_ends)

    questions = [{"id": e.qas_id, "question": e.question_text, "context": contexts[e.qas_id]}
                 for e in examples]  # fmt: skip
    (work / "questions.json").write_text(json.dumps(questions, ensure_ascii=False))
    subprocess.run(
        [args.task_library_python, str(ROOT / "tools/task_library_check.py"), str(model_path),
         "--examples", str(work / "questions.json"), "--output", str(work / "task_library.json"),
         "--metadata_json", str(work / "metadata.json")],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    task_library = json.loads((work / "task_library.json").read_text())

    vocab = set(keras_bert.load_vocabulary(vocab_file))
    rows, counts = [], {"exact": 0, "normalized": 0, "same_ids": 0, "same_span": 0, "rebuilt": 0}
    em = {"keras": 0, "tflite": 0, "task_library": 0}
    for i, example in enumerate(examples):
        qid = example.qas_id
        answers = task_library[qid]
        tl_text = answers[0]["text"] if answers else ""
        tokens, token_to_orig, orig_words = task_library_inputs(
            example.question_text, contexts[qid], vocab
        )
        same_ids = tokens == features.tokens[i]
        ours = best_span(keras_nbest[qid][0], keras_starts[i], keras_ends[i])
        tl_span = (answers[0]["start"], answers[0]["end"]) if answers else None
        # The Task Library's answer: the ' '-separated context words its span touches, whole.
        rebuilt = " ".join(orig_words[token_to_orig[tl_span[0]] : token_to_orig[tl_span[1]] + 1])
        ours_padded = features.tokens[i] + ["[PAD]"] * (len(tokens) - len(features.tokens[i]))
        token_diff = [(p, ours_padded[p], t) for p, t in enumerate(tokens) if ours_padded[p] != t]
        row = {"id": qid, "question": example.question_text, "keras": keras_pred[qid],
               "tflite": tflite_pred[qid], "task_library": tl_text, "gold": golds[qid],
               "same_input_tokens": same_ids, "keras_span": ours, "task_library_span": tl_span,
               "task_library_logit": answers[0]["logit"] if answers else None,
               "rebuilt_task_library_text": rebuilt, "token_diff": token_diff[:6]}  # fmt: skip
        counts["rebuilt"] += rebuilt == tl_text
        if tl_text == keras_pred[qid]:
            row["cause"] = "agree"
        elif tl_span == ours:
            row["cause"] = "same span; the Task Library returns whole ' '-separated words"
        elif not same_ids:
            row["cause"] = "different span; the Task Library's input tokens differ"
        else:
            row["cause"] = "different span from the same tokens"
        counts["exact"] += tl_text == keras_pred[qid]
        counts["normalized"] += normalize_answer(tl_text) == normalize_answer(keras_pred[qid])
        counts["same_ids"] += same_ids
        counts["same_span"] += same_ids and tl_span == ours
        gold = {normalize_answer(g) for g in golds[qid]}
        for name, text in (("keras", keras_pred[qid]), ("tflite", tflite_pred[qid]),
                           ("task_library", tl_text)):  # fmt: skip
            em[name] += normalize_answer(text) in gold
        rows.append(row)

    n = len(examples)
    sample = "the first" if args.every == 1 else f"every {args.every}-th of the"
    print(f"{n} questions: {sample} SQuAD v1.1 dev questions whose context fits one {SEQ} window")
    print(f"Task Library top answer == Python pipeline answer, exactly: {counts['exact']}/{n}")
    print(f"  ... after SQuAD answer normalization:            {counts['normalized']}/{n}")
    print(f"  Task Library input tokens == ours (re-created):   {counts['same_ids']}/{n}")
    print(f"  same token span as ours (when tokens are equal):  {counts['same_span']}/{n}")
    print(f"  Task Library text == its span's whole words (re-created): {counts['rebuilt']}/{n}")
    print(f"  tflite + our decoding == keras + our decoding:    "
          f"{sum(r['keras'] == r['tflite'] for r in rows)}/{n}")  # fmt: skip
    print(f"SQuAD exact match vs gold: keras {em['keras']}/{n}, tflite {em['tflite']}/{n}, "
          f"task_library {em['task_library']}/{n}")  # fmt: skip
    for cause, count in collections.Counter(row["cause"] for row in rows).most_common():
        print(f"  {count:3d}  {cause}")
    for row in rows:
        if row["task_library"] != row["keras"]:
            print(json.dumps({k: row[k] for k in ("id", "keras", "task_library", "keras_span",
                  "task_library_span", "token_diff", "cause")}, ensure_ascii=False))  # fmt: skip
    report = {"counts": counts, "exact_match_vs_gold": em, "num_questions": n, "rows": rows}
    (work / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
