/* test_wrap_policy.c - ccloudpickle.wrap() against the import policy and
 * the stock formats (hostile review of issue 9, H1, M4, L6).
 *
 * A wrapper pickles as _ccloudpickle_engines._rebuild(bytes, keep): a
 * nested unpickler. The static check calls it dangerous (nested
 * unpickling), so a policy runs it only when an allow rule names it, and
 * then loads the inner pickle under the same rules; the describe report
 * flags it. A wrapper refuses the stock formats (compat=...) at dump
 * time, whose loaders cannot rebuild it. MemoryError from the wrapped
 * object's reduction propagates as itself. */
#include "support.h"

TestSuite(wrap_policy, .init = cpk_py_start, .fini = cpk_py_stop);

/* A deny list alone never lets the nested unpickler run. */
Test(wrap_policy, deny_only_refuses_rebuild)
{
    cpk_py_file("_nested.py");
    cpk_py("refused('_ccloudpickle_engines._rebuild',\n"
           "        deny=['os', 'os.*', 'posix*'])\n"
           "refused('_ccloudpickle_engines._rebuild', deny=['nothing'])\n"
           "refused('_ccloudpickle_engines._rebuild', allow=[])\n"
           "refused('_ccloudpickle_engines._rebuild', allow=['*'])\n");
}

/* allow= naming _rebuild lets it run, and the inner pickle is loaded
 * under the same rules: its os.system is refused (loads and load). */
Test(wrap_policy, allowed_rebuild_loads_inner_under_the_policy)
{
    cpk_py_file("_nested.py");
    cpk_py_file("allowed_rebuild_loads_inner_under_the_policy.py");
}

/* What must keep working: a wrapped lambda and a wrapped class instance
 * load under a policy that names _rebuild (and the inner pickle's own
 * imports), with and without keep_wrapper; without a policy, plain
 * pickle.loads needs nothing. The context variable is only set during a
 * policed load. */
Test(wrap_policy, wrapped_objects_load_under_a_policy)
{
    cpk_py_file("wrapped_objects_load_under_a_policy.py");
}

/* The describe report flags _rebuild as a nested unpickler. */
Test(wrap_policy, describe_flags_rebuild)
{
    char dir[256], path[300];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/outer.pkl", dir);
    cpk_python_to_file(path, cpk_py_text("describe_flags_rebuild.py"));
    const char *argv[] = {CPK_LOAD, path, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "_ccloudpickle_engines._rebuild  DANGEROUS: "
                            "nested unpickling") != NULL,
              "%s", p.out);
    cr_assert(strstr(p.out, "verdict    DANGEROUS") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    /* and a deny-only policy of the program refuses it */
    const char *argv2[] = {CPK_LOAD, "--deny", "posix", "--load", path, NULL};
    cpk_spawn(&p, argv2, NULL, NULL, 0, NULL);
    cr_assert(p.exited && p.status != 0, "%s", p.out);
    cr_assert(strstr(p.err, "_ccloudpickle_engines._rebuild refused") != NULL,
              "%s", p.err);
    cr_assert(strstr(p.out, "PWNED") == NULL, "%s", p.out);
    cpk_proc_free(&p);
    /* --allow naming it: the program loads through loads(allow=...), so
     * the inner pickle is policed too */
    const char *argv3[] = {CPK_LOAD, "-P", CPK_BUILD_DIR, "--allow",
                           "_ccloudpickle_engines._rebuild", "--load", path,
                           NULL};
    cpk_spawn(&p, argv3, NULL, NULL, 0, NULL);
    cr_assert(p.exited && p.status != 0, "%s", p.out);
    cr_assert(strstr(p.err, "posix.system") != NULL, "%s", p.err);
    cr_assert(strstr(p.out, "PWNED") == NULL, "%s", p.out);
    cpk_proc_free(&p);
    unlink(path);
    rmdir(dir);
}

/* Every stock format refuses a wrapper at dump time, naming the target,
 * also nested in a container and through a Pickler; the wrapped object
 * itself goes; the native format is unchanged. */
Test(wrap_policy, stock_formats_refuse_wrappers)
{
    cpk_py_file("stock_formats_refuse_wrappers.py");
}

/* MemoryError raised while the wrapped object is pickled propagates as
 * itself; an ordinary error becomes PicklingError naming the object. */
Test(wrap_policy, memory_error_propagates)
{
    cpk_py_file("memory_error_propagates.py");
}
