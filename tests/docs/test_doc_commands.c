/* test_doc_commands.c - every `$ ` command of README.md and of the .md
 * files of doc/ prints what the document shows (tests/docs/doc_commands.py
 * extracts and runs them; doc/DEVELOPMENT.md states the rule); and the
 * checker fails on a wrong line, a missing output and a `$ ` line it would
 * not run. */
#include <stdio.h>
#include <string.h>

#include "support.h"

#define DOCS CPK_SOURCE_DIR "/tests/docs/"

/* Run the checker on FILE (NULL: README.md and every doc/ .md file). */
static void
doc_commands(cpk_proc *p, const char *file)
{
    const char *argv[] = {CPK_PYTHON, DOCS "doc_commands.py", CPK_SOURCE_DIR,
                          CPK_BUILD_DIR, file, NULL};
    cpk_spawn(p, argv, "/", NULL, 0, NULL);
}

static void
skip_unless_docs_python(void)
{
    /* The documents show Debian's CPython 3.11 (bytecode magic, traceback
     * carets); a build for another version has other output. */
    if (PY_MAJOR_VERSION != 3 || PY_MINOR_VERSION != 11)
        cr_skip_test("the documents show Python 3.11's output, this build "
                     "is for %d.%d", PY_MAJOR_VERSION, PY_MINOR_VERSION);
}

Test(doc_commands, readme_and_doc_run_as_shown, .timeout = 120)
{
    skip_unless_docs_python();
    cpk_proc p;
    doc_commands(&p, NULL);
    cr_assert(p.exited && p.status == 0,
              "a document's command no longer prints what it shows "
              "(exit %d):\n%s%s", p.status, p.err, p.out);
    /* the README alone has a dozen: a broken extractor finds none */
    int cmds = 0, blocks = 0, files = 0, n = 0;
    cr_assert(sscanf(p.out, "%d commands in %d blocks of %d files: all as "
                            "shown\n%n",
                     &cmds, &blocks, &files, &n) == 3 &&
                  n > 0 && p.out[n] == '\0',
              "%s", p.out);
    cr_assert(cmds >= 70 && blocks >= 15 && files >= 5, "%s", p.out);
    cpk_proc_free(&p);
}

Test(doc_commands, the_rules_pass_a_correct_doc, .timeout = 60)
{
    skip_unless_docs_python();
    cpk_proc p;
    doc_commands(&p, DOCS "passing.md");
    cr_assert(p.exited && p.status == 0, "exit %d:\n%s%s", p.status, p.err,
              p.out);
    cr_assert_str_eq(p.out, "6 commands in 1 blocks of 1 files: "
                            "all as shown\n");
    cpk_proc_free(&p);
}

Test(doc_commands, a_wrong_line_fails_with_file_line_and_both_outputs)
{
    cpk_proc p;
    doc_commands(&p, DOCS "wrong-output.md");
    cr_assert(p.exited && p.status == 1, "exit %d:\n%s", p.status, p.err);
    cr_assert_str_eq(p.err, "tests/docs/wrong-output.md:7: $ echo 6\n"
                            "--- expected\n+++ actual\n@@ -1 +1 @@\n"
                            "-7\n+6\n\n");
    cr_assert_str_eq(p.out, "1 commands in 1 blocks of 1 files: 1 failed\n");
    cpk_proc_free(&p);
}

Test(doc_commands, output_not_shown_fails)
{
    cpk_proc p;
    doc_commands(&p, DOCS "missing-output.md");
    cr_assert(p.exited && p.status == 1, "exit %d:\n%s", p.status, p.err);
    cr_assert_str_eq(p.err, "tests/docs/missing-output.md:7: "
                            "$ cloudpickle-load f.pkl --call -- 1\n"
                            "--- expected\n+++ actual\n@@ -0,0 +1 @@\n"
                            "+1\n\n");
    cpk_proc_free(&p);
}

Test(doc_commands, a_dollar_line_outside_a_fence_is_refused)
{
    cpk_proc p;
    doc_commands(&p, DOCS "unfenced.md");
    cr_assert(p.exited && p.status == 1, "exit %d:\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "tests/docs/unfenced.md:6: a `$ ` line outside "
                            "a fenced block is never run") != NULL,
              "%s", p.err);
    cpk_proc_free(&p);
}
