/* test_format_fixtures.c - the pickles every release wrote
 * (tests/fixtures/formats/<version>/, made by
 * scripts/make-format-fixtures with CPython 3.11; each directory's
 * MANIFEST says what each holds and what it must evaluate to) load with
 * this build, through ccloudpickle.loads and cloudpickle-load, and
 * behave. Under another CPython, the bytecode of 3.11 cannot run: the
 * portable ones still load and behave, the others give the documented
 * version error ("compiled by Python 3.11"). */
#include "support.h"

#include <stdio.h>
#include <string.h>

TestSuite(format_fixtures, .init = cpk_py_start, .fini = cpk_py_stop);

Test(format_fixtures, every_release_loads)
{
    cpk_py("CPK_SOURCE_DIR = '" CPK_SOURCE_DIR "'\n");
    cpk_py_file("every_release_loads.py");
}

/* cloudpickle-load's static report reads every fixture (exit 0), and
 * --call runs each release's closure where the bytecode can run. */
Test(format_fixtures, cloudpickle_load_reads_them)
{
    static const char *const versions[] = {"0.1.0", "0.2.0", "0.3.0",
                                           "0.4.0", "0.5.0", "0.6.0"};
    int same = PY_MAJOR_VERSION == 3 && PY_MINOR_VERSION == 11;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        char path[512];
        snprintf(path, sizeof path,
                 CPK_SOURCE_DIR "/tests/fixtures/formats/%s/closure.pkl",
                 versions[i]);
        cpk_proc p;
        cpk_spawn(&p, (const char *[]){CPK_BUILD_DIR "/cloudpickle-load",
                                       path, NULL},
                  NULL, NULL, 0, NULL);
        cpk_assert_exit(&p, 0);
        cpk_proc_free(&p);
        cpk_spawn(&p, (const char *[]){CPK_BUILD_DIR "/cloudpickle-load",
                                       path, "--call", "--", "2.5", NULL},
                  NULL, NULL, 0, NULL);
        if (same) {
            cpk_assert_exit(&p, 0);
            cr_assert_str_eq(p.out, "5\n", "%s: %s", versions[i], p.out);
        }
        else {
            cpk_assert_exit(&p, 3);
            cr_assert(strstr(p.err, "compiled by Python 3.11") != NULL,
                      "%s: %s", versions[i], p.err);
        }
        cpk_proc_free(&p);
    }
}
