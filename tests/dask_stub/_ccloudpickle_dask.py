"""A stand-in for _ccloudpickle_dask, for tests/cli/test_cov_dask_stub.c.

It speaks the Runner protocol that cli/map/mapdask.c uses (Runner(address,
data, window), .window, submit(calls), next(timeout), close()), runs the
calls in this process, no cluster, and misbehaves as CPK_STUB_MODE says,
so that the program's side of each broken promise can be checked.
"""

import os

import ccloudpickle

MODE = os.environ.get("CPK_STUB_MODE", "")


class Refusal(Exception):
    """args: (exit status, message), as the real module's."""


if MODE == "import":
    raise ImportError("no dask companion here")


class Runner:
    def __init__(self, address, data, window):
        if MODE == "open":
            raise RuntimeError("cannot reach %s" % address)
        if MODE == "refuse":
            raise Refusal(4, "no workers at %s" % address)
        self.fn = ccloudpickle.loads(data)
        self.window = 0 if MODE == "window" else (window or 2)
        self.pending = []
        self.waits = 2 if MODE == "slow" else 0

    def submit(self, calls):
        if MODE == "submit":
            raise RuntimeError("submit failed")
        self.pending.append(list(calls))

    def next(self, timeout):
        if self.waits > 0:
            self.waits -= 1
            return None  # not done yet: the program asks again
        if MODE == "garbage":
            return "garbage"
        if MODE == "nextraise":
            raise RuntimeError("next failed")
        out = []
        for args, kwargs in self.pending.pop(0):
            try:
                out.append((0, self.fn(*args, **(kwargs or {}))))
            except Exception as exc:
                out.append((1, exc, exc.__traceback__))
        if MODE == "short":
            out.pop()
        elif MODE == "malformed":
            out = [(0,)] * len(out)
        elif MODE == "notexc":
            out = [(1, "not an exception")] * len(out)
        return 0.001, out

    def close(self):
        self.pending = []
