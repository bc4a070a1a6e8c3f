"""Dask's processes scheduler with ccloudpickle as its task serializer.

argv[1]: "config" (dask.config.set(func_dumps=..., func_loads=...)) or
"get" (dask.multiprocessing.get(..., func_dumps=, func_loads=)). A graph
of lambdas, closures and a class of __main__ runs on 2 spawned workers;
stock cloudpickle is made to fail in this process first, so the results
prove that ccloudpickle carried the tasks (and the workers' results).
"""
import sys

import dask
import dask.multiprocessing

import ccloudpickle

import _enginecheck as check


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def norm1(self):
        return abs(self.x) + abs(self.y)


def make_adder(n):
    def add(x):
        return x + n
    return add


def worker_modules():
    import sys
    return "ccloudpickle" in sys.modules


def _stock_refused(*args, **kwargs):
    raise AssertionError("stock cloudpickle was used")


def graph():
    add10 = make_adder(10)
    return {
        "a": 1,
        "b": (lambda x: x * 3, "a"),
        "c": (add10, "b"),
        "p": (lambda c: Point(c, -c), "c"),
        "n": (lambda p: p.norm1(), "p"),
        "cls": (lambda: Point,),
        "f": (make_adder, "a"),
        "w": (worker_modules,),
        "pid": (lambda: __import__("os").getpid(),),
    }


def check_results(res, mode):
    b, c, p, n, cls, f, w, pid = res
    check._seen.add(pid)  # a worker: the C test checks it is gone
    assert (b, c, n) == (3, 13, 26), (b, c, n)
    assert type(p) is Point and p.norm1() == 26
    assert cls is Point
    assert f(1) == 2
    assert w is True
    check.ok("graph-" + mode)


def main(mode):
    import cloudpickle
    cloudpickle.dumps = cloudpickle.loads = _stock_refused
    dask.multiprocessing._dumps = dask.multiprocessing._loads = _stock_refused
    keys = ["b", "c", "p", "n", "cls", "f", "w", "pid"]
    with dask.config.set({"multiprocessing.context": "spawn",
                          "num_workers": 2}):
        if mode == "config":
            with dask.config.set(func_dumps=ccloudpickle.dumps,
                                 func_loads=ccloudpickle.loads,
                                 scheduler="processes"):
                # dask.compute with the scheduler from the configuration
                from dask.delayed import Delayed
                res = dask.compute(*[Delayed(k, graph()) for k in keys])
        else:
            res = dask.multiprocessing.get(graph(), keys,
                                           func_dumps=ccloudpickle.dumps,
                                           func_loads=ccloudpickle.loads)
    check_results(res, mode)
    # Without ccloudpickle the poisoned stock cloudpickle is what dask uses.
    try:
        dask.multiprocessing.get(graph(), ["b"])
    except AssertionError as exc:
        assert "stock cloudpickle was used" in str(exc)
    else:
        raise AssertionError("the default serializer was not stock cloudpickle")
    check.ok("default-is-stock")
    check.finish()


if __name__ == "__main__":
    main(sys.argv[1])
