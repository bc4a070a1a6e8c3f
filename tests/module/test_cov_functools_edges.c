/* test_cov_functools_edges.c - lru_cache wrappers and singledispatch
 * functions carried by value whose bookkeeping was changed: a wrapper
 * without __wrapped__ or with a cache_parameters() that lies or raises,
 * a singledispatch registry of the wrong shape or missing its own helper
 * attributes, and _singledispatch_fill given state it must not apply.
 * Each is refused with a reason (or the error that stopped it), never
 * pickled as a different function. */
#include "support.h"

TestSuite(cov_functools_edges, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_functools_edges, lru_wrapper_without_wrapped_refused)
{
    cpk_py_file("_lru.py", "lru_wrapper_without_wrapped_refused.py");
}

Test(cov_functools_edges, lru_cache_parameters_of_another_shape_refused)
{
    cpk_py_file("_lru.py", "lru_cache_parameters_of_another_shape_refused.py");
}

Test(cov_functools_edges, lru_cache_parameters_errors_propagate)
{
    cpk_py_raises(
        cpk_py_text("_lru.py", "lru_cache_parameters_errors_propagate.py"),
        "ZeroDivisionError", NULL);
    cpk_py_raises(
        cpk_py_text("_lru.py", "lru_cache_parameters_errors_propagate_2.py"),
        "RuntimeError", "typed or not");
}

Test(cov_functools_edges, lru_cache_parameters_are_what_is_rebuilt)
{
    cpk_py_file("_lru.py", "lru_cache_parameters_are_what_is_rebuilt.py");
    cpk_fresh_protos("w",
                     "assert obj.cache_parameters() == "
                     "{'maxsize': None, 'typed': True}\n"
                     "assert obj(4) == 8 and obj.cache_info().currsize == 1\n");
}

Test(cov_functools_edges, registry_items_not_pairs_refused)
{
    cpk_py_raises(cpk_py_text("_sd.py", "registry_items_not_pairs_refused.py"),
                  "TypeError", "singledispatch registry items must be pairs");
}

Test(cov_functools_edges, missing_own_attribute_is_made_again)
{
    /* _clear_cache gone from the wrapper: the pickle does not need it,
     * the loaded dispatcher has its own. */
    cpk_py_file("_sd.py", "missing_own_attribute_is_made_again.py");
    cpk_fresh("cp.dumps(sd)",
              "assert obj(1) == 'int' and obj('a') == 'base'\n"
              "assert obj.extra == 7 and callable(obj._clear_cache)\n");
}

Test(cov_functools_edges, fill_refuses_function_fields)
{
    cpk_py_file("_sd.py", "fill_refuses_function_fields.py");
}

Test(cov_functools_edges, fill_attribute_error_propagates)
{
    cpk_py_raises(cpk_py_text("_sd.py", "fill_attribute_error_propagates.py"),
                  "TypeError", "__name__ must be set to a string object");
}

Test(cov_functools_edges, fill_register_error_propagates)
{
    cpk_py_raises(cpk_py_text("_sd.py", "fill_register_error_propagates.py"),
                  "RuntimeError", "unhashable class");
}

Test(cov_functools_edges, singledispatchmethod_in_cloudpickle_format)
{
    cpk_py_file("singledispatchmethod_in_cloudpickle_format.py");
    cpk_fresh("cp.dumps(C, compat='cloudpickle')",
              "assert obj().m(1) == 'int' and obj().m('a') == 'base'\n");
}
