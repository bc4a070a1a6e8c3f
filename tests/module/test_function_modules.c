/* test_function_modules.c - the modules among a task function's globals
 * go by name in _function_make's fifth argument, (name, module name, ...)
 * pairs the loader imports as subimport does, instead of a subimport call
 * each. What is written, what loads (ours and plain pickle), what the
 * reconstructor refuses, and what the import policy sees: every module
 * named there is an import, and names it cannot read make the pickle
 * dangerous, as subimport's do. */
#include "support.h"

TestSuite(function_modules, .init = cpk_py_start, .fini = cpk_py_stop);

Test(function_modules, modules_go_by_name)
{
    cpk_py_file("_prelude.py", "modules_go_by_name.py");
}

/* Closures of one def share one pairs tuple and one globals dict through
 * the memo; the pickle of 200 closures stays small. */
Test(function_modules, closures_of_one_def_share_them)
{
    cpk_py_file("_prelude.py", "closures_of_one_def_share_them.py");
}

/* What does not go by name keeps its old form: a module registered by
 * value, a dynamic module; a module not imported yet when the pickle
 * loads is imported then. */
Test(function_modules, by_value_and_not_yet_imported)
{
    cpk_py_file("_prelude.py", "by_value_and_not_yet_imported.py");
}

/* The reconstructor checks the whole argument before it imports, and
 * refuses an imported module's namespace as globals before it sets
 * anything there. */
Test(function_modules, reconstructor_refuses_bad_modules)
{
    cpk_py_file("_prelude.py", "reconstructor_refuses_bad_modules.py");
}

/* The scan lists each module of the argument as an import, so the policy
 * judges it as it judges subimport's; an argument it cannot read (a name
 * computed at load, a list, an odd count, more arguments) makes the
 * reconstructor a dangerous name, refused under every policy before
 * anything is imported. */
Test(function_modules, policy_sees_the_modules)
{
    cpk_py_file("policy_sees_the_modules.py");
}

/* Review i11e: a module name holding a NUL ('os\0') imported the frozen
 * os under a name no deny rule matched. The scan calls such a name
 * dangerous, and the loader refuses it, in subimport too. */
Test(function_modules, nul_in_a_module_name)
{
    cpk_py_file("nul_in_a_module_name.py");
}

/* Review i11e: a persistent_id however CPython got it (a subclass's
 * method; before 3.13 also a subclass's __getattr__, CPython's own
 * descriptor, an assignment) keeps the module objects in the hook's
 * sight: the split form, not _function_make. */
Test(function_modules, any_persistent_id_sees_the_modules)
{
    cpk_py_file("_prelude.py", "any_persistent_id_sees_the_modules.py");
}

/* Review i11e: the retry of a dump too deep for the recursion limit
 * starts from an empty memo and no shared globals: the same bytes as the
 * dump that needed no retry. */
Test(function_modules, deep_retry_writes_the_same_bytes)
{
    cpk_py_file("deep_retry_writes_the_same_bytes.py");
}
