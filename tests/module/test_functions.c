/* test_functions.c - functions by value: where they are pickled by value,
 * and everything that travels with them (code, closure, globals, defaults,
 * attributes, submodules), at protocols 2 and 5. */
#include "support.h"

TestSuite(functions, .init = cpk_py_start, .fini = cpk_py_stop);

Test(functions, lambda_round_trip)
{
    cpk_py_file("lambda_round_trip.py");
}

Test(functions, closure_values)
{
    cpk_py_file("closure_values.py");
}

Test(functions, self_recursive_closure)
{
    cpk_py_file("self_recursive_closure.py");
}

Test(functions, recursive_through_globals)
{
    cpk_py_file("recursive_through_globals.py");
}

Test(functions, empty_cell_stays_empty)
{
    cpk_py_file("empty_cell_stays_empty.py");
}

Test(functions, no_closure_stays_none)
{
    cpk_py_file("no_closure_stays_none.py");
}

Test(functions, only_used_globals_travel)
{
    cpk_py_file("only_used_globals_travel.py");
}

Test(functions, shared_globals_stay_shared)
{
    cpk_py_file("shared_globals_stay_shared.py");
}

Test(functions, shared_globals_across_dump_calls_of_one_pickler)
{
    cpk_py_file("shared_globals_across_dump_calls_of_one_pickler.py");
}

Test(functions, attributes_travel)
{
    cpk_py_file("attributes_travel.py");
}

Test(functions, changed_name_and_doc)
{
    cpk_py_file("changed_name_and_doc.py");
}

Test(functions, main_functions_go_by_value)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "def f(): return 42\n"
           "data = cp.dumps(f)\n"
           "assert b'__main__' in data\n"
           "g = cp.loads(data)\n"
           "assert g is not f and g() == 42\n");
    cpk_fresh("data", "assert obj() == 42\n");
}

/* Globals read only by nested code travel with the function: a class body
 * (LOAD_NAME falls back to the module's globals), an inner function and a
 * comprehension; where the module does not exist, they still resolve. */
Test(functions, globals_of_nested_code_travel)
{
    cpk_py_file("globals_of_nested_code_travel.py");
    cpk_fresh("data", cpk_py_text("globals_of_nested_code_travel_fresh.py"));
}

Test(functions, importable_functions_go_by_reference)
{
    cpk_py("import ccloudpickle as cp, pickle, os.path\n"
           "import cpk_fixture_funcs as m\n"
           "for f in (m.triple, os.path.join, m.Point.norm):\n"
           "    data = cp.dumps(f)\n"
           "    assert data == pickle.dumps(f, protocol=5), f\n"
           "    assert cp.loads(data) is f\n");
}

Test(functions, name_not_leading_back_goes_by_value)
{
    cpk_py("import ccloudpickle as cp\n"
           "import cpk_fixture_funcs as m\n"
           "f = m.original_replaced\n"
           "data = cp.dumps(f)\n"
           "assert cp.loads(data) is not f\n"
           "assert cp.loads(data)() == 'original'\n");
}

Test(functions, nested_function_of_importable_module_by_value)
{
    cpk_py("import ccloudpickle as cp\n"
           "import cpk_fixture_funcs as m\n"
           "data = cp.dumps(m.make_adder(5))\n");
    cpk_fresh("data", "assert obj(1) == 6\n");
}

Test(functions, module_not_importable_goes_by_value)
{
    cpk_py_file("module_not_importable_goes_by_value.py");
    cpk_fresh("data", "assert obj(3) == 21\n");
}

Test(functions, submodule_attribute_works_in_fresh_interpreter)
{
    cpk_py_file("submodule_attribute_works_in_fresh_interpreter.py");
    cpk_fresh("data",
              "assert 'concurrent.futures' not in sys.modules or True\n"
              "assert obj() == (3, 'a', 'a/b'), obj()\n");
}

Test(functions, submodule_through_closure)
{
    cpk_py_file("submodule_through_closure.py");
    cpk_fresh("data", "assert obj() == 'hi'\n");
}

/* The submodules a function's globals and cells reach are found as
 * cloudpickle finds them: a module is a package when its __package__ is
 * true, read as getattr reads it (a module subclass's property, a
 * module's own __getattr__ when its dict has none); a cell holding no
 * module, or an empty cell, adds nothing. */
Test(functions, submodules_as_getattr_sees_package)
{
    cpk_py_file("submodules_as_getattr_sees_package.py");
}

Test(functions, lambda_in_fresh_interpreter_with_globals)
{
    cpk_py("import ccloudpickle as cp, math\n"
           "BASE = 100\n"
           "def helper(x): return x * 2\n"
           "data = cp.dumps(lambda x: helper(x) + BASE + math.floor(0.5))\n");
    cpk_fresh("data", "assert obj(1) == 102\n");
}

Test(functions, plain_pickle_loads_our_pickles)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "def make(n):\n"
           "    return lambda x: x + n\n"
           "assert pickle.loads(cp.dumps(make(3)))(1) == 4\n");
}

Test(functions, builtins_available_after_load)
{
    cpk_py("import ccloudpickle as cp\n"
           "f = cp.loads(cp.dumps(lambda s: len(sorted(s))))\n"
           "assert f('cba') == 3\n"
           "assert '__builtins__' in f.__globals__\n");
}

Test(functions, generators_and_coroutines_functions)
{
    cpk_py_file("generators_and_coroutines_functions.py");
}

Test(functions, relative_import_inside_by_value_function)
{
    cpk_py_file("relative_import_inside_by_value_function.py");
}

/* globals_ref maps every distinct __globals__ a Pickler met, the first
 * one too (which a dump keeps aside until a second comes or the map is
 * read), each to the one dict its functions get after loading. */
Test(functions, globals_ref_lists_every_globals_met)
{
    cpk_py_file("globals_ref_lists_every_globals_met.py");
}
