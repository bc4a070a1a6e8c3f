/* test_cov_scan_plain_state.c - a class carried by value whose state
 * holds only plain data, getattr of an imported name included
 * (str.upper, pickled as getattr(str, "upper")), has no methods: an
 * import policy that allows the names lets an instance load, as it
 * would not if the class had a method of its own. */
#include "support.h"

TestSuite(cov_scan_plain_state, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_scan_plain_state, getattr_of_imported_value_is_plain)
{
    cpk_py("import ccloudpickle as cp\n"
           "class C:\n"
           "    up = str.upper\n"
           "    n = None\n"
           "    t = (1, 'a', b'b')\n"
           "data = cp.dumps(C())\n"
           "assert b'getattr' in data and b'upper' in data\n"
           "obj = cp.loads(data, allow=['builtins.str.upper'])\n"
           "assert type(obj).up is str.upper and type(obj).t == (1, 'a', b'b')\n"
           "class D:\n"
           "    up = str.upper\n"
           "    def m(self):\n"
           "        return 1\n"
           "try:\n"
           "    cp.loads(cp.dumps(D()), allow=['builtins.str.upper'])\n"
           "except cp.PolicyError as e:\n"
           "    assert 'creates an instance of a class carried by value' \\\n"
           "        in str(e), e\n"
           "else:\n"
           "    raise AssertionError('a class with a method was let in')\n");
}
