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
