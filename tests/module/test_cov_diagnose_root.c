/* test_cov_diagnose_root.c - the note a failed dump gets names its root
 * object by __qualname__, else by its type: an object whose __qualname__
 * lookup raises an ordinary error is named by its type, and the note is
 * still added to the pickling error. */
#include "support.h"

TestSuite(cov_diagnose_root, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_diagnose_root, qualname_error_names_the_type)
{
    cpk_py_file("qualname_error_names_the_type.py");
}
