/* test_cov_whichmodule.c - an object whose __module__ is None is looked
 * for in sys.modules, as cloudpickle's _whichmodule does: found in a
 * module, it is pickled by reference to it (and loads as itself), a
 * module without it passed over; found nowhere but __main__, it goes by
 * value. */
#include "support.h"

TestSuite(cov_whichmodule, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_whichmodule, found_in_a_module_goes_by_reference)
{
    cpk_py_file("_home.py", "found_in_a_module_goes_by_reference.py");
}

Test(cov_whichmodule, found_nowhere_goes_by_value)
{
    cpk_py_file("_home.py", "found_nowhere_goes_by_value.py");
}
