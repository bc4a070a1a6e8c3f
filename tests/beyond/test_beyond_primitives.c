/* Issue 12: per-process objects (locks, events, conditions, semaphores,
 * ContextVar, struct.Struct, weak dicts) referenced by shipped code are
 * rebuilt new where loaded (src/types/primitives.c). The scenarios in
 * tests/beyond load in a fresh process; the tests below check, in this
 * one, what loads accepts (allow=[], the stock formats), what it refuses
 * (hostile reconstructor arguments) and what the reducers leave alone
 * (subclasses). */
#include "support.h"

#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

TestSuite(beyond_primitives, .init = cpk_py_start, .fini = cpk_py_stop);

Test(beyond_primitives, locks_events_conditions_semaphores)
{
    cpk_beyond("prim_locks");
}

Test(beyond_primitives, cached_property_on_a_class_by_value)
{
    cpk_beyond("prim_cached_property");
}

Test(beyond_primitives, contextvars_keep_name_default_and_identity)
{
    cpk_beyond("prim_contextvar");
}

Test(beyond_primitives, struct_rebuilt_from_its_format)
{
    cpk_beyond("prim_struct");
}

Test(beyond_primitives, weak_dicts_keep_entries_held_elsewhere)
{
    cpk_beyond("prim_weakdict");
}

/* One of each, as a list. */
#define ALL                                                                  \
    "import ccloudpickle as cp, threading, _thread, contextvars, struct\n"   \
    "import pickle, weakref\n"                                               \
    "k = int  # weakrefable, plain, by name: no cloudpickle, allow=[]\n"   \
    "def every():\n"                                                         \
    "    L = threading.Lock()\n"                                             \
    "    return [L, threading.RLock(), threading._PyRLock(),\n"              \
    "            threading.Event(), threading.Condition(L),\n"               \
    "            threading.Condition(), threading.Semaphore(2),\n"           \
    "            threading.BoundedSemaphore(3),\n"                           \
    "            contextvars.ContextVar('a'),\n"                             \
    "            contextvars.ContextVar('b', default=[1]),\n"                \
    "            struct.Struct('<hq'), weakref.WeakValueDictionary({1: k}),\n" \
    "            weakref.WeakKeyDictionary({k: 2}), k]\n"                    \
    "def check(o):\n"                                                        \
    "    assert [type(x) for x in o] == [_thread.LockType, _thread.RLock,\n" \
    "        threading._PyRLock, threading.Event, threading.Condition,\n"    \
    "        threading.Condition, threading.Semaphore,\n"                    \
    "        threading.BoundedSemaphore, contextvars.ContextVar,\n"          \
    "        contextvars.ContextVar, struct.Struct,\n"                       \
    "        weakref.WeakValueDictionary, weakref.WeakKeyDictionary,\n"      \
    "        type(o[-1])], o\n"                                              \
    "    assert o[4]._lock is o[0] and type(o[5]._lock) is _thread.RLock\n"  \
    "    assert o[6]._value == 2 and o[7]._initial_value == 3\n"             \
    "    assert o[8].get(None) is None and o[8].name == 'a'\n"               \
    "    assert o[9].get() == [1] and o[10].format == '<hq'\n"               \
    "    assert dict(o[11]) == {1: o[-1]} and dict(o[12]) == {o[-1]: 2}\n"

/* Only our reconstructors (or nothing) are imported: allow=[] loads it. */
Test(beyond_primitives, allow_nothing_loads_them)
{
    cpk_py(ALL "data = cp.dumps(every())\n"
               "for name in (b'_make_lock', b'_make_event', b'_make_condition',\n"
               "             b'_make_semaphore', b'_make_contextvar',\n"
               "             b'_make_struct', b'_make_weakdict'):\n"
               "    assert name in data, name\n"
               "check(cp.loads(data, allow=[]))\n"
               "check(cp.loads(data))\n");
}

/* The stock formats name the standard library's callables: plain pickle
 * loads them, with the same kinds, values and defaults. */
Test(beyond_primitives, stock_formats_use_stdlib_callables)
{
    cpk_py(ALL "import sys\n"
               "old = sys.version_info < (3, 10)\n"
               "for compat in ('cloudpickle3', 'cloudpickle2', '2.1'):\n"
               "    for proto in (2, 4, 5):\n"
               "        objs = every()\n"
               "        if old:  # 3.9's ContextVar is builtins.ContextVar\n"
               "            for cv in objs[8:10]:\n"
               "                try:\n"
               "                    cp.dumps(cv, compat=compat)\n"
               "                except TypeError as e:\n"
               "                    assert 'ContextVar' in str(e), e\n"
               "                else:\n"
               "                    raise AssertionError('3.9 ContextVar')\n"
               "            objs[8:10] = [None, None]\n"
               "        data = cp.dumps(objs, protocol=proto, compat=compat)\n"
               "        assert b'ccloudpickle' not in data, (compat, proto)\n"
               "        o = pickle.loads(data)\n"
               "        if old:\n"
               "            o[8:10] = every()[8:10]\n"
               "        check(o)\n");
}

/* State that belongs to the dumping process stays there. */
Test(beyond_primitives, per_process_state_does_not_travel)
{
    cpk_py("import ccloudpickle as cp, threading, contextvars\n"
           "L, R, E = threading.Lock(), threading.RLock(), threading.Event()\n"
           "P = threading._PyRLock()\n"
           "for x in (L, R, P):\n"
           "    x.acquire()\n"
           "E.set()\n"
           "V = contextvars.ContextVar('v', default=0)\n"
           "W = contextvars.ContextVar('w')\n"
           "V.set(5)\n"
           "W.set(6)\n"
           "l, r, e, p, v, w = cp.loads(cp.dumps([L, R, E, P, V, W]))\n"
           "assert not l.locked() and l is not L\n"
           "assert r.acquire(blocking=False) and p.acquire(blocking=False)\n"
           "assert not e.is_set()\n"
           "assert V.get() == 5 and v.get() == 0 and w.get(None) is None\n"
           "assert v is not V and v.name == 'v'\n");
}

/* Same object, same bytes; one object in a dump is one object loaded. */
Test(beyond_primitives, deterministic_and_memoized)
{
    cpk_py(ALL "objs = every()\n"
               "assert cp.dumps(objs) == cp.dumps(objs)\n"
               "L = threading.Lock()\n"
               "V = contextvars.ContextVar('v')\n"
               "a, b, c, d = cp.loads(cp.dumps([L, V, L, V]))\n"
               "assert a is c and b is d and a is not b\n");
}

/* Subclasses are not ours: the reducers take exact types only. */
Test(beyond_primitives, subclasses_are_not_caught)
{
    cpk_py("import ccloudpickle as cp, threading, _thread, struct, weakref\n"
           "class MyEvent(threading.Event): pass\n"
           "class MySem(threading.Semaphore): pass\n"
           "class MyRLock(_thread.RLock): pass\n"
           "class MyStruct(struct.Struct): pass\n"
           "class MyWVD(weakref.WeakValueDictionary): pass\n"
           "cases = [(MyEvent(), b'_make_event'), (MySem(1), b'_make_semaphore'),\n"
           "         (MyRLock(), b'_make_lock'), (MyStruct('i'), b'_make_struct'),\n"
           "         (MyWVD(), b'_make_weakdict')]\n"
           "for x, ours in cases:\n"
           "    try:\n"
           "        data = cp.dumps(x)\n"
           "    except Exception:\n"
           "        continue\n"
           "    assert ours not in data, (x, ours)\n"
           "try:\n"
           "    cp._reduce(MyEvent())\n"
           "except TypeError as e:\n"
           "    assert 'no reducer for' in str(e), e\n"
           "else:\n"
           "    raise AssertionError('_reduce took a subclass')\n");
}

/* A condition over something else than a threading lock is refused when
 * pickled, by name. */
Test(beyond_primitives, condition_over_a_foreign_lock_is_refused)
{
    cpk_py_raises("import ccloudpickle as cp, threading\n"
                  "class MyLock:\n"
                  "    def acquire(self, *a): return True\n"
                  "    def release(self): pass\n"
                  "cp.dumps(threading.Condition(MyLock()))\n",
                  "PicklingError",
                  "Can't pickle a threading.Condition over a MyLock");
}

/* A dispatch_table the user sets still wins over our reducers. */
Test(beyond_primitives, user_dispatch_table_wins)
{
    cpk_py("import ccloudpickle as cp, io, threading\n"
           "L = threading.Lock()\n"
           "f = io.BytesIO()\n"
           "p = cp.Pickler(f)\n"
           "p.dispatch_table = {type(L): lambda l: (int, (7,))}\n"
           "p.dump([L])\n"
           "assert cp.loads(f.getvalue()) == [7]\n"
           "assert cp._reduce(L)[0] is cp._make_lock\n");
}

#define TE "ReconstructorTypeError"
#define VE "ReconstructorValueError"

struct bad_call {
    char name[32];
    char args[96];
    char exc[32];
    char frag[120];
};

static struct bad_call bad_calls[] = {
    {"_make_lock", "()", TE, "_make_lock() takes exactly 1 argument"},
    {"_make_lock", "(1,)", TE, "_make_lock() argument 1 (kind) must be str, not int"},
    {"_make_lock", "('mutex',)", VE, "_make_lock() argument 1 (kind) must be 'lock', 'rlock' or '_rlock', not 'mutex'"},
    {"_make_lock", "('\\udc80',)", VE, "argument 1 (kind) must be 'lock', 'rlock' or '_rlock', not '\\udc80'"},
    {"_make_event", "(1,)", TE, "_make_event() takes"},
    {"_make_condition", "()", TE, "_make_condition() takes exactly 1 argument"},
    {"_make_condition", "(1,)", TE, "_make_condition() argument 1 (lock) must be _thread.lock, _thread.RLock or threading._RLock, not int"},
    {"_make_condition", "(threading.Event(),)", TE, "not Event"},
    {"_make_semaphore", "(1,)", TE, "_make_semaphore() takes exactly 2 arguments"},
    {"_make_semaphore", "(1.5, False)", TE, "argument 1 (value) must be int, not float"},
    {"_make_semaphore", "(1, 1)", TE, "argument 2 (bounded) must be bool, not int"},
    {"_make_semaphore", "(-1, True)", VE, "argument 1 (value) must be >= 0, not -1"},
    {"_make_contextvar", "()", TE, "_make_contextvar() takes"},
    {"_make_contextvar", "('a', 1, 2)", TE, "_make_contextvar() takes"},
    {"_make_contextvar", "(b'a',)", TE, "argument 1 (name) must be str, not bytes"},
    {"_make_struct", "(b'i',)", TE, "argument 1 (format) must be str, not bytes"},
    {"_make_struct", "('Z',)", "error", "bad char in struct format"},
    {"_make_weakdict", "()", TE, "_make_weakdict() takes exactly 1 argument"},
    {"_make_weakdict", "(0,)", TE, "argument 1 (weak_keys) must be bool, not int"},
};
#define NBAD (sizeof(bad_calls) / sizeof(bad_calls[0]))

#define PRELUDE                                                              \
    "import ccloudpickle as cp, threading\n"                                 \
    "class R:\n"                                                             \
    "    def __init__(self, f, args, items=None):\n"                         \
    "        self.f, self.args, self.items = f, args, items\n"               \
    "    def __reduce__(self):\n"                                            \
    "        return (self.f, self.args, None, None, self.items)\n"

static void
run_bad(const struct bad_call *c, int pickled)
{
    char code[2048];
    if (pickled)
        snprintf(code, sizeof(code),
                 PRELUDE "data = cp.dumps(R(cp.%s, %s))\n"
                         "cp.loads(data, allow=[])\n",
                 c->name, c->args);
    else
        snprintf(code, sizeof(code), PRELUDE "cp.%s(*%s)\n", c->name,
                 c->args);
    cpk_py_raises(code, c->exc, c->frag);
}

ParameterizedTestParameters(beyond_primitives, bad_call_raises)
{
    return cr_make_param_array(struct bad_call, bad_calls, NBAD);
}

ParameterizedTest(struct bad_call *c, beyond_primitives, bad_call_raises)
{
    run_bad(c, 0);
}

ParameterizedTestParameters(beyond_primitives, bad_pickle_raises)
{
    return cr_make_param_array(struct bad_call, bad_calls, NBAD);
}

ParameterizedTest(struct bad_call *c, beyond_primitives, bad_pickle_raises)
{
    run_bad(c, 1);
}

/* A crafted pickle that puts what a weak dict cannot hold into one gets
 * the weak dict's own error. */
Test(beyond_primitives, weakdict_items_a_pickle_forges)
{
    cpk_py_raises(PRELUDE "data = cp.dumps(R(cp._make_weakdict, (False,), "
                          "iter([('a', 1)])))\n"
                          "cp.loads(data)\n",
                  "TypeError", "cannot create weak reference to 'int'");
    cpk_py_raises(PRELUDE "data = cp.dumps(R(cp._make_weakdict, (True,), "
                          "iter([([], 1)])))\n"
                          "cp.loads(data)\n",
                  "TypeError", NULL);
}

/* cloudpickle-load describes such a pickle without running it. */
Test(beyond_primitives, describe_names_the_reconstructors)
{
    char dir[256], path[512];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/prim.pkl", dir);
    cpk_python_to_file(path,
                       "import ccloudpickle as cp, sys, threading, struct\n"
                       "import contextvars, weakref\n"
                       "objs = [threading.Lock(), threading.Condition(),\n"
                       "        threading.Event(), threading.Semaphore(1),\n"
                       "        contextvars.ContextVar('v'), struct.Struct('i'),\n"
                       "        weakref.WeakKeyDictionary()]\n"
                       "sys.stdout.buffer.write(cp.dumps(objs))\n");
    const char *argv[] = {CPK_LOAD, path, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    const char *names[] = {"_make_lock", "_make_condition", "_make_event",
                           "_make_semaphore", "_make_contextvar",
                           "_make_struct", "_make_weakdict"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char want[128];
        snprintf(want, sizeof(want), "ccloudpickle.%s", names[i]);
        const char *at = strstr(p.out, want);
        cr_expect(at != NULL && strstr(at, "ccloudpickle reconstructor"),
                  "%s not described:\n%s", names[i], p.out);
    }
    cr_expect(strstr(p.out, "verdict") != NULL, "%s", p.out);
    cpk_proc_free(&p);
}
