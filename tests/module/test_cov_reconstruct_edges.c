/* test_cov_reconstruct_edges.c - reconstructors called with what a
 * hostile or odd pickle can give them: _module_fill with no module,
 * subimport of a module whose spec cannot say whether it is still
 * initialising, _make_skeleton_class with bases whose __mro_entries__
 * raises or gives no class, and metaclasses whose __prepare__ or
 * namespace raises. Each fails with the error that stopped it (a
 * ReconstructorTypeError for a bad argument), never with a half-made
 * class; the empty-cell sentinel keeps its identity. */
#include "support.h"

TestSuite(cov_reconstruct_edges, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_reconstruct_edges, empty_cell_sentinel_is_one_object)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "s = cp._empty_cell_value\n"
           "assert repr(s) == '<empty cell>', repr(s)\n"
           "for proto in range(pickle.HIGHEST_PROTOCOL + 1):\n"
           "    data = pickle.dumps(s, proto)\n"
           "    assert b'_empty_cell_value' in data, data\n"
           "    assert pickle.loads(data) is s\n");
}

Test(cov_reconstruct_edges, module_fill_wants_a_module)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "try:\n"
           "    cp._module_fill(5, {'a': 1})\n"
           "except cp.ReconstructorTypeError as e:\n"
           "    assert isinstance(e, pickle.UnpicklingError)\n"
           "    assert str(e) == '_module_fill() argument 1 (module) must be '\\\n"
           "        'a module, not int', str(e)\n"
           "else:\n"
           "    raise AssertionError('filled an int')\n");
}

Test(cov_reconstruct_edges, subimport_spec_error_propagates)
{
    cpk_py_raises("import ccloudpickle as cp, sys, types\n"
                  "m = types.ModuleType('cov_busy')\n"
                  "class Broken:\n"
                  "    def __bool__(self):\n"
                  "        raise RuntimeError('cannot tell')\n"
                  "class Spec:\n"
                  "    _initializing = Broken()\n"
                  "m.__spec__ = Spec()\n"
                  "sys.modules['cov_busy'] = m\n"
                  "cp.subimport('cov_busy')\n",
                  "RuntimeError", "cannot tell");
}

Test(cov_reconstruct_edges, subimport_of_initialised_module_is_the_entry)
{
    cpk_py("import ccloudpickle as cp, sys, types\n"
           "m = types.ModuleType('cov_ready')\n"
           "class Spec:\n"
           "    _initializing = 0\n"
           "m.__spec__ = Spec()\n"
           "sys.modules['cov_ready'] = m\n"
           "assert cp.subimport('cov_ready') is m\n");
}

Test(cov_reconstruct_edges, mro_entries_error_propagates)
{
    cpk_py_raises("import ccloudpickle as cp\n"
                  "class Entry:\n"
                  "    def __mro_entries__(self, bases):\n"
                  "        raise ValueError('no entries here')\n"
                  "cp._make_skeleton_class(type, 'K', (Entry(),), {}, None, "
                  "None)\n",
                  "ValueError", "no entries here");
}

Test(cov_reconstruct_edges, mro_entries_giving_no_class_refused)
{
    cpk_py_raises("import ccloudpickle as cp\n"
                  "class Entry:\n"
                  "    def __mro_entries__(self, bases):\n"
                  "        return (5,)\n"
                  "cp._make_skeleton_class(type, 'K', (Entry(),), {}, None, "
                  "None)\n",
                  "ReconstructorTypeError",
                  "_make_skeleton_class() argument 3 (bases) item 0 must be "
                  "a class, not int");
}

Test(cov_reconstruct_edges, prepare_error_propagates)
{
    cpk_py_raises("import ccloudpickle as cp\n"
                  "class Meta(type):\n"
                  "    @classmethod\n"
                  "    def __prepare__(mcls, name, bases, **kw):\n"
                  "        raise KeyError('no namespace')\n"
                  "cp._make_skeleton_class(Meta, 'K', (), {}, None, None)\n",
                  "KeyError", "no namespace");
}

/* A namespace refusing one key: the class is not made. */
#define REFUSING_META                                                         \
    "import ccloudpickle as cp\n"                                             \
    "made = []\n"                                                             \
    "class NS(dict):\n"                                                       \
    "    def __setitem__(self, k, v):\n"                                      \
    "        if k == REFUSED:\n"                                              \
    "            raise LookupError('refused ' + k)\n"                         \
    "        dict.__setitem__(self, k, v)\n"                                  \
    "class Meta(type):\n"                                                     \
    "    @classmethod\n"                                                      \
    "    def __prepare__(mcls, name, bases, **kw):\n"                         \
    "        return NS()\n"                                                   \
    "    def __new__(mcls, name, bases, ns):\n"                               \
    "        made.append(name)\n"                                             \
    "        return super().__new__(mcls, name, bases, dict(ns))\n"           \
    "class Base:\n"                                                           \
    "    pass\n"                                                              \
    "class Entry:\n"                                                          \
    "    def __mro_entries__(self, bases):\n"                                 \
    "        return (Base,)\n"

Test(cov_reconstruct_edges, namespace_refusing_an_attribute)
{
    cpk_py(REFUSING_META
           "REFUSED = 'x'\n"
           "try:\n"
           "    cp._make_skeleton_class(Meta, 'K', (), {'x': 1}, None, None)\n"
           "except LookupError as e:\n"
           "    assert str(e) == 'refused x', str(e)\n"
           "else:\n"
           "    raise AssertionError('made')\n"
           "assert made == []\n"
           "K = cp._make_skeleton_class(Meta, 'K', (), {'y': 2}, None, None)\n"
           "assert made == ['K'] and K.y == 2 and type(K) is Meta\n");
}

Test(cov_reconstruct_edges, namespace_refusing_orig_bases)
{
    cpk_py(REFUSING_META
           "REFUSED = '__orig_bases__'\n"
           "try:\n"
           "    cp._make_skeleton_class(Meta, 'K', (Entry(),), {}, None, "
           "None)\n"
           "except LookupError as e:\n"
           "    assert '__orig_bases__' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('made')\n"
           "assert made == []\n"
           "REFUSED = None\n"
           "e = Entry()\n"
           "K = cp._make_skeleton_class(Meta, 'K', (e,), {}, None, None)\n"
           "assert K.__bases__ == (Base,) and K.__orig_bases__ == (e,)\n");
}
