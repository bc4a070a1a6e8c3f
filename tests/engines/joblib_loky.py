"""joblib/loky with ccloudpickle as loky's pickler.

argv[1]: "env" (the test sets LOKY_PICKLER=ccloudpickle) or "call"
(set_loky_pickler("ccloudpickle") in this script). Parallel(n_jobs=2)
runs lambdas, closures and a class defined in __main__ and gets instances
back; joblib.wrap_non_picklable_objects works with it. The workers are
asked which pickler they ran with, and stopped at the end.
"""
import os
import sys

import joblib
from joblib.externals.loky import get_reusable_executor, set_loky_pickler
from joblib.externals.loky.backend import reduction

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


def worker_pickler():
    from joblib.externals.loky.backend import reduction as r
    return r.get_loky_pickler_name(), r.get_loky_pickler().__mro__[1].__module__


def plain_pickle_with_wrap():
    # loky on plain pickle (fast, by name only), ccloudpickle.wrap for the
    # one object that needs it.
    import pickle
    import ccloudpickle
    set_loky_pickler("pickle")
    assert reduction.get_loky_pickler_name() == "pickle"
    with joblib.Parallel(n_jobs=2) as par:
        try:
            par(joblib.delayed(lambda x: x)(i) for i in range(2))
        except (pickle.PicklingError, AttributeError, TypeError):
            pass
        else:
            raise AssertionError("plain pickle sent a lambda")
        f = ccloudpickle.wrap(make_adder(1))
        assert par(joblib.delayed(f)(i) for i in range(4)) == [1, 2, 3, 4]
        check.record()
    check.ok("ccloudpickle-wrap-with-plain-loky")
    get_reusable_executor().shutdown(wait=True)
    check.finish()


def main(mode):
    if mode == "wrap":
        return plain_pickle_with_wrap()
    if mode == "env":
        assert os.environ.get("LOKY_PICKLER") == "ccloudpickle"
    else:
        assert "LOKY_PICKLER" not in os.environ
        assert reduction.get_loky_pickler_name() == "cloudpickle"
        set_loky_pickler("ccloudpickle")
    assert reduction.get_loky_pickler_name() == "ccloudpickle"
    import ccloudpickle
    assert issubclass(reduction.get_loky_pickler(), ccloudpickle.Pickler)
    check.ok("loky-pickler-is-ccloudpickle")

    with joblib.Parallel(n_jobs=2) as par:
        out = par(joblib.delayed(lambda x: x * x)(i) for i in range(20))
        assert out == [i * i for i in range(20)]
        check.ok("parallel-lambda")
        add3 = make_adder(3)
        assert par(joblib.delayed(add3)(i) for i in range(5)) == [3, 4, 5, 6, 7]
        check.ok("parallel-closure")
        pts = par(joblib.delayed(lambda i: Point(i, 2 * i))(i) for i in range(6))
        assert all(type(p) is Point for p in pts), [type(p) for p in pts]
        assert [p.norm1() for p in pts] == [3 * i for i in range(6)]
        assert par(joblib.delayed(Point)(1, i) for i in range(3))[2].y == 2
        check.ok("parallel-class")
        fs = par(joblib.delayed(make_adder)(i) for i in range(3))
        assert [f(10) for f in fs] == [10, 11, 12]
        check.ok("parallel-closure-back")
        names = set(par(joblib.delayed(worker_pickler)() for _ in range(8)))
        assert names == {("ccloudpickle", "ccloudpickle")}, names
        check.ok("workers-use-ccloudpickle")
        check.record()

    @joblib.wrap_non_picklable_objects
    def wrapped_square(x):
        return x * x

    @joblib.wrap_non_picklable_objects
    class Wrapped:
        def __init__(self, v):
            self.v = v

        def twice(self):
            return 2 * self.v

    with joblib.Parallel(n_jobs=2) as par:
        assert par(joblib.delayed(wrapped_square)(i) for i in range(5)) == [0, 1, 4, 9, 16]
        res = par(joblib.delayed(lambda v: Wrapped(v))(i) for i in range(3))
        assert [r.twice() for r in res] == [0, 2, 4]
        assert par(joblib.delayed(lambda w: w.twice())(Wrapped(21)) for _ in range(2)) == [42, 42]
        check.record()
    check.ok("wrap-non-picklable-objects")

    get_reusable_executor().shutdown(wait=True)
    check.finish()


if __name__ == "__main__":
    main(sys.argv[1])
