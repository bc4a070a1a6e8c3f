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
    cpk_py("import ccloudpickle as cp, types\n"
           "mod = types.ModuleType('dyn', 'doc of dyn')\n"
           "exec('A = 2\\ndef f(x):\\n    return x * A\\n', mod.__dict__)\n"
           "before = dict(mod.__dict__)\n"
           "data = cp.dumps(mod)\n"
           "assert mod.__dict__ == before and '__builtins__' in mod.__dict__\n"
           "m2 = cp.loads(data)\n"
           "assert m2 is not mod and m2.__name__ == 'dyn'\n"
           "assert m2.__doc__ == 'doc of dyn' and m2.A == 2 and m2.f(3) == 6\n"
           "assert m2.__builtins__ is __import__('builtins').__dict__\n");
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
    cpk_py("import ccloudpickle as cp, pickle\n"
           "import cpk_fixture_funcs as m\n"
           "assert cp.dumps(m.triple) == pickle.dumps(m.triple, protocol=5)\n"
           "cp.register_pickle_by_value(m)\n"
           "assert cp.list_registry_pickle_by_value() == {'cpk_fixture_funcs'}\n"
           "data = cp.dumps(m.triple)\n"
           "f = cp.loads(data)\n"
           "assert f is not m.triple and f(2) == 6\n"
           "assert 'UNUSED' not in f.__globals__\n"
           "cp.unregister_pickle_by_value(m)\n"
           "assert cp.loads(cp.dumps(m.triple)) is m.triple\n"
           "assert cp.list_registry_pickle_by_value() == set()\n");
}

Test(modules, registered_package_covers_submodules)
{
    cpk_py("import ccloudpickle as cp\n"
           "import cpk_fixture_pkg, cpk_fixture_pkg.sub\n"
           "cp.register_pickle_by_value(cpk_fixture_pkg)\n"
           "data = cp.dumps([cpk_fixture_pkg.pkg_func, cpk_fixture_pkg.sub.sub_func])\n"
           "a, b = cp.loads(data)\n"
           "assert a is not cpk_fixture_pkg.pkg_func\n"
           "assert b is not cpk_fixture_pkg.sub.sub_func\n"
           "assert (a(), b()) == ('pkg', 'pkg.sub')\n"
           /* Registering a submodule does not cover its parent. */
           "cp.unregister_pickle_by_value(cpk_fixture_pkg)\n"
           "cp.register_pickle_by_value(cpk_fixture_pkg.sub)\n"
           "assert cp.loads(cp.dumps(cpk_fixture_pkg.pkg_func)) is cpk_fixture_pkg.pkg_func\n"
           "assert cp.loads(cp.dumps(cpk_fixture_pkg.sub.sub_func)) is not cpk_fixture_pkg.sub.sub_func\n");
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
    cpk_py("import ccloudpickle as cp, sys, tempfile, os, importlib\n"
           "d = tempfile.mkdtemp()\n"
           "with open(os.path.join(d, 'only_here.py'), 'w') as f:\n"
           "    f.write('RATE = 3\\n'\n"
           "            'class Job:\\n'\n"
           "            '    def __init__(self, n):\\n'\n"
           "            '        self.n = n\\n'\n"
           "            '    def run(self):\\n'\n"
           "            '        return helper(self.n) * RATE\\n'\n"
           "            'def helper(x):\\n'\n"
           "            '    return x + 1\\n')\n"
           "sys.path.insert(0, d)\n"
           "import only_here\n"
           "cp.register_pickle_by_value(only_here)\n"
           "data = cp.dumps(only_here.Job(4))\n");
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
    cpk_py("import ccloudpickle as cp, pickle, types\n"
           "cases = []\n"
           "m = types.ModuleType('cpk_nameless')\n"
           "del m.__name__\n"
           "cases.append((m, 'missing'))\n"
           "m = types.ModuleType('cpk_nameless')\n"
           "m.__name__ = 3\n"
           "cases.append((m, 'not a str'))\n"
           "m = types.ModuleType('cpk_nameless')\n"
           "m.__name__ = b'bytes'\n"
           "cases.append((m, 'not a str'))\n"
           /* no namespace at all on 3.9 and 3.10, an empty one later */
           "cases.append((types.ModuleType.__new__(types.ModuleType),\n"
           "              'missing'))\n"
           "for m, why in cases:\n"
           "    f = eval('lambda: mod', {'mod': m})\n"
           "    for obj in (m, f, [1, m]):\n"
           "        for compat in (None, 'cloudpickle'):\n"
           "            try:\n"
           "                cp.dumps(obj, compat=compat)\n"
           "            except pickle.PicklingError as e:\n"
           "                want = 'cannot pickle module: its __name__ is ' + why\n"
           "                assert str(e).startswith(want), str(e)\n"
           "            else:\n"
           "                raise AssertionError((m, obj, compat))\n"
           "    path, culprit = cp._find_unpicklable(m)\n"
           "    assert culprit is m, (path, culprit)\n"
           /* a name put back makes it a dynamic module again */
           "    m.__name__ = 'cpk_nameless'\n"
           "    assert cp.loads(cp.dumps(m)).__name__ == 'cpk_nameless'\n");
}

/* A module named by a str subclass is made under a plain str: the loader's
 * _module_new takes only an exact str (it was refused at load, where stock
 * cloudpickle round-trips it); its namespace, __name__ included, comes back
 * as it was. Registered by value under such a name (one hashing unlike
 * str), its functions still go by value: the registry keeps the exact str
 * the pickler looks up. */
Test(modules, str_subclass_name_written_as_str)
{
    cpk_py("import ccloudpickle as cp, pickle, sys, types\n"
           "class S(str):\n"
           "    pass\n"
           "m = types.ModuleType('x')\n"
           "m.__name__ = S('cpk_subname')\n"
           "exec('K = 5\\ndef f():\\n    return K\\n', m.__dict__)\n"
           "g = eval('lambda: mod.f()', {'mod': m})\n"
           "for obj in (m, g):\n"
           "    for compat in (None, 'cloudpickle'):\n"
           "        data = cp.dumps(obj, compat=compat)\n"
           /* stock cloudpickle's names need it installed for pickle */
           "        for load in (cp.loads, pickle.loads)[:2 - bool(compat)]:\n"
           "            out = load(data)\n"
           "            mod = out if obj is m else out.__globals__['mod']\n"
           "            assert mod.__name__ == 'cpk_subname'\n"
           "            assert mod.f() == 5\n"
           "class H(str):\n"
           "    def __hash__(self):\n"
           "        return hash(str(self)) ^ 1\n"
           "    __eq__ = str.__eq__\n"
           "r = types.ModuleType('cpk_subname_reg')\n"
           "exec('def f():\\n    return 42\\n', r.__dict__)\n"
           "sys.modules['cpk_subname_reg'] = r\n"
           "r.__name__ = H('cpk_subname_reg')\n"
           "cp.register_pickle_by_value(r)\n"
           "try:\n"
           "    data = cp.dumps(r.f)\n"
           "finally:\n"
           "    cp.unregister_pickle_by_value(r)\n"
           "    del sys.modules['cpk_subname_reg']\n"
           "assert cp.loads(data)() == 42\n");
}

/* A module registered by value whose name then breaks: its functions are
 * refused, not quietly written by reference (a pickle that would not load
 * where the module is absent); stock cloudpickle raises too. A class whose
 * module in sys.modules has no namespace (3.9, 3.10) does not crash the
 * lookup; nor does _module_fill given such a module (a hostile pickle). */
Test(modules, by_value_module_with_broken_name_refused)
{
    cpk_py("import ccloudpickle as cp, pickle, sys, types\n"
           "m = types.ModuleType('cpk_byval_broken')\n"
           "sys.modules['cpk_byval_broken'] = m\n"
           "exec('def k():\\n    return 1\\n', m.__dict__)\n"
           "cp.register_pickle_by_value(m)\n"
           "try:\n"
           "    for breaking in ('int', 'missing'):\n"
           "        if breaking == 'int':\n"
           "            m.__name__ = 7\n"
           "        else:\n"
           "            del m.__name__\n"
           "        for compat in (None, 'cloudpickle'):\n"
           "            try:\n"
           "                data = cp.dumps(m.k, compat=compat)\n"
           "            except pickle.PicklingError as e:\n"
           "                assert 'its __name__ is' in str(e), str(e)\n"
           "            else:\n"
           "                raise AssertionError((breaking, compat, data))\n"
           "finally:\n"
           "    del sys.modules['cpk_byval_broken']\n"
           "u = types.ModuleType.__new__(types.ModuleType)\n"
           "sys.modules['cpk_no_namespace'] = u\n"
           "try:\n"
           "    K = type('K', (), {'__module__': 'cpk_no_namespace'})\n"
           "    try:\n"
           "        K2 = cp.loads(cp.dumps(K))\n"
           "        assert K2.__name__ == 'K'\n"
           "    except pickle.PicklingError as e:\n"
           "        assert 'its __name__ is missing' in str(e), str(e)\n"
           "finally:\n"
           "    del sys.modules['cpk_no_namespace']\n"
           /* (3.11 and later give it an empty namespace to fill) */
           "try:\n"
           "    cp._module_fill(u, {'a': 1})\n"
           "except cp.ReconstructorValueError as e:\n"
           "    assert sys.version_info < (3, 11), e\n"
           "    assert 'without a namespace' in str(e), str(e)\n"
           "else:\n"
           "    assert sys.version_info >= (3, 11)\n"
           "    assert u.a == 1\n");
}

/* A ModuleType subclass standing in for a module in sys.modules, which
 * forwards attributes without ModuleType.__init__ (deprecation and lazy
 * shims): no __name__ in its namespace, but getattr gives one, as stock
 * cloudpickle reads it. Its objects go by reference (review i11i). */
Test(modules, shim_module_objects_by_reference)
{
    cpk_py("import ccloudpickle as cp, sys, types\n"
           "real = types.ModuleType('cpk_shimmed')\n"
           "exec('def f(x):\\n    return x + 1\\nclass K:\\n    pass\\n',\n"
           "     real.__dict__)\n"
           "class Shim(types.ModuleType):\n"
           "    def __init__(self, wrapped):\n"
           "        object.__setattr__(self, '_wrapped', wrapped)\n"
           "    def __getattr__(self, name):\n"
           "        return getattr(self._wrapped, name)\n"
           "sys.modules['cpk_shimmed'] = Shim(real)\n"
           "try:\n"
           "    for compat in (None, 'cloudpickle'):\n"
           "        for obj in (real.f, real.K):\n"
           "            data = cp.dumps(obj, compat=compat)\n"
           "            assert b'cpk_shimmed' in data and len(data) < 60, data\n"
           "            assert cp.loads(data) is obj\n"
           "        k = cp.loads(cp.dumps(real.K(), compat=compat))\n"
           "        assert type(k) is real.K\n"
           "finally:\n"
           "    del sys.modules['cpk_shimmed']\n");
}
