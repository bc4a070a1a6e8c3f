/* test_scan_loadcalls.c - pkscan_report.load_calls after the second
 * hostile review of issue 8 (R1-R4, R6): code carried by value inside a
 * container handed to a plain callable (sorted, str, frozenset, bytes,
 * type), class attributes that are callables but not functions
 * (functools.partial as __init__ / __hash__), a second _class_setstate
 * adding __init__, the hashing-hook check in linear time, builtins.print.
 * Each refused pickle is live: without a policy it does write its
 * marker. And the other side: functions, classes and enums by value, alone
 * or in plain containers, still load under allow=[]. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan/pkscan.h"
#include "support.h"

TestSuite(scan_loadcalls, .init = cpk_py_start, .fini = cpk_py_stop);

/* `marker` (a path), `hits()` (what was written there, then removed);
 * Color: an enum by value whose methods write the marker; Base: a class
 * by value with __init_subclass__; f: a function by value; R(fn, args)
 * pickles as fn(*args); refused(obj): the pickle is refused under
 * allow=[] with nothing run, and is live without a policy. */
#define SETUP                                                                \
    "import ccloudpickle as cp, enum, functools, os, tempfile\n"             \
    "marker = os.path.join(tempfile.mkdtemp(), 'marker')\n"                  \
    "def hit(w):\n"                                                          \
    "    with open(marker, 'a') as fh: fh.write(w + '\\n')\n"                \
    "def hits():\n"                                                          \
    "    if not os.path.exists(marker): return []\n"                         \
    "    with open(marker) as fh: h = fh.read().split()\n"                   \
    "    os.unlink(marker)\n"                                                \
    "    return h\n"                                                         \
    "class Color(enum.Enum):\n"                                              \
    "    RED = 1\n"                                                          \
    "    GREEN = 2\n"                                                        \
    "    def __lt__(self, o): hit('lt'); return self.value < o.value\n"      \
    "    def __repr__(self): hit('repr'); return 'C'\n"                      \
    "    def __set_name__(self, owner, name): hit('setname')\n"              \
    "    def __hash__(self): hit('hash'); return 1\n"                        \
    "    def __index__(self): hit('index'); return 1\n"                      \
    "class Base:\n"                                                          \
    "    def __init_subclass__(cls, **kw): hit('init_subclass')\n"           \
    "def f(*a):\n"                                                           \
    "    hit('f'); return 0\n"                                               \
    "class R:\n"                                                             \
    "    def __init__(self, fn, args): self.fn, self.args = fn, args\n"      \
    "    def __reduce__(self): return (self.fn, self.args)\n"                \
    "def refused(obj, what, live=True):\n"                                              \
    "    data = cp.dumps(obj, protocol=5)\n"                                 \
    "    try:\n"                                                             \
    "        cp.loads(data, allow=[])\n"                                     \
    "    except cp.PolicyError as e:\n"                                      \
    "        assert 'code carried by value' in str(e), (what, str(e))\n"    \
    "    else:\n"                                                            \
    "        raise AssertionError('not refused: ' + what)\n"                 \
    "    assert hits() == [], what\n"                                        \
    "    if not live: return\n"                                            \
    "    try:\n"                                                             \
    "        cp.loads(data)\n"                                               \
    "    except Exception:\n"                                                \
    "        pass\n"                                                         \
    "    assert hits() != [], 'the pickle is not live: ' + what\n"

Test(scan_loadcalls, r1_code_in_containers_given_to_plain_callables)
{
    cpk_py(SETUP
           "refused(R(sorted, ([Color.RED, Color.GREEN],)), 'sorted')\n"
           "refused(R(str, ([Color.RED],)), 'str of a list')\n"
           "refused(R(frozenset, ([Color.RED],)), 'frozenset by REDUCE')\n"
           "refused(R(bytes, ([Color.RED],)), 'bytes')\n"
           "refused(R(type, ('X', (object,), {'d': Color.RED})),\n"
           "        'type with a member in the namespace')\n"
           "refused(R(type, ('X', (Base,), {})), 'type: __init_subclass__')\n"
           "refused(R(functools.partial(sorted, key=f), ([1, 2],)),\n"
           "        'partial(sorted, key=f) called')\n"
           "refused(R(sorted, ([[(Color.RED,)], [(Color.GREEN,)]],)),\n"
           "        'sorted, nested deeper')\n"
           "refused(R(str, ({'k': [Color.RED]},)), 'str, a dict value')\n");
}

Test(scan_loadcalls, r1_container_filled_through_the_memo)
{
    /* the list is made (and memoised) before its item, which APPENDS
     * adds later: the list is older than the member it holds */
    cpk_py(SETUP
           "import pickle, io\n"
           "class P(pickle.Pickler):\n"
           "    pass\n"
           "lst = []\n"
           "obj = [lst, R(sorted, (lst,))]\n"
           "lst.append(Color.RED); lst.append(Color.GREEN)\n"
           "data = cp.dumps(obj, protocol=5)\n"
           "try:\n"
           "    cp.loads(data, allow=[])\n"
           "    raise AssertionError('not refused')\n"
           "except cp.PolicyError as e:\n"
           "    assert 'code carried by value' in str(e), str(e)\n"
           "assert hits() == []\n");
}

Test(scan_loadcalls, member_hashed_by_setitems_on_an_opaque_dict)
{
    /* OrderedDict() then SETITEMS: the keys are edges of an opaque node */
    cpk_py(SETUP
           "import collections\n"
           "for obj in [collections.OrderedDict([(Color.RED, 1)]),\n"
           "            collections.OrderedDict([((Color.RED,), 1)])]:\n"
           "    data = cp.dumps(obj, protocol=5)\n"
           "    hits()  # making the dict hashed its keys\n"
           "    try:\n"
           "        cp.loads(data, allow=['collections.OrderedDict'])\n"
           "        raise AssertionError('not refused')\n"
           "    except cp.PolicyError as e:\n"
           "        assert 'code carried by value' in str(e), str(e)\n"
           "    assert hits() == []\n"
           "    cp.loads(data)\n"
           "    assert hits() != []\n");
}

/* getattr is not plain under allow=[] when it is not a constant lookup:
 * the report itself must list the call (what --strict refuses). */
Test(scan_loadcalls, getattr_of_a_member_runs_its_getattr)
{
    cpk_py(SETUP
           "class G(enum.Enum):\n"
           "    A = 1\n"
           "    def __getattr__(self, n): hit('getattr'); return 1\n"
           "ga = cp.dumps(R(getattr, (G.A, 'zz')), protocol=5)\n"
           "hits()\n"
           "cp.loads(ga)\n"
           "assert 'getattr' in hits()\n");
    size_t n;
    char *data = cpk_py_bytes("ga", &n);
    pkscan_report *r = pkscan_scan(data, n, 0);
    free(data);
    cr_assert(r != NULL && r->status == PKSCAN_OK);
    cr_assert(r->n_load_calls > 0, "getattr(member, name) not listed");
    pkscan_free(r);
}

Test(scan_loadcalls, r2_partial_as_init_or_hash)
{
    cpk_py(SETUP
           "class K:\n"
           "    __init__ = functools.partial(f)\n"
           "class H:\n"
           "    __hash__ = functools.partial(f)\n"
           "    __eq__ = functools.partial(f)\n"
           "refused(R(K, ()), 'partial __init__')\n"
           "refused(R(dict, ([(R(H, ()), 1)],)), 'partial __hash__')\n"
           "refused({R(H, ()): 1}, 'partial __hash__, a dict key')\n");
}

Test(scan_loadcalls, r3_second_class_setstate)
{
    cpk_py(SETUP
           "def g(self, *a):\n"
           "    hit('g')\n"
           "class K:\n"
           "    x = 1\n"
           "refused([R(cp._class_setstate, (K, ({'__init__': g}, {}))),\n"
           "         R(K, ())], 'a second _class_setstate', live=False)\n");
    /* (live in a fresh process only: here K is the class already
     * defined, which the load reuses without setting its state) */
}

Test(scan_loadcalls, r6_print_is_not_plain)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "data = pickle.dumps(print, protocol=4)\n"
           "try:\n"
           "    cp.loads(data, allow=[])\n"
           "    raise AssertionError('print passed allow=[]')\n"
           "except cp.PolicyError as e:\n"
           "    assert 'builtins.print' in str(e), str(e)\n");
}

Test(scan_loadcalls, still_loads_restricted)
{
    cpk_py(SETUP
           "class Plain(enum.Enum):\n"
           "    A = 1\n"
           "    B = 2\n"
           "class Meth:\n"
           "    y = (1, 'a', frozenset([2]))\n"
           "    def m(self): return 1\n"
           "def outer(a, b=3):\n"
           "    k = a\n"
           "    return lambda x=b: x + k + len(str(Plain.A))\n"
           "lam = lambda x: x + 1\n"
           "for obj in [lam, [lam, f], {'a': lam, 'b': [f]}, Meth, Color,\n"
           "            [Color.RED, Color.GREEN], Plain, [Plain.A, Plain.B],\n"
           "            {Plain.A: 1}, outer, outer(2), (Meth, Color)]:\n"
           "    got = cp.loads(cp.dumps(obj, protocol=5), allow=[])\n"
           "assert cp.loads(cp.dumps(outer(2)), allow=[])() == 5 + len(str(Plain.A))\n"
           "assert hits() == []\n");
}

/* R4: a class by value with 50 000 method names (one function memoised
 * under each) and a dict of 800 000 keys, each the same instance: the
 * hashing-hook check used to cost keys x methods (76 s here; the test's
 * timeout catches that, no time is measured), now linear and charged to
 * the work budget, which it must not exhaust. */
Test(scan_loadcalls, r4_hash_hook_check_is_linear, .timeout = 60)
{
    cpk_py("import ccloudpickle as cp, pickletools, struct, __main__\n"
           "def fm(self): pass\n"
           "M, N = 50000, 800000\n"
           "K = type('K', (), {'m%d' % i: fm for i in range(M)})\n"
           "K.__module__ = '__main__'; K.__qualname__ = 'K'\n"
           "__main__.K = K\n"
           "p = cp.dumps(K.__new__(K), protocol=5)\n"
           "nmemo = sum(1 for op, a, pos in pickletools.genops(p)\n"
           "            if op.name == 'MEMOIZE')\n"
           "get = b'j' + struct.pack('<I', nmemo)\n"
           "slow = p[:-1] + b'\\x94}(' + (get + b'N') * N + b'u\\x86.'\n");
    size_t n;
    char *data = cpk_py_bytes("slow", &n);
    pkscan_report *r = pkscan_scan(data, n, 0);
    free(data);
    cr_assert(r != NULL);
    int ok = r->status == PKSCAN_OK, truncated = r->truncated;
    size_t calls = r->n_load_calls;
    pkscan_free(r);
    cr_assert(ok);
    cr_assert(!truncated, "the linear check exhausted the work budget");
    cr_assert(calls > 0); /* the instance is created */
}
