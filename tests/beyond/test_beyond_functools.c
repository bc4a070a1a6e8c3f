/* Issue 12: functools.singledispatch functions and lru_cache wrappers
 * defined by value dispatch and cache after loading (scenarios in
 * tests/beyond); their reconstructors refuse what our pickles never hold;
 * the stock formats and importable wrappers keep today's behaviour. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>

Test(beyond_functools, singledispatch_dispatches_after_loading)
{
    cpk_beyond("singledispatch");
}

Test(beyond_functools, lru_cache_is_rebuilt_empty_and_recursion_uses_it)
{
    cpk_beyond("lru_cache");
}

TestSuite(functools_pickles, .init = cpk_py_start, .fini = cpk_py_stop);

/* In a fresh process, with protocols 2 and 5: one dispatcher for the
 * recursion (the memo), not a copy per reference. An implementation that
 * calls it is pickled after it is memoized; the undecorated function that
 * calls it is pickled before (the pickle's POP/GET on recursion). */
Test(functools_pickles, singledispatch_recursion_goes_through_one_dispatcher)
{
    cpk_py_file("_dispatch.py",
                "singledispatch_recursion_goes_through_one_dispatcher.py");
    cpk_fresh_protos("(d, P, walk)", cpk_py_text(
        "singledispatch_recursion_goes_through_one_dispatcher_fresh.py"));
}

/* singledispatchmethod: functools.singledispatchmethod(func) with its
 * dispatcher (above) set back; the bound-method cache of 3.13 (a
 * WeakKeyDictionary) is made anew, not pickled. */
Test(beyond_functools, singledispatchmethod_on_a_class_by_value)
{
    cpk_beyond("singledispatchmethod");
}

Test(functools_pickles, lru_cache_recursion_goes_through_one_cache)
{
    cpk_py_file("_dispatch.py");
    cpk_fresh_protos("fib",
                     "fib = obj\n"
                     "assert fib.__wrapped__.__globals__['fib'] is fib\n"
                     "assert fib(60) == 1548008755920\n"
                     "assert fib.cache_info().hits == 58\n"
                     "assert fib.cache_parameters() == "
                     "{'maxsize': 7, 'typed': True}\n");
}

/* The same object gives the same bytes; our reconstructors only, so
 * allow=[] loads them. */
Test(functools_pickles, deterministic_and_allowed_by_an_empty_policy)
{
    cpk_py_file("_dispatch.py",
                "deterministic_and_allowed_by_an_empty_policy.py");
}

/* Stock loaders have no reconstructor to replay registrations: a
 * singledispatch function fails in the stock formats as before. An
 * lru_cache wrapper uses functools' own constructor there, and stock
 * cloudpickle loads it. */
Test(functools_pickles, stock_formats)
{
    cpk_require("cloudpickle");
    cpk_py_file("_dispatch.py", "stock_formats.py");
    cpk_py("data = cp.dumps(fib, compat='cloudpickle2')\n");
    size_t len;
    char *data = cpk_py_bytes("data", &len);
    cpk_proc p;
    cpk_python(&p,
               "import sys, cloudpickle\n"
               "fib = cloudpickle.loads(sys.stdin.buffer.read())\n"
               "assert 'ccloudpickle' not in sys.modules\n"
               "assert fib(50) == 12586269025\n"
               "assert fib.cache_info().hits == 48\n"
               "assert fib.cache_parameters() == "
               "{'maxsize': 7, 'typed': True}\n",
               data, len);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    free(data);
    cpk_py("data = cp.dumps(d, compat='cloudpickle2')\n");
    data = cpk_py_bytes("data", &len);
    cpk_python(&p,
               "import sys, cloudpickle\n"
               "d = cloudpickle.loads(sys.stdin.buffer.read())\n"
               "assert 'ccloudpickle' not in sys.modules\n"
               "assert d(1) != d('s') and d('s') == d(2.5)\n",
               data, len);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    free(data);
}

/* An importable wrapper goes by reference, as before. */
Test(functools_pickles, importable_lru_wrapper_by_reference)
{
    cpk_py_file("importable_lru_wrapper_by_reference.py");
}

/* Functions that only look like a dispatcher go the usual way. */
Test(functools_pickles, lookalikes_are_plain_functions)
{
    cpk_py_file("lookalikes_are_plain_functions.py");
}

#define TE "ReconstructorTypeError"
#define VE "ReconstructorValueError"

struct bad_call {
    char name[32];
    char args[96];
    char exc[32];
    char frag[128];
};

static struct bad_call bad_calls[] = {
    {"_singledispatch_new", "()", TE, "takes exactly 1 argument (0 given)"},
    {"_singledispatch_new", "(1,)", TE,
     "_singledispatch_new() argument 1 (func) must be callable, not int"},
    {"_singledispatch_fill", "(d,)", TE, "takes exactly 2 arguments"},
    {"_singledispatch_fill", "(len, ((), {}))", TE,
     "argument 1 (wrapper) must be function, not builtin_function"},
    {"_singledispatch_fill", "(plain, ((), {}))", TE,
     "argument 1 (wrapper) must be a function made by "
     "functools.singledispatch"},
    {"_singledispatch_fill", "(d, [(), {}])", TE,
     "argument 2 (state) must be tuple, not list"},
    {"_singledispatch_fill", "(d, ((),))", VE,
     "must be (registrations, attributes), a tuple of 2, not of 1"},
    {"_singledispatch_fill", "(d, ([], {}))", TE,
     "state[0] must be tuple, not list"},
    {"_singledispatch_fill", "(d, ((1,), {}))", TE,
     "state[0] item 0 must be tuple, not int"},
    {"_singledispatch_fill", "(d, (((int,),), {}))", TE,
     "state[0] item 0 must be (class, callable)"},
    {"_singledispatch_fill", "(d, (((1, plain),), {}))", TE,
     "state[0] item 0 must be (class, callable)"},
    {"_singledispatch_fill", "(d, (((int, 1),), {}))", TE,
     "state[0] item 0 must be (class, callable)"},
    {"_singledispatch_fill", "(d, ((), []))", TE,
     "state[1] must be dict, not list"},
    {"_singledispatch_fill", "(d, ((), {1: 2}))", TE,
     "state[1] keys must be str, not int"},
    {"_singledispatch_fill", "(d, ((), {'registry': {}}))", VE,
     "state[1] must not set 'registry'"},
    {"_singledispatch_fill", "(d, ((), {'__wrapped__': plain}))", VE,
     "must not set '__wrapped__'"},
    {"_lru_cache_new", "(plain, None)", TE,
     "takes exactly 3 arguments (2 given)"},
    {"_lru_cache_new", "(1, None, False)", TE,
     "argument 1 (func) must be callable, not int"},
    {"_lru_cache_new", "(plain, 'x', False)", TE,
     "argument 2 (maxsize) must be int or None, not str"},
    {"_lru_cache_new", "(plain, 1, 1)", TE,
     "argument 3 (typed) must be bool, not int"},
    {"_lru_cache_new", "(plain, 10**40, False)", "OverflowError", ""},
};

#define NBAD (sizeof(bad_calls) / sizeof(bad_calls[0]))

static void
run_bad(const struct bad_call *c, int pickled)
{
    char code[2048];
    const char *prelude = cpk_py_text("_prelude.py");
    if (pickled)
        snprintf(code, sizeof(code), "%scp.loads(cp.dumps(R(cp.%s, %s)))\n",
                 prelude, c->name, c->args);
    else
        snprintf(code, sizeof(code), "%scp.%s(*%s)\n", prelude, c->name,
                 c->args);
    cpk_py_raises(code, c->exc, c->frag[0] ? c->frag : NULL);
}

Test(functools_pickles, hostile_reconstructor_arguments_raise)
{
    for (size_t i = 0; i < NBAD; i++) {
        run_bad(&bad_calls[i], 0);
        run_bad(&bad_calls[i], 1);
    }
}

/* What the reconstructors do with good arguments, and that a refused
 * fill leaves the dispatcher working. */
Test(functools_pickles, reconstructors_with_good_arguments)
{
    cpk_py_file("_prelude.py", "reconstructors_with_good_arguments.py");
}
