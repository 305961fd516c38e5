"""Candidates in processes of their own: one model (and its library's runtime) per process.

Eight BERT-base trainers in one Python process share one TensorFlow runtime (its thread pools,
its allocator, 19 GB of resident memory), and there keras_bert's bf16 step was bimodal: some
calls ran at 3.1-3.3 examples/s, others at 3.8-4.1, while the same step alone in a process ran
at 4.0 every call (docs/benchmarks.md). A user trains one model per process, so that is what a
`Worker` measures: it builds a candidate in a fresh (spawned) Python process and runs one of
its calls each time it is asked, while the coordinator keeps timing and interleaving exactly as
for in-process candidates (`harness.interleaved`). A call costs a pipe round trip on top of the
work (tens of microseconds, against steps of 0.1-3 s).

    worker = Worker("keras_bert bf16", build_fn, *args)   # build_fn(*args) -> {case: call}
    call = worker.caller("train step")                   # for harness.interleaved
    worker.close()

`build_fn` must be importable by name (a module-level function) and its arguments picklable.
"""

import multiprocessing
import traceback


class WorkerError(RuntimeError):
    """A worker failed to build or to run a call, or its process died."""


def set_threads(threads, tensorflow=True, torch=True):
    """Intra-op threads of TensorFlow (inter-op 1) and/or PyTorch; a TensorFlow that already
    started keeps its setting."""
    if tensorflow:
        import tensorflow as tf

        try:
            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(1)
        except RuntimeError:  # TensorFlow already started (suites run inside another program)
            pass
    if torch:
        import torch as torch_module

        torch_module.set_num_threads(threads)


def _one_line(error):
    last = traceback.format_exception_only(type(error), error)[-1].strip()
    return " ".join(last.split())


def _serve(conn, build_fn, args):
    """The worker process: build, say which cases it has, then run one case per request until
    it receives None."""
    try:
        cases = build_fn(*args)
    except BaseException as error:  # noqa: BLE001 -- reported to the coordinator, which raises
        conn.send(("error", f"building failed: {_one_line(error)}"))
        return
    conn.send(("ready", list(cases)))
    while True:
        case = conn.recv()
        if case is None:
            return
        try:
            cases[case]()
        except BaseException as error:  # noqa: BLE001
            conn.send(("error", f"{case} failed: {_one_line(error)}"))
            return
        conn.send(("done", None))


class Worker:
    """One candidate built by `build_fn(*args)` in a spawned process; see the module doc."""

    def __init__(self, name, build_fn, *args):
        self.name = name
        context = multiprocessing.get_context("spawn")  # a fresh interpreter: no shared runtime
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, build_fn, args),
                                        name=f"benchmark worker: {name}", daemon=True)
        self._process.start()
        child.close()
        self.cases = self._reply()

    @property
    def pid(self):
        return self._process.pid

    def _reply(self):
        try:
            kind, value = self._conn.recv()
        except EOFError:
            self._process.join(timeout=5)
            raise WorkerError(
                f"{self.name}: its process ended without a word (exit code "
                f"{self._process.exitcode}; a negative code is the signal, -9 usually means out "
                "of memory: time fewer candidates at once).") from None
        if kind == "error":
            self.close()
            raise WorkerError(f"{self.name}: {value}")
        return value

    def call(self, case):
        """Runs `case` in the worker; returns when it has finished."""
        if case not in self.cases:
            raise KeyError(f"{self.name} has no case {case!r}; it has {self.cases}.")
        self._conn.send(case)
        self._reply()

    def caller(self, case):
        """A no-argument function running `case`, for `harness.interleaved`."""
        if case not in self.cases:
            raise KeyError(f"{self.name} has no case {case!r}; it has {self.cases}.")
        return lambda: self.call(case)

    def close(self):
        """Stops the process (asks first, then terminates)."""
        if self._process.is_alive():
            try:
                self._conn.send(None)
            except (BrokenPipeError, OSError):
                pass
            self._process.join(timeout=30)
            if self._process.is_alive():
                self._process.terminate()
                self._process.join()
        self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
