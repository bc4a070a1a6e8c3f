/* test_cov_function_modules.c - a function carried by value whose
 * globals hold a module without a __name__ (deleted, as a module made by
 * hand may lack it): a package or a plain module, the dump fails saying
 * which module cannot be pickled and why, not with the AttributeError of
 * the lookup that found it nameless. */
#include "support.h"

TestSuite(cov_function_modules, .init = cpk_py_start, .fini = cpk_py_stop);

#define NAMELESS(pkg)                                                         \
    "import ccloudpickle as cp, pickle, types\n"                              \
    "m = types.ModuleType('cov_nameless')\n"                                  \
    "m.x = 1\n" pkg                                                           \
    "del m.__name__\n"                                                        \
    "def f():\n"                                                              \
    "    return m.x\n"                                                        \
    "for kw in ({}, {'compat': 'cloudpickle'}):\n"                            \
    "    try:\n"                                                              \
    "        cp.dumps(f, **kw)\n"                                             \
    "    except pickle.PicklingError as e:\n"                                 \
    "        msg = str(e).split('; when pickling ')[0]\n"                   \
    "        assert msg == 'cannot pickle module: its __name__ is '\\\n"     \
    "            'missing', (kw, str(e))\n"                                   \
    "    else:\n"                                                             \
    "        raise AssertionError('pickled %r' % (kw,))\n"                    \
    "m.__name__ = 'cov_nameless'\n"                                           \
    "assert cp.loads(cp.dumps(f))() == 1\n"

Test(cov_function_modules, nameless_package_global)
{
    cpk_py(NAMELESS("m.__package__ = 'cov_nameless'\n"));
}

Test(cov_function_modules, nameless_module_global)
{
    cpk_py(NAMELESS(""));
}
