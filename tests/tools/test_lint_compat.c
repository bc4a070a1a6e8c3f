/* test_lint_compat.c - scripts/lint-compat (make lint-compat): a
 * CPython-version branch outside the Python-version layer fails, naming
 * FILE:LINE, in each spelling (PY_VERSION_HEX, #elif, a continued line,
 * the minor-version macro, a feature test with #ifdef or defined(), a
 * subfolder, a .inc file); the layer's own files, comments, include
 * guards and the version macros used as values pass. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

#define LINT CPK_SOURCE_DIR "/scripts/lint-compat"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/src", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/src/sub", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/src/layer.h", dir);
    cpk_write_file(path, "#if PY_VERSION_HEX >= 0x030C0000\n#endif\n");
    snprintf(path, sizeof(path), "%s/src/clean.c", dir);
    cpk_write_file(path,
                   "#ifndef CPK_CLEAN_H\n"
                   "#define CPK_CLEAN_H\n"
                   "/* see PY_VERSION_HEX in the layer */\n"
                   "// #if PY_MINOR_VERSION >= 12\n"
                   "static const char v[] = \"PY_VERSION_HEX\";\n"
                   "int m = PY_MINOR_VERSION;\n"
                   "#ifdef CPK_COVERAGE\n#endif\n"
                   "#endif\n");
}

TestSuite(lint_compat, .init = setup);

static void
lint(cpk_proc *p)
{
    const char *argv[] = {LINT, "src/layer.h", "--", "src", NULL};
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

static void
planted(const char *file, const char *text, const char *message)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    cpk_write_file(path, text);
    cpk_proc p;
    lint(&p);
    cpk_assert_exit(&p, 1);
    cr_assert(strstr(p.err, message) != NULL, "stderr: %s", p.err);
    cr_assert(strstr(p.err, "lint-compat: move the branch into src/layer.h") !=
                  NULL,
              "stderr: %s", p.err);
    cpk_proc_free(&p);
}

Test(lint_compat, layer_comments_guards_and_values_pass)
{
    cpk_proc p;
    lint(&p);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

Test(lint_compat, version_hex_outside_the_layer)
{
    planted("src/a.c", "int x;\n#  if PY_VERSION_HEX < 0x030A0000\n#endif\n",
            "lint-compat: src/a.c:2: PY_VERSION_HEX outside the "
            "Python-version layer\n");
}

Test(lint_compat, elif_in_a_subfolder_header)
{
    planted("src/sub/b.h", "#if 0\n#elif PY_VERSION_HEX\n#endif\n",
            "lint-compat: src/sub/b.h:2: PY_VERSION_HEX");
}

Test(lint_compat, token_split_by_a_continuation)
{
    planted("src/c.inc", "\n#if PY_VERSION_\\\nHEX >= 1\n#endif\n",
            "lint-compat: src/c.inc:2: PY_VERSION_HEX");
}

Test(lint_compat, minor_version_conditional)
{
    planted("src/d.c", "#if PY_MINOR_VERSION >= 12\n#endif\n",
            "lint-compat: src/d.c:1: a conditional on the Python version");
}

Test(lint_compat, ifdef_feature_test)
{
    planted("src/e.c", "#ifdef Py_TPFLAGS_IMMUTABLETYPE\n#endif\n",
            "lint-compat: src/e.c:1: a feature test of CPython's "
            "Py_TPFLAGS_IMMUTABLETYPE");
}

Test(lint_compat, defined_feature_test)
{
    planted("src/f.c", "#if defined(_Py_IsImmortal) && 1\n#endif\n",
            "lint-compat: src/f.c:1: a feature test of CPython's "
            "_Py_IsImmortal");
}

/* The tree of this checkout passes: every branch is in the layer. */
Test(lint_compat, this_tree_passes)
{
    const char *argv[] = {LINT,
                          "src/common/pycompat.h",
                          "src/common/pycompat.c",
                          "src/scan/pycompat_scan.h",
                          "--",
                          "src",
                          "cli",
                          NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, CPK_SOURCE_DIR, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}
