/* test_cov_newtype_edges.c - a NewType carried by value whose
 * __module__ is not a str travels without one (the loader's is kept),
 * one that lost its __supertype__ cannot be pickled; and a class
 * attribute named by the empty string travels with its class. */
#include "support.h"

TestSuite(cov_newtype_edges, .init = cpk_py_start, .fini = cpk_py_stop);

#define REQUIRE_NEWTYPE_CLASS()                                               \
    if (PY_VERSION_HEX < 0x030A0000)                                          \
    cr_skip_test("typing.NewType is a class from 3.10 (a function before)")

Test(cov_newtype_edges, module_not_a_str)
{
    REQUIRE_NEWTYPE_CLASS();
    cpk_py("import ccloudpickle, typing\n"
           "UserId = typing.NewType('UserId', int)\n"
           "UserId.__module__ = 5\n");
    cpk_fresh("ccloudpickle.dumps(UserId)",
              "assert obj.__supertype__ is int and obj(3) == 3\n"
              "assert obj.__qualname__ == 'UserId'\n"
              "assert isinstance(obj.__module__, str), obj.__module__\n");
}

Test(cov_newtype_edges, supertype_missing)
{
    REQUIRE_NEWTYPE_CLASS();
    cpk_py_raises("import ccloudpickle as cp, typing\n"
                  "V = typing.NewType('V', str)\n"
                  "del V.__supertype__\n"
                  "cp.dumps(V)\n",
                  "AttributeError", "__supertype__");
}

Test(cov_newtype_edges, empty_attribute_name)
{
    cpk_py("import ccloudpickle\n"
           "class K:\n"
           "    x = 1\n"
           "setattr(K, '', 'empty')\n");
    cpk_fresh("ccloudpickle.dumps(K)",
              "assert getattr(obj, '') == 'empty' and obj.x == 1\n"
              "assert obj.__name__ == 'K'\n");
}
