"""The REST stand-in's HTTP side under abuse: bad and oversized bodies, stalled clients, too
many connections. A fake model answers, so these run without a SavedModel."""

import contextlib
import json
import socket
import threading
import time

import pytest

from keras_bert.export.serving import serving_standin


class FakeModel:
    def get(self, path):
        return 200, json.dumps({"path": path})

    def post(self, path, body):
        return 200, json.dumps({"bytes": len(body)})


@contextlib.contextmanager
def serving(**limits):
    server = serving_standin.BoundedServer(("127.0.0.1", 0), serving_standin._Handler,
                                           FakeModel(), **limits)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def exchange(port, data, timeout=10.0):
    """Sends `data` and reads until the server closes: `(status, json body)`."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        reply = b""
        while chunk := s.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def post(length_header, body=b"", keep_alive=False):
    header = b"" if length_header is None else b"Content-Length: " + length_header + b"\r\n"
    if not keep_alive:
        header += b"Connection: close\r\n"  # a one-shot HTTP/1.1 client
    return b"POST /v1/models/m:predict HTTP/1.1\r\nHost: x\r\n" + header + b"\r\n" + body


@pytest.mark.parametrize("header, status, message", [
    (None, 411, "needs a Content-Length header"),
    ("abc", 400, "Content-Length 'abc' is not a byte count"),
    ("-5", 400, "is not a byte count"),
    ("1e3", 400, "is not a byte count"),
    ("1025", 413, "(1,025 bytes) is over this server's limit of 1,024 bytes"),
])
def test_body_length_is_checked_before_reading(header, status, message):
    with pytest.raises(serving_standin.RequestError, match=message.replace("(", r"\(")
                       .replace(")", r"\)")) as raised:
        serving_standin.body_length(header, 1024)
    assert raised.value.status == status
    assert serving_standin.body_length(" 1024 ", 1024) == 1024


def test_bad_and_oversized_bodies_get_4xx_without_the_body_being_read():
    with serving(max_body_bytes=1024) as port:
        assert exchange(port, post(b"17", b"x" * 17)) == (200, {"bytes": 17})
        assert exchange(port, post(b"abc"))[0] == 400
        assert exchange(port, post(None))[0] == 411
        # 10 MB announced, none sent: the answer comes at once and the connection closes.
        start = time.monotonic()
        status, body = exchange(port, post(b"10000000"))
        assert status == 413 and "--max_body_bytes" in body["error"]
        assert time.monotonic() - start < 5.0
        assert exchange(port, b"GET /v1/models/m HTTP/1.0\r\n\r\n") == (200, {"path": "/v1/models/m"})


def test_a_stalled_client_is_dropped_and_others_are_served_meanwhile():
    with serving(request_timeout=0.5) as port:
        stalled = socket.create_connection(("127.0.0.1", port), timeout=10)
        stalled.sendall(post(b"10", b"abc"))  # 3 of 10 bytes, then nothing
        assert exchange(port, b"GET /a HTTP/1.0\r\n\r\n") == (200, {"path": "/a"})
        start = time.monotonic()
        assert stalled.recv(1024) == b""  # closed by the server, no answer
        assert time.monotonic() - start < 5.0
        stalled.close()


def test_connections_over_the_bound_get_503_and_service_resumes():
    with serving(max_connections=2, request_timeout=1.0) as port:
        idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(2)]
        time.sleep(0.2)  # both accepted and holding their slots
        status, body = exchange(port, b"GET /b HTTP/1.0\r\n\r\n")
        assert status == 503 and "Too many connections" in body["error"]
        for s in idle:
            assert s.recv(1024) == b""  # timed out by the server, slots released
            s.close()
        time.sleep(0.2)
        assert exchange(port, b"GET /b HTTP/1.0\r\n\r\n") == (200, {"path": "/b"})


def test_http11_connections_are_kept_alive_and_bad_bodies_close_them():
    with serving(max_body_bytes=1024) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            for _ in range(3):  # three requests on one connection, each answer whole
                s.sendall(post(b"5", b"hello", keep_alive=True))
                reply = b""
                while not reply.endswith(b'{"bytes": 5}'):
                    reply += s.recv(65536)
                assert reply.startswith(b"HTTP/1.1 200") and b"Connection: close" not in reply
            s.sendall(post(b"abc", keep_alive=True))  # its body cannot be told from a request
            reply = b""
            while chunk := s.recv(65536):
                reply += chunk
            assert reply.startswith(b"HTTP/1.1 400") and b"Connection: close" in reply
