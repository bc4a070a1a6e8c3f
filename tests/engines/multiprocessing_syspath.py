"""install_multiprocessing() in a parent that found ccloudpickle through a
sys.path entry it added at run time (argv[2]), not PYTHONPATH, for one
start method (argv[1]). A spawn or forkserver child starts with the
default sys.path and gets the parent's only from
multiprocessing.spawn.prepare(): installing in the child must wait for it.
Then: a parent whose sys.path no longer reaches ccloudpickle still starts
a Process (the child does not try to install).
"""
import os
import sys

sys.path.insert(0, sys.argv[2])

import multiprocessing  # noqa: E402
import time  # noqa: E402

import ccloudpickle  # noqa: E402

import _enginecheck as check  # noqa: E402


def inc(x):
    return x + 1


def installed(_):
    return __import__("_ccloudpickle_engines")._installed()


def main(method):
    assert "PYTHONPATH" not in os.environ
    ccloudpickle.install_multiprocessing()
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(1) as pool:
        assert pool.map(inc, [1, 2]) == [2, 3]
        check.ok("pool-map")
        # A worker's own lambda comes back: the worker installed it.
        assert all(pool.map(installed, range(2)))
        f = pool.apply(lambda: (lambda y: y * 3))
        assert f(2) == 6
        check.ok("workers-installed")
        check.record()

    # The parent's sys.path no longer reaches ccloudpickle: the child
    # gets that sys.path, so it is not asked to import it.
    sys.path.remove(sys.argv[2])
    p = ctx.Process(target=time.sleep, args=(0,))
    p.start()
    check.record()
    p.join()
    assert p.exitcode == 0, p.exitcode
    check.ok("process-without-path")
    sys.path.insert(0, sys.argv[2])
    ccloudpickle.install_multiprocessing(False)
    check.finish()


if __name__ == "__main__":
    main(sys.argv[1])
