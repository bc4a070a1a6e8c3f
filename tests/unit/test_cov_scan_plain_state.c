/* test_cov_scan_plain_state.c - a class carried by value whose state
 * holds only plain data, getattr of an imported name included
 * (str.upper, pickled as getattr(str, "upper")), has no methods: an
 * import policy that allows the names lets an instance load, as it
 * would not if the class had a method of its own. */
#include "support.h"

TestSuite(cov_scan_plain_state, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_scan_plain_state, getattr_of_imported_value_is_plain)
{
    cpk_py_file("getattr_of_imported_value_is_plain.py");
}
