"""`interleaved`: every candidate once per round in rotating order, warm-up untimed, a settle pause
before each timed call; `Timing` stats."""

import pytest

from benchmarks.harness import Timing, interleaved


def test_rounds_rotate_the_order_and_warmup_calls_are_not_timed():
    calls = []
    candidates = {name: (lambda name=name: calls.append(name), 1) for name in "abc"}
    timings = interleaved(candidates, rounds=4, warmup=2, log=lambda *a: None)
    warmup, timed = calls[:6], calls[6:]
    assert warmup == ["a", "a", "b", "b", "c", "c"]
    assert timed == list("abc" "bca" "cab" "abc")
    assert {name: len(t.seconds) for name, t in timings.items()} == {"a": 4, "b": 4, "c": 4}


def test_timing_reports_the_median_rate_and_its_range():
    timing = Timing("x", [0.5, 0.25, 1.0, 0.5, 2.0], items_per_call=8, flops_per_call=4e9)
    assert timing.median_s == 0.5
    assert timing.rate == 16.0
    assert timing.rate_spread == (4.0, 32.0)
    assert timing.gflops == 8.0
    as_json = timing.to_json()
    assert as_json["rate"] == 16.0 and as_json["median_ms"] == 500.0


def test_zero_rounds_is_an_error():
    with pytest.raises(ValueError, match="rounds=0"):
        interleaved({"a": (lambda: None, 1)}, rounds=0)


def test_the_settle_pause_comes_before_every_timed_call_and_outside_its_timing():
    events = []
    clock = {"now": 0.0}

    def sleep(seconds):  # a fake clock: a pause that would count if it were inside the timing
        events.append(("sleep", seconds))
        clock["now"] += seconds

    candidates = {name: (lambda name=name: events.append(("call", name)), 1) for name in "ab"}
    import benchmarks.harness as harness

    real = harness.time.perf_counter
    harness.time.perf_counter = lambda: clock["now"]
    try:
        timings = interleaved(candidates, rounds=2, warmup=1, log=lambda *a: None,
                              settle_s=0.25, sleep=sleep)
    finally:
        harness.time.perf_counter = real
    # Warm-up calls have no pause; each timed call has one right before it.
    assert events == [("call", "a"), ("call", "b"),
                      ("sleep", 0.25), ("call", "a"), ("sleep", 0.25), ("call", "b"),
                      ("sleep", 0.25), ("call", "b"), ("sleep", 0.25), ("call", "a")]
    assert all(t.seconds == [0.0, 0.0] for t in timings.values())


def test_no_pause_when_settle_is_zero_and_a_negative_pause_is_an_error():
    slept = []
    interleaved({"a": (lambda: None, 1)}, rounds=3, log=lambda *a: None, settle_s=0,
                sleep=slept.append)
    assert slept == []
    with pytest.raises(ValueError, match="settle_s=-1"):
        interleaved({"a": (lambda: None, 1)}, rounds=1, settle_s=-1)
