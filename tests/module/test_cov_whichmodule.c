/* test_cov_whichmodule.c - an object whose __module__ is None is looked
 * for in sys.modules, as cloudpickle's _whichmodule does: found in a
 * module, it is pickled by reference to it (and loads as itself), a
 * module without it passed over; found nowhere but __main__, it goes by
 * value. */
#include "support.h"

TestSuite(cov_whichmodule, .init = cpk_py_start, .fini = cpk_py_stop);

#define HOME                                                                  \
    "import ccloudpickle as cp, pickletools, sys, types\n"                    \
    "def names(data):\n"                                                      \
    "    return [a for op, a, _ in pickletools.genops(data)\n"               \
    "            if isinstance(a, str)]\n"                                    \
    "def f():\n"                                                              \
    "    return 1\n"                                                          \
    "f.__module__ = None\n"

Test(cov_whichmodule, found_in_a_module_goes_by_reference)
{
    cpk_py(HOME
           "class Other(types.ModuleType):\n"
           "    def __getattr__(self, name):\n"
           "        raise AttributeError(name)\n"
           "sys.modules['cov_other'] = Other('cov_other')\n"
           "home = types.ModuleType('cov_home')\n"
           "home.f = f\n"
           "sys.modules['cov_home'] = home\n"
           "data = cp.dumps(f)\n"
           "assert names(data)[:2] == ['cov_home', 'f'], names(data)\n"
           "assert b'co_code' not in data and cp.loads(data) is f\n");
}

Test(cov_whichmodule, found_nowhere_goes_by_value)
{
    cpk_py(HOME
           "data = cp.dumps(f)\n"
           "assert 'cov_home' not in names(data)\n"
           "g = cp.loads(data)\n"
           "assert g is not f and g() == 1\n");
}
