"""The browser document-QA suite without a browser: its result from document_latency.mjs's JSON,
and the one-line error when Chromium is missing."""

import os
import shutil

import pytest

from benchmarks import run as bench
from benchmarks.report import result_table
from benchmarks.suites import document_qa_browser as suite


def _data():
    return {
        "candidates": {
            "read every window": {"ms": [3000.0, 4000.0],
                                  "windowsPerQuestion": {"min": 54, "max": 54}},
            "shipped": {"ms": [250.0, 300.0], "windowsPerQuestion": {"min": 3, "max": 3}},
        },
        "shipped": {"ranker": "rrf", "passagesRead": 3},
        "article": {"title": "Rhine", "characters": 30576, "passages": 37},
        "questions": {"total": 2, "answered": 1, "withoutAnswer": 1, "from": "Force"},
        "rounds": 1,
        "threads": {"requested": 2, "reader": 2, "embedder": 2},
        "browser": "Chromium 150.0 headless",
        "runtime": "LiteRT.js @litertjs/core 2.5.3, WASM (XNNPACK), threaded build",
        "crossOriginIsolated": True,
        "oneTime": {"documentMs": 1500.4, "pipelineLoadMs": 600.0},
        "cpu": "AMD EPYC",
        "cpuCount": 2,
        "requestsOutside127": 0,
        "answers": [{"question": "When?", "read every window": "1944", "shipped": "1944"},
                    {"question": "Who?", "read every window": "Newton", "shipped": None}],
    }


def test_registered_and_shaped_as_the_python_suite():
    assert "document_qa_browser" in bench.SUITES
    result = suite.result(_data())
    assert result["suite"] == "document_qa_browser" and result["metric"] == "latency"
    assert result["reference"] == "read every window"
    assert "54 windows of 384" in result["case"] and "2 threads" in result["case"]
    timings = {t["name"]: t for t in result["timings"]}
    assert set(timings) == {"read every window", "shipped: rrf, top 3, calibrated"}
    assert timings["read every window"]["median_ms"] == pytest.approx(3500.0)
    assert timings["shipped: rrf, top 3, calibrated"]["unit"] == "questions/s"
    assert result["notes"]["one-time cost of the document (split, BM25 index, embedding every "
                           "passage)"] == "1500 ms"
    table = result_table(result)
    assert "| 12.7x |" in table  # 3500 / 275
    assert "| Who? | Newton | no answer |" in table


@pytest.mark.skipif(shutil.which("node") is None or not os.path.isdir(suite.PLAYWRIGHT),
                    reason="needs node and apps/web/node_modules")
def test_missing_chromium_is_one_clear_line(monkeypatch):
    monkeypatch.setenv("CHROMIUM_PATH", "/nonexistent/chromium")
    with pytest.raises(FileNotFoundError) as error:
        suite.browser_latency(threads=2, rounds=1, warmup=0, log=lambda *_: None)
    message = str(error.value)
    assert message.startswith("Chromium not found at /nonexistent/chromium: install it with")
    assert "\n" not in message
