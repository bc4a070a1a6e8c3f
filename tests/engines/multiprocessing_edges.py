"""install_multiprocessing() edges, for one start method (argv[1]):
multiprocessing's own reducers still work after install, the initializer
alone lets workers reply with ccloudpickle, install_multiprocessing(False)
undoes it, and wrap() without install (plain pickle, a Pool), including
its refusal of an object it cannot pickle.
"""
import multiprocessing
import multiprocessing.connection
import multiprocessing.queues
import multiprocessing.reduction as reduction
import pickle
import sys
import threading

import ccloudpickle

import _enginecheck as check


def make_adder(n):
    def add(x):
        return x + n
    return add


def plus_one(x):
    return x + 1


def reply_with_lambda(k):
    # A module-level task (plain multiprocessing sends it by name) whose
    # result is a lambda: only a worker that installed ccloudpickle can
    # send it back.
    return lambda y: y * k


def use_connection(q):
    # The child receives a Connection through a Queue (multiprocessing's
    # own reducer for Connection, resource_sharer/DupFd) and answers on it.
    conn = q.get()
    conn.send(("hello through a passed connection", lambda: 5))
    conn.close()


class Tagged:
    def __init__(self, v):
        self.v = v


def reduce_tagged(obj):
    return (Tagged, ("reduced:" + obj.v,))


def refuses(obj):
    try:
        reduction.ForkingPickler.dumps(obj)
    except (AttributeError, TypeError, pickle.PicklingError):
        return True
    return False


def main(method):
    ctx = multiprocessing.get_context(method)
    original = reduction.ForkingPickler
    bindings = (original, multiprocessing.connection._ForkingPickler,
                multiprocessing.queues._ForkingPickler)
    assert refuses(lambda: 1)

    # 1. The initializer alone: this process keeps the plain pickler (the
    # task goes by name), the workers install ccloudpickle and send a
    # lambda back.
    with ctx.Pool(2, initializer=ccloudpickle.install_multiprocessing) as pool:
        f = pool.apply(reply_with_lambda, (3,))
        assert f(5) == 15
        check.record()
    assert reduction.ForkingPickler is original
    check.ok("initializer-only")

    # 2. wrap() without install: plain pickle, then a Pool.
    w = ccloudpickle.wrap(lambda x: x * 10)
    again = pickle.loads(pickle.dumps(w))
    assert again(4) == 40 and w(1) == 10
    bare = pickle.loads(pickle.dumps(ccloudpickle.wrap(make_adder(2), keep_wrapper=False)))
    assert bare(1) == 3 and type(bare).__name__ == "function"
    with ctx.Pool(2) as pool:
        assert pool.map(ccloudpickle.wrap(make_adder(7)), range(3)) == [7, 8, 9]
        # a wrapped value as an argument
        assert pool.apply(plus_one, (1,)) == 2
        check.record()
    check.ok("wrap-plain-pickle-and-pool")

    @ccloudpickle.wrap
    def decorated(x):
        return x - 1
    assert decorated.__name__ == "decorated"
    assert pickle.loads(pickle.dumps(decorated))(1) == 0

    @ccloudpickle.wrap
    class Box:
        def __init__(self, v):
            self.v = v

        def get(self):
            return self.v
    b = Box(3)
    assert isinstance(b, Box) and b.get() == 3
    b2 = pickle.loads(pickle.dumps(b))
    assert b2.get() == 3 and b2.v == 3
    assert pickle.loads(pickle.dumps(Box))(4).get() == 4
    check.ok("wrap-decorator")

    lock = threading.local()

    def uses_lock():
        with lock:
            return 1
    try:
        pickle.dumps(ccloudpickle.wrap(uses_lock))
    except pickle.PicklingError as exc:
        msg = str(exc)
        assert "ccloudpickle.wrap" in msg and "uses_lock" in msg and "lock" in msg, msg
    else:
        raise AssertionError("wrap of a function holding a lock pickled")
    # wrap() itself does not pickle (errors come when it is sent).
    ccloudpickle.wrap(uses_lock)
    check.ok("wrap-refuses-unpicklable")

    # 3. multiprocessing's own reducers after install: a Connection sent
    # through a Queue, and a reducer registered after install.
    ccloudpickle.install_multiprocessing()
    assert not refuses(lambda: 1)
    q = ctx.Queue()
    mine, theirs = ctx.Pipe()
    p = ctx.Process(target=use_connection, args=(q,))
    p.start()
    check.record()
    q.put(theirs)
    text, f = mine.recv()
    p.join(120)
    assert p.exitcode == 0, p.exitcode
    assert text == "hello through a passed connection" and f() == 5
    check.ok("own-reducers-connection")

    reduction.register(Tagged, reduce_tagged)
    assert pickle.loads(reduction.ForkingPickler.dumps(Tagged("x"))).v == "reduced:x"
    # the original class sees the same registry
    assert Tagged in original._extra_reducers
    check.ok("own-reducers-register")

    # 4. Undo.
    ccloudpickle.install_multiprocessing(False)
    ccloudpickle.install_multiprocessing(False)
    assert (reduction.ForkingPickler, multiprocessing.connection._ForkingPickler,
            multiprocessing.queues._ForkingPickler) == bindings
    assert refuses(lambda: 1)
    # the pickler that sends the Process object is multiprocessing's own
    assert reduction.ForkingPickler is original
    with ctx.Pool(1) as pool:
        try:
            pool.apply(lambda: 1)
        except (AttributeError, TypeError, pickle.PicklingError):
            pass
        else:
            raise AssertionError("a lambda went through after uninstall")
        check.record()
    check.ok("uninstall")

    assert not multiprocessing.active_children()
    check.finish()


if __name__ == "__main__":
    main(sys.argv[1])
