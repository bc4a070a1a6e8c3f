/* test_dump_gc_pause.c - a dump that reduces many objects runs with
 * automatic collection paused (gcpause.c, pickler.c): paused only once it
 * has reduced a few hundred objects, never for a small dump, always lifted
 * at its end (success, failure, nested dumps, Pickler.dump and dumps
 * alike), the user's own gc settings kept, and never started by CPython's
 * dump() called on our Pickler directly, which could not lift it. */
#include "support.h"

TestSuite(dump_gc_pause, .init = cpk_py_start, .fini = cpk_py_stop);

Test(dump_gc_pause, large_dump_pauses_then_restores)
{
    cpk_py_file("_seen.py", "large_dump_pauses_then_restores.py");
}

Test(dump_gc_pause, small_dump_is_not_paused)
{
    cpk_py_file("_seen.py", "small_dump_is_not_paused.py");
}

Test(dump_gc_pause, failed_dump_restores)
{
    cpk_py_file("_seen.py", "failed_dump_restores.py");
    /* An exception raised by a reducer while paused: the same. */
    cpk_py_file("_seen.py", "failed_dump_restores_2.py");
}

Test(dump_gc_pause, nested_dumps_lift_it_once)
{
    /* Dumps inside a large dump's reducers: the outer pause lasts until
     * the outer dump ends; each inner one ends its own (counted). */
    cpk_py_file("_seen.py", "nested_dumps_lift_it_once.py");
}

Test(dump_gc_pause, dump_inside_its_own_dump_is_refused)
{
    /* CPython's dump() on a Pickler already dumping frees the buffer the
     * outer dump writes to (a crash with plain _pickle): refused, and the
     * outer dump's pause lifted as it fails. */
    cpk_py_file("_seen.py", "dump_inside_its_own_dump_is_refused.py");
}

Test(dump_gc_pause, user_settings_stand)
{
    /* gc.disable() by the user stays; a threshold the user sets during
     * the dump is the one kept. */
    cpk_py_file("_seen.py", "user_settings_stand.py");
}

Test(dump_gc_pause, cpythons_dump_on_our_pickler_never_pauses)
{
    /* _pickle.Pickler.dump(p, obj) skips our dump(): nothing would end a
     * pause, so none begins. */
    cpk_py_file("_seen.py", "cpythons_dump_on_our_pickler_never_pauses.py");
}

Test(dump_gc_pause, fork_during_a_pause_restores_the_child)
{
    /* A fork from inside a paused dump (here a __reduce__; another
     * thread's fork is the same): the child collects again at once. */
    cpk_py_file("_seen.py", "fork_during_a_pause_restores_the_child.py");
}
