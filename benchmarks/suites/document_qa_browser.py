"""A question over a whole document in Chromium: retrieve-then-read against reading every window.

The browser counterpart of `document_qa`: runs apps/web/e2e/document_latency.mjs (the web app
in Debian's Chromium, headless, LiteRT.js WASM at `--threads` threads for the reader and the
sentence embedder) on the bundled article (apps/web/data/articles.json, the Rhine) and its 7
suggested questions, and returns its numbers as a suite result. Candidates, through the page's
own code paths (app.js's `window.__qa`):

- "read every window": the app's passage mode given the whole article (every 384-token window,
  stride 128, the best span);
- "shipped: <ranker>, top <n>, calibrated": the document mode (the embedder and
  answer_calibrator.json), the article split and embedded once before timing.

A round asks every question once per candidate, the candidates alternating which goes first,
so `--rounds` rounds time 7 x rounds questions per candidate; `--warmup` untimed questions of
each go first, `--settle_ms` of pause before each timed one. A question's time is the page's wall
time for it (performance.now()). The one-time cost of the document (split, BM25 index,
embedding every passage) and of loading the calibrator and embedder are in the notes. The config
flag is unused: the shipped models are MiniLM.
"""

import json
import os
import shutil
import subprocess
import tempfile

from benchmarks.harness import Timing

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(_ROOT, "apps", "web", "e2e", "document_latency.mjs")
PLAYWRIGHT = os.path.join(_ROOT, "apps", "web", "node_modules", "playwright-core")
CHROMIUM_MISSING = 3  # document_latency.mjs's exit status when Chromium is not installed
READ_EVERY_WINDOW = "read every window"


def browser_latency(threads, rounds, warmup, settle_ms=0, log=print):
    """document_latency.mjs's JSON (its progress lines go to `log`).

    Raises:
        FileNotFoundError: node, playwright-core (apps/web/node_modules) or Chromium is missing,
            with one line saying what to install.
        RuntimeError: the script failed (its last error lines).
    """
    node = shutil.which("node")
    if node is None:
        raise FileNotFoundError("node is not on PATH: the browser suite runs "
                                "apps/web/e2e/document_latency.mjs with Node.js.")
    if not os.path.isdir(PLAYWRIGHT):
        raise FileNotFoundError(f"{PLAYWRIGHT} is missing: run `npm ci` in apps/web.")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "document_latency.json")
        command = [node, SCRIPT, "--threads", str(threads), "--rounds", str(rounds),
                   "--warmup", str(warmup), "--settle-ms", f"{settle_ms:g}", "--out", out]
        errors = []
        with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, cwd=_ROOT) as process:
            for line in process.stderr:
                line = line.rstrip("\n")
                if line.startswith("document_latency: "):
                    log(f"  {line}")
                else:
                    errors.append(line)
        message = "\n".join(e for e in errors if e.strip()).strip()
        if process.returncode == CHROMIUM_MISSING:
            last = message.splitlines()[-1] if message else "Chromium is missing."
            raise FileNotFoundError(last.removeprefix("document_latency.mjs: "))
        if process.returncode != 0:
            raise RuntimeError(f"document_latency.mjs failed (exit {process.returncode}): "
                               f"{message[-1000:]}")
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def timing(name, stats):
    """A harness `Timing` of one candidate's per-question milliseconds."""
    return Timing(name, [ms / 1000.0 for ms in stats["ms"]], 1, unit="questions/s")


def result(data):
    """The suite result (as `document_qa`'s) of document_latency.mjs's JSON."""
    stats = data["candidates"]
    shipped = data["shipped"]
    shipped_name = f"shipped: {shipped['ranker']}, top {shipped['passagesRead']}, calibrated"
    timings = [timing(READ_EVERY_WINDOW, stats["read every window"]),
               timing(shipped_name, stats["shipped"])]
    article = data["article"]
    questions = data["questions"]
    windows = stats["read every window"]["windowsPerQuestion"]
    windows = (str(windows["min"]) if windows["min"] == windows["max"]
               else f"{windows['min']}-{windows['max']}")
    threads = data["threads"]
    return {
        "suite": "document_qa_browser",
        "config": "minilm (shipped files)",
        "case": f"{article['title']}: {article['characters']:,} characters, "
                f"{article['passages']} passages, {windows} windows of 384; {data['browser']}, "
                f"LiteRT.js WASM, {threads['requested']} threads",
        "metric": "latency",
        "reference": READ_EVERY_WINDOW,
        "timings": [t.to_json() for t in timings],
        "notes": {
            "one-time cost of the document (split, BM25 index, embedding every passage)":
                f"{data['oneTime']['documentMs']:.0f} ms",
            "loading the calibrator and the embedder (once per page)":
                f"{data['oneTime']['pipelineLoadMs']:.0f} ms",
            "questions": f"{questions['total']} in turn, {data['rounds']} "
                         f"round{'s' if data['rounds'] != 1 else ''}: {questions['answered']} "
                         f"answered in the article's last paragraphs, "
                         f"{questions['withoutAnswer']} from {questions['from']} (no answer)",
            "threads in effect": f"reader {threads['reader']}, embedder {threads['embedder']} "
                                 f"({data['runtime']}; cross-origin isolated: "
                                 f"{data['crossOriginIsolated']})",
            "machine": f"{data['cpu']}, {data['cpuCount']} cores; requests outside "
                       f"127.0.0.1: {data['requestsOutside127']}",
        },
        "tables": {"answers (the last round)": answers_table(data["answers"], shipped_name)},
    }


def answers_table(answers, shipped_name):
    """A Markdown table: each question's answer by each candidate (shipped: "no answer" when
    the calibrator abstains)."""
    lines = [f"| question | {READ_EVERY_WINDOW} | {shipped_name} |", "|---|---|---|"]
    for a in answers:
        shipped = a.get("shipped")
        lines.append(f"| {a['question']} | {a.get(READ_EVERY_WINDOW) or '-'} | "
                     f"{'no answer' if shipped is None else shipped} |")
    return "\n".join(lines)


def run(config_name, options, log=print):
    del config_name
    data = browser_latency(options.threads, options.rounds, options.warmup,
                           1000.0 * options.settle_s, log)
    log(f"document_qa_browser: {data['browser']}, read every window / shipped: "
        f"{data['ratio']['p50']}x at the median")
    return [result(data)]
