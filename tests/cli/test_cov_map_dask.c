/* test_cov_map_dask.c - cloudpickle-load --map --dask local:2 (a loopback
 * LocalCluster the program starts and stops itself) with keyword records,
 * a record that is not JSON (an error record under --keep-going, the end
 * of the run without), and a full standard output: our one line on
 * standard error among what the cluster logs. Skipped, saying why,
 * where the interpreter under test cannot import distributed. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_require("distributed");
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/inc.pkl", dir);
    const char *argv[] = {CPK_DUMP, "-e", "lambda a: a + 1", "-o", path, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cov_map_dask, .init = setup, .timeout = 180);

static const char RECORDS[] = "{\"a\": 1}\n{\"a\": 2}\nbad\n{\"a\": 3}\n";

static void
run(cpk_proc *p, const char *cmd_or_null, int keep_going)
{
    const char *env[] = {"PYTHONPATH=" CPK_BUILD_DIR, NULL};
    if (cmd_or_null != NULL) {
        const char *argv[] = {"/bin/sh", "-c", cmd_or_null, NULL};
        cpk_spawn(p, argv, dir, "1\n2\n", 4, env);
        return;
    }
    const char *argv[] = {CPK_LOAD,   "--map", "--kwargs", "--dask",
                          "local:2",  "inc.pkl",
                          keep_going ? "--keep-going" : NULL, NULL};
    cpk_spawn(p, argv, dir, RECORDS, sizeof(RECORDS) - 1, env);
}

/* stderr has `line` as one of its lines (the cluster may log around
 * it, while it starts and while it shuts down). */
static void
assert_has_line(const char *err, const char *line)
{
    const char *at = strstr(err, line);
    cr_assert(at != NULL && (at == err || at[-1] == '\n'), "stderr:\n%s",
              err);
}

Test(cov_map_dask, keyword_records_and_an_error_record)
{
    cpk_proc p;
    run(&p, NULL, 1);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out,
                     "2\n3\n{\"error\":{\"type\":\"InvalidRecord\",\"message\":"
                     "\"not valid JSON: Expecting value: line 1 column 1 "
                     "(char 0)\",\"traceback\":\"\",\"record\":3}}\n4\n");
    assert_has_line(p.err, "cloudpickle-load: standard input: record 3: "
                            "not valid JSON: Expecting value: line 1 column "
                            "1 (char 0)\n");
    cpk_proc_free(&p);
}

Test(cov_map_dask, record_that_is_not_json_ends_the_run)
{
    cpk_proc p;
    run(&p, NULL, 0);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "2\n3\n");
    assert_has_line(p.err, "cloudpickle-load: standard input: record 3: "
                            "not valid JSON: Expecting value: line 1 column "
                            "1 (char 0)\n");
    cpk_proc_free(&p);
}

Test(cov_map_dask, full_standard_output)
{
    cpk_proc p;
    run(&p, CPK_LOAD " --map --dask local:2 inc.pkl >/dev/full", 0);
    cpk_assert_exit(&p, 5);
    assert_has_line(p.err, "cloudpickle-load: standard output: No space "
                            "left on device\n");
    cpk_proc_free(&p);
}
