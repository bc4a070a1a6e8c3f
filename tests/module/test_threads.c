/* test_threads.c - threads: eight threads pickle and load shared functions
 * (closures, lambdas sharing globals) and classes for about a second, each
 * result checked; lazily made objects are made once even when making one
 * runs code that lets another thread in. Thread switches are forced often
 * (sys.setswitchinterval) so that interleavings happen. */
#include "support.h"

TestSuite(threads, .init = cpk_py_start, .fini = cpk_py_stop);

Test(threads, eight_threads_pickle_and_load_shared_objects, .timeout = 60)
{
    cpk_py("import ccloudpickle as cp, gc, io, sys, threading, time, traceback\n"
           "sys.setswitchinterval(1e-5)\n"
           "SCALE = 3\n"
           "def make_adder(n):\n"
           "    def add(x):\n"
           "        return x + n * SCALE\n"
           "    return add\n"
           "square = lambda x: x * x * SCALE\n"
           "def uses_both(x):\n"
           "    return square(x) + make_adder(1)(x)\n"
           "class Shape:\n"
           "    sides = 4\n"
           "    def __init__(self, k):\n"
           "        self.k = k\n"
           "    def area(self):\n"
           "        return self.k * self.sides * SCALE\n"
           "    @classmethod\n"
           "    def unit(cls):\n"
           "        return cls(1)\n"
           "adders = [make_adder(i) for i in range(10)]\n"
           "shared = cp.dumps([adders[0], square, Shape])\n"
           /* Large enough for loads to pause the collector (unpickler.c):
            * eight threads pausing and resuming it. */
           "big = cp.dumps([adders[1], [list(range(10)) for _ in range(3000)]])\n"
           "assert len(big) > 65536\n"
           "before = (gc.isenabled(), gc.get_threshold())\n"
           "deadline = time.monotonic() + 1.0\n"
           "errors, counts = [], [0] * 8\n"
           "start = threading.Barrier(8)\n"
           "def check(i, loaded):\n"
           "    f1, f2, sq, ub, S, s, again = loaded\n"
           "    assert f1(1) == 1 + i * 3 and f2(1) == 1 + ((i + 1) % 10) * 3\n"
           "    assert sq(2) == 12 and ub(2) == 12 + 2 + 3\n"
           /* Functions that shared globals share them again, within one
            * pickle. */
           "    g = f1.__globals__\n"
           "    assert f2.__globals__ is g and sq.__globals__ is g\n"
           "    assert ub.__globals__ is g\n"
           "    assert again is f1\n"
           "    assert isinstance(s, S) and s.area() == i * 12\n"
           "    assert S.unit().area() == 12 and S.sides == 4\n"
           "def worker(i):\n"
           "    try:\n"
           "        start.wait()\n"
           "        while time.monotonic() < deadline:\n"
           "            n = counts[i]\n"
           "            f1 = adders[i % 10]\n"
           "            objs = [f1, adders[(i + 1) % 10], square, uses_both,\n"
           "                    Shape, Shape(i), f1]\n"
           "            proto = (2, 4, 5)[n % 3]\n"
           "            if n % 2:\n"
           "                data = cp.dumps(objs, protocol=proto)\n"
           "            else:\n"
           "                buf = io.BytesIO()\n"
           "                p = cp.Pickler(buf, proto)\n"
           "                p.dump(objs)\n"
           "                data = buf.getvalue()\n"
           "            check(i, cp.loads(data))\n"
           "            a, sq, S = cp.loads(shared)\n"
           "            assert a(2) == 2 and sq(1) == 3 and S(2).area() == 24\n"
           "            assert a.__globals__ is sq.__globals__\n"
           "            if n % 5 == 0:\n"
           "                f, rows = cp.loads(big)\n"
           "                assert f(0) == 3 and len(rows) == 3000\n"
           "                assert rows[-1] == list(range(10))\n"
           "            counts[i] += 1\n"
           "    except BaseException:\n"
           "        errors.append(traceback.format_exc())\n"
           "threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]\n"
           "for t in threads:\n"
           "    t.start()\n"
           "for t in threads:\n"
           "    t.join(30)\n"
           "assert not any(t.is_alive() for t in threads), 'a thread hangs'\n"
           "assert not errors, errors[0]\n"
           "assert all(c > 0 for c in counts), counts\n"
           "assert (gc.isenabled(), gc.get_threshold()) == before\n");
}

Test(threads, globals_ref_made_once_when_a_collection_runs_code)
{
    /* Making p.globals_ref allocates; on CPython 3.11 and earlier an
     * allocation can run a collection, and the gc callbacks, right there.
     * A callback that reads p.globals_ref makes the map first: the outer
     * read must return that same map, not overwrite it. */
    cpk_py("import ccloudpickle as cp, gc, io, sys\n"
           "state = {'armed': False, 'inner': None}\n"
           "def cb(phase, info):\n"
           "    if phase == 'start' and state['armed'] and state['inner'] is None:\n"
           "        state['inner'] = state['p'].globals_ref\n"
           "gc.callbacks.append(cb)\n"
           "old = gc.get_threshold()\n"
           "hits = 0\n"
           "try:\n"
           "    for _ in range(50):\n"
           "        state['p'] = cp.Pickler(io.BytesIO())\n"
           "        state['inner'] = None\n"
           /* Empty the dict and list free lists: the next container comes
            * from the collector's allocator. */
           "        keep = [{} for _ in range(200)] + [[] for _ in range(200)]\n"
           "        gc.set_threshold(1)\n"
           "        state['armed'] = True\n"
           "        outer = state['p'].globals_ref\n"
           "        state['armed'] = False\n"
           "        gc.set_threshold(*old)\n"
           "        del keep\n"
           "        if state['inner'] is not None:\n"
           "            hits += 1\n"
           "            assert state['inner'] is outer, 'two globals_ref maps'\n"
           "            assert state['p'].globals_ref is outer\n"
           "finally:\n"
           "    gc.set_threshold(*old)\n"
           "    gc.callbacks.remove(cb)\n"
           "if sys.version_info < (3, 12):\n"
           "    assert hits > 0, 'no collection ran inside the getter'\n");
}
