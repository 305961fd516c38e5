r"""How fast is each QA file the app can ship, natively and in the browser, on one machine?

Makes: docs/benchmarks.md, "The app's files: native and browser latency" (the table from
`docs/runs/apps/latency_page.md`, raw numbers in `latency_page.json`).
Rerun (one run, nothing else on the machine; scores are the whole-dev eval_results.json of
tools.score_tflite_squad):

    python -m experiments.latency_page \
        --variants=qat_int8=apps/models/squad_minilm_int8.tflite,dynamic_int8=runs/export_squad_full/tflite/squad_dynamic_int8.tflite \
        --scores=qat_int8=runs/squad_minilm_full/score_qat_int8/eval_results.json,dynamic_int8=runs/squad_minilm_full/score_dynamic_int8/eval_results.json \
        --output=docs/runs/apps/latency_page

For each file: Python ai-edge-litert (XNNPACK) at --python_threads and Chromium headless
through LiteRT.js WASM at --browser_threads (apps/web/e2e/latency.mjs), one 384-token window of
the first bundled question, batch 1, p50/p90 over --runs calls after warm-up; the browser /
Python ratio at equal threads (issue 30 asks for at most 1.5x); size; and the score file's F1.
"""

import json
import os
import subprocess
import sys

from absl import app
from absl import flags

from keras_bert.atomic_files import atomic_open
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_list("variants", None, "name=path.tflite pairs.")
flags.DEFINE_list("scores", [], "name=eval_results.json pairs (whole-dev EM/F1), optional per file.")
flags.DEFINE_list("python_threads", ["1", "2"], "ai-edge-litert thread counts.")
flags.DEFINE_list("browser_threads", ["1", "2", "4"], "LiteRT.js WASM thread counts.")
flags.DEFINE_integer("runs", 30, "Timed calls per file and thread count.")
flags.DEFINE_string("output", None, "Writes <output>.json and <output>.md.")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LATENCY_MJS = os.path.join(ROOT, "apps", "web", "e2e", "latency.mjs")


def pairs(values, flag):
    result = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            raise usage.flag_error(ValueError(f"--{flag}: {value!r} is not name=path"))
        if not os.path.isfile(path):
            raise usage.flag_error(ValueError(f"--{flag}: {path} does not exist"))
        result[name] = path
    return result


def browser_latency(model, threads, runs):
    """latency.mjs's JSON for `model` at `threads` (ints)."""
    command = ["node", LATENCY_MJS, "--model", model, "--threads", ",".join(map(str, threads)),
               "--runs", str(runs), "--warmup", "5"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"latency.mjs failed on {model}: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def table(rows, python_threads, browser_threads):
    header = (["file", "size (MB)", "EM", "F1"]
              + [f"Python {t}T p50 ms" for t in python_threads]
              + [f"browser {t}T p50 ms" for t in browser_threads]
              + [f"browser / Python, {t}T" for t in python_threads if t in browser_threads])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        score = r.get("score") or {}
        cells = [r["name"], f"{r['size_bytes'] / 1e6:.1f}",
                 f"{score['exact_match']:.2f}" if score else "-", f"{score['f1']:.2f}" if score else "-"]
        cells += [f"{r['python'][str(t)]['p50_ms']:.1f}" for t in python_threads]
        cells += [f"{r['browser']['threads'][str(t)]['p50']:.1f}" for t in browser_threads]
        cells += [f"{r['browser']['threads'][str(t)]['p50'] / r['python'][str(t)]['p50_ms']:.2f}x"
                  for t in python_threads if t in browser_threads]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv):
    del argv
    from apps.latency import measure

    variants = pairs(FLAGS.variants, "variants")
    scores = pairs(FLAGS.scores, "scores")
    unknown = sorted(set(scores) - set(variants))
    if unknown:
        raise usage.flag_error(ValueError(f"--scores: {unknown} are not among --variants"))
    try:
        python_threads = [int(t) for t in FLAGS.python_threads]
        browser_threads = [int(t) for t in FLAGS.browser_threads]
    except ValueError:
        raise usage.flag_error(ValueError("--python_threads/--browser_threads: integers, e.g. 1,2,4")) from None
    rows = []
    for name, path in variants.items():
        print(f"{name}: Python {python_threads}, browser {browser_threads}...", file=sys.stderr)
        row = {"name": name, "file": path, "size_bytes": os.path.getsize(path),
               "python": measure(path, python_threads, FLAGS.runs),
               "browser": browser_latency(path, browser_threads, FLAGS.runs)}
        if name in scores:
            with open(scores[name]) as f:
                score = json.load(f)
            # tools.score_tflite_squad nests the whole-dev figures under "all"; run_squad does not.
            row["score"] = score.get("all", score)
        rows.append(row)
    markdown = table(rows, python_threads, browser_threads)
    print(markdown)
    if FLAGS.output:
        os.makedirs(os.path.dirname(FLAGS.output) or ".", exist_ok=True)
        with atomic_open(FLAGS.output + ".json") as f:
            json.dump({"rows": rows, "cpu": rows[0]["browser"].get("cpu") if rows else None}, f, indent=1)
        with atomic_open(FLAGS.output + ".md") as f:
            f.write(markdown)


if __name__ == "__main__":
    flags.mark_flags_as_required(["variants"])
    usage.run(main)
