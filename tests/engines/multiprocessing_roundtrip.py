"""multiprocessing and concurrent.futures through
ccloudpickle.install_multiprocessing(), for one start method (argv[1]).

Lambdas, closures and a class defined in __main__ go to workers and come
back (Pool.map, Pool.apply_async, Queue, Pipe, ProcessPoolExecutor);
instances made by workers come back as instances of the parent's class.
Plain multiprocessing cannot send any of them: checked first, so an `ok`
line proves ccloudpickle carried the object.
"""
import concurrent.futures
import multiprocessing
import multiprocessing.reduction
import sys

import ccloudpickle

import _enginecheck as check


class Point:
    """A class of __main__: pickled by value."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def norm1(self):
        return abs(self.x) + abs(self.y)


def make_adder(n):
    def add(x):
        return x + n
    return add


def queue_child(q, f):
    # Runs in the child: f came from the parent, the lambda and the Point
    # go back.
    q.put((f(1), lambda y: y * 7, Point(3, -4)))


def pipe_child(conn, f):
    conn.send((f(2), make_adder(100), Point(1, 1)))
    conn.close()


def main(method):
    ctx = multiprocessing.get_context(method)
    # Plain multiprocessing refuses a lambda, a closure and a __main__
    # class that it cannot find by name.
    for obj in (lambda: 1, make_adder(1)):
        try:
            multiprocessing.reduction.ForkingPickler.dumps(obj)
        except (AttributeError, TypeError, multiprocessing.reduction.pickle.PicklingError):
            pass
        else:
            raise AssertionError("plain ForkingPickler pickled %r" % (obj,))
    check.ok("plain-refuses")

    ccloudpickle.install_multiprocessing()
    ccloudpickle.install_multiprocessing()  # idempotent
    import _ccloudpickle_engines as eng
    assert multiprocessing.reduction.ForkingPickler.__name__ == "ForkingCloudPickler"
    assert eng._installed()

    add5 = make_adder(5)
    with ctx.Pool(2) as pool:
        assert pool.map(lambda x: x * x, range(10)) == [x * x for x in range(10)]
        check.ok("pool-map-lambda")
        assert pool.apply_async(add5, (10,)).get() == 15
        check.ok("pool-apply-async-closure")
        pts = pool.map(lambda i: Point(i, -i), range(4))
        assert all(type(p) is Point for p in pts), [type(p) for p in pts]
        assert [p.norm1() for p in pts] == [0, 2, 4, 6]
        check.ok("pool-class-instances-back")
        # A class object there and back keeps its identity.
        assert pool.apply(lambda c: c, (Point,)) is Point
        check.ok("pool-class-identity")
        # Workers answer with a closure of their own.
        f = pool.apply(lambda: make_adder(40))
        assert f(2) == 42
        check.ok("pool-closure-back")
        # Children installed it without an initializer (fork: inherited;
        # spawn/forkserver: once the Process object is loaded).
        assert all(pool.map(lambda _: __import__("_ccloudpickle_engines")._installed(), range(4)))
        check.ok("pool-children-installed")
        check.record()

    # An initializer is accepted (idempotent in the child).
    with ctx.Pool(1, initializer=ccloudpickle.install_multiprocessing) as pool:
        assert pool.apply(lambda: (lambda: 9))() == 9
        check.ok("pool-initializer")
        check.record()

    q = ctx.Queue()
    p = ctx.Process(target=queue_child, args=(q, lambda x: x + 0.5))
    p.start()
    check.record()
    got, lam, pt = q.get()
    p.join(120)
    assert p.exitcode == 0, p.exitcode
    assert got == 1.5 and lam(2) == 14 and type(pt) is Point and pt.norm1() == 7
    check.ok("queue")

    parent_end, child_end = ctx.Pipe()
    p = ctx.Process(target=pipe_child, args=(child_end, make_adder(3)))
    p.start()
    check.record()
    child_end.close()
    got, f, pt = parent_end.recv()
    p.join(120)
    assert p.exitcode == 0, p.exitcode
    assert got == 5 and f(1) == 101 and type(pt) is Point
    check.ok("pipe")

    with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx) as ex:
        assert ex.submit(lambda: 6 * 7).result() == 42
        assert list(ex.map(add5, range(3))) == [5, 6, 7]
        pts = list(ex.map(lambda i: Point(i, 1), range(3)))
        assert [type(p) for p in pts] == [Point] * 3
        assert ex.submit(lambda: Point).result() is Point
        check.record()
    check.ok("process-pool-executor")

    assert not multiprocessing.active_children()
    check.finish()


if __name__ == "__main__":
    main(sys.argv[1])
