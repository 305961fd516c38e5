"""The README's main job: the on-device QA app, served on 127.0.0.1 (or answered in the terminal).

    make demo                  # serves apps/web/ with the shipped model; open the printed URL
    make demo ARGS=--cli       # answers one bundled question through ai-edge-litert, no browser
    .venv/bin/python -m apps.demo --cli --passage=rhine --question="Where does the Rhine begin?"
    .venv/bin/python -m apps.demo --cli --model=apps/models/squad_minilm_int8.tflite  # full int8
    .venv/bin/python -m apps.demo --cli --context_file=notes.txt --question="Who signed it?"
    .venv/bin/python -m apps.demo --cli --article=rhine --question="When was Operation Market Garden?"

Your own text (`--context`, `--context_file`) and the bundled whole article (`--article`) are
read as documents: cut into passages, the best of them retrieved and read, and "No answer in this
document" said when the calibrated probability of the best span is below the shipped threshold
(keras_bert.DocumentQuestionAnsweringPipeline, apps/models/answer_calibrator.json).

The default file is `apps/models/squad_minilm_dynamic_int8.tflite` (int8 weights, float
activations: the fastest here); the full-int8 one is for int8-only accelerators (MODEL_CARD.md).
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys

APPS = os.path.dirname(os.path.abspath(__file__))
WEB = os.path.join(APPS, "web")
PASSAGES = os.path.join(WEB, "data", "passages.json")
ARTICLES = os.path.join(WEB, "data", "articles.json")
EMBEDDER = os.path.join(APPS, "models", "minilm_embedder_dynamic_int8.tflite")


def _highlight(context, start, end):
    """The passage with the answer in bold (when the terminal supports it) and brackets;
    `start`, `end`: UTF-16 offsets (the apps' decoder's)."""
    units = context.encode("utf-16-le")
    return _mark(context, len(units[:2 * start].decode("utf-16-le")),
                 len(units[:2 * end].decode("utf-16-le")))


def _mark(text, start, end):
    """`text` with `text[start:end]` (str indices) in brackets, bold on a terminal."""
    bold, reset = ("\033[1m", "\033[0m") if sys.stdout.isatty() else ("", "")
    return f"{text[:start]}[{bold}{text[start:end]}{reset}]{text[end:]}"


def answer_in_terminal(passage_id, question, num_threads, model=None):
    """Answers `question` about the bundled passage `passage_id` (every window of it read)."""
    # Imported here: it loads TensorFlow (keras_bert), which serving the web app does not need.
    from apps.qa_pipeline import MODEL, QaInputError, TfliteQa

    with open(PASSAGES, encoding="utf-8") as f:
        passages = {p["id"]: p for p in json.load(f)}
    if passage_id not in passages:
        sys.exit(f"No bundled passage '{passage_id}'. Pick one of: {', '.join(passages)}.")
    passage = passages[passage_id]
    question = passage["questions"][0] if question is None else question
    model = model or MODEL
    try:
        qa = TfliteQa(model_path=model, num_threads=num_threads)
    except (FileNotFoundError, ValueError) as error:
        sys.exit(str(error))
    try:
        result = qa.answer(question, passage["context"])
    except QaInputError as error:
        sys.exit(str(error))
    print(f"Passage: {passage['title']} ({len(result['features'])} window(s) of 384 tokens)")
    print(f"Question: {question}\n")
    if not result["nbest"]:
        print("No answer found in this passage.")
        return
    best = result["nbest"][0]
    print(_highlight(passage["context"], best["start"], best["end"]), "\n")
    print(f"Answer: {best['text']}  (p={best['probability']:.2f}; "
          f"{1000 * sum(result['seconds']):.0f} ms on {num_threads or 'default'} thread(s), "
          f"{os.path.basename(model)} through ai-edge-litert)")
    for other in result["nbest"][1:4]:
        print(f"  also: {other['text']!r} (p={other['probability']:.2f})")


def answer_document_in_terminal(question, num_threads, model=None, context=None,
                                article_id=None):
    """Answers `question` from a whole document, `context` (the user's text) or the bundled
    article `article_id`, by retrieving passages and reading the best; says when the document
    holds no answer."""
    import time

    from apps.qa_pipeline import MODEL, QaInputError

    if context is None:
        with open(ARTICLES, encoding="utf-8") as f:
            articles = {a["id"]: a for a in json.load(f)}
        if article_id not in articles:
            sys.exit(f"No bundled article '{article_id}'. Pick one of: {', '.join(articles)}.")
        article = articles[article_id]
        title, context = article["title"], article["context"]
        question = article["questions"][0] if question is None else question
    else:
        if question is None:
            sys.exit("--context / --context_file need --question: what to ask about your text.")
        title = "your text"
    model = model or MODEL
    import keras_bert

    try:
        qa = keras_bert.DocumentQuestionAnsweringPipeline.from_pretrained(
            model, embedder_path=EMBEDDER, num_threads=num_threads)
    except (FileNotFoundError, ValueError) as error:
        sys.exit(str(error))
    try:
        begin = time.perf_counter()
        passages = qa.split(context).passages
        split_ms = 1000 * (time.perf_counter() - begin)
        begin = time.perf_counter()
        result = qa(question, context)
        answer_ms = 1000 * (time.perf_counter() - begin)
    except QaInputError as error:
        sys.exit(str(error))
    print(f"Document: {title} ({len(context):,} characters, {len(passages)} passages; "
          f"reading the best {min(qa.passages, len(passages))}, ranked by {qa.ranker})")
    print(f"Question: {question}\n")
    timing = (f"{answer_ms:.0f} ms for the question, {split_ms:.0f} ms once for the document, "
              f"{num_threads or 'default'} thread(s), {os.path.basename(model)}")
    if result["no_answer"]:
        best = result.get("candidate")
        why = (f" (the best candidate, {best['answer']!r}, is right with p={best['score']:.2f}; "
               f"the threshold is {qa.calibrator.threshold:.2f})") if best else ""
        print(f"No answer in this document{why}.\n{timing}")
        return
    passage = passages[result["passage"]]
    print(f"Passage {result['passage'] + 1} of {len(passages)}:")
    print(_mark(passage.text, result["start"] - passage.start, result["end"] - passage.start),
          "\n")
    probability = "p" if qa.calibrator is None else "p right"
    print(f"Answer: {result['answer']}  ({probability}={result['score']:.2f}; {timing})")


def serve(port):
    node = shutil.which("node")
    if node is None:
        sys.exit("The web demo needs Node.js (>= 18): `apt-get install nodejs npm`, then `make demo`.")
    if not os.path.isdir(os.path.join(WEB, "node_modules", "@litertjs", "core")):
        sys.exit("apps/web/node_modules is missing: run `make demo` (it runs `npm ci` there).")
    # The server holds a pipe from us as its stdin and stops when it closes: whatever ends this
    # process (Ctrl+C, SIGTERM, SIGKILL), the server and its port go with it.
    server = subprocess.Popen([node, os.path.join(WEB, "server.mjs"), f"--port={port}",
                               "--exit_with_stdin"], stdin=subprocess.PIPE)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # Ctrl+C stops the demo even when it was started with SIGINT ignored (a shell's background
    # job inherits that, and Python then installs no KeyboardInterrupt handler).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        status = server.wait()
        if status:
            sys.exit(status)
    except KeyboardInterrupt:
        print("\nStopped.")
    finally:
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


def main():
    parser = argparse.ArgumentParser(description="keras_bert's on-device question answering demo.")
    parser.add_argument("--cli", action="store_true",
                        help="Answer one bundled question in the terminal instead of serving the app.")
    parser.add_argument("--passage", default="rhine", help="Bundled passage id (--cli).")
    parser.add_argument("--question", default=None,
                        help="Question (--cli); defaults to the passage's first suggested one.")
    parser.add_argument("--num_threads", type=int, default=2, help="LiteRT threads (--cli).")
    parser.add_argument("--model", default=None,
                        help="A QA .tflite (--cli); default apps/models/squad_minilm_dynamic_int8.tflite.")
    parser.add_argument("--port", type=int, default=8765, help="Port on 127.0.0.1 (web app).")
    parser.add_argument("--context", default=None,
                        help="Your own text to answer from (--cli), instead of a bundled passage.")
    parser.add_argument("--context_file", default=None,
                        help="A UTF-8 text file to answer from (--cli), any length.")
    parser.add_argument("--article", default=None,
                        help="A bundled whole article to answer from (--cli), e.g. rhine.")
    args = parser.parse_args()
    if args.num_threads < 1:
        parser.error(f"--num_threads={args.num_threads}: use 1 or more LiteRT threads.")
    if args.context is not None and args.context_file is not None:
        parser.error("give --context or --context_file, not both.")
    context = args.context
    if args.context_file is not None:
        try:
            with open(args.context_file, encoding="utf-8") as f:
                context = f.read()
        except (OSError, UnicodeDecodeError) as error:
            parser.error(f"--context_file={args.context_file}: cannot read it as UTF-8 text "
                         f"({error.__class__.__name__}).")
    if args.article is not None and context is not None:
        parser.error("give --article or --context / --context_file, not both.")
    if args.cli and (context is not None or args.article is not None):
        answer_document_in_terminal(args.question, args.num_threads, args.model, context,
                                    args.article)
    elif args.cli:
        answer_in_terminal(args.passage, args.question, args.num_threads, args.model)
    else:
        serve(args.port)


if __name__ == "__main__":
    main()
