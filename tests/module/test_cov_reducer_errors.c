/* test_cov_reducer_errors.c - objects the reducers of src/types/reducers.c
 * cannot read: a released memoryview, a mapping proxy over a mapping
 * whose keys() raises, a logger or dataclasses field sentinel that lost
 * its name. The dump fails with the error that stopped the reducer, or,
 * for a stock format, with a refusal that shows what it could read. */
#include "support.h"

TestSuite(cov_reducer_errors, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_reducer_errors, released_memoryview)
{
    cpk_py_raises("import ccloudpickle as cp\n"
                  "m = memoryview(b'abc')\n"
                  "m.release()\n"
                  "cp.dumps(m)\n",
                  "ValueError", "released memoryview");
    cpk_py("import ccloudpickle as cp\n"
           "assert cp.loads(cp.dumps(memoryview(b'abc'))) == b'abc'\n");
}

Test(cov_reducer_errors, mapping_proxy_of_failing_mapping)
{
    cpk_py_raises(cpk_py_text("mapping_proxy_of_failing_mapping.py"),
                  "RuntimeError", "no keys today");
}

Test(cov_reducer_errors, logger_without_name)
{
    cpk_py_raises("import ccloudpickle as cp, logging\n"
                  "lg = logging.Logger('cov.nameless')\n"
                  "del lg.name\n"
                  "cp.dumps(lg)\n",
                  "AttributeError", "name");
}

Test(cov_reducer_errors, field_sentinel_without_name)
{
    cpk_py_file("field_sentinel_without_name.py");
}
