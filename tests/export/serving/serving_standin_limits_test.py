"""The REST stand-in's per-request limits (issue 54): a body over --max_body_bytes, a string over
--max_text_chars and a request over --max_windows are refused in one JSON line, at once, before
the model sees them, and the server's memory stays flat. Before, a 20 MB `serve_text` context
(under the old 64 MiB body limit) grew the server to 18 GB and was still running 104 s later.

The server runs as shipped (a subprocess, default limits) on a SavedModel of plain
`tf.function`s with the QA text signature's inputs (`question`, `context`), so it starts in
seconds; the limits are checked on the JSON, whatever model is behind them."""

import http.client
import json
import os
import time

import pytest
import tensorflow as tf

from keras_bert.export.serving import serving_standin
from keras_bert.export.serving.serving_standin import (
    MAX_BODY_BYTES, MAX_TEXT_CHARS, MAX_WINDOWS, check_request_limits, context_windows)
from tools import load_test

# Peak RSS (VmHWM) of the stand-in process on this model, 2026-11-28, 2-core AMD EPYC Zen 5
# (TF 2.21): 751 MiB after start-up (TensorFlow itself), 757 MiB after a first request, 758 MiB
# after every request below; each refusal answered in 1-22 ms. With the limits raised (64 MiB
# body, as before), the same 20 MB request is parsed and run: 833 MiB (+76), and on the QA model
# 18 GB. Bounds with margin for other machines and TensorFlow builds.
PEAK_RSS_BOUND_MIB = 1024
GROWTH_BOUND_MIB = 32
ANSWER_BOUND_S = 10.0


class _TextModel(tf.Module):
    """`serve_text`: the first 3 characters and the length of each context; `serving_default`:
    the sum of each row of ids."""

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="question"),
                                  tf.TensorSpec([None], tf.string, name="context")])
    def serve_text(self, question, context):
        return {"answer_text": tf.strings.substr(context, 0, 3, unit="UTF8_CHAR"),
                "context_chars": tf.strings.length(context, unit="UTF8_CHAR")
                + 0 * tf.strings.length(question)}

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32, name="ids")])
    def serve(self, ids):
        return {"total": tf.reduce_sum(ids, axis=1)}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("limits") / "text"
    model = _TextModel()
    tf.saved_model.save(model, str(base / "1"), signatures={
        "serving_default": model.serve, "serve_text": model.serve_text})
    with load_test.start_standin(str(base), "text") as running:
        yield running


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        line = next(line for line in f if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024  # kB


def predict(server, request):
    """POSTs `request` (dict, or bytes) with http.client, which sends the whole body before
    reading; returns `(status, raw body, seconds)`."""
    body = request if isinstance(request, bytes) else json.dumps(request).encode("utf-8")
    connection = http.client.HTTPConnection(server.host, server.port, timeout=60)
    start = time.monotonic()
    try:
        connection.request("POST", "/v1/models/text:predict", body)
        response = connection.getresponse()
        return response.status, response.read(), time.monotonic() - start
    finally:
        connection.close()


def text_request(contexts, question="Who ran?"):
    return {"signature_name": "serve_text",
            "inputs": {"question": [question] * len(contexts), "context": contexts}}


def error_line(raw):
    """The one-line `{"error": message}` body's message."""
    assert b"\n" not in raw, raw[:300]
    answer = json.loads(raw)
    assert list(answer) == ["error"], answer
    return answer["error"]


def test_window_count_is_an_upper_bound_at_one_token_per_character():
    # 384 tokens = [CLS] + question (<= 64) + [SEP] + context + [SEP]: 317 context tokens at
    # least; then one more window per 128 tokens (the stride).
    assert [context_windows(n) for n in (0, 1, 317, 318, 445, 446, 8_000)] == [1, 1, 1, 2, 2, 3,
                                                                               62]
    assert context_windows(MAX_TEXT_CHARS) <= MAX_WINDOWS  # the longest context fits alone
    # Limits pass a request at them exactly: 64 instances; 2 contexts of 31 + 33 windows.
    check_request_limits({"instances": [{"ids": [1]}] * 64}, ["ids"], MAX_TEXT_CHARS, 64)
    long_contexts = text_request(["x" * (317 + 30 * 128), "y" * (317 + 32 * 128)])
    check_request_limits(long_contexts, ["context", "question"], MAX_TEXT_CHARS, 64)
    long_contexts["inputs"]["context"][1] += "y"
    with pytest.raises(serving_standin.RequestError, match="up to 65 windows of 384 tokens"):
        check_request_limits(long_contexts, ["context", "question"], MAX_TEXT_CHARS, 64)
    # Row format, and a b64 string counted by its bytes.
    rows = {"instances": [{"question": "q", "context": {"b64": "eHl6" * 2_001}}]}
    with pytest.raises(serving_standin.RequestError,
                       match=r'input "context" at instances\[0\] is 6,003 characters long'):
        check_request_limits(rows, ["context", "question"], 6_000, 64)
    check_request_limits(rows, ["context", "question"], None, None)  # no limits


# large: a TensorFlow server process and a 20 MB upload (15-25 s in pytest). Under Bazel's
# small-test sandbox it ran past the 300 s limit on 2026-11-28 (cause not found yet); medium
# size there, like the other server-process tests.
@pytest.mark.large
def test_oversized_requests_are_refused_at_once_and_memory_stays_flat(server):
    pid = server.process.pid
    status, raw, _ = predict(server, text_request(["The dog ran home."]))
    assert status == 200, raw  # warm: the signature has run once
    before = peak_rss_mib(pid)

    # 20 MB of context in one serve_text request: 413 from Content-Length, body never parsed.
    huge = json.dumps(text_request(["word " * 4_000_000])).encode("utf-8")
    assert len(huge) > 20_000_000
    status, raw, seconds = predict(server, huge)
    times = {"20 MB body": seconds}
    assert status == 413 and seconds < ANSWER_BOUND_S, (status, raw, seconds)
    assert error_line(raw) == (
        f"The request body ({len(huge):,} bytes) is over this server's limit of "
        f"{MAX_BODY_BYTES:,} bytes (--max_body_bytes): send long texts as passages and large "
        "batches as several requests, or restart the server with a larger --max_body_bytes.")

    # One character over --max_text_chars, in a body well under the body limit.
    status, raw, seconds = predict(server, text_request(["a" * (MAX_TEXT_CHARS + 1)]))
    times["long context"] = seconds
    assert status == 400 and seconds < ANSWER_BOUND_S, (status, raw, seconds)
    assert error_line(raw) == (
        'input "context" at inputs.context[0] is 8,001 characters long, over this server\'s '
        "limit of 8,000 per string (--max_text_chars): split the text into passages of at most "
        "8,000 characters, one per instance, or restart the server with a larger "
        "--max_text_chars.")

    # Three contexts of 4,000 characters: up to 3 x 30 windows.
    status, raw, seconds = predict(server, text_request(["b" * 4_000] * 3))
    times["90 windows"] = seconds
    assert status == 400 and seconds < ANSWER_BOUND_S, (status, raw, seconds)
    assert error_line(raw) == (
        'This request can produce up to 90 windows of 384 tokens (a batch of 3, input '
        '"context" up to 4,000 characters, counted at one token per character), over this '
        "server's limit of 64 per request (--max_windows): send fewer or shorter contexts per "
        "request, or restart the server with a larger --max_windows.")

    # 65 rows of token ids: one window each.
    status, raw, seconds = predict(server, {"instances": [{"ids": [1, 2]}] * (MAX_WINDOWS + 1)})
    times["65 instances"] = seconds
    assert status == 400 and seconds < ANSWER_BOUND_S, (status, raw, seconds)
    assert error_line(raw) == (
        "This request has 65 instances, over this server's limit of 64 windows of 384 tokens "
        "per request, one or more per instance (--max_windows): send at most 64 per request, "
        "or restart the server with a larger --max_windows.")

    # Still serving, and right: requests at the limits are answered.
    status, raw, _ = predict(server, text_request(["h\u00e9llo world", "c" * MAX_TEXT_CHARS]))
    assert status == 200, raw
    assert json.loads(raw) == {"outputs": {"answer_text": ["h\u00e9l", "ccc"],
                                           "context_chars": [11, MAX_TEXT_CHARS]}}
    status, raw, _ = predict(server, {"instances": [{"ids": [1, 2]}] * MAX_WINDOWS})
    assert status == 200 and json.loads(raw) == {"predictions": [3] * MAX_WINDOWS}, raw

    after = peak_rss_mib(pid)
    print(f"stand-in peak RSS: {before:.0f} MiB before the refusals, {after:.0f} MiB after; "
          "refused in " + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in times.items()))
    assert after < PEAK_RSS_BOUND_MIB
    assert after - before < GROWTH_BOUND_MIB
    assert server.alive()
