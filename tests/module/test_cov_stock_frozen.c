/* test_cov_stock_frozen.c - sharing the by-value registry with a stock
 * cloudpickle module whose registry is not a plain set (a frozenset a
 * fork or a test put there): its names become ours, and the module is
 * given our set, so later registrations on either side are seen by both;
 * the import watcher on sys.meta_path says what it is. */
#include "support.h"

TestSuite(cov_stock_frozen, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_stock_frozen, frozenset_registry_is_replaced_by_ours)
{
    cpk_py_file("frozenset_registry_is_replaced_by_ours.py");
}

Test(cov_stock_frozen, one_watcher_names_itself)
{
    cpk_py_file("one_watcher_names_itself.py");
}
