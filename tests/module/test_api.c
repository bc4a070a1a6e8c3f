/* test_api.c - the module's Python API: names, signatures and defaults of
 * dumps/dump/loads/load, the Pickler type (a _pickle.Pickler subclass with
 * a C reducer_override), the Unpickler, code-object version checks, and
 * refusals. */
#include "support.h"

TestSuite(api, .init = cpk_py_start, .fini = cpk_py_stop);

Test(api, public_names)
{
    cpk_py("import ccloudpickle as cp, pickle, _pickle\n"
           "for name in ('dumps', 'dump', 'loads', 'load', 'Pickler',\n"
           "             'CloudPickler', 'DEFAULT_PROTOCOL', '__version__',\n"
           "             'register_pickle_by_value',\n"
           "             'unregister_pickle_by_value',\n"
           "             'list_registry_pickle_by_value'):\n"
           "    assert hasattr(cp, name), name\n"
           "assert cp.CloudPickler is cp.Pickler\n"
           "assert cp.DEFAULT_PROTOCOL == pickle.HIGHEST_PROTOCOL == 5\n"
           "assert issubclass(cp.Pickler, _pickle.Pickler)\n"
           "assert issubclass(cp.Unpickler, _pickle.Unpickler)\n"
           "assert cp.PicklingError is pickle.PicklingError\n"
           "assert cp.UnpicklingError is pickle.UnpicklingError\n"
           "assert isinstance(cp.__version__, str) and cp.__version__\n"
           /* reducer_override is C: no Python frame per object. */
           "assert type(cp.Pickler.reducer_override).__name__ == 'method_descriptor'\n");
}

Test(api, dumps_defaults_to_highest_protocol)
{
    cpk_py("import ccloudpickle as cp\n"
           "assert cp.dumps(1)[:2] == b'\\x80\\x05'\n"
           "assert cp.dumps(1, protocol=2)[:2] == b'\\x80\\x02'\n"
           "assert cp.dumps(1, 0)[:1] != b'\\x80'\n"
           "assert cp.dumps(1, protocol=-1)[:2] == b'\\x80\\x05'\n"
           "assert cp.dumps(obj=1)[:2] == b'\\x80\\x05'\n");
}

Test(api, dumps_refuses_bad_arguments)
{
    cpk_py_raises("import ccloudpickle as cp\ncp.dumps(1, protocol=6)\n",
                  "ValueError", "pickle protocol must be <= 5");
    cpk_py_raises("import ccloudpickle as cp\ncp.dumps(1, compat='dill')\n",
                  "ValueError", "compat must be None or 'cloudpickle'");
    cpk_py_raises("import ccloudpickle as cp\ncp.dumps(1, nope=1)\n",
                  "TypeError", "unexpected keyword argument 'nope'");
    cpk_py_raises("import ccloudpickle as cp\ncp.dumps()\n", "TypeError",
                  "missing required argument 'obj'");
    cpk_py_raises("import ccloudpickle as cp\ncp.dumps(1, 2, None, 4)\n",
                  "TypeError", "at most 3 positional");
    cpk_py_raises("import ccloudpickle as cp\ncp.loads('text')\n",
                  "TypeError", "Can't load pickle from unicode string");
}

Test(api, dump_and_load_with_files)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "buf = io.BytesIO()\n"
           "cp.dump(lambda x: x * 3, buf)\n"
           "cp.dump({'k': [1]}, buf, protocol=2)\n"
           "buf.seek(0)\n"
           "f = cp.load(buf)\n"
           "assert f(2) == 6\n"
           "assert cp.load(buf) == {'k': [1]}\n"
           "try:\n"
           "    cp.load(buf)\n"
           "    raise AssertionError('no EOFError')\n"
           "except EOFError:\n"
           "    pass\n");
}

Test(api, loads_accepts_bytes_like)
{
    cpk_py("import ccloudpickle as cp\n"
           "data = cp.dumps([1, 'x', b'y'])\n"
           "for d in (data, bytearray(data), memoryview(data)):\n"
           "    assert cp.loads(d) == [1, 'x', b'y']\n"
           /* Trailing bytes are fine for loads, as for pickle.loads. */
           "assert cp.loads(data + b'junk') == [1, 'x', b'y']\n");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp._loads_exact(cp.dumps(1) + b'ab')\n",
                  "UnpicklingError", "2 bytes of trailing data");
}

Test(api, loads_options_like_pickle)
{
    cpk_py("import ccloudpickle as cp\n"
           /* A protocol 2 pickle of a Python 2 str needs encoding=. */
           "py2 = b'\\x80\\x02U\\x03\\xe9t\\xe9q\\x00.'\n"
           "assert cp.loads(py2, encoding='latin1') == '\\xe9t\\xe9'\n"
           "assert cp.loads(py2, encoding='bytes') == b'\\xe9t\\xe9'\n");
}

Test(api, out_of_band_buffers)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "buf = bytearray(b'x' * 1000)\n"
           "pb = pickle.PickleBuffer(buf)\n"
           "buffers = []\n"
           "data = cp.dumps(pb, protocol=5, buffer_callback=buffers.append)\n"
           "assert len(data) < 100 and len(buffers) == 1\n"
           "out = cp.loads(data, buffers=buffers)\n"
           "assert bytes(out) == bytes(buf)\n");
}

Test(api, pickler_subclass_in_python)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "class Tagged:\n"
           "    pass\n"
           "class MyPickler(cp.Pickler):\n"
           "    seen = 0\n"
           "    def reducer_override(self, obj):\n"
           "        if isinstance(obj, Tagged):\n"
           "            return (str, ('tagged',))\n"
           "        MyPickler.seen += 1\n"
           "        return super().reducer_override(obj)\n"
           "buf = io.BytesIO()\n"
           "p = MyPickler(buf, protocol=4)\n"
           "assert p.proto == 4\n"
           "p.dump([Tagged(), lambda: 5])\n"
           "t, f = cp.loads(buf.getvalue())\n"
           "assert t == 'tagged' and f() == 5 and MyPickler.seen > 0\n"
           "p.extra = 'instances have a __dict__'\n");
}

Test(api, pickler_init_not_called)
{
    cpk_py_raises("import ccloudpickle as cp, io\n"
                  "class Bad(cp.Pickler):\n"
                  "    def __init__(self, f):\n"
                  "        pass\n"
                  "Bad(io.BytesIO()).dump(1)\n",
                  "PicklingError", "Pickler.__init__() was not called");
}

Test(api, deep_recursion_is_a_pickling_error, .timeout = 120)
{
    /* Deeper than even the retry on a large stack holds (pickler.c):
     * 600,000 levels. */
    cpk_py("import ccloudpickle as cp, pickle\n"
           "x = []\n"
           "for _ in range(600000):\n"
           "    x = [x]\n"
           "try:\n"
           "    cp.dumps(x)\n"
           "    raise AssertionError('no error')\n"
           "except pickle.PicklingError as e:\n"
           "    assert 'recursion' in str(e)\n"
           "    assert isinstance(e.__cause__, RecursionError)\n");
}

Test(api, reduce_exceptions_propagate_unchanged)
{
    cpk_py("import ccloudpickle as cp\n"
           "class Boom(Exception):\n"
           "    pass\n"
           "class Bad:\n"
           "    def __reduce__(self):\n"
           "        raise Boom('from reduce')\n"
           "try:\n"
           "    cp.dumps([1, Bad()])\n"
           "    raise AssertionError('no error')\n"
           "except Boom as e:\n"
           /* Before 3.11 the path to the culprit joins the message
            * (test_culprit.c); 3.11+ has it in a note. */
           "    import sys\n"
           "    assert str(e) == ('from reduce' if sys.version_info >= (3, 11)\n"
           "                      else 'from reduce; when pickling '\n"
           "                           '<list object>[1] (Bad)'), str(e)\n");
}

Test(api, unpicklable_objects_are_refused_by_name)
{
    cpk_py_raises("import ccloudpickle as cp, threading\n"
                  "cp.dumps(threading.local())\n",
                  "TypeError", "cannot pickle '_thread._local' object");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.dumps((i for i in range(3)))\n",
                  "TypeError", "cannot pickle 'generator' object");
    cpk_py_raises("import ccloudpickle as cp, socket\n"
                  "s = socket.socket()\n"
                  "try:\n"
                  "    cp.dumps(s)\n"
                  "finally:\n"
                  "    s.close()\n",
                  "TypeError", "cannot pickle 'socket' object");
}

Test(api, find_unpicklable_names_the_path)
{
    cpk_py("import ccloudpickle as cp, threading\n"
           "lock = threading.local()\n"
           "def f():\n"
           "    return lock\n"
           "path, culprit = cp._find_unpicklable(f)\n"
           "assert path == \".__globals__['lock']\" and culprit is lock\n"
           "path, culprit = cp._find_unpicklable({'a': [1, (lambda: lock)]})\n"
           "assert path == \"['a'][1].__globals__['lock']\", path\n"
           "assert cp._find_unpicklable([1, 2]) is None\n");
}

Test(api, code_objects_travel_with_their_version)
{
    cpk_py("import ccloudpickle as cp, sys, pickle\n"
           "code = (lambda: 1).__code__\n"
           "data = cp.dumps(code)\n"
           "assert ('%d.%d' % sys.version_info[:2]).encode() in data\n"
           "assert cp.loads(data) == code\n");
}

Test(api, code_of_another_version_is_refused_naming_both)
{
    cpk_py_raises("import ccloudpickle as cp, pickle\n"
                  "class C:\n"
                  "    def __reduce__(self):\n"
                  "        return (cp._code_unmarshal, ('3.7', 3394, b''))\n"
                  "cp.loads(pickle.dumps(C()))\n",
                  "UnpicklingError",
                  "this pickle holds code compiled by Python 3.7, which "
                  "Python 3.");
    cpk_py_raises("import ccloudpickle as cp, pickle, sys\n"
                  "v = '%d.%d' % sys.version_info[:2]\n"
                  "class C:\n"
                  "    def __reduce__(self):\n"
                  "        return (cp._code_new, (v, 1, ()))\n"
                  "cp.loads(pickle.dumps(C()))\n",
                  "UnpicklingError", "this pickle holds code of bytecode "
                                     "version 1");
}

Test(api, code_with_unmarshallable_constants)
{
    cpk_py("import ccloudpickle as cp\n"
           "f = lambda: 1\n"
           "odd = f.__code__.replace(co_consts=(None, object))\n"
           "data = cp.dumps(odd)\n"
           "assert b'_code_new' in data\n"
           "assert cp.loads(data).co_consts == (None, object)\n");
}

Test(api, damaged_reconstructor_arguments_raise)
{
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp._function_new(1, {}, None)\n",
                  "ReconstructorTypeError",
                  "_function_new() argument 1 (code) must be code, not int");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp._function_new((lambda: 1).__code__, {}, 3)\n",
                  "ReconstructorValueError",
                  "_function_new() argument 3 (ncells) must be None or 0");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "f = cp._function_new((lambda: 1).__code__, {}, None)\n"
                  "cp._function_fill(f, {'__closure__': (1,)})\n",
                  "ReconstructorValueError",
                  "state['__closure__'] must hold 0 values");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp._code_unmarshal('3.11', 1, 'nope')\n",
                  "ReconstructorTypeError", NULL);
    cpk_py_raises("import ccloudpickle as cp, importlib.util, sys\n"
                  "magic = int.from_bytes(importlib.util.MAGIC_NUMBER, 'little')\n"
                  "v = '%d.%d' % sys.version_info[:2]\n"
                  "cp._code_unmarshal(v, magic, b'\\xff\\x00')\n",
                  "UnpicklingError", "corrupt code object in pickle");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp._class_setstate(int, 'x')\n",
                  "ReconstructorTypeError",
                  "_class_setstate() argument 2 (state) must be tuple");
}

Test(api, newer_format_names_are_explained)
{
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(b'\\x80\\x04\\x8c\\x0cccloudpickle\\x94"
                  "\\x8c\\x0a_from_v99_\\x94\\x93\\x94.')\n",
                  "AttributeError",
                  "this pickle needs ccloudpickle._from_v99_, which "
                  "ccloudpickle");
}

Test(api, gc_state_restored_after_load)
{
    cpk_py("import ccloudpickle as cp, gc\n"
           "data = cp.dumps([{} for _ in range(10)])\n"
           "assert gc.isenabled()\n"
           "cp.loads(data)\n"
           "assert gc.isenabled()\n"
           "try:\n"
           "    cp.loads(data[:-3])\n"
           "except Exception:\n"
           "    pass\n"
           "assert gc.isenabled(), 'a failed load left the collector off'\n"
           "gc.disable()\n"
           "cp.loads(data)\n"
           "assert not gc.isenabled(), 'load turned the collector on'\n"
           "gc.enable()\n");
}

Test(api, no_cycle_keeps_pickled_objects_alive)
{
    cpk_py("import ccloudpickle as cp, gc, weakref\n"
           "gc.disable()\n"
           "class Thing:\n"
           "    pass\n"
           "t = Thing()\n"
           "f = lambda: t\n"
           "ref = weakref.ref(t)\n"
           "cp.dumps(f)\n"
           "cp.dumps([t, f], protocol=2)\n"
           "del t, f\n"
           "assert ref() is None, 'dumps kept the object alive'\n"
           "gc.enable()\n");
}

Test(api, copyreg_registrations_after_import_are_honoured)
{
    cpk_py("import ccloudpickle as cp, copyreg\n"
           "class Unusual:\n"
           "    def __init__(self, v):\n"
           "        self.v = v\n"
           "    def __reduce__(self):\n"
           "        raise TypeError('use copyreg')\n"
           "copyreg.pickle(Unusual, lambda u: (Unusual, (u.v * 10,)))\n"
           "assert cp.loads(cp.dumps(Unusual(2))).v == 20\n");
}
