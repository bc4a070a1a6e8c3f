/* test_culprit.c - a failed ccloudpickle.dumps(), dump() or Pickler.dump()
 * names the path to what cannot be pickled (src/engine/diagnose.c), on the very
 * exception raised: a note on 3.11+ ("when pickling f.__globals__['LOCK']
 * (_thread._local)"), its message before ("...; when pickling ..."). The
 * exception keeps its type, identity, traceback and cause; a search that
 * fails leaves it as it was; interrupts during the search propagate;
 * successful dumps run nothing more. The search itself (_find_unpicklable)
 * is test_diagnose.c's and test_coverage_io.c's. */
#include "support.h"

#include <string.h>

TestSuite(culprit, .init = cpk_py_start, .fini = cpk_py_stop);

Test(culprit, lock_in_function_globals)
{
    cpk_py_file("_prelude.py", "lock_in_function_globals.py");
}

Test(culprit, lock_in_closure_cell)
{
    cpk_py_file("_prelude.py", "lock_in_closure_cell.py");
}

Test(culprit, lock_in_nested_dict_list_and_attribute)
{
    /* The example, and roots without a __qualname__: named by
     * their type. */
    cpk_py_file("_prelude.py", "lock_in_nested_dict_list_and_attribute.py");
}

Test(culprit, lock_in_class_attribute_of_a_class_by_value)
{
    cpk_py_file("_prelude.py",
                "lock_in_class_attribute_of_a_class_by_value.py");
}

Test(culprit, dump_to_a_file_object)
{
    cpk_py_file("_prelude.py", "dump_to_a_file_object.py");
}

Test(culprit, pickler_and_subclasses)
{
    cpk_py_file("_prelude.py", "pickler_and_subclasses.py");
}

Test(culprit, turned_off)
{
    /* The search re-runs user reducers: diagnose=False on dumps/dump, the
     * `diagnose` attribute of a Pickler (instance or subclass). */
    cpk_py_file("_prelude.py", "turned_off.py");
    cpk_py_raises(cpk_py_text("_prelude.py", "turned_off_2.py"), "ValueError",
                  "no bool");
}

Test(culprit, exception_is_the_original)
{
    /* A user reducer's PicklingError, raised from another error: the same
     * object, type, cause and traceback (the reducer's frame), plus the
     * path. */
    cpk_py_file("_prelude.py", "exception_is_the_original.py");
}

Test(culprit, failing_search_leaves_the_original)
{
    cpk_py_file("_prelude.py", "failing_search_leaves_the_original.py");
}

Test(culprit, interrupt_during_the_search_propagates)
{
    /* The first reduce fails, the search's one is interrupted: the
     * interrupt is raised, with the original as its __context__ (as an
     * exception raised in an except block). */
    cpk_py_file("_prelude.py", "interrupt_during_the_search_propagates.py");
}

Test(culprit, not_for_interrupts_nor_successes)
{
    /* KeyboardInterrupt, SystemExit, MemoryError from the dump itself: no
     * search (the reducer runs once), nothing added. */
    cpk_py_file("_prelude.py", "not_for_interrupts_nor_successes.py");
}

Test(culprit, compat_formats_search_in_their_format)
{
    /* A field sentinel cloudpickle 2.2 cannot rebuild: the path is where
     * the compat dump fails (ours would pickle it). */
    cpk_py_file("_prelude.py", "compat_formats_search_in_their_format.py");
}

Test(culprit, deep_and_huge_structures, .timeout = 120)
{
    /* Too deep even for the retry on a large stack (pickler.c): the
     * recursion error as before, no search. A huge flat list: bisected,
     * the lock at its end found. */
    cpk_py_file("_prelude.py", "deep_and_huge_structures.py");
}

Test(culprit, nested_dumps_are_not_diagnosed_during_a_search)
{
    /* A reducer calling dumps() itself: its failure gets a path when the
     * reducer runs for the dump, none when it runs again for a search. */
    cpk_py_file("_prelude.py",
                "nested_dumps_are_not_diagnosed_during_a_search.py");
}

Test(culprit, threads_each_get_their_own)
{
    cpk_py_file("_prelude.py", "threads_each_get_their_own.py");
}

/* What an uncaught failure prints, in a fresh interpreter: the note under
 * the exception line on 3.11+, one longer line before. */
Test(culprit, uncaught_traceback_shows_the_path)
{
    cpk_proc p;
    cpk_python(&p,
               "import ccloudpickle, threading\n"
               "LOCK = threading.local()\n"
               "def locked():\n"
               "    return LOCK\n"
               "ccloudpickle.dumps(locked)\n",
               NULL, 0);
    cpk_assert_exit(&p, 1);
    const char *want =
        PY_VERSION_HEX >= 0x030B0000
            ? "TypeError: cannot pickle '_thread._local' object\n"
              "when pickling locked.__globals__['LOCK'] (_thread._local)\n"
            : "TypeError: cannot pickle '_thread._local' object; "
              "when pickling locked.__globals__['LOCK'] (_thread._local)\n";
    size_t n = strlen(want);
    cr_assert(p.err_len >= n && strcmp(p.err + p.err_len - n, want) == 0,
              "stderr:\n%s", p.err);
    cr_assert(strstr(p.err, "Traceback (most recent call last):") != NULL);
    cpk_proc_free(&p);
}
