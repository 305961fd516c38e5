"""tools/load_test.py against the real servers, briefly: the web demo's Node server and the REST
stand-in serving a tiny export. Oracles: HTTP status codes the servers must give, the content of
a file outside the served folders never appearing, and a stalled client closed within the
server's own timeout while another is served."""

import os

import pytest

from tools import load_test


def _check(report_load, rows):
    assert report_load["errors"] == 0, report_load["errors_by_kind"]
    assert report_load["requests"] > report_load["clients"]
    assert report_load["clients_that_got_answers"] == report_load["clients"]
    assert report_load["p50_ms"] <= report_load["p99_ms"] <= report_load["max_ms"]
    assert [row["case"] for row in rows if not row["held"]] == []


@pytest.mark.large
def test_web_server_under_load_and_abuse():
    with load_test.start_web() as server:
        requests = [("GET", path, None) for path in load_test.WEB_PATHS]
        report = load_test.load(server.host, server.port, requests, clients=8, seconds=2)
        # The traversal oracle is only an oracle if the string is really in the file it guards.
        with open(os.path.join(load_test.ROOT, "apps", "web", "server.mjs")) as f:
            assert load_test.SERVER_SECRET in f.read()
        rows = load_test.run_abuse(server, "web", stall_limit_s=15.0)
    _check(report, rows)
    stalled = [row for row in rows if "stalls" in row["case"]][0]
    assert 9.0 <= stalled["seconds"] <= 15.0  # server.mjs: 10 s for the headers


@pytest.mark.large
def test_standin_under_load_and_abuse():
    from tests.export.serving.serving_test import _shared_tiny_qa

    _, _, _, version_dir = _shared_tiny_qa()
    with load_test.start_standin(os.path.dirname(version_dir), "tiny_qa",
                                 "--request_timeout=2") as server:
        body = load_test.predict_body(server.host, server.port, "tiny_qa", sequence_length=7)
        requests = [("POST", "/v1/models/tiny_qa:predict", body)]
        report = load_test.load(server.host, server.port, requests, clients=8, seconds=2)
        rows = load_test.run_abuse(server, "standin", "tiny_qa", stall_limit_s=5.0)
    _check(report, rows)
