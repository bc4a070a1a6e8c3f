/* test_cov_dump_expr_report.c - cloudpickle-dump -e source that parses
 * but does not compile (the compile step's SyntaxError, the parser's
 * RecursionError), and --report on pickles of the old protocols (0 and
 * 1: text opcodes, no PROTO) and on parts whose module has no file: a
 * dynamic module pickled by value, a class whose module's __file__ is
 * None. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cov_dump_expr_report, .init = setup);

static void
dump_e(cpk_proc *p, const char *expr)
{
    const char *argv[] = {CPK_DUMP, "-e", expr, NULL};
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

Test(cov_dump_expr_report, return_outside_function_fails_to_compile)
{
    /* ast.parse accepts it; compile() refuses it */
    cpk_proc p;
    dump_e(&p, "return 1\n2");
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err, "cloudpickle-dump: -e: SyntaxError: 'return' "
                            "outside function (line 1, column 1)\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cov_dump_expr_report, nonlocal_without_binding_in_the_head)
{
    cpk_proc p;
    dump_e(&p, "def f():\n    nonlocal x\n1");
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err, "cloudpickle-dump: -e: SyntaxError: no binding "
                            "for nonlocal 'x' found (line 2, column 5)\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cov_dump_expr_report, await_in_the_last_expression)
{
    cpk_proc p;
    dump_e(&p, "x = 1\nawait x");
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err, "cloudpickle-dump: -e: SyntaxError: 'await' "
                            "outside function (line 2, column 1)\n");
    cpk_proc_free(&p);
}

Test(cov_dump_expr_report, too_deep_to_parse_is_a_usage_error)
{
    size_t n = 40000;
    char *src = malloc(1 + 2 * n + 1);
    cr_assert_not_null(src);
    src[0] = 'x';
    for (size_t i = 0; i < n; i++)
        memcpy(src + 1 + 2 * i, ".a", 2);
    src[1 + 2 * n] = '\0';
    cpk_proc p;
    dump_e(&p, src);
    free(src);
    cpk_assert_exit(&p, 2);
    /* CPython's wording differs by version ("during ast construction",
     * 3.9: "while traversing 'expr' node") */
    cr_assert(strncmp(p.err,
                      "cloudpickle-dump: -e: RecursionError: maximum "
                      "recursion depth exceeded ",
                      71) == 0,
              "%s", p.err);
    cr_assert(strchr(p.err, '\n') == p.err + strlen(p.err) - 1, "%s", p.err);
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

/* Dump `expr` with --report and `proto` (NULL: default) into dir/out.pkl;
 * returns the report (stderr), asserting status 0 and that its size line
 * is the file's size. */
static char *
report(const char *expr, const char *proto, const char *size_suffix)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/out.pkl", dir);
    const char *argv[] = {CPK_DUMP, "--report", "-o", path, "-e", expr,
                          proto ? "-p" : NULL, proto, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    size_t len = 0;
    char *data = cpk_read_file(path, &len);
    cr_assert_not_null(data);
    free(data);
    char want[256];
    snprintf(want, sizeof(want),
             "report     -e written to %s\npickle     %zu bytes%s\n", path,
             len, size_suffix);
    cr_assert(strncmp(p.err, want, strlen(want)) == 0, "report:\n%s\nwant:\n%s",
              p.err, want);
    char *err = p.err;
    p.err = NULL;
    cpk_proc_free(&p);
    return err;
}

static const char *const CLASSY =
    "import collections\n"
    "class C:\n"
    "    x = [1, 2]\n"
    "    d = {'a': (1,), 'b': (1, 2), 'c': (1, 2, 3)}\n"
    "    s = frozenset({1})\n"
    "    def m(self, y=collections.OrderedDict(a=1)): return y\n"
    "def f(a, *, k={'z': {1, 2}}):\n"
    "    return C, a, k\n"
    "f";

/* The report of CLASSY: three parts (f, C, C.m), the class from the -e
 * source inside f, and the by-ref imports it names. */
static void
assert_classy(const char *err)
{
    cr_assert(strstr(err, " in 3 parts (") != NULL, "%s", err);
    /* the name column is as wide as the longest name */
    const char *c = strstr(err, "  class     __main__.C ");
    cr_assert(c != NULL, "%s", err);
    c += strlen("  class     __main__.C ");
    c += strspn(c, " ");
    cr_assert(strncmp(c, "<cloudpickle-dump -e> (inside ", 30) == 0, "%s",
              err);
    cr_assert(strstr(err, "by ref     6 imports\n") != NULL, "%s", err);
    cr_assert(strstr(err, "  name     collections.OrderedDict\n") != NULL,
              "%s", err);
    cr_assert(strstr(err, "  name     builtins.frozenset\n") != NULL, "%s",
              err);
}

Test(cov_dump_expr_report, protocol_0_text_opcodes)
{
    char *err = report(CLASSY, "0", "");
    assert_classy(err);
    cr_assert(strstr(err, "other      1 byte (") != NULL, "%s", err);
    free(err);
}

Test(cov_dump_expr_report, protocol_1)
{
    char *err = report(CLASSY, "1", "");
    assert_classy(err);
    free(err);
}

Test(cov_dump_expr_report, protocol_2_names_its_protocol)
{
    char *err = report(CLASSY, "2", ", protocol 2");
    assert_classy(err);
    free(err);
}

Test(cov_dump_expr_report, dynamic_module_by_value_has_no_source)
{
    char *err = report("import types\n"
                       "m = types.ModuleType('dyn')\n"
                       "m.x = 1\n"
                       "m",
                       NULL, ", protocol 5");
    cr_assert(strstr(err, " in 1 part (") != NULL, "%s", err);
    cr_assert(strstr(err, "  module    dyn   unknown\n") != NULL, "%s", err);
    free(err);
}

Test(cov_dump_expr_report, class_of_a_module_whose_file_is_none)
{
    char *err = report("import types, sys\n"
                       "m = types.ModuleType('dm')\n"
                       "m.__file__ = None\n"
                       "sys.modules['dm'] = m\n"
                       "class C: pass\n"
                       "C.__module__ = 'dm'\n"
                       "C",
                       NULL, ", protocol 5");
    cr_assert(strstr(err, "  class     dm.C  unknown\n") != NULL, "%s", err);
    cr_assert(strstr(err, "by ref     2 imports\n") != NULL, "%s", err);
    free(err);
}
