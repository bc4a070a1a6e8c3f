/* test_engine_mp_byref.c - install_multiprocessing() and the functions of
 * __main__ (tests/engines/multiprocessing_byref.py), for the fork and
 * spawn start methods: a top-level def of the main script goes by name
 * and the worker reads its own copy of the global it uses; functions a
 * worker cannot find by name (defined in the main guard, lambdas, rebound
 * after a fork) go by value; the warning for large by-value globals comes
 * once per process, above its threshold only, from wrap() too. */
#include "engine_run.h"

static const char *const byref_oks[] = {
    "pickled-by-name", "top-level-by-reference",
    "guarded-by-value-warned-once", "threshold", "wrap-warned-once", NULL};

static void
byref(const char *method, int fork)
{
    const char *args[] = {method, NULL};
    cpk_proc p;
    cpk_engine_run(&p, "multiprocessing_byref.py", args, NULL);
    cpk_assert_exit(&p, 0);
    for (int i = 0; byref_oks[i] != NULL; i++)
        cpk_engine_assert_ok(&p, byref_oks[i]);
    if (fork)
        cpk_engine_assert_ok(&p, "rebound-after-fork-by-value");
    cpk_engine_assert_no_leftovers(&p, 2);
    cpk_proc_free(&p);
}

Test(engine_mp_byref, fork, .timeout = 120)
{
    byref("fork", 1);
}

Test(engine_mp_byref, spawn, .timeout = 120)
{
    byref("spawn", 0);
}
