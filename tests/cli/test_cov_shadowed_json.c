/* test_cov_shadowed_json.c - cloudpickle-load with a json module on
 * PYTHONPATH that shadows the standard one and has none of its API: the
 * modes that need json refuse before calling anything (status 5, one
 * line: --map of JSON Lines, --map --result repr still reading JSON
 * records, --call --result json), while --call with the default repr
 * result needs no json and works. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];
static char env0[128];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/json.py", dir);
    cpk_write_file(path, "x = 1\n");
    snprintf(env0, sizeof(env0), "PYTHONPATH=%s", dir);
    const char *argv[] = {CPK_DUMP, "-e",
                          "def f(x):\n"
                          "    open('called', 'w').close()\n"
                          "    return x + 1\n"
                          "f",
                          "-o", "f.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cov_shadowed_json, .init = setup);

static void
run(cpk_proc *p, const char *const *args)
{
    const char *argv[10] = {CPK_LOAD};
    int n = 1;
    for (; args[n - 1] != NULL; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    const char *env[] = {env0, NULL};
    cpk_spawn(p, argv, dir, "1\n", 2, env);
}

static void
refused(const char *const *args, const char *err)
{
    cpk_proc p;
    run(&p, args);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, err);
    cr_assert_eq(p.out_len, 0);
    char path[128];
    snprintf(path, sizeof(path), "%s/called", dir);
    cr_assert_null(cpk_read_file(path, NULL), "the function was called");
    cpk_proc_free(&p);
}

Test(cov_shadowed_json, map_json_lines)
{
    const char *args[] = {"--map", "f.pkl", NULL};
    refused(args, "cloudpickle-load: cannot prepare the map: AttributeError: "
                  "module 'json' has no attribute 'JSONEncoder'\n");
}

Test(cov_shadowed_json, map_with_repr_results_still_reads_json)
{
    const char *args[] = {"--map", "--result", "repr", "f.pkl", NULL};
    refused(args, "cloudpickle-load: cannot prepare the map: AttributeError: "
                  "module 'json' has no attribute 'loads'\n");
}

Test(cov_shadowed_json, call_with_json_result)
{
    const char *args[] = {"--call", "--result", "json", "f.pkl", "--", "1",
                          NULL};
    refused(args, "cloudpickle-load: cannot prepare the result's encoding: "
                  "AttributeError: module 'json' has no attribute "
                  "'JSONEncoder'\n");
}

Test(cov_shadowed_json, call_with_repr_result_needs_no_json)
{
    const char *args[] = {"--call", "f.pkl", "--", "1", NULL};
    cpk_proc p;
    run(&p, args);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "2\n");
    cpk_proc_free(&p);
}
