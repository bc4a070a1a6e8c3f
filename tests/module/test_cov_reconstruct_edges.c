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
    cpk_py_file("module_fill_wants_a_module.py");
}

Test(cov_reconstruct_edges, subimport_spec_error_propagates)
{
    cpk_py_raises(cpk_py_text("subimport_spec_error_propagates.py"),
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

Test(cov_reconstruct_edges, namespace_refusing_an_attribute)
{
    cpk_py_file("_refusing_meta.py", "namespace_refusing_an_attribute.py");
}

Test(cov_reconstruct_edges, namespace_refusing_orig_bases)
{
    cpk_py_file("_refusing_meta.py", "namespace_refusing_orig_bases.py");
}
