/* test_cov_tracker_callback.c - the weak reference callback that drops a
 * dead class from the class tracker: called with the wrong arguments it
 * raises TypeError; called with a weak reference that is not the
 * tracker's own (a stray call) it removes nothing, so the live class
 * keeps its tracker id and a pickle of it still loads as itself. */
#include "support.h"

TestSuite(cov_tracker_callback, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_tracker_callback, stray_calls_remove_nothing)
{
    cpk_py("import ccloudpickle as cp, weakref\n"
           "class C:\n"
           "    pass\n"
           "first = cp.dumps(C)\n"
           "cbs = [w.__callback__ for w in weakref.getweakrefs(C)\n"
           "       if type(w.__callback__).__name__ == '_TrackerCallback']\n"
           "assert len(cbs) == 1, cbs\n"
           "cb = cbs[0]\n"
           "for args in ((), (1, 2)):\n"
           "    try:\n"
           "        cb(*args)\n"
           "    except TypeError as e:\n"
           "        assert 'callback expected 1 argument' in str(e), e\n"
           "    else:\n"
           "        raise AssertionError(args)\n"
           "assert cb(weakref.ref(C)) is None\n"
           "assert cb(None) is None\n"
           "assert cp.loads(first) is C\n"
           "assert cp.dumps(C) == first\n");
}
