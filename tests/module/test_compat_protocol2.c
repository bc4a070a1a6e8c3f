/* test_compat_protocol2.c - a compat='cloudpickle' pickle at protocols 0-2
 * names __builtin__.__import__ (the Python 2 name, which _pickle maps to
 * builtins only inside its own find_class): ccloudpickle must still hand
 * out its __import__ with cloudpickle's module shim, so the pickle loads
 * where cloudpickle is not installed, as protocols 3-5 do. Found while
 * running tests/fuzz/test_fuzz_regressions.c on CPython 3.12 (no cloudpickle
 * there). */
#include "support.h"

#include <stdio.h>

static void
load_without_cloudpickle(int protocol)
{
    char code[2048];
    snprintf(code, sizeof(code),
             "import sys, ccloudpickle\n"
             "try:\n"
             "    import cloudpickle\n"
             "except ImportError:\n"
             "    pass\n"
             "else:\n"
             "    raise AssertionError('cloudpickle is importable here')\n"
             "def f(a, *, k=2):\n"
             "    z = a\n"
             "    def g():\n"
             "        return z + k\n"
             "    return g()\n"
             "data = ccloudpickle.dumps(f, %d, compat='cloudpickle')\n"
             "assert b'__builtin__' in data or %d > 2\n"
             "g = ccloudpickle.loads(data)\n"
             "assert g(1) == 3 and g(1, k=5) == 6\n"
             "assert 'cloudpickle' not in sys.modules\n",
             protocol, protocol);
    cpk_proc p;
    cpk_python_path(&p, CPK_BUILD_DIR, code, NULL, 0);
    cr_assert(p.exited && p.status == 0, "protocol %d: %s", protocol, p.err);
    cpk_proc_free(&p);
}

Test(compat_protocol2, loads_without_cloudpickle_at_every_protocol)
{
    for (int protocol = 0; protocol <= 5; protocol++)
        load_without_cloudpickle(protocol);
}

Test(compat_protocol2, builtin_import_of_other_modules_still_imports)
{
    /* __builtin__.__import__ of anything else is the real __import__. */
    cpk_py_start();
    cpk_py("import ccloudpickle, pickle\n"
           "data = (b'\\x80\\x02c__builtin__\\n__import__\\nX\\x07\\x00\\x00\\x00'\n"
           "        b'os.pathq\\x00\\x85q\\x01Rq\\x02.')\n"
           "import os\n"
           "assert ccloudpickle.loads(data) is os\n");
    cpk_py_stop();
}
