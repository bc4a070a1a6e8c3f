/* test_small_types.c - the types plain pickle cannot handle and the
 * reducers we give them: code, cells, bound methods, property,
 * classmethod/staticmethod, abc.abstract*, getset descriptors,
 * mappingproxy, memoryview, WeakSet, loggers, dict views, text files,
 * type(None) & co, the classes of `types`; plus builtins, partial and
 * operator objects that must keep working. Fresh interpreter, protocols 2
 * and 5. */
#include "support.h"

TestSuite(small_types, .init = cpk_py_start, .fini = cpk_py_stop);

Test(small_types, code_and_cells)
{
    cpk_py("import types\n"
           "def f(x):\n"
           "    return x + 1\n"
           "objs = [f.__code__, types.CellType(5), types.CellType()]\n");
    cpk_fresh_protos("objs", cpk_py_text("code_and_cells_fresh.py"));
}

Test(small_types, bound_methods)
{
    cpk_py_file("bound_methods.py");
    cpk_fresh_protos("objs",
                     "bump, make, append, get, upper = obj\n"
                     "assert bump(2) == 3 and bump.__self__.n == 3\n"
                     "assert type(make()).__name__ == 'Counter'\n"
                     "append(2)\n"
                     "assert append.__self__ == [1, 2]\n"
                     "assert get('k', 'd') == 'd' and upper('a') == 'A'\n");
}

Test(small_types, descriptors)
{
    cpk_py_file("descriptors.py");
    cpk_fresh_protos("objs", cpk_py_text("descriptors_fresh.py"));
}

Test(small_types, mappingproxy_memoryview_weakset)
{
    cpk_py("import types, weakref\n"
           "class Key:\n"
           "    pass\n"
           "keep = [Key(), Key()]\n"
           "ws = weakref.WeakSet(keep)\n"
           "objs = [types.MappingProxyType({'a': 1}), memoryview(b'bytes'),\n"
           "        ws, keep]\n");
    cpk_fresh_protos("objs",
                     "import types, weakref\n"
                     "mp, mv, ws, keep = obj\n"
                     "assert type(mp) is types.MappingProxyType and mp['a'] == 1\n"
                     "assert mv == b'bytes'\n"
                     "assert type(ws) is weakref.WeakSet and len(ws) == 2\n"
                     "assert set(ws) == set(keep)\n");
}

Test(small_types, loggers)
{
    cpk_py("import logging\n"
           "objs = [logging.getLogger('app.db'), logging.getLogger()]\n");
    cpk_fresh_protos("objs",
                     "import logging\n"
                     "named, root = obj\n"
                     "assert named is logging.getLogger('app.db')\n"
                     "assert root is logging.getLogger() and root.name == 'root'\n");
}

Test(small_types, dict_views_ship_only_what_they_show)
{
    cpk_py_file("dict_views_ship_only_what_they_show.py");
    cpk_fresh_protos(
        "objs", cpk_py_text("dict_views_ship_only_what_they_show_fresh.py"));
}

Test(small_types, text_files_carry_their_contents)
{
    cpk_py("import sys, tempfile, os\n"
           "fd, path = tempfile.mkstemp()\n"
           "os.write(fd, b'line one\\nline two\\n')\n"
           "os.close(fd)\n"
           "f = open(path)\n"
           "f.readline()\n"
           "objs = [f, sys.stdout, sys.stderr]\n");
    cpk_fresh_protos("objs",
                     "import sys\n"
                     "f, out, err = obj\n"
                     "assert f.read() == 'line two\\n'\n"
                     "f.seek(0)\n"
                     "assert f.read() == 'line one\\nline two\\n'\n"
                     "assert f.name.startswith('/tmp/')\n"
                     "assert out is sys.stdout and err is sys.stderr\n");
    cpk_py("f.close()\n"
           "os.unlink(path)\n");
}

Test(small_types, files_that_cannot_travel_are_refused)
{
    cpk_py_raises("import ccloudpickle as cp, sys\ncp.dumps(sys.stdin)\n",
                  "PicklingError", "Cannot pickle standard input");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "f = open('/dev/null')\n"
                  "f.close()\n"
                  "cp.dumps(f)\n",
                  "PicklingError", "Cannot pickle closed files");
    cpk_py_raises("import ccloudpickle as cp, tempfile\n"
                  "f = tempfile.TemporaryFile('w')\n"
                  "cp.dumps(f)\n",
                  "PicklingError",
                  "Cannot pickle files that are not opened for reading: w");
}

Test(small_types, singleton_types_and_types_module)
{
    cpk_py("import types\n"
           "objs = [type(None), type(...), type(NotImplemented),\n"
           "        types.FunctionType, types.CodeType, types.CellType,\n"
           "        types.ModuleType, types.MappingProxyType,\n"
           "        types.SimpleNamespace, types.GeneratorType]\n");
    cpk_fresh_protos("objs",
                     "import types\n"
                     "assert obj[0] is type(None) and obj[1] is type(...)\n"
                     "assert obj[2] is type(NotImplemented)\n"
                     "assert obj[3:] == [types.FunctionType, types.CodeType,\n"
                     "    types.CellType, types.ModuleType, types.MappingProxyType,\n"
                     "    types.SimpleNamespace, types.GeneratorType]\n");
}

Test(small_types, builtins_partial_operator)
{
    cpk_py("import functools, operator\n"
           "def power(base, exp):\n"
           "    return base ** exp\n"
           "objs = [len, functools.partial(power, exp=2),\n"
           "        operator.itemgetter(1, 0), operator.attrgetter('real'),\n"
           "        operator.methodcaller('upper'), sorted, dict.fromkeys]\n");
    cpk_fresh_protos("objs",
                     "ln, square, ig, ag, mc, srt, fromkeys = obj\n"
                     "assert ln('abc') == 3 and square(3) == 9\n"
                     "assert ig('ab') == ('b', 'a') and ag(3) == 3\n"
                     "assert mc('x') == 'X' and srt([2, 1]) == [1, 2]\n"
                     "assert fromkeys('ab') == {'a': None, 'b': None}\n");
}

Test(small_types, dynamic_module_objects)
{
    cpk_py("import types\n"
           "ns = types.SimpleNamespace(a=1, f=lambda: 2)\n");
    cpk_fresh_protos("ns", "assert obj.a == 1 and obj.f() == 2\n");
}
