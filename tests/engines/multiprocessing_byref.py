"""install_multiprocessing() and functions of __main__, for one start
method (argv[1]): a top-level def of this script goes by name (the worker
runs its own copy, reading its own globals), as with stock
multiprocessing; a function defined in the `if __name__ == "__main__":`
guard, a lambda, and (fork) a name rebound after the workers were forked
go by value; a by-value function whose globals pickle to more than
warn_globals bytes gets one RuntimeWarning per process.
"""
import multiprocessing
import pickle
import sys
import warnings

import ccloudpickle

import _enginecheck as check

BIG = bytes(200000)


def top(i):
    # True where BIG is the worker's own (this script's global, run there).
    return (BIG is getattr(sys.modules["__main__"], "BIG", None),
            len(BIG) + i)


def rebound(i):
    return ("old", i)


def main(method):
    ccloudpickle.install_multiprocessing(warn_globals=100000)
    from multiprocessing.reduction import ForkingPickler
    data = bytes(ForkingPickler.dumps(top))
    assert len(data) < 100 and b"__main__" in data, data
    assert pickle.loads(data) is top
    check.ok("pickled-by-name")

    def guarded(i):
        return (BIG is getattr(sys.modules["__main__"], "BIG", None),
                len(BIG) + i)

    ctx = multiprocessing.get_context(method)
    with ctx.Pool(2) as pool:
        check.record()
        assert pool.map(top, range(3)) == [(True, 200000 + i)
                                           for i in range(3)]
        check.ok("top-level-by-reference")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert pool.map(guarded, range(2)) == [(False, 200000),
                                                   (False, 200001)]
            assert pool.map(lambda i: len(BIG) - i, range(2)) == [200000,
                                                                  199999]
        texts = [str(w.message) for w in caught
                 if issubclass(w.category, RuntimeWarning)]
        assert len(texts) == 1, texts
        assert "guarded goes to the workers by value" in texts[0], texts[0]
        assert "0.2 MB" in texts[0] and "(BIG)" in texts[0], texts[0]
        check.ok("guarded-by-value-warned-once")
        if method == "fork":
            # Rebound after the workers were forked: theirs is the old one.
            exec(compile("def rebound(i):\n    return ('new', i)\n",
                         __file__, "exec"), globals())
            assert pool.map(rebound, range(2)) == [("new", 0), ("new", 1)]
            check.ok("rebound-after-fork-by-value")
    ccloudpickle.install_multiprocessing(False)

    # Under the threshold, or without one: no warning.
    for limit in (None, 10 ** 6):
        import _ccloudpickle_engines as engines
        engines._warned = False
        engines._measured.clear()
        ccloudpickle.install_multiprocessing(warn_globals=limit)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ForkingPickler.dumps(lambda: len(BIG))
        assert not caught, [str(w.message) for w in caught]
        ccloudpickle.install_multiprocessing(False)
    try:
        ccloudpickle.install_multiprocessing(warn_globals=-1)
    except ValueError:
        pass
    else:
        raise AssertionError("warn_globals=-1 accepted")
    check.ok("threshold")

    # wrap(): the same warning, once.
    engines._warned = False
    engines._measured.clear()
    engines._warn_globals = 100000
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pickle.dumps(ccloudpickle.wrap(lambda: len(BIG)))
        pickle.dumps(ccloudpickle.wrap(lambda: len(BIG) + 1))
    assert len(caught) == 1 and "ccloudpickle.wrap" in str(caught[0].message)
    check.ok("wrap-warned-once")
    check.finish()


if __name__ == "__main__":
    main(sys.argv[1])
