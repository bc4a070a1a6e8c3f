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
    cpk_py("x = [1, 2, 3]\n"
           "for P in (cp.Pickler, pickle.Pickler):\n"
           "    p = P(io.BytesIO(), 4)\n"
           "    p.memo = {id(x): (0, x)}\n"
           "    failed_dump(p, x)\n"
           "    m = p.memo.copy()\n"
           "    assert m[id(x)] == (0, x) and len(m) == 2, (P, m)\n"
           "# never assigned, the memo was empty: it is again\n"
           "p = cp.Pickler(io.BytesIO(), 4)\n"
           "failed_dump(p, x)\n"
           "assert p.memo.copy() == {}\n"
           "# assigned empty, it is known to be empty no more\n"
           "p = cp.Pickler(io.BytesIO(), 4)\n"
           "p.memo = {}\n"
           "failed_dump(p, x)\n"
           "assert len(p.memo.copy()) == 2\n");
}

Test(coverage_memo, assigned_memo_is_used)
{
    /* Another Pickler's memo: the object it holds is written as a
     * reference to its index, byte for byte as pickle.Pickler writes. */
    cpk_py(BAD);
    cpk_py("x = [1, 2, 3]\n"
           "q = cp.Pickler(io.BytesIO(), 4)\n"
           "q.dump(x)\n"
           "out = []\n"
           "for P in (cp.Pickler, pickle.Pickler):\n"
           "    f = io.BytesIO()\n"
           "    p = P(f, 4)\n"
           "    p.memo = q.memo\n"
           "    p.dump(x)\n"
           "    out.append(f.getvalue())\n"
           "assert out[0] == out[1] == b'\\x80\\x04h\\x00.', out\n");
    /* An empty memo assigned between two closures of one def: the
     * second pickle holds their shared globals again and loads alone;
     * without the assignment it refers to the first one's. */
    cpk_py("import sys, types\n"
           "m = types.ModuleType('memo_mod')\n"
           "exec('G = 5\\n'\n"
           "     'def make(k):\\n'\n"
           "     '    def f(): return G + k\\n'\n"
           "     '    return f\\n', m.__dict__)\n"
           "sys.modules['memo_mod'] = m\n"
           "cp.register_pickle_by_value(m)\n"
           "f1, f2 = m.make(1), m.make(2)\n"
           "def second(reset):\n"
           "    f = io.BytesIO()\n"
           "    p = cp.Pickler(f, 4)\n"
           "    p.dump(f1)\n"
           "    start = f.tell()\n"
           "    if reset:\n"
           "        p.memo = {}\n"
           "    p.dump(f2)\n"
           "    return f.getvalue()[start:]\n"
           "assert cp.loads(second(True))() == 7\n"
           "try:\n"
           "    cp.loads(second(False))\n"
           "except pickle.UnpicklingError as e:\n"
           "    assert 'Memo value not found' in str(e), e\n"
           "else:\n"
           "    raise AssertionError('loaded without the first pickle')\n");
}

Test(coverage_memo, what_cpython_refuses_is_refused)
{
    cpk_py(BAD);
    cpk_py("def errors(P):\n"
           "    p = P(io.BytesIO(), 4)\n"
           "    got = []\n"
           "    for value in (5, None, [1]):\n"
           "        try:\n"
           "            p.memo = value\n"
           "        except TypeError as e:\n"
           "            got.append(str(e))\n"
           "    try:\n"
           "        del p.memo\n"
           "    except (TypeError, AttributeError) as e:\n"
           "        got.append(type(e).__name__ + ': ' + str(e))\n"
           "    p.dump('still works')\n"
           "    return got\n"
           "mine, theirs = errors(cp.Pickler), errors(pickle.Pickler)\n"
           "assert len(mine) == 4 and mine == theirs, (mine, theirs)\n");
}
