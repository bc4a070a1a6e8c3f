/* test_cov_compat_refs.c - the stand-ins for stock cloudpickle's names
 * that the cloudpickle-format pickler writes (ccloudpickle._Reference):
 * each says what it names, calls our implementation, is itself pickled
 * as getattr of a reference to its module, which names the module and
 * cannot be called; _import hands out ordinary modules unchanged. */
#include "support.h"

TestSuite(cov_compat_refs, .init = cpk_py_start, .fini = cpk_py_stop);

#define REFS                                                                  \
    "import ccloudpickle as cp, io\n"                                         \
    "class C:\n"                                                              \
    "    x = 1\n"                                                             \
    "p = cp.Pickler(io.BytesIO(), compat='cloudpickle')\n"                    \
    "rv = p.reducer_override(C)\n"                                            \
    "ref = rv[0]\n"

Test(cov_compat_refs, reference_names_and_calls_its_implementation)
{
    cpk_py(REFS
           "assert type(ref).__name__ == '_Reference', type(ref)\n"
           "assert repr(ref) == '<reference to cloudpickle.cloudpickle.'\\\n"
           "    '_make_skeleton_class>', repr(ref)\n"
           "K = ref(*rv[1])\n"
           "# The tracker id of a live class gives that class back.\n"
           "assert K is C, K\n"
           "# The same name gives the same reference.\n"
           "rv2 = cp.Pickler(io.BytesIO(), compat='cloudpickle')"
           ".reducer_override(type('D', (), {}))\n"
           "assert rv2[0] is ref\n");
}

Test(cov_compat_refs, module_reference_is_not_callable)
{
    cpk_py(REFS
           "getattr_, (modref, name) = p.reducer_override(ref)\n"
           "assert getattr_ is getattr and name == '_make_skeleton_class'\n"
           "assert repr(modref) == '<reference to module '\\\n"
           "    'cloudpickle.cloudpickle>', repr(modref)\n"
           "try:\n"
           "    modref()\n"
           "except TypeError as e:\n"
           "    assert str(e) == 'module reference is not callable', e\n"
           "else:\n"
           "    raise AssertionError('called')\n"
           "imp, args = p.reducer_override(modref)\n"
           "assert args == ('cloudpickle.cloudpickle', None, None,\n"
           "                ('__name__',)), args\n");
}

Test(cov_compat_refs, import_of_other_modules_is_plain)
{
    cpk_py("import ccloudpickle as cp, os, os.path, sys\n"
           "assert cp._import('os') is os\n"
           "assert cp._import('os.path', None, None, ('join',)) is os.path\n"
           "assert cp._import('os.path') is os\n"
           "shim = cp._import('cloudpickle.cloudpickle')\n"
           "assert shim is cp._import('cloudpickle.cloudpickle')\n"
           "assert shim.__name__ == 'cloudpickle.cloudpickle'\n"
           "assert sys.modules.get('cloudpickle.cloudpickle') is not shim\n"
           "assert shim._make_skeleton_class is cp._make_skeleton_class\n");
}
