/* test_engine_joblib.c - ccloudpickle as joblib/loky's pickler, against
 * Debian's python3-joblib (loky is joblib.externals.loky).
 *
 * tests/engines/joblib_loky.py: Parallel(n_jobs=2) with lambdas, closures
 * and a class of __main__ (instances and closures come back), chosen by
 * LOKY_PICKLER=ccloudpickle or by set_loky_pickler("ccloudpickle"); the
 * workers report that they run ccloudpickle's pickler too;
 * joblib.wrap_non_picklable_objects (functions and a class) with it; and
 * ccloudpickle.wrap() for one object while loky runs on plain pickle,
 * which refuses the lambda. No loky worker is left afterwards. */
#include "engine_run.h"

static const char *const parallel_oks[] = {
    "loky-pickler-is-ccloudpickle", "parallel-lambda", "parallel-closure",
    "parallel-class", "parallel-closure-back", "workers-use-ccloudpickle",
    "wrap-non-picklable-objects", NULL};

Test(engine_joblib, loky_pickler_env, .timeout = 600)
{
    cpk_require("joblib");
    const char *args[] = {"env", NULL};
    const char *env[] = {"LOKY_PICKLER=ccloudpickle", NULL};
    cpk_engine_check("joblib_loky.py", args, env, parallel_oks, 2);
}

Test(engine_joblib, set_loky_pickler, .timeout = 600)
{
    cpk_require("joblib");
    const char *args[] = {"call", NULL};
    cpk_engine_check("joblib_loky.py", args, NULL, parallel_oks, 2);
}

Test(engine_joblib, ccloudpickle_wrap_with_plain_pickle, .timeout = 600)
{
    cpk_require("joblib");
    const char *args[] = {"wrap", NULL};
    const char *oks[] = {"ccloudpickle-wrap-with-plain-loky", NULL};
    cpk_engine_check("joblib_loky.py", args, NULL, oks, 2);
}

/* A wrong name in LOKY_PICKLER is loky's error, naming the variable. */
Test(engine_joblib, unknown_pickler_refused, .timeout = 300)
{
    cpk_require("joblib");
    cpk_proc p;
    const char *args[] = {"env", NULL};
    const char *env[] = {"LOKY_PICKLER=ccloudpickle_nonexistent", NULL};
    cpk_engine_run(&p, "joblib_loky.py", args, env);
    cr_assert(p.exited && p.status != 0, "expected a failure");
    cr_assert(strstr(p.err, "LOKY_PICKLER") != NULL, "stderr:\n%s", p.err);
    cpk_engine_reap_leftovers();
    cpk_proc_free(&p);
}
