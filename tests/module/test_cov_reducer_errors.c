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
    cpk_py_raises("import ccloudpickle as cp, collections.abc, types\n"
                  "class M(collections.abc.Mapping):\n"
                  "    def __getitem__(self, k):\n"
                  "        raise KeyError(k)\n"
                  "    def __iter__(self):\n"
                  "        return iter(())\n"
                  "    def __len__(self):\n"
                  "        return 1\n"
                  "    def keys(self):\n"
                  "        raise RuntimeError('no keys today')\n"
                  "cp.dumps(types.MappingProxyType(M()))\n",
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
    cpk_py("import ccloudpickle as cp, dataclasses, pickle\n"
           "s = dataclasses._FIELD_BASE('odd')\n"
           "del s.name\n"
           "try:\n"
           "    cp.dumps(s)\n"
           "except AttributeError as e:\n"
           "    assert 'name' in str(e), e\n"
           "else:\n"
           "    raise AssertionError('pickled a nameless sentinel')\n"
           "try:\n"
           "    cp.dumps(s, compat='cloudpickle')\n"
           "except pickle.PicklingError as e:\n"
           "    assert str(e).startswith(\"Can't pickle dataclasses.\"\n"
           "                             '_FIELD_BASE(None) for '), e\n"
           "else:\n"
           "    raise AssertionError('pickled for cloudpickle')\n");
}
