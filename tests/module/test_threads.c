/* test_threads.c - threads: eight threads pickle and load shared functions
 * (closures, lambdas sharing globals) and classes for about a second, each
 * result checked; lazily made objects are made once even when making one
 * runs code that lets another thread in. Thread switches are forced often
 * (sys.setswitchinterval) so that interleavings happen. */
#include "support.h"

TestSuite(threads, .init = cpk_py_start, .fini = cpk_py_stop);

Test(threads, eight_threads_pickle_and_load_shared_objects, .timeout = 60)
{
    cpk_py_file("eight_threads_pickle_and_load_shared_objects.py");
}

Test(threads, globals_ref_made_once_when_a_collection_runs_code)
{
    /* Making p.globals_ref allocates; on CPython 3.11 and earlier an
     * allocation can run a collection, and the gc callbacks, right there.
     * A callback that reads p.globals_ref makes the map first: the outer
     * read must return that same map, not overwrite it. */
    cpk_py_file("globals_ref_made_once_when_a_collection_runs_code.py");
}
