/* test_beyond_deep.c - issue 12, deep structures: linked lists of
 * instances of by-value classes and deeply nested lists and dicts pickle
 * at the default recursion limit (pickler.c retries the dump on a large C
 * stack, deepstack.c) and load in a fresh process; scenarios in
 * tests/beyond. In this process: the retry's edges - determinism, a file
 * left untouched by a failed retry, cycles, errors raised deep inside,
 * KeyboardInterrupt, a structure too deep even for the retry, the thread
 * state left as it was. */
#include "support.h"

TestSuite(beyond_deep, .init = cpk_py_start, .fini = cpk_py_stop);

Test(beyond_deep, linked_lists_of_by_value_instances, .timeout = 120)
{
    cpk_beyond("deep_linked_list");
}

Test(beyond_deep, nested_lists_and_dicts, .timeout = 120)
{
    cpk_beyond("deep_nested_lists");
}

/* Shared by the in-process tests: a by-value class (defined in __main__)
 * and chains of it. */
#define CHAIN                                                                 \
    "import sys, io, ccloudpickle, pickle\n"                                 \
    "class Cell:\n"                                                          \
    "    def __init__(self, value, next):\n"                                 \
    "        self.value = value\n"                                           \
    "        self.next = next\n"                                             \
    "def chain(n, bottom=None):\n"                                           \
    "    head = bottom\n"                                                    \
    "    for i in reversed(range(n)):\n"                                     \
    "        head = Cell(i, head)\n"                                         \
    "    return head\n"                                                      \
    "def length(head):\n"                                                    \
    "    n = 0\n"                                                            \
    "    while isinstance(head, Cell):\n"                                    \
    "        assert head.value == n\n"                                       \
    "        n += 1\n"                                                       \
    "        head = head.next\n"                                             \
    "    return n\n"                                                         \
    "assert sys.getrecursionlimit() == 1000\n"

Test(beyond_deep, same_object_same_bytes, .timeout = 60)
{
    cpk_py(CHAIN
           "head = chain(20000)\n"
           "a = ccloudpickle.dumps(head)\n"
           "b = ccloudpickle.dumps(head)\n"
           "assert a == b\n"
           /* The file path writes those same bytes, once. */
           "f = io.BytesIO()\n"
           "ccloudpickle.dump(head, f)\n"
           "assert f.getvalue() == a\n"
           "p = ccloudpickle.Pickler(io.BytesIO())\n"
           "assert length(ccloudpickle.loads(a)) == 20000\n"
           /* a plain pickle: the stdlib loads it (the class is ours). */
           "assert length(pickle.loads(a)) == 20000\n"
           /* the recursion budget is as it was */
           "def rec(n): return rec(n + 1)\n"
           "try:\n"
           "    rec(0)\n"
           "except RecursionError:\n"
           "    pass\n"
           "else:\n"
           "    raise AssertionError('no RecursionError')\n");
}

Test(beyond_deep, a_deep_cycle_and_shared_nodes, .timeout = 60)
{
    cpk_py(CHAIN
           "head = chain(30000)\n"
           "tail = head\n"
           "while tail.next is not None:\n"
           "    tail = tail.next\n"
           "tail.next = head\n" /* a ring of 30,000 */
           "out = ccloudpickle.loads(ccloudpickle.dumps([head, tail]))\n"
           "h, t = out\n"
           "assert t.next is h and t.value == 29999\n"
           "node, n = h, 0\n"
           "while True:\n"
           "    n += 1\n"
           "    node = node.next\n"
           "    if node is h:\n"
           "        break\n"
           "assert n == 30000\n"
           "tail.next = None\n");
}

Test(beyond_deep, an_error_deep_inside_names_the_path, .timeout = 300)
{
    cpk_py(CHAIN
           "class Bad:\n"
           "    def __reduce__(self):\n"
           "        raise ValueError('not at depth')\n"
           "head = chain(50000, Bad())\n"
           "try:\n"
           "    ccloudpickle.dumps(head)\n"
           "except ValueError as e:\n"
           "    err = e\n"
           "else:\n"
           "    raise AssertionError('dumps succeeded')\n"
           /* the culprit search stops 40 levels down (diagnose.c); a
            * note on 3.11+, the message's tail before */
           "if sys.version_info >= (3, 11):\n"
           "    assert str(err) == 'not at depth'\n"
           "    where = ''.join(err.__notes__)\n"
           "else:\n"
           "    where = str(err)[len('not at depth; '):]\n"
           "assert where.startswith('when pickling <Cell object>.next.next'), where\n"
           /* a file is left as it was */
           "f = io.BytesIO(b'keep')\n"
           "f.seek(4)\n"
           "try:\n"
           "    ccloudpickle.dump(head, f)\n"
           "except ValueError:\n"
           "    pass\n"
           "assert f.getvalue() == b'keep'\n"
           "p = ccloudpickle.Pickler(f)\n"
           "try:\n"
           "    p.dump(head)\n"
           "except ValueError:\n"
           "    pass\n"
           "assert f.getvalue() == b'keep'\n"
           /* and the same Pickler then dumps a good one */
           "good = chain(20000)\n"
           "p.dump(good)\n"
           "assert f.getvalue()[4:] == ccloudpickle.dumps(good)\n");
}

Test(beyond_deep, keyboard_interrupt_deep_inside_propagates, .timeout = 60)
{
    cpk_py(CHAIN
           "class Stop:\n"
           "    def __reduce__(self):\n"
           "        raise KeyboardInterrupt\n"
           "try:\n"
           "    ccloudpickle.dumps(chain(50000, Stop()))\n"
           "except KeyboardInterrupt:\n"
           "    pass\n"
           "else:\n"
           "    raise AssertionError('no KeyboardInterrupt')\n"
           "assert length(ccloudpickle.loads(ccloudpickle.dumps(chain(5000)))) == 5000\n");
}

Test(beyond_deep, deeper_than_the_retry_holds_fails_cleanly, .timeout = 120)
{
    cpk_py_raises(CHAIN
                  "ccloudpickle.dumps(chain(300000))\n",
                  "PicklingError", "excessively deep recursion");
}

Test(beyond_deep, recursion_in_user_code_is_not_retried, .timeout = 60)
{
    /* A __reduce__ recursing without end is the user's bug: the first
     * attempt's error, at the default limit. */
    cpk_py("import ccloudpickle\n"
           "calls = []\n"
           "class Loop:\n"
           "    def __reduce__(self):\n"
           "        calls.append(1)\n"
           "        def down(n): return down(n + 1)\n"
           "        return down(0)\n"
           "try:\n"
           "    ccloudpickle.dumps([Loop()], diagnose=False)\n"
           "except ccloudpickle.PicklingError as e:\n"
           "    assert isinstance(e.__cause__, RecursionError)\n"
           "else:\n"
           "    raise AssertionError('dumps succeeded')\n"
           "assert len(calls) == 1, len(calls)\n");
}

Test(beyond_deep, slots_instances_and_a_stdlib_load, .timeout = 60)
{
    cpk_py("import ccloudpickle, pickle\n"
           "class S:\n"
           "    __slots__ = ('v', 'nxt')\n"
           "    def __init__(self, v, nxt):\n"
           "        self.v, self.nxt = v, nxt\n"
           "h = None\n"
           "for i in range(20000):\n"
           "    h = S(i, h)\n"
           "out = pickle.loads(ccloudpickle.dumps(h))\n"
           "n = 0\n"
           "while out is not None:\n"
           "    assert out.v == 19999 - n\n"
           "    n += 1\n"
           "    out = out.nxt\n"
           "assert n == 20000\n"
           "l = []\n"
           "for i in range(100000):\n"
           "    l = [l, {'i': i}]\n"
           "assert ccloudpickle.dumps(l) == ccloudpickle.dumps(l)\n"
           "x = ccloudpickle.loads(ccloudpickle.dumps(l))\n"
           "for i in reversed(range(100000)):\n"
           "    assert x[1] == {'i': i}\n"
           "    x = x[0]\n"
           "assert x == []\n");
}

Test(beyond_deep, nested_retries_and_threads, .timeout = 120)
{
    /* A __reduce__ inside a retried dump that itself dumps a deep
     * structure retries on a stack of its own; threads (switching under
     * the GIL) each retry on theirs. */
    cpk_py(CHAIN
           "import threading\n"
           "class Inner:\n"
           "    def __reduce__(self):\n"
           "        return (ccloudpickle.loads, (ccloudpickle.dumps(chain(20000)),))\n"
           "out = ccloudpickle.loads(ccloudpickle.dumps(chain(20000, Inner())))\n"
           "n = 0\n"
           "while out is not None:\n"
           "    n += 1\n"
           "    out = out.next\n"
           "assert n == 40000, n\n"
           "want = ccloudpickle.dumps(chain(30000))\n"
           "got = []\n"
           "def work():\n"
           "    got.append(ccloudpickle.dumps(chain(30000)))\n"
           /* Small for a thread, big enough for the first attempt:
            * 3.12+ let C recursion reach its own limit (10,000 levels on
            * 3.13) before any retry, and plain pickle crashes a 256 KiB
            * thread there too. */
           "threading.stack_size((256 if sys.version_info < (3, 12) else\n"
           "                      32768) * 1024)\n"
           "ts = [threading.Thread(target=work) for _ in range(3)]\n"
           "for t in ts:\n"
           "    t.start()\n"
           "for t in ts:\n"
           "    t.join()\n"
           "assert got == [want] * 3\n");
}
