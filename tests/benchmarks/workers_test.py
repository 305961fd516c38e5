"""`Worker`: a candidate built and run in a spawned process, its failures named in one line."""

import os
import time

import pytest

from benchmarks.workers import Worker, WorkerError


def build_pid_writer(path, fail_to_build=False):
    """Cases for the tests; module level, so that the spawned process can import it."""
    if fail_to_build:
        raise ValueError("no such model shape")

    def write_pid():
        time.sleep(0.2)  # the caller must wait for this, not just for the request to be sent
        with open(path, "a") as f:
            f.write(f"{os.getpid()}\n")

    def fail():
        raise RuntimeError("step diverged")

    return {"write pid": write_pid, "fail": fail, "die": lambda: os._exit(3)}


def test_calls_run_in_the_worker_process_and_return_when_done(tmp_path):
    path = tmp_path / "pids.txt"
    with Worker("writer", build_pid_writer, str(path)) as worker:
        assert worker.cases == ["write pid", "fail", "die"]
        call = worker.caller("write pid")
        call()
        assert path.read_text().split() == [str(worker.pid)]  # written before call() returned
        call()
        pids = path.read_text().split()
        assert pids == [str(worker.pid)] * 2 and worker.pid != os.getpid()


def test_failures_are_named_in_one_line(tmp_path):
    with pytest.raises(WorkerError, match=r"^bad: building failed: ValueError: no such model "
                                          r"shape$"):
        Worker("bad", build_pid_writer, str(tmp_path / "x"), True)
    with Worker("writer", build_pid_writer, str(tmp_path / "x")) as worker:
        with pytest.raises(KeyError, match="has no case 'train'"):
            worker.caller("train")
        with pytest.raises(WorkerError, match="^writer: fail failed: RuntimeError: step diverged$"):
            worker.call("fail")
    with Worker("dying", build_pid_writer, str(tmp_path / "x")) as worker:
        with pytest.raises(WorkerError, match=r"dying: its process ended without a word \(exit "
                                              r"code 3;"):
            worker.call("die")
