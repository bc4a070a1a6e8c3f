/* test_misuse.c - a Pickler used in ways its authors did not plan for:
 * globals_ref cleared or replaced between and during dumps, __init__
 * called again, clear_memo, a dump after a failed one, Python subclasses
 * overriding reducer_override and dump, files whose write() raises, and a
 * dispatch_table reducer that drops its own table. Each must give a pickle
 * that loads as it should, or a clean exception: never a crash or a
 * corrupt pickle. */
#include "support.h"

TestSuite(misuse, .init = cpk_py_start, .fini = cpk_py_stop);

Test(misuse, globals_ref_cleared_between_dumps)
{
    cpk_py_file("globals_ref_cleared_between_dumps.py");
}

Test(misuse, globals_ref_entry_replaced_is_used)
{
    /* The map is cloudpickle's: what the user puts there is what ships. */
    cpk_py_file("globals_ref_entry_replaced_is_used.py");
}

Test(misuse, globals_ref_replaced_with_another_dict)
{
    cpk_py_file("globals_ref_replaced_with_another_dict.py");
    cpk_py_raises("import ccloudpickle as cp, io\n"
                  "cp.Pickler(io.BytesIO()).globals_ref = [1]\n",
                  "TypeError", "globals_ref must be a dict");
    cpk_py_raises("import ccloudpickle as cp, io\n"
                  "del cp.Pickler(io.BytesIO()).globals_ref\n",
                  "TypeError", "cannot be deleted");
}

Test(misuse, globals_ref_cleared_while_a_function_is_reduced)
{
    /* A global of the function is a module whose __package__ runs code:
     * it clears globals_ref in the middle of the function's reduction,
     * freeing the base globals dict the reducer is using. */
    cpk_py_file("globals_ref_cleared_while_a_function_is_reduced.py");
}

Test(misuse, function_attributes_reassigned_during_reduce)
{
    /* __module__ compares with __eq__ code that reassigns the function's
     * attributes while the reducer holds them. */
    cpk_py_file("function_attributes_reassigned_during_reduce.py");
}

Test(misuse, init_again_with_other_file_protocol_and_compat)
{
    cpk_py_file("init_again_with_other_file_protocol_and_compat.py");
}

Test(misuse, init_again_with_bad_arguments_leaves_a_clean_error)
{
    cpk_py_file("init_again_with_bad_arguments_leaves_a_clean_error.py");
}

Test(misuse, uninitialised_pickler_refuses_to_dump)
{
    cpk_py_raises("import ccloudpickle as cp\n"
                  "class Lazy(cp.Pickler):\n"
                  "    def __init__(self, file):\n"
                  "        pass\n"
                  "Lazy(None).dump(lambda: 1)\n",
                  "PicklingError", "__init__() was not called");
    /* Its other entry points stay safe too. */
    cpk_py_file("uninitialised_pickler_refuses_to_dump.py");
}

Test(misuse, clear_memo_between_dumps)
{
    cpk_py_file("clear_memo_between_dumps.py");
}

Test(misuse, dump_after_a_failed_dump)
{
    cpk_py_file("dump_after_a_failed_dump.py");
}

Test(misuse, file_whose_write_raises)
{
    cpk_py_file("file_whose_write_raises.py");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.Pickler(object())\n",
                  "TypeError", "write");
}

Test(misuse, python_subclass_overrides_reducer_override_and_dump)
{
    cpk_py_file("python_subclass_overrides_reducer_override_and_dump.py");
}

Test(misuse, dispatch_table_reducer_drops_its_own_table)
{
    /* The reducer replaces the table it came from, the table's last
     * owner: the pickler must keep the reducer alive for its own call. */
    cpk_py_file("dispatch_table_reducer_drops_its_own_table.py");
    /* The same through this instance's view of the default table. */
    cpk_py_file("dispatch_table_reducer_drops_its_own_table_2.py");
}
