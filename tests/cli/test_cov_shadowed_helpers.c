/* test_cov_shadowed_helpers.c - cloudpickle-load when a standard module
 * it uses for messages is shadowed on PYTHONPATH: without inspect, --load
 * cannot describe the object (status 4, one line, after the rows it
 * could print); without a working traceback.format_exception, the error
 * records of --error-json and --keep-going carry an empty traceback and
 * the run goes on as usual. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/noinspect", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/noinspect/inspect.py", dir);
    cpk_write_file(path, "raise ImportError('no inspect here')\n");
    snprintf(path, sizeof(path), "%s/notb", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/notb/traceback.py", dir);
    cpk_write_file(path, "def format_exception(*a):\n"
                         "    raise RuntimeError('no format')\n");
    const char *argv[] = {CPK_DUMP, "-e",
                          "def f(x):\n"
                          "    if x == 3: raise ValueError('three')\n"
                          "    return x + 1\n"
                          "f",
                          "-o", "f.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cov_shadowed_helpers, .init = setup);

static void
run(cpk_proc *p, const char *sub, const char *const *args, const char *in)
{
    char env0[160];
    snprintf(env0, sizeof(env0), "PYTHONPATH=%s/%s", dir, sub);
    const char *env[] = {env0, NULL};
    const char *argv[10] = {CPK_LOAD};
    int n = 1;
    for (; args[n - 1] != NULL; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    cpk_spawn(p, argv, dir, in, in ? strlen(in) : 0, env);
}

Test(cov_shadowed_helpers, load_without_inspect)
{
    const char *args[] = {"--load", "f.pkl", NULL};
    cpk_proc p;
    run(&p, "noinspect", args, NULL);
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.out, "object     function f\nmodule     __main__\n");
    cr_assert_str_eq(p.err, "cloudpickle-load: f.pkl: cannot describe the "
                            "object: ImportError: no inspect here\n");
    cpk_proc_free(&p);
}

Test(cov_shadowed_helpers, error_json_without_a_traceback)
{
    const char *args[] = {"--call", "--error-json", "f.pkl", "--", "3", NULL};
    cpk_proc p;
    run(&p, "notb", args, NULL);
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.err, "{\"type\":\"ValueError\",\"message\":\"three\","
                            "\"traceback\":\"\"}\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cov_shadowed_helpers, keep_going_without_a_traceback)
{
    const char *args[] = {"--map", "--keep-going", "f.pkl", NULL};
    cpk_proc p;
    run(&p, "notb", args, "1\n3\n4\n");
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.out, "2\n{\"error\":{\"type\":\"ValueError\","
                            "\"message\":\"three\",\"traceback\":\"\","
                            "\"record\":2}}\n5\n");
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 2: "
                            "ValueError: three\n");
    cpk_proc_free(&p);
}
