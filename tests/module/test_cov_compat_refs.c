/* test_cov_compat_refs.c - the stand-ins for stock cloudpickle's names
 * that the cloudpickle-format pickler writes (ccloudpickle._Reference):
 * each says what it names, calls our implementation, is itself pickled
 * as getattr of a reference to its module, which names the module and
 * cannot be called; _import hands out ordinary modules unchanged. */
#include "support.h"

TestSuite(cov_compat_refs, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_compat_refs, reference_names_and_calls_its_implementation)
{
    cpk_py_file("_refs.py", "reference_names_and_calls_its_implementation.py");
}

Test(cov_compat_refs, module_reference_is_not_callable)
{
    cpk_py_file("_refs.py", "module_reference_is_not_callable.py");
}

Test(cov_compat_refs, import_of_other_modules_is_plain)
{
    cpk_py_file("import_of_other_modules_is_plain.py");
}
