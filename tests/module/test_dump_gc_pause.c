/* test_dump_gc_pause.c - a dump that reduces many objects runs with
 * automatic collection paused (gcpause.c, pickler.c): paused only once it
 * has reduced a few hundred objects, never for a small dump, always lifted
 * at its end (success, failure, nested dumps, Pickler.dump and dumps
 * alike), the user's own gc settings kept, and never started by CPython's
 * dump() called on our Pickler directly, which could not lift it. */
#include "support.h"

TestSuite(dump_gc_pause, .init = cpk_py_start, .fini = cpk_py_stop);

/* Seen records gc.get_threshold()[0] at each reduction of its instances. */
#define SEEN                                                                 \
    "import ccloudpickle as cp, gc, io, _pickle\n"                          \
    "seen = []\n"                                                            \
    "class Seen:\n"                                                          \
    "    def __reduce__(self):\n"                                            \
    "        seen.append(gc.get_threshold()[0])\n"                           \
    "        return (Seen, ())\n"                                            \
    "before = gc.get_threshold()\n"

Test(dump_gc_pause, large_dump_pauses_then_restores)
{
    cpk_py(SEEN
           "data = cp.dumps([Seen() for _ in range(1000)])\n"
           "assert len(cp.loads(data)) == 1000\n"
           /* Not paused for the first reductions, paused for the rest. */
           "assert seen[0] == before[0] and seen[-1] == 0, (seen[0], seen[-1])\n"
           "assert seen.count(0) >= 700, seen.count(0)\n"
           "assert gc.get_threshold() == before, gc.get_threshold()\n"
           "assert gc.isenabled()\n"
           /* Pickler.dump the same way. */
           "seen.clear()\n"
           "cp.Pickler(io.BytesIO()).dump([Seen() for _ in range(1000)])\n"
           "assert seen[-1] == 0 and gc.get_threshold() == before\n");
}

Test(dump_gc_pause, small_dump_is_not_paused)
{
    cpk_py(SEEN
           "cp.dumps([Seen() for _ in range(100)])\n"
           "assert set(seen) == {before[0]}, set(seen)\n"
           "assert gc.get_threshold() == before\n");
}

Test(dump_gc_pause, failed_dump_restores)
{
    cpk_py(SEEN
           "import threading\n"
           "for make in (cp.dumps, lambda o: cp.Pickler(io.BytesIO()).dump(o)):\n"
           "    try:\n"
           "        make([Seen() for _ in range(600)] + [threading.local()])\n"
           "    except TypeError:\n"
           "        pass\n"
           "    else:\n"
           "        raise AssertionError('a lock pickled')\n"
           "    assert seen.count(0) >= 300, seen.count(0)\n"
           "    assert gc.get_threshold() == before, gc.get_threshold()\n"
           "    seen.clear()\n");
    /* An exception raised by a reducer while paused: the same. */
    cpk_py(SEEN
           "class Boom:\n"
           "    def __reduce__(self):\n"
           "        raise KeyboardInterrupt\n"
           "try:\n"
           "    cp.dumps([Seen() for _ in range(600)] + [Boom()])\n"
           "except KeyboardInterrupt:\n"
           "    pass\n"
           "assert seen.count(0) >= 300 and gc.get_threshold() == before\n");
}

Test(dump_gc_pause, nested_dumps_lift_it_once)
{
    /* Dumps inside a large dump's reducers: the outer pause lasts until
     * the outer dump ends; each inner one ends its own (counted). */
    cpk_py(SEEN
           "inner = []\n"
           "class Nest:\n"
           "    def __reduce__(self):\n"
           "        cp.dumps([Seen() for _ in range(300)])\n"
           "        inner.append(gc.get_threshold()[0])\n"
           "        return (Nest, ())\n"
           "cp.dumps([Seen() for _ in range(300)] + [Nest() for _ in range(3)]\n"
           "         + [Seen()])\n"
           "assert inner == [0, 0, 0], inner\n"
           "assert seen[-1] == 0\n"
           "assert gc.get_threshold() == before, gc.get_threshold()\n");
}

Test(dump_gc_pause, dump_inside_its_own_dump_is_refused)
{
    /* CPython's dump() on a Pickler already dumping frees the buffer the
     * outer dump writes to (a crash with plain _pickle): refused, and the
     * outer dump's pause lifted as it fails. */
    cpk_py(SEEN
           "p = cp.Pickler(io.BytesIO())\n"
           "class Again:\n"
           "    def __reduce__(self):\n"
           "        p.dump([Seen() for _ in range(300)])\n"
           "        return (Again, ())\n"
           "try:\n"
           "    p.dump([Seen() for _ in range(300)] + [Again()])\n"
           "except cp.PicklingError as e:\n"
           "    assert 'while this Pickler is dumping' in str(e), e\n"
           "else:\n"
           "    raise AssertionError('nested dump of one Pickler ran')\n"
           "assert gc.get_threshold() == before, gc.get_threshold()\n"
           "buf = io.BytesIO()\n"
           "q = cp.Pickler(buf)\n"
           "q.dump([1, 2])\n"
           "assert cp.loads(buf.getvalue()) == [1, 2]\n");
}

Test(dump_gc_pause, user_settings_stand)
{
    /* gc.disable() by the user stays; a threshold the user sets during
     * the dump is the one kept. */
    cpk_py(SEEN
           "gc.disable()\n"
           "cp.dumps([Seen() for _ in range(600)])\n"
           "assert not gc.isenabled() and gc.get_threshold() == before\n"
           "gc.enable()\n"
           "class Set:\n"
           "    def __reduce__(self):\n"
           "        gc.set_threshold(555)\n"
           "        return (Set, ())\n"
           "try:\n"
           "    cp.dumps([Seen() for _ in range(600)] + [Set()])\n"
           "    assert gc.get_threshold()[0] == 555, gc.get_threshold()\n"
           "finally:\n"
           "    gc.set_threshold(*before)\n");
}

Test(dump_gc_pause, cpythons_dump_on_our_pickler_never_pauses)
{
    /* _pickle.Pickler.dump(p, obj) skips our dump(): nothing would end a
     * pause, so none begins. */
    cpk_py(SEEN
           "p = cp.Pickler(io.BytesIO())\n"
           "_pickle.Pickler.dump(p, [Seen() for _ in range(1000)])\n"
           "assert set(seen) == {before[0]}, set(seen)\n"
           "assert gc.get_threshold() == before\n");
}

Test(dump_gc_pause, fork_during_a_pause_restores_the_child)
{
    /* A fork from inside a paused dump (here a __reduce__; another
     * thread's fork is the same): the child collects again at once. */
    cpk_py(SEEN
           "import os\n"
           "class Fork:\n"
           "    def __reduce__(self):\n"
           "        pid = os.fork()\n"
           "        if pid == 0:\n"
           "            ok = gc.get_threshold() == before\n"
           "            cp.dumps([Seen() for _ in range(600)])\n"
           "            ok = ok and gc.get_threshold() == before\n"
           "            os._exit(0 if ok else 3)\n"
           "        _, status = os.waitpid(pid, 0)\n"
           "        results.append(os.waitstatus_to_exitcode(status))\n"
           "        return (Fork, ())\n"
           "results = []\n"
           "cp.dumps([Seen() for _ in range(600)] + [Fork()])\n"
           "assert results == [0], results\n"
           "assert gc.get_threshold() == before\n");
}
