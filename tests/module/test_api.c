/* test_api.c - the module's Python API: names, signatures and defaults of
 * dumps/dump/loads/load, the Pickler type (a _pickle.Pickler subclass with
 * a C reducer_override), the Unpickler, code-object version checks, and
 * refusals. */
#include "support.h"

TestSuite(api, .init = cpk_py_start, .fini = cpk_py_stop);

Test(api, public_names)
{
    cpk_py_file("public_names.py");
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
    cpk_py_file("dump_and_load_with_files.py");
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
    cpk_py_file("out_of_band_buffers.py");
}

Test(api, pickler_subclass_in_python)
{
    cpk_py_file("pickler_subclass_in_python.py");
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
    cpk_py_file("deep_recursion_is_a_pickling_error.py");
}

Test(api, reduce_exceptions_propagate_unchanged)
{
    cpk_py_file("reduce_exceptions_propagate_unchanged.py");
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
    cpk_py_file("find_unpicklable_names_the_path.py");
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
    cpk_py_file("gc_state_restored_after_load.py");
}

Test(api, no_cycle_keeps_pickled_objects_alive)
{
    cpk_py_file("no_cycle_keeps_pickled_objects_alive.py");
}

Test(api, copyreg_registrations_after_import_are_honoured)
{
    cpk_py_file("copyreg_registrations_after_import_are_honoured.py");
}
