/* test_cov_tracker_callback.c - the weak reference callback that drops a
 * dead class from the class tracker: called with the wrong arguments it
 * raises TypeError; called with a weak reference that is not the
 * tracker's own (a stray call) it removes nothing, so the live class
 * keeps its tracker id and a pickle of it still loads as itself. */
#include "support.h"

TestSuite(cov_tracker_callback, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_tracker_callback, stray_calls_remove_nothing)
{
    cpk_py_file("stray_calls_remove_nothing.py");
}
