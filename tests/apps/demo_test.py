"""`python -m apps.demo` serving the web app: its Node server lives and dies with it."""

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.large


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _accepts(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _wait(condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_stopping_the_demo_stops_its_server_and_frees_the_port(stop):
    port = _free_port()
    # Started with SIGINT ignored, as a background job of a shell starts it: Ctrl+C must still
    # stop it (Python installs no KeyboardInterrupt handler then, unless the demo does).
    demo = subprocess.Popen([sys.executable, "-m", "apps.demo", f"--port={port}"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        assert "keras_bert QA demo: http://127.0.0.1:" in demo.stdout.readline()
        assert _wait(lambda: _accepts(port), 30), "the server never listened"
        demo.send_signal(stop)
        demo.wait(timeout=30)
        # The Node child is not signalled by anyone but its parent's end: its stdin closes.
        assert _wait(lambda: not _accepts(port), 10), f"port {port} still served after {stop!r}"
    finally:
        if demo.poll() is None:
            demo.kill()


def _cli(*flags):
    return subprocess.run([sys.executable, "-m", "apps.demo", "--cli", "--passage=rhine", *flags],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_cli_answers_with_the_default_file_as_the_golden_fixture_does():
    """`make demo ARGS=--cli`: the default file's best answer to the Rhine passage's first
    question is the golden fixture's (apps/fixtures/qa_golden.json, the same file under
    ai-edge-litert), and the line names the file that answered."""
    import json

    with open(os.path.join(ROOT, "apps", "fixtures", "qa_golden.json"), encoding="utf-8") as f:
        fixture = json.load(f)
    with open(os.path.join(ROOT, "apps", "web", "data", "passages.json"), encoding="utf-8") as f:
        rhine = next(p for p in json.load(f) if p["id"] == "rhine")
    case = next(c for c in fixture["cases"]
                if c["question"] == rhine["questions"][0] and c["context"] == rhine["context"])
    run = _cli()
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"Answer: {case['nbest'][0]['text']}  (p=" in run.stdout, run.stdout
    assert f"{os.path.basename(fixture['model'])} through ai-edge-litert" in run.stdout


def test_cli_takes_the_full_int8_file_and_refuses_a_missing_one_in_one_line():
    run = _cli("--model=apps/models/squad_minilm_int8.tflite")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "squad_minilm_int8.tflite through ai-edge-litert" in run.stdout
    run = _cli("--model=apps/models/no_such.tflite")
    assert run.returncode == 1
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("apps/models/no_such.tflite does not exist."), run.stderr[-2000:]


def test_cli_answers_from_the_users_own_text_and_refuses_bad_flags_in_one_line(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("Minutes of the meeting. The treaty was signed by Ada Lovelace in 1843, "
                    "after a long debate in London.\n" * 3, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "apps.demo", "--cli", f"--context_file={text}",
                          "--question=Who signed the treaty?"], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Document: your text" in run.stdout and "Answer: Ada Lovelace" in run.stdout, run.stdout
    for flags, message in ((["--num_threads=-3"], "--num_threads=-3: use 1 or more"),
                           (["--context=x", f"--context_file={text}"], "not both"),
                           ([f"--context_file={tmp_path / 'none.txt'}"], "cannot read it"),
                           (["--context=Some text."], "need --question"),
                           (["--article=nile"], "No bundled article 'nile'. Pick one of: rhine"),
                           (["--article=rhine", "--context=x"], "not both")):
        run = subprocess.run([sys.executable, "-m", "apps.demo", "--cli", *flags], cwd=ROOT,
                             capture_output=True, text=True, timeout=600)
        assert run.returncode != 0 and message in run.stderr.strip().splitlines()[-1], run.stderr


def test_cli_asks_the_whole_bundled_article_and_says_when_it_has_no_answer():
    """SQuAD's gold answer for a question on the article's last paragraphs is the oracle; the
    issue's own example of a question the Rhine article does not answer must get "no answer"."""
    run = subprocess.run([sys.executable, "-m", "apps.demo", "--cli", "--article=rhine",
                          "--question=When was Operation Market Garden?"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Document: Rhine (whole Wikipedia article, 44 paragraphs)" in run.stdout, run.stdout
    from keras_bert.metrics.squad_evaluation import f1_v1

    answer = next(line for line in run.stdout.splitlines() if line.startswith("Answer: "))
    assert f1_v1(answer[len("Answer: "):].split("  (")[0], "September 1944") >= 0.5, run.stdout
    run = subprocess.run([sys.executable, "-m", "apps.demo", "--cli", "--article=rhine",
                          "--question=Who invented the telephone?"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "No answer in this document" in run.stdout, run.stdout
