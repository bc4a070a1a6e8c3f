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

#define PAIR                                                                 \
    "import ccloudpickle as cp, pickle, types\n"                             \
    "def pair():\n"                                                          \
    "    n = 0\n"                                                            \
    "    def incr():\n"                                                      \
    "        nonlocal n\n"                                                   \
    "        n += 1\n"                                                       \
    "        return n\n"                                                     \
    "    def get():\n"                                                       \
    "        return n\n"                                                     \
    "    return incr, get\n"

Test(beyond_cells, only_shared_cells_travel_as_cells)
{
    cpk_py(PAIR
           "def single():\n"
           "    k = 5\n"
           "    return lambda: k\n"
           "b = cp.dumps(single())\n"
           "assert b'__closure_cells__' not in b\n"
           "assert b'__closure_cells__' in cp.dumps(pair())\n"
           /* One function of the pair alone: its cell is still held by
            * the other, so it goes as a cell; loading works the same. */
           "i, g = pair()\n"
           "i2 = cp.loads(cp.dumps(i))\n"
           "assert i2() == 1 and i2() == 2 and i() == 1\n"
           /* Same objects, same bytes. */
           "p = pair()\n"
           "assert cp.dumps(p) == cp.dumps(p)\n"
           "i, g = cp.loads(cp.dumps(p))\n"
           "i(); i()\n"
           "assert g() == 2 and p[1]() == 0\n");
}

Test(beyond_cells, shared_cells_load_under_a_policy)
{
    cpk_py(PAIR
           "i, g = cp.loads(cp.dumps(pair()), allow=[])\n"
           "i()\n"
           "assert g() == 1\n"
           "m = types.ModuleType('rt_mod')\n"
           "exec('R = 2\\ndef f(x):\\n    return x * R\\n', m.__dict__)\n"
           "m2 = cp.loads(cp.dumps(m), allow=[])\n"
           "m2.R = 3\n"
           "assert m2.f(2) == 6 and m2.f.__globals__ is vars(m2)\n");
}

Test(beyond_cells, stock_formats_keep_their_layout)
{
    cpk_require("cloudpickle");
    /* Stock cloudpickle has no __closure_cells__ and no _module_new: its
     * own layout (cells in the closure; dynamic_subimport) loads there. */
    cpk_py(PAIR
           "import cloudpickle\n"
           "b = cp.dumps(pair(), compat='cloudpickle2')\n"
           "assert b'__closure_cells__' not in b\n"
           "i, g = cloudpickle.loads(b)\n"
           "m = types.ModuleType('rt_mod2')\n"
           "exec('R = 2\\ndef f(x):\\n    return x * R\\n', m.__dict__)\n"
           "b = cp.dumps(m, compat='cloudpickle2')\n"
           "assert b'_module_new' not in b and b'dynamic_subimport' in b\n"
           "assert cloudpickle.loads(b).f(2) == 4\n");
}

Test(beyond_cells, hostile_closure_cells_are_refused)
{
    cpk_py("import ccloudpickle as cp\n"
           "def outer():\n"
           "    a = b = 1\n"
           "    return lambda: a + b\n"
           "code = outer().__code__\n"
           "def fresh():\n"
           "    return cp._function_new(code, {}, 2)\n"
           "E = cp.ReconstructorTypeError, cp.ReconstructorValueError\n"
           "for bad in [(1,), (None, None, None), [None, None], (None, 5),\n"
           "            (None, 'cell')]:\n"
           "    try:\n"
           "        cp._function_fill(fresh(), {'__closure_cells__': bad})\n"
           "    except E:\n"
           "        pass\n"
           "    else:\n"
           "        raise AssertionError(bad)\n"
           "f = fresh()\n"
           "c = cp._make_cell(40)\n"
           "cp._function_fill(f, {'__closure__': (cp._empty_cell_value, 2),\n"
           "                      '__closure_cells__': (c, None)})\n"
           "assert f() == 42 and f.__closure__[0] is c\n");
}

Test(beyond_cells, hostile_module_arguments_are_refused)
{
    cpk_py("import ccloudpickle as cp, types\n"
           "E = cp.ReconstructorTypeError\n"
           "class D(dict):\n"
           "    pass\n"
           "for args in [(1, {}), ('m', 1), ('m', D()), ('m',), ()]:\n"
           "    try:\n"
           "        cp._module_new(*args)\n"
           "    except E:\n"
           "        pass\n"
           "    else:\n"
           "        raise AssertionError(args)\n"
           "for args in [(1, {}), ({}, {}), (types.ModuleType('x'), 1)]:\n"
           "    try:\n"
           "        cp._module_fill(*args)\n"
           "    except E:\n"
           "        pass\n"
           "    else:\n"
           "        raise AssertionError(args)\n"
           "ns = {'X': 1, '__name__': 'kept'}\n"
           "m = cp._module_new('given', ns)\n"
           "assert vars(m) is ns and m.X == 1 and m.__name__ == 'kept'\n"
           "assert m.__doc__ is None and '__builtins__' in ns\n"
           "cp._module_fill(m, {'Y': 2})\n"
           "assert ns['Y'] == 2\n");
}
