/* test_modules.c - modules referenced by pickled objects: importable ones
 * by reference, dynamic ones by value (without touching the original), and
 * the by-value registry with cloudpickle's semantics and errors. */
#include "support.h"

TestSuite(modules, .init = cpk_py_start, .fini = cpk_py_stop);

Test(modules, importable_module_by_reference)
{
    cpk_py("import ccloudpickle as cp, os, collections.abc\n"
           "for m in (os, collections.abc):\n"
           "    data = cp.dumps(m)\n"
           "    assert cp.loads(data) is m\n"
           "    assert len(data) < 100, len(data)\n");
}

Test(modules, submodule_by_reference_is_the_submodule)
{
    cpk_py("import ccloudpickle as cp, xml.dom.minidom\n"
           "assert cp.loads(cp.dumps(xml.dom.minidom)) is xml.dom.minidom\n");
    cpk_fresh("__import__('ccloudpickle').dumps(__import__('xml.dom.minidom')"
              ".dom.minidom)",
              "assert obj.__name__ == 'xml.dom.minidom'\n"
              "assert hasattr(obj, 'parseString')\n");
}

Test(modules, dynamic_module_by_value_without_mutation)
{
    cpk_py_file("dynamic_module_by_value_without_mutation.py");
    cpk_fresh("data", "assert obj.f(5) == 10 and obj.__name__ == 'dyn'\n");
}

Test(modules, dynamic_module_as_global_of_function)
{
    cpk_py("import ccloudpickle as cp, types\n"
           "helpers = types.ModuleType('helpers')\n"
           "exec('def double(x):\\n    return 2 * x\\n', helpers.__dict__)\n"
           "def f(x):\n"
           "    return helpers.double(x)\n"
           "data = cp.dumps(f)\n");
    cpk_fresh("data", "assert obj(4) == 8\n");
}

Test(modules, registered_module_functions_by_value)
{
    cpk_py_file("registered_module_functions_by_value.py");
}

Test(modules, registered_package_covers_submodules)
{
    cpk_py_file("registered_package_covers_submodules.py");
}

Test(modules, registered_module_itself_by_value)
{
    cpk_py("import ccloudpickle as cp\n"
           "import cpk_fixture_funcs as m\n"
           "cp.register_pickle_by_value(m)\n"
           "m2 = cp.loads(cp.dumps(m))\n"
           "assert m2 is not m and m2.triple(1) == 3\n");
}

Test(modules, registry_list_is_a_copy)
{
    cpk_py("import ccloudpickle as cp\n"
           "import cpk_fixture_funcs as m\n"
           "cp.register_pickle_by_value(m)\n"
           "s = cp.list_registry_pickle_by_value()\n"
           "s.clear()\n"
           "assert cp.list_registry_pickle_by_value() == {'cpk_fixture_funcs'}\n");
}

Test(modules, register_refuses_non_module)
{
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.register_pickle_by_value('os')\n",
                  "ValueError", "Input should be a module object, got os instead");
}

Test(modules, register_refuses_module_not_in_sys_modules)
{
    cpk_py_raises("import ccloudpickle as cp, types\n"
                  "cp.register_pickle_by_value(types.ModuleType('ghost'))\n",
                  "ValueError",
                  "was not imported correctly, have you used an `import` "
                  "statement to access it?");
}

Test(modules, unregister_refuses_unregistered)
{
    cpk_py_raises("import ccloudpickle as cp, os\n"
                  "cp.unregister_pickle_by_value(os)\n",
                  "ValueError", "is not registered for pickle by value");
}

Test(modules, unregister_refuses_non_module)
{
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.unregister_pickle_by_value(3)\n",
                  "ValueError", "Input should be a module object, got 3 instead");
}

Test(modules, registered_module_loads_where_it_does_not_exist)
{
    cpk_py_file("registered_module_loads_where_it_does_not_exist.py");
    cpk_fresh("data",
              "assert 'only_here' not in sys.modules\n"
              "assert obj.run() == 15\n"
              "assert type(obj).__module__ == 'only_here'\n");
}

/* A module whose __name__ is gone or not a str cannot be named on the
 * other side: a PicklingError saying so, in both formats, alone or as a
 * function's global (it was a SystemError, "nameless module"). Before
 * 3.11 the message also names where the module was met (no notes). */
Test(modules, module_without_str_name_refused)
{
    cpk_py_file("module_without_str_name_refused.py");
}

/* A module named by a str subclass is made under a plain str: the loader's
 * _module_new takes only an exact str (it was refused at load, where stock
 * cloudpickle round-trips it); its namespace, __name__ included, comes back
 * as it was. Registered by value under such a name (one hashing unlike
 * str), its functions still go by value: the registry keeps the exact str
 * the pickler looks up. */
Test(modules, str_subclass_name_written_as_str)
{
    cpk_py_file("str_subclass_name_written_as_str.py");
}

/* A module registered by value whose name then breaks: its functions are
 * refused, not quietly written by reference (a pickle that would not load
 * where the module is absent); stock cloudpickle raises too. A class whose
 * module in sys.modules has no namespace (3.9, 3.10) does not crash the
 * lookup; nor does _module_fill given such a module (a hostile pickle). */
Test(modules, by_value_module_with_broken_name_refused)
{
    cpk_py_file("by_value_module_with_broken_name_refused.py");
}

/* A ModuleType subclass standing in for a module in sys.modules, which
 * forwards attributes without ModuleType.__init__ (deprecation and lazy
 * shims): no __name__ in its namespace, but getattr gives one, as stock
 * cloudpickle reads it. Its objects go by reference (review i11i). */
Test(modules, shim_module_objects_by_reference)
{
    cpk_py_file("shim_module_objects_by_reference.py");
}
