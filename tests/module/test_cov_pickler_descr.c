/* test_cov_pickler_descr.c - the Pickler's table descriptors
 * (dispatch_table, dispatch, _dispatch_table) used the wrong way: on an
 * object that is no ccloudpickle Pickler, or assigned where only
 * dispatch_table may be; and a ccloudpickle.wrap() wrapper refused by the
 * stock formats, whose loaders could not rebuild it. */
#include "support.h"

TestSuite(cov_pickler_descr, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_pickler_descr, dispatch_table_of_something_else)
{
    cpk_py_file("dispatch_table_of_something_else.py");
}

Test(cov_pickler_descr, only_dispatch_table_is_writable)
{
    cpk_py_file("only_dispatch_table_is_writable.py");
}

Test(cov_pickler_descr, wrap_wrapper_refused_by_stock_formats)
{
    cpk_py_file("wrap_wrapper_refused_by_stock_formats.py");
}
