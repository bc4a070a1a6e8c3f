/* test_beyond_deep.c - issue 12, deep structures: linked lists of
 * instances of by-value classes and deeply nested lists and dicts pickle
 * at the default recursion limit (pickler.c retries the dump on a large C
 * stack, deepstack.c) and load in a fresh process; scenarios in
 * tests/beyond. In this process: the retry's edges - determinism, a file
 * left untouched by a failed retry, cycles, errors raised deep inside,
 * KeyboardInterrupt, a structure too deep even for the retry, the thread
 * state left as it was. */
#include "support.h"

TestSuite(beyond_deep, .init = cpk_py_start, .fini = cpk_py_stop);

Test(beyond_deep, linked_lists_of_by_value_instances, .timeout = 120)
{
    cpk_beyond("deep_linked_list");
}

Test(beyond_deep, nested_lists_and_dicts, .timeout = 120)
{
    cpk_beyond("deep_nested_lists");
}

Test(beyond_deep, same_object_same_bytes, .timeout = 60)
{
    cpk_py_file("_chain.py", "same_object_same_bytes.py");
}

Test(beyond_deep, a_deep_cycle_and_shared_nodes, .timeout = 60)
{
    cpk_py_file("_chain.py", "a_deep_cycle_and_shared_nodes.py");
}

Test(beyond_deep, an_error_deep_inside_names_the_path, .timeout = 300)
{
    cpk_py_file("_chain.py", "an_error_deep_inside_names_the_path.py");
}

Test(beyond_deep, keyboard_interrupt_deep_inside_propagates, .timeout = 60)
{
    cpk_py_file("_chain.py", "keyboard_interrupt_deep_inside_propagates.py");
}

Test(beyond_deep, deeper_than_the_retry_holds_fails_cleanly, .timeout = 120)
{
    cpk_py_raises(cpk_py_text("_chain.py",
                              "deeper_than_the_retry_holds_fails_cleanly.py"),
                  "PicklingError", "excessively deep recursion");
}

Test(beyond_deep, recursion_in_user_code_is_not_retried, .timeout = 60)
{
    /* A __reduce__ recursing without end is the user's bug: the first
     * attempt's error, at the default limit. */
    cpk_py_file("recursion_in_user_code_is_not_retried.py");
}

Test(beyond_deep, slots_instances_and_a_stdlib_load, .timeout = 60)
{
    cpk_py_file("slots_instances_and_a_stdlib_load.py");
}

Test(beyond_deep, nested_retries_and_threads, .timeout = 120)
{
    /* A __reduce__ inside a retried dump that itself dumps a deep
     * structure retries on a stack of its own; threads (switching under
     * the GIL) each retry on theirs. */
    cpk_py_file("_chain.py", "nested_retries_and_threads.py");
}
