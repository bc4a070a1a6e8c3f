/* test_cov_mapwork.c - how a --map record fails: SystemExit codes that
 * are no exit status (a multiple of 256, a number too big for one, a
 * str) end the run with status 1; under --keep-going with --result
 * pickle the error records are pickled dicts, in order with the results;
 * with --error-json each failure (raised, unencodable, not JSON) is one
 * JSON object on standard error. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    const char *argv[] = {CPK_DUMP, "-e",
                          "import sys\n"
                          "def f(x):\n"
                          "    if x == 2: sys.exit(256)\n"
                          "    if x == 3: sys.exit(2**70)\n"
                          "    if x == 4: sys.exit('bye')\n"
                          "    if x == 5: raise ValueError('five')\n"
                          "    if x == 6: return {6}\n"
                          "    return x\n"
                          "f",
                          "-o", "f.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cov_mapwork, .init = setup);

static void
exits(const char *in, const char *shown)
{
    const char *argv[] = {CPK_LOAD, "--map", "f.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, in, strlen(in), NULL);
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.out, "1\n");
    char want[512];
    snprintf(want, sizeof(want),
             "Traceback (most recent call last):\n"
             "  File \"<cloudpickle-dump -e>\", line %c, in f\n"
             "SystemExit: %s\n"
             "cloudpickle-load: standard input: record 2: SystemExit: %s\n",
             in[2] + 1, shown, shown);
    cr_assert_str_eq(p.err, want);
    cpk_proc_free(&p);
}

Test(cov_mapwork, exit_256_is_status_1)
{
    exits("1\n2\n7\n", "256");
}

Test(cov_mapwork, exit_beyond_a_long_is_status_1)
{
    exits("1\n3\n7\n", "1180591620717411303424");
}

Test(cov_mapwork, exit_with_a_str_is_status_1)
{
    exits("1\n4\n7\n", "bye");
}

static const char IN[] = "1\n5\n6\nbad\n7\n";

Test(cov_mapwork, keep_going_pickled_error_records)
{
    const char *argv[] = {CPK_LOAD, "--map", "--keep-going", "--result",
                          "pickle", "f.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, IN, sizeof(IN) - 1, NULL);
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 2: "
                            "ValueError: five\n"
                            "cloudpickle-load: standard input: record 4: "
                            "not valid JSON: Expecting value: line 1 column "
                            "1 (char 0)\n");
    /* the stream of pickles, read back by the built-for Python */
    cpk_proc q;
    cpk_python(&q, cpk_py_text("keep_going_pickled_error_records.py"), p.out,
               p.out_len);
    cpk_assert_exit(&q, 0);
    cpk_proc_free(&q);
    cpk_proc_free(&p);
}

Test(cov_mapwork, keep_going_error_json)
{
    const char *argv[] = {CPK_LOAD, "--map", "--keep-going", "--error-json",
                          "f.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, IN, sizeof(IN) - 1, NULL);
    cpk_assert_exit(&p, 1);
    const char *tb = "\"traceback\":\"Traceback (most recent call last):\\n"
                     "  File \\\"<cloudpickle-dump -e>\\\", line 6, in f\\n"
                     "ValueError: five\\n\"";
    char raised[512];
    snprintf(raised, sizeof(raised),
             "{\"type\":\"ValueError\",\"message\":\"five\",%s,\"record\":2}",
             tb);
    const char *enc = "{\"type\":\"EncodeError\",\"message\":\"cannot encode "
                      "a result of type 'set' as JSON\",\"traceback\":\"\","
                      "\"record\":3}";
    const char *bad = "{\"type\":\"InvalidRecord\",\"message\":\"not valid "
                      "JSON: Expecting value: line 1 column 1 (char 0)\","
                      "\"traceback\":\"\",\"record\":4}";
    char want[2048];
    snprintf(want, sizeof(want), "1\n{\"error\":%s}\n{\"error\":%s}\n"
                                 "{\"error\":%s}\n7\n",
             raised, enc, bad);
    cr_assert_str_eq(p.out, want);
    snprintf(want, sizeof(want), "%s\n%s\n%s\n", raised, enc, bad);
    cr_assert_str_eq(p.err, want);
    cpk_proc_free(&p);
}
