/* Issue 12: exceptions keep __cause__, __context__, __suppress_context__,
 * __notes__ and their attributes, plus one note with the formatted
 * traceback (scenario in tests/beyond); the original is not changed;
 * classes with their own reduction are left to it; the pickles need no
 * reconstructor, so stock loaders load them. */
#include "support.h"

#include <stdlib.h>

Test(beyond_exceptions, chain_notes_and_attributes_survive)
{
    cpk_beyond("exceptions");
}

TestSuite(exception_pickles, .init = cpk_py_start, .fini = cpk_py_stop);

/* The documented note, on the copy only. */
Test(exception_pickles, copy_gets_the_traceback_note_original_unchanged)
{
    cpk_py_file("_chain.py",
                "copy_gets_the_traceback_note_original_unchanged.py");
}

Test(exception_pickles, notes_are_copied_not_mutated)
{
    cpk_py_file("_chain.py", "notes_are_copied_not_mutated.py");
}

/* __suppress_context__ as it was, whichever way __cause__ left it; a
 * context cycle made by hand. */
Test(exception_pickles, suppress_context_and_cycles)
{
    cpk_py_file("suppress_context_and_cycles.py");
}

/* OSError and ImportError reduce themselves (errno, filename, name): the
 * chain is added to what their __reduce__ gives. */
Test(exception_pickles, builtin_reducers_keep_their_fields)
{
    cpk_py_file("builtin_reducers_keep_their_fields.py");
}

/* Classes that reduce themselves, or that copyreg knows, are left to
 * that: their pickles are what pickle.dumps writes. */
Test(exception_pickles, own_reducers_are_left_alone)
{
    cpk_py_file("_chain.py", "own_reducers_are_left_alone.py");
}

/* A user's dispatch_table still wins. */
Test(exception_pickles, dispatch_table_wins)
{
    cpk_py_file("_chain.py", "dispatch_table_wins.py");
}

/* Exception classes defined by value, and exception groups (3.11). */
Test(exception_pickles, by_value_classes_and_groups_in_a_fresh_process)
{
    cpk_py_file("_chain.py",
                "by_value_classes_and_groups_in_a_fresh_process.py");
    cpk_fresh_protos(
        "app",
        cpk_py_text("by_value_classes_and_groups_in_a_fresh_process_fresh.py"));
}

/* No reconstructor: plain pickle (and stock cloudpickle, where the class
 * is by value) loads every format's pickle the same. */
Test(exception_pickles, stock_formats_load_with_plain_pickle)
{
    cpk_require("cloudpickle");
    cpk_py_file("_chain.py", "stock_formats_load_with_plain_pickle.py");
    size_t len;
    char *data = cpk_py_bytes("data", &len);
    cpk_proc p;
    cpk_python(&p,
               "import sys, cloudpickle\n"
               "e = cloudpickle.loads(sys.stdin.buffer.read())\n"
               "assert 'ccloudpickle' not in sys.modules\n"
               "assert type(e).__name__ == 'AppError'\n"
               "assert e.__cause__.hint == 'retry'\n"
               "assert e.__cause__.__cause__.args == ('k',)\n"
               "assert 'in fail' in e.__cause__.__notes__[-1]\n",
               data, len);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    free(data);
}
