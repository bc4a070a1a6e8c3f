/* test_dispatch_table.c - entries added to a Pickler instance's
 * dispatch_table (p.dispatch_table[T] = reducer, as cloudpickle users
 * write it) are honoured by that Pickler, for any type, ours or not, and
 * by no other Pickler: not the class default, not copyreg's table, not
 * the next Pickler made. test_parity.c covers tables set as a whole. */
#include "support.h"

TestSuite(dispatch_table, .init = cpk_py_start, .fini = cpk_py_stop);

Test(dispatch_table, entry_added_to_an_instance_is_honoured)
{
    cpk_py_file("entry_added_to_an_instance_is_honoured.py");
}

Test(dispatch_table, entry_does_not_leak_to_others)
{
    cpk_py_file("entry_does_not_leak_to_others.py");
}

Test(dispatch_table, instance_view_reads_as_the_default)
{
    cpk_py_file("instance_view_reads_as_the_default.py");
}

Test(dispatch_table, set_table_wins_over_the_view)
{
    cpk_py_file("set_table_wins_over_the_view.py");
}

Test(dispatch_table, view_made_once_under_threads)
{
    /* A thread that reads p.dispatch_table first is paused inside
     * ChainMap.new_child() while another thread reads it too: both must
     * get the same view, or entries added to one are lost. The same for
     * the class-level table made on first use. */
    cpk_py_file("view_made_once_under_threads.py");
}
