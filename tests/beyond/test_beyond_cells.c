/* Issue 12: closures that share cells, and the functions of a module made
 * at run time or pickled by value, behave after loading as before: the
 * scenarios in tests/beyond (run.py says how they run: pickled in one
 * process, checked in a fresh one). In-process: the format these need
 * (__closure_cells__, _module_new/_module_fill), refused when hostile, and
 * the stock formats left as they were. */
#include "support.h"

TestSuite(beyond_cells, .init = cpk_py_start, .fini = cpk_py_stop);

Test(beyond_cells, closures_sharing_a_cell_still_share_it)
{
    cpk_beyond("cells_shared");
}

Test(beyond_cells, runtime_module_functions_use_its_namespace)
{
    cpk_beyond("module_runtime");
}

Test(beyond_cells, by_value_module_functions_use_its_namespace)
{
    cpk_beyond("module_by_value");
}

Test(beyond_cells, only_shared_cells_travel_as_cells)
{
    cpk_py_file("_pair.py", "only_shared_cells_travel_as_cells.py");
}

Test(beyond_cells, shared_cells_load_under_a_policy)
{
    cpk_py_file("_pair.py", "shared_cells_load_under_a_policy.py");
}

Test(beyond_cells, stock_formats_keep_their_layout)
{
    cpk_require("cloudpickle");
    /* Stock cloudpickle has no __closure_cells__ and no _module_new: its
     * own layout (cells in the closure; dynamic_subimport) loads there. */
    cpk_py_file("_pair.py", "stock_formats_keep_their_layout.py");
}

Test(beyond_cells, hostile_closure_cells_are_refused)
{
    cpk_py_file("hostile_closure_cells_are_refused.py");
}

Test(beyond_cells, hostile_module_arguments_are_refused)
{
    cpk_py_file("hostile_module_arguments_are_refused.py");
}
