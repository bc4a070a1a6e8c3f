/* test_format_review.c - format markers a hostile or odd pickle places
 * where cpk_format_sniff does not look (inside a FRAME, memoized, after
 * other opcodes, by INST), format numbers too long for an int, and names
 * with a NUL in them: refused or ignored alike by loads, pickle.loads
 * and cloudpickle-load (src/scan/format.c, cli/common/scancheck.c, src/module.c). */
#include "support.h"

#include <stdio.h>
#include <string.h>

#include "ccloudpickle.h" /* CPK_VERSION */
#include "scan/format.h"  /* cpk_format_parse */

TestSuite(format_review, .init = cpk_py_start, .fini = cpk_py_stop);

static const char *const hidden[] = {"framed", "memo", "ran", "inst"};

/* cloudpickle-load refuses a newer format's marker wherever the pickle
 * has it, with the upgrade message and exit 3, before the report and
 * before anything in the pickle runs. */
Test(format_review, cli_refuses_hidden_newer_marker)
{
    char dir[64];
    cpk_tmpdir(dir, sizeof dir);
    const char *load = CPK_BUILD_DIR "/cloudpickle-load";
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
        char path[160], code[2048], want[512];
        snprintf(path, sizeof path, "%s/%s.pkl", dir, hidden[i]);
        snprintf(code, sizeof code, "%ssys.stdout.buffer.write(%s)\n",
                 cpk_py_text("_hidden.py"), hidden[i]);
        cpk_python_to_file(path, code);
        snprintf(want, sizeof want,
                 "cloudpickle-load: %s: written by ccloudpickle 9.8.7 for "
                 "format 6; this is ccloudpickle %s (format %d): upgrade the "
                 "loading side, or write with format=%d\n",
                 path, CPK_VERSION, CPK_FORMAT_CURRENT, CPK_FORMAT_CURRENT);
        const char *const *argvs[] = {
            (const char *[]){load, path, NULL},
            (const char *[]){load, "--json", path, NULL},
            (const char *[]){load, path, "--call", NULL},
            (const char *[]){load, "--strict", path, "--call", NULL},
        };
        for (size_t j = 0; j < sizeof argvs / sizeof argvs[0]; j++) {
            cpk_proc p;
            cpk_spawn(&p, argvs[j], NULL, NULL, 0, NULL);
            cr_assert_str_eq(p.err, want, "%s, argv %zu", hidden[i], j);
            cpk_assert_exit(&p, 3);
            cr_assert_eq(p.out_len, 0, "%s, argv %zu", hidden[i], j);
            cpk_proc_free(&p);
        }
    }
}

/* The module refuses the same pickles with FormatError (the marker's
 * own place: what comes before it in `ran` runs, as in any pickle). */
Test(format_review, loads_refuses_hidden_newer_marker)
{
    cpk_py_file("_hidden.py", "loads_refuses_hidden_newer_marker.py");
}

/* Under an import policy, loads reads the whole pickle first: a newer
 * marker anywhere is refused with FormatError before anything runs (the
 * print in `ran` would pass allow=['builtins.print']). */
Test(format_review, policy_loads_refuse_hidden_newer_marker_first)
{
    cpk_py_file("_hidden.py",
                "policy_loads_refuse_hidden_newer_marker_first.py");
}

/* A format number of more than 9 digits is a marker of a newer format,
 * not an unknown name (an AttributeError, or a refused import that the
 * scan called "other"). */
Test(format_review, long_format_number_is_newer)
{
    int fmt = 0;
    char v[48];
    const char *n = "_format_99999999999999999999_0_7_0";
    cr_assert_eq(cpk_format_parse(n, strlen(n), &fmt, v, sizeof v), 1);
    cr_assert_gt(fmt, CPK_FORMAT_CURRENT);
    cr_assert_str_eq(v, "0.7.0");
    n = "_format_6_0_99999999999999999999_0";
    cr_assert_eq(cpk_format_parse(n, strlen(n), &fmt, v, sizeof v), 1);
    cr_assert_eq(fmt, 6);
    cpk_py_file("long_format_number_is_newer.py");

    char dir[64], path[160], want[512];
    cpk_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/long.pkl", dir);
    cpk_python_to_file(path,
                       "import sys\n"
                       "N = b'_format_99999999999999999999_0_7_0'\n"
                       "sys.stdout.buffer.write(b'\\x80\\x04\\x8c\\x0c"
                       "ccloudpickle\\x8c' + bytes([len(N)]) + N + "
                       "b'\\x930K\\x07.')\n");
    snprintf(want, sizeof want,
             "cloudpickle-load: %s: written by ccloudpickle 0.7.0 for format "
             "999999999; this is ccloudpickle %s (format %d): upgrade the "
             "loading side, or write with format=%d\n",
             path, CPK_VERSION, CPK_FORMAT_CURRENT, CPK_FORMAT_CURRENT);
    cpk_proc p;
    cpk_spawn(&p,
              (const char *[]){CPK_BUILD_DIR "/cloudpickle-load", path,
                               NULL},
              NULL, NULL, 0, NULL);
    cr_assert_str_eq(p.err, want);
    cpk_assert_exit(&p, 3);
    cpk_proc_free(&p);
}

/* A name with a NUL in it is not a marker for the module either (the
 * scan reads names whole): no None for "_format_1_0_1_0\0anything". */
Test(format_review, nul_in_name_is_not_a_marker)
{
    cpk_py_file("nul_in_name_is_not_a_marker.py");
}

/* format=1 refuses a name 0.1.0 lacks also when the Pickler has a
 * dispatch_table (which used to skip the check: _make_lock was written
 * and 0.1.0 failed on it at load). */
Test(format_review, format1_refuses_through_dispatch_table)
{
    cpk_py_file("format1_refuses_through_dispatch_table.py");
}

/* format=1 gives closures sharing a cell their values in "__closure__":
 * 0.1.0 knows no "__closure_cells__" (it set it as an attribute and left
 * the cell empty, so calling the function raised NameError). Here the
 * 0.1.0 loader's handling is what _function_fill does with __closure__
 * alone, checked on the state the pickle carries. */
Test(format_review, format1_shared_cells_carry_values)
{
    cpk_py_file("format1_shared_cells_carry_values.py");
}
