r"""Servers under load and abuse (issue 31): the web demo's static server and the REST stand-in.

    .venv/bin/python -m tools.load_test --server=web --clients=100 --seconds=60 \
        --json=docs/runs/load_web.json
    .venv/bin/python -m tools.load_test --server=standin --model_base_path=runs/standin/squad \
        --model_name=squad --clients=100 --seconds=60 --json=docs/runs/load_standin.json

It starts the server itself on a free loopback port (`node apps/web/server.mjs --port 0`, or
`export/serving/serving_standin.py --port=0` on a SavedModel base path), with its default limits,
then:

1. **Load**: `--clients` threads, each on its own keep-alive connection, send requests back to
   back for `--seconds` (the web app's files in turn; for the stand-in, one `:predict` of the
   model's own signature, zeros of each input's shape). Every answer other than 200 and every
   connection error counts as an error. Reported: requests, requests/s, p50/p90/p99/max
   latency, errors by kind.
2. **Abuse** (`--abuse`, on by default): path traversal in every encoding, malformed request
   lines and URLs, oversized headers and bodies, methods the server does not serve, and a client
   that never finishes its request while another is served. Each case states the answer it
   expects; the report says what came back and how long it took.

Everything stays on 127.0.0.1 and is bounded in clients and time. The server's stderr is kept
and printed if it stops early.
"""

import collections
import http.client
import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time

from absl import flags

from keras_bert.cli.common import usage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEB_PATHS = ("/", "/app.js", "/style.css", "/src/model.js", "/models/vocab.txt",
             "/models/MODEL_CARD.md")
# A string no served file contains, but server.mjs (outside every mount) does.
SERVER_SECRET = "connectionsCheckingInterval"

FLAGS = flags.FLAGS


def define_flags(flag_values=flags.FLAGS):
    """The tool's flags on `flag_values` (the CLI: the global FLAGS)."""
    flags.DEFINE_enum("server", "web", ["web", "standin"], "Which server to start and test.",
                      flag_values=flag_values)
    flags.DEFINE_string("model_base_path", None, "standin: the SavedModel base path (versions "
                        "under it).", flag_values=flag_values)
    flags.DEFINE_string("model_name", "model", "standin: the model name in the URLs.",
                        flag_values=flag_values)
    flags.DEFINE_integer("sequence_length", 384, "standin: the length of open input dimensions "
                         "(the app's 384-token window).", flag_values=flag_values)
    flags.DEFINE_integer("clients", 100, "Concurrent clients.", flag_values=flag_values)
    flags.DEFINE_float("seconds", 60.0, "How long the load lasts.", flag_values=flag_values)
    flags.DEFINE_bool("abuse", True, "Also run the abuse cases.", flag_values=flag_values)
    flags.DEFINE_string("json", None, "Write the report here.", flag_values=flag_values)


# === Starting a server ===

class Server:
    """A server subprocess on a free loopback port, stopped with `stop()` (or `with`)."""

    def __init__(self, command, marker, timeout=300):
        self.stderr = _TailFile()
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr.file, text=True, env=env, cwd=ROOT)
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in self.process.stdout],
                         daemon=True).start()
        deadline = time.monotonic() + timeout
        line = ""
        while marker not in line:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                self.stop()
                raise RuntimeError(f"{command[1]} did not start in {timeout} s: "
                                   f"{self.stderr.tail()}") from None
        url = line[line.index("http://"):].split()[0]
        self.host, port = url.split("/")[2].split(":")
        self.port = int(port)
        self.url = url

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class _TailFile:
    """A server's stderr, kept in a temporary file; `tail()` for error messages."""

    def __init__(self):
        self.file = tempfile.TemporaryFile("w+")

    def tail(self, n=2000):
        self.file.seek(0)
        return self.file.read()[-n:]


def start_web():
    return Server(["node", os.path.join(ROOT, "apps", "web", "server.mjs"), "--port", "0",
                   "--exit_with_stdin"], "http://127.0.0.1:")


def start_standin(model_base_path, model_name, *extra_args):
    """The stand-in with its default limits (tests pass e.g. `--request_timeout=2`)."""
    return Server([sys.executable, os.path.join(ROOT, "export", "serving", "serving_standin.py"),
                   f"--model_base_path={os.path.abspath(model_base_path)}",
                   f"--model_name={model_name}", "--port=0", *extra_args], "http://127.0.0.1:")


# === Load ===

def predict_body(host, port, model_name, sequence_length=384):
    """A `:predict` body for the model's serving signature: one row per input, of ones, with
    `sequence_length` for every dimension the signature leaves open (-1) after the batch."""
    connection = http.client.HTTPConnection(host, port, timeout=60)
    connection.request("GET", f"/v1/models/{model_name}/metadata")
    metadata = json.loads(connection.getresponse().read())
    connection.close()
    signature = metadata["metadata"]["signature_def"]["signature_def"]["serving_default"]
    row = {}
    for name, spec in signature["inputs"].items():
        dims = [int(d["size"]) for d in spec["tensor_shape"].get("dim", [])][1:]
        value = 1 if spec["dtype"] != "DT_STRING" else "text"
        for size in reversed(dims):
            value = [value] * (sequence_length if size < 0 else size)
        row[name] = value
    return json.dumps({"instances": [row]}).encode("utf-8")


def _client(host, port, requests, deadline, start, out):
    """One client: a keep-alive connection, requests in turn until `deadline`."""
    start.wait()
    connection, i = None, 0
    while time.monotonic() < deadline:
        method, path, body = requests[i % len(requests)]
        i += 1
        began = time.monotonic()
        try:
            if connection is None:
                connection = http.client.HTTPConnection(host, port, timeout=120)
            headers = {"Content-Type": "application/json"} if body else {}
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            response.read()
            out.append((response.status, time.monotonic() - began))
            if response.will_close:
                connection.close()
                connection = None
        except (OSError, http.client.HTTPException) as error:
            out.append((type(error).__name__, time.monotonic() - began))
            if connection is not None:
                connection.close()
            connection = None
    if connection is not None:
        connection.close()


def percentile(sorted_values, q):
    """Nearest-rank percentile of an ascending list."""
    index = max(0, min(len(sorted_values) - 1, int(round(q / 100 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[index]


def load(host, port, requests, clients, seconds):
    """Runs the load; returns the summary dict."""
    start = threading.Event()
    results = [[] for _ in range(clients)]
    threads = []
    began = time.monotonic()
    deadline = began + 1.0 + seconds  # a second to start the threads
    for out in results:
        thread = threading.Thread(target=_client,
                                  args=(host, port, requests, deadline, start, out), daemon=True)
        thread.start()
        threads.append(thread)
    start.set()
    for thread in threads:
        thread.join(timeout=seconds + 300)
    elapsed = time.monotonic() - began - 1.0
    answers = [a for out in results for a in out]
    latencies = sorted(latency for status, latency in answers if status == 200)
    errors = collections.Counter(str(status) for status, _ in answers if status != 200)
    return {
        "clients": clients, "seconds": round(elapsed, 1), "requests": len(answers),
        "requests_per_s": round(len(answers) / elapsed, 1),
        "p50_ms": round(1000 * percentile(latencies, 50), 1) if latencies else None,
        "p90_ms": round(1000 * percentile(latencies, 90), 1) if latencies else None,
        "p99_ms": round(1000 * percentile(latencies, 99), 1) if latencies else None,
        "max_ms": round(1000 * latencies[-1], 1) if latencies else None,
        "errors": sum(errors.values()), "errors_by_kind": dict(errors),
        "clients_that_got_answers": sum(1 for out in results if any(s == 200 for s, _ in out)),
    }


# === Abuse ===

def raw_exchange(host, port, data, timeout=15.0, read_limit=65536):
    """Sends raw bytes, returns (status or None, body text head, seconds, closed by server)."""
    began = time.monotonic()
    with socket.create_connection((host, port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
        except OSError:
            pass  # the server may close before a large request is sent whole
        chunks = []
        try:
            while sum(map(len, chunks)) < read_limit:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                if _complete(b"".join(chunks)):
                    break
        except (socket.timeout, ConnectionResetError):
            pass
    raw = b"".join(chunks)
    status = None
    if raw.startswith(b"HTTP/1."):
        status = int(raw.split(b" ", 2)[1])
    return status, raw.decode("utf-8", "replace"), time.monotonic() - began


def _complete(raw):
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value.strip())
    return False


def _get(path):
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode("latin-1")


TRAVERSALS = (
    "/../server.mjs", "/%2e%2e/server.mjs", "/%2E%2E%2Fserver.mjs", "/..%2fserver.mjs",
    "/..%5cserver.mjs", "/%252e%252e/server.mjs", "/models/../web/server.mjs",
    "/models/%2e%2e/web/server.mjs", "/models/..%2f..%2fweb%2fserver.mjs", "//server.mjs",
    "/%c0%ae%c0%ae/server.mjs", "/.%2e/server.mjs", "/server.mjs", "/server.mjs%00.js",
    "/package.json", "/node_modules/@litertjs/core/package.json", "/e2e/", "/.git/config",
    "/models/.%2e/.%2e/.%2e/etc/passwd", "/../../../../../../etc/passwd",
    "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/%u002e%u002e/server.mjs",
)


def abuse_cases(kind, model_name=None):
    """(name, request bytes, allowed statuses, what must not appear in the answer)."""
    cases = []
    for path in TRAVERSALS:
        # "//server.mjs" is a protocol-relative URL: host "server.mjs", path "/" (the app page).
        allowed = {200, 400, 403, 404} if path.startswith("//") else {400, 403, 404}
        cases.append((f"GET {path}", _get(path), allowed, SERVER_SECRET))
    cases += [
        ("malformed request line", b"GARBAGE\r\n\r\n", {400, None}, None),
        ("HTTP/1.1 without Host", b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n", {200, 400, 404},
         None),
        ("a 64 KB header", b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536
         + b"\r\nConnection: close\r\n\r\n", {400, 413, 431, None}, None),
        ("10,000 headers", b"GET / HTTP/1.1\r\nHost: x\r\n"
         + b"".join(b"X-%d: y\r\n" % i for i in range(10000)) + b"Connection: close\r\n\r\n",
         {400, 413, 431, None}, None),
        ("a non-ASCII request target", "GET /\u00e9\u00e8 HTTP/1.1\r\nHost: x\r\nConnection: "
         "close\r\n\r\n".encode("utf-8"), {400, 404}, None),
    ]
    if kind == "web":
        cases += [
            ("POST with a body", b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
             b"Connection: close\r\n\r\nhello", {405}, None),
            ("DELETE", b"DELETE /index.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
             {405}, None),
            ("GET with a 100 MB Content-Length it never sends",
             b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\nConnection: close\r\n\r\n",
             {200, 400, 413, None}, None),
        ]
    else:
        predict = f"/v1/models/{model_name}:predict"
        cases += [
            ("POST without Content-Length", f"POST {predict} HTTP/1.1\r\nHost: x\r\nConnection: "
             "close\r\n\r\n".encode(), {411}, None),
            ("Content-Length: abc", f"POST {predict} HTTP/1.1\r\nHost: x\r\nContent-Length: abc"
             "\r\nConnection: close\r\n\r\n".encode(), {400}, None),
            ("Content-Length: -5", f"POST {predict} HTTP/1.1\r\nHost: x\r\nContent-Length: -5"
             "\r\nConnection: close\r\n\r\n".encode(), {400}, None),
            ("a 10 GB body announced, never sent", f"POST {predict} HTTP/1.1\r\nHost: x\r\n"
             "Content-Length: 10000000000\r\nConnection: close\r\n\r\n".encode(), {413}, None),
            ("a body that is not JSON", f"POST {predict} HTTP/1.1\r\nHost: x\r\nContent-Length: "
             "9\r\nConnection: close\r\n\r\n{not json".encode(), {400}, None),
            ("JSON of the wrong shape", f"POST {predict} HTTP/1.1\r\nHost: x\r\nContent-Length: "
             "20\r\nConnection: close\r\n\r\n{\"instances\": [[1]]}".encode(), {400}, None),
            ("an unknown model", b"GET /v1/models/nope HTTP/1.1\r\nHost: x\r\nConnection: "
             b"close\r\n\r\n", {404}, None),
            ("invalid UTF-8 in the body", f"POST {predict} HTTP/1.1\r\nHost: x\r\nContent-Length: "
             "4\r\nConnection: close\r\n\r\n".encode() + b"\xff\xfe\xfd\xfc", {400}, None),
            ("DELETE", f"DELETE {predict} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
             .encode(), {400, 405, 501}, None),
        ]
    return cases


def run_abuse(server, kind, model_name=None, stall_limit_s=60.0):
    """Every abuse case, then the stalled client; returns the rows and whether all held."""
    rows = []
    for name, data, allowed, forbidden in abuse_cases(kind, model_name):
        status, text, seconds = raw_exchange(server.host, server.port, data)
        held = status in allowed and (forbidden is None or forbidden not in text)
        rows.append({"case": name, "expected": sorted(allowed, key=str), "status": status,
                     "seconds": round(seconds, 2), "held": held})
    rows.append(stalled_client(server, kind, model_name, stall_limit_s))
    rows.append({"case": "server still running after all cases", "expected": [True],
                 "status": server.alive(), "seconds": 0.0, "held": server.alive()})
    return rows


def stalled_client(server, kind, model_name, limit_s):
    """A client sends half a request and stalls; another is served meanwhile; the stalled
    connection must be closed by the server within `limit_s`."""
    half = (b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " if kind == "web" else
            f"POST /v1/models/{model_name}:predict HTTP/1.1\r\nHost: x\r\nContent-Length: 100"
            "\r\n\r\n{".encode())
    began = time.monotonic()
    sock = socket.create_connection((server.host, server.port), timeout=limit_s + 5)
    sock.sendall(half)
    time.sleep(0.5)
    other = http.client.HTTPConnection(server.host, server.port, timeout=30)
    other.request("GET", "/" if kind == "web" else f"/v1/models/{model_name}")
    other_status = other.getresponse().status
    other_seconds = time.monotonic() - began - 0.5
    other.close()
    try:
        closed = sock.recv(65536) is not None  # b"" (closed) or an error answer
    except (socket.timeout, ConnectionResetError):
        closed = False
    sock.close()
    dropped_after = time.monotonic() - began
    held = other_status == 200 and closed and dropped_after <= limit_s
    return {"case": f"a client that stalls mid-request (another served in {other_seconds:.2f} s)",
            "expected": [f"closed within {limit_s:.0f} s"], "status": f"closed after "
            f"{dropped_after:.1f} s" if closed else "still open", "seconds": round(dropped_after, 1),
            "held": held}


# === CLI ===

def markdown(report):
    lines = [f"Load: {report['load']['clients']} clients for {report['load']['seconds']} s: "
             f"{report['load']['requests']:,} requests ({report['load']['requests_per_s']}/s), "
             f"p50 {report['load']['p50_ms']} ms, p99 {report['load']['p99_ms']} ms, errors "
             f"{report['load']['errors']}", "", "| abuse case | expected | answer | held |",
             "|---|---|---|---|"]
    for row in report.get("abuse", []):
        lines.append(f"| {row['case']} | {', '.join(map(str, row['expected']))} | "
                     f"{row['status']} | {'yes' if row['held'] else 'NO'} |")
    return "\n".join(lines) + "\n"


def main(argv):
    del argv
    if FLAGS.clients < 1 or FLAGS.seconds <= 0:
        raise ValueError("--clients must be >= 1 and --seconds > 0.")
    if FLAGS.server == "standin":
        if not FLAGS.model_base_path or not os.path.isdir(FLAGS.model_base_path):
            raise ValueError(f"--model_base_path={FLAGS.model_base_path} is not a folder: pass "
                             "a SavedModel base path (numbered versions inside), e.g. an "
                             "keras_bert.export.cli --export_dir's saved_model/<task>.")
        server = start_standin(FLAGS.model_base_path, FLAGS.model_name)
    else:
        server = start_web()
    with server:
        if FLAGS.server == "web":
            requests = [("GET", path, None) for path in WEB_PATHS]
        else:
            requests = [("POST", f"/v1/models/{FLAGS.model_name}:predict",
                         predict_body(server.host, server.port, FLAGS.model_name,
                                      FLAGS.sequence_length))]
        print(f"{FLAGS.server}: {FLAGS.clients} clients for {FLAGS.seconds} s at {server.url}",
              flush=True)
        report = {"server": FLAGS.server, "date": time.strftime("%Y-%m-%d"),
                  "load": load(server.host, server.port, requests, FLAGS.clients, FLAGS.seconds)}
        if not server.alive():
            raise RuntimeError(f"the server stopped under load: {server.stderr.tail()}")
        if FLAGS.abuse:
            report["abuse"] = run_abuse(server, FLAGS.server, FLAGS.model_name)
    text = markdown(report)
    print(text, end="")
    if FLAGS.json:
        from keras_bert.atomic_files import atomic_open

        with atomic_open(FLAGS.json) as f:  # a reader never sees half a file
            json.dump(report, f, indent=1)
    failed = [row["case"] for row in report.get("abuse", []) if not row["held"]]
    if report["load"]["errors"] or failed:
        print(f"FAILED: {report['load']['errors']} load errors; abuse cases not held: {failed}",
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    define_flags()
    usage.run(main)
