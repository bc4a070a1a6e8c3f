/* test_coverage_memo.c - assigning Pickler.memo (src/engine/pickler.c): the
 * memo given is the one the next dump uses, it is kept after a dump that
 * fails, as pickle.Pickler keeps it (only a memo known to be empty is
 * emptied again), and what CPython refuses to assign is refused. */
#include "support.h"

TestSuite(coverage_memo, .init = cpk_py_start, .fini = cpk_py_stop);

static const char *const BAD =
    "import ccloudpickle as cp, io, pickle\n"
    "class Bad:\n"
    "    def __reduce__(self):\n"
    "        raise ValueError('no')\n"
    "def failed_dump(p, obj):\n"
    "    try:\n"
    "        p.dump([obj, Bad()])\n"
    "    except ValueError:\n"
    "        return\n"
    "    raise AssertionError('dumped')\n";

Test(coverage_memo, assigned_memo_survives_a_failed_dump)
{
    cpk_py(BAD);
    cpk_py_file("assigned_memo_survives_a_failed_dump.py");
}

Test(coverage_memo, assigned_memo_is_used)
{
    /* Another Pickler's memo: the object it holds is written as a
     * reference to its index, byte for byte as pickle.Pickler writes. */
    cpk_py(BAD);
    cpk_py_file("assigned_memo_is_used.py");
    /* An empty memo assigned between two closures of one def: the
     * second pickle holds their shared globals again and loads alone;
     * without the assignment it refers to the first one's. */
    cpk_py_file("assigned_memo_is_used_2.py");
}

Test(coverage_memo, what_cpython_refuses_is_refused)
{
    cpk_py(BAD);
    cpk_py_file("what_cpython_refuses_is_refused.py");
}
