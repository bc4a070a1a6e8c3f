/* test_cov_scan_copyreg.c - code carried by value handed to copyreg's
 * instance makers (_reconstructor, __newobj__, __newobj_ex__), as
 * protocols 0 and 1 write instances and as a hostile pickle may call
 * them: the static scan names what the load would run (an instance of a
 * class by value, a function by value, a code object passed on), at the
 * REDUCE that runs it, and an import policy refuses the pickle before
 * anything runs. */
#include "support.h"

TestSuite(cov_scan_copyreg, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_scan_copyreg, reconstructor_of_class_by_value)
{
    cpk_py_file("_setup.py", "reconstructor_of_class_by_value.py");
}

Test(cov_scan_copyreg, newobj_of_class_by_value)
{
    cpk_py_file("_setup.py", "newobj_of_class_by_value.py");
}

Test(cov_scan_copyreg, reconstructor_given_a_function_or_code)
{
    cpk_py_file("_setup.py", "reconstructor_given_a_function_or_code.py");
}
