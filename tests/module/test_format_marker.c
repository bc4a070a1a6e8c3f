/* test_format_marker.c - the format numbers (src/scan/format.c, doc/FORMAT.md):
 * format 5 writes format 4's bytes (no marker: a marker opens a pickle
 * only from the first format that adds a name, CPK_FORMAT_MARKED);
 * format=N writes what the release of format N loads (_function_make's
 * older shapes, names it lacks refused); markers of this format and older
 * ones load as no-ops; a newer one is refused with the upgrade message by
 * loads, pickle.loads and cloudpickle-load (exit 3). */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccloudpickle.h" /* CPK_VERSION */

TestSuite(format_marker, .init = cpk_py_start, .fini = cpk_py_stop);

Test(format_marker, current_pickles_carry_no_marker)
{
    cpk_py_file("_prelude.py", "current_pickles_carry_no_marker.py");
}

Test(format_marker, older_formats)
{
    cpk_py_file("_prelude.py", "older_formats.py");
}

Test(format_marker, bad_values)
{
    cpk_py_file("_prelude.py", "bad_values.py");
}

/* A pickle of the next format (its marker fabricated): loads and
 * pickle.loads raise FormatError, an UnpicklingError, with the message
 * of doc/FORMAT.md, before anything else in the pickle runs. */
Test(format_marker, newer_format_refused)
{
    cpk_py_file("_prelude.py", "newer_format_refused.py");
}

/* cloudpickle-load: the static report and --call both refuse a newer
 * format with the message, exit 3; the current one loads and calls. */
Test(format_marker, cli_refuses_newer_format)
{
    char dir[64], cur[128], nxt[128];
    cpk_tmpdir(dir, sizeof dir);
    snprintf(cur, sizeof cur, "%s/cur.pkl", dir);
    snprintf(nxt, sizeof nxt, "%s/next.pkl", dir);
    cpk_python_to_file(
        cur, cpk_py_text("_prelude.py", "cli_refuses_newer_format.py"));
    cpk_python_to_file(
        nxt, cpk_py_text("_prelude.py", "cli_refuses_newer_format_2.py"));
    const char *load = CPK_BUILD_DIR "/cloudpickle-load";
    cpk_proc p;
    cpk_spawn(&p, (const char *[]){load, cur, "--call", "--", "2.5", NULL},
              NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "5\n");
    cpk_proc_free(&p);
    char want[400];
    snprintf(want, sizeof want,
             "cloudpickle-load: %s: written by ccloudpickle 9.8.7 for format "
             "6; this is ccloudpickle %s (format 5): upgrade the loading "
             "side, or write with format=5\n",
             nxt, CPK_VERSION);
    const char *const *argvs[] = {
        (const char *[]){load, nxt, NULL},
        (const char *[]){load, "--json", nxt, NULL},
        (const char *[]){load, nxt, "--call", "--", "2.5", NULL},
    };
    for (size_t i = 0; i < sizeof argvs / sizeof argvs[0]; i++) {
        cpk_spawn(&p, argvs[i], NULL, NULL, 0, NULL);
        cpk_assert_exit(&p, 3);
        cr_assert_str_eq(p.err, want);
        cr_assert_eq(p.out_len, 0);
        cpk_proc_free(&p);
    }
}

/* cloudpickle-dump --format N: dumps(format=N); bad values and --compat
 * are usage errors (exit 2), what the format cannot carry exit 4. */
Test(format_marker, cli_dump_format)
{
    char dir[64], mod[128], out[128];
    cpk_tmpdir(dir, sizeof dir);
    snprintf(mod, sizeof mod, "%s/fmtmod.py", dir);
    snprintf(out, sizeof out, "%s/f4.pkl", dir);
    cpk_write_file(mod, "import math, threading\n"
                        "L = threading.Lock()\n"
                        "def g(x):\n"
                        "    return math.floor(x) + 1\n"
                        "def u():\n"
                        "    return L\n");
    const char *dump = CPK_BUILD_DIR "/cloudpickle-dump";
    cpk_proc p;
    cpk_spawn(&p, (const char *[]){dump, "--format", "4", "-o", out,
                                   "fmtmod:g", NULL},
              dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    size_t len;
    char *data = cpk_read_file(out, &len);
    cr_assert(data != NULL && len > 2);
    cr_assert(memmem(data, len, "_format_", 8) == NULL);
    cr_assert(memmem(data, len, "_function_make", 14) != NULL);
    free(data);
    static const char *const bad[] = {"0", "6", "x", "4x", "-1", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cpk_spawn(&p, (const char *[]){dump, "--format", bad[i], "fmtmod:g",
                                       NULL},
                  dir, NULL, 0, NULL);
        cpk_assert_exit(&p, 2);
        char want[200];
        snprintf(want, sizeof want,
                 "cloudpickle-dump: invalid --format '%s' (accepted: 1 to "
                 "5)\nTry 'cloudpickle-dump --help' for more information.\n",
                 bad[i]);
        cr_assert_str_eq(p.err, want);
        cpk_proc_free(&p);
    }
    cpk_spawn(&p, (const char *[]){dump, "--format", "4", "--compat",
                                   "cloudpickle3", "fmtmod:g", NULL},
              dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 2);
    cpk_proc_free(&p);
    cpk_spawn(&p, (const char *[]){dump, "--format", "1", "fmtmod:u", NULL},
              dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err,
                     "cloudpickle-dump: fmtmod:u: cannot pickle fmtmod:u "
                     "(function): PicklingError: Can't pickle for format 1 "
                     "(ccloudpickle 0.1.0): its loaders have no _make_lock; "
                     "write a newer format\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}
