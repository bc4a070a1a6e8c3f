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

/* Only our reconstructors (or nothing) are imported: allow=[] loads it. */
Test(beyond_primitives, allow_nothing_loads_them)
{
    cpk_py_file("_all.py", "allow_nothing_loads_them.py");
}

/* The stock formats name the standard library's callables: plain pickle
 * loads them, with the same kinds, values and defaults. */
Test(beyond_primitives, stock_formats_use_stdlib_callables)
{
    cpk_py_file("_all.py", "stock_formats_use_stdlib_callables.py");
}

/* State that belongs to the dumping process stays there. */
Test(beyond_primitives, per_process_state_does_not_travel)
{
    cpk_py_file("per_process_state_does_not_travel.py");
}

/* Same object, same bytes; one object in a dump is one object loaded. */
Test(beyond_primitives, deterministic_and_memoized)
{
    cpk_py_file("_all.py", "deterministic_and_memoized.py");
}

/* Subclasses are not ours: the reducers take exact types only. */
Test(beyond_primitives, subclasses_are_not_caught)
{
    cpk_py_file("subclasses_are_not_caught.py");
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
    cpk_py_file("user_dispatch_table_wins.py");
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

static void
run_bad(const struct bad_call *c, int pickled)
{
    char code[2048];
    const char *prelude = cpk_py_text("_prelude.py");
    if (pickled)
        snprintf(code, sizeof(code),
                 "%sdata = cp.dumps(R(cp.%s, %s))\n"
                 "cp.loads(data, allow=[])\n",
                 prelude, c->name, c->args);
    else
        snprintf(code, sizeof(code), "%scp.%s(*%s)\n", prelude, c->name,
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
    cpk_py_raises(
        cpk_py_text("_prelude.py", "weakdict_items_a_pickle_forges.py"),
        "TypeError", "cannot create weak reference to 'int'");
    cpk_py_raises(
        cpk_py_text("_prelude.py", "weakdict_items_a_pickle_forges_2.py"),
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
