/* test_cov_class_edges.c - classes and enums carried by value whose
 * namespace or bookkeeping was changed after the class statement: keys
 * that are not strings (only our own format carries them), an explicit
 * __firstlineno__, an ABC whose registry is unreadable, an enum whose
 * _member_names_ lies, __orig_bases__ whose __mro_entries__ raises. The
 * pickler either carries the class faithfully or fails with the error
 * that broke it, never pickles a class it misread. */
#include "support.h"

TestSuite(cov_class_edges, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_class_edges, non_str_keys_only_in_own_format)
{
    cpk_py_file("non_str_keys_only_in_own_format.py");
    cpk_fresh_protos("type('C', (), {1: 'one', 'a': 2})",
                     "assert obj.__dict__[1] == 'one' and obj.a == 2\n"
                     "assert obj.__name__ == 'C'\n");
}

Test(cov_class_edges, enum_with_non_str_key_refused)
{
    cpk_py_file("enum_with_non_str_key_refused.py");
}

Test(cov_class_edges, explicit_firstlineno_survives)
{
    cpk_py("class F:\n"
           "    __firstlineno__ = 1234\n"
           "    x = 1\n"
           "    def m(self):\n"
           "        return self.x + 1\n");
    cpk_fresh_protos("F",
                     "assert obj.__firstlineno__ == 1234\n"
                     "assert obj.__module__ == '__main__'\n"
                     "assert obj().m() == 2\n");
}

Test(cov_class_edges, abc_with_unreadable_registry_is_not_pickled)
{
    cpk_py_raises("import abc, ccloudpickle as cp\n"
                  "class A(abc.ABC):\n"
                  "    pass\n"
                  "A._abc_impl = 5\n"
                  "cp.dumps(A)\n",
                  "TypeError", "_abc_impl is set to a wrong type");
}

Test(cov_class_edges, orig_bases_error_propagates)
{
    cpk_py_raises(cpk_py_text("orig_bases_error_propagates.py"), "ValueError",
                  "no entries");
}

Test(cov_class_edges, enum_member_names_not_a_sequence)
{
    cpk_py_raises("import ccloudpickle as cp, enum\n"
                  "class E(enum.Enum):\n"
                  "    X = 1\n"
                  "E._member_names_ = 5\n"
                  "cp.dumps(E)\n",
                  "TypeError", "'int' object is not iterable");
}

Test(cov_class_edges, enum_member_names_naming_nothing)
{
    cpk_py_raises("import ccloudpickle as cp, enum\n"
                  "class E(enum.Enum):\n"
                  "    X = 1\n"
                  "E._member_names_ = ['X', 'NOPE']\n"
                  "cp.dumps(E)\n",
                  "AttributeError", "NOPE");
}

Test(cov_class_edges, enum_member_dict_error_propagates)
{
    cpk_py_raises("import ccloudpickle as cp, enum\n"
                  "class E(enum.Enum):\n"
                  "    X = 1\n"
                  "    @property\n"
                  "    def __dict__(self):\n"
                  "        raise RuntimeError('no dict today')\n"
                  "cp.dumps(E)\n",
                  "RuntimeError", "no dict today");
}

Test(cov_class_edges, enum_member_names_with_plain_attribute)
{
    /* A name in _member_names_ whose value has no __dict__ contributes no
     * member attributes; the members' own attributes still travel. */
    cpk_py_file("enum_member_names_with_plain_attribute.py");
    cpk_fresh("ccloudpickle.dumps(E)",
              "assert obj.X.w == 10 and obj.Y.w == 20, (obj.X.__dict__)\n"
              "assert [m.name for m in obj] == ['X', 'Y']\n"
              "assert obj(2) is obj.Y\n");
}
