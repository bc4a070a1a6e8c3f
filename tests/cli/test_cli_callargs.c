/* test_cli_callargs.c - cloudpickle-load --call's arguments
 * (cli/load/callargs.c): literals, keywords and strings by the rules of
 * callargs.h; malformed literals and option-like or badly named arguments
 * are usage errors, not strings; arguments that do not fit the signature
 * are usage errors naming the callable, before it is called. */
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

TestSuite(cli_callargs, .init = setup);

/* The file `name` in dir holding ccloudpickle.dumps(<expr>) after `code`. */
static const char *
pickle_file(const char *name, const char *code, const char *expr)
{
    static char paths[8][128];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, 128, "%s/%s", dir, name);
    char full[4096];
    snprintf(full, sizeof(full),
             "import ccloudpickle as cp\n%s\n"
             "open(%s, 'wb').write(cp.dumps(%s))\n",
             code, "'__PATH__'", expr);
    /* The path goes in by replacement: no quoting trouble. */
    char *at = strstr(full, "__PATH__");
    char final[4096];
    snprintf(final, sizeof(final), "%.*s%s%s", (int)(at - full), full, path,
             at + strlen("__PATH__"));
    cpk_proc p;
    cpk_python(&p, final, NULL, 0);
    cr_assert(p.exited && p.status == 0, "making the pickle failed:\n%s",
              p.err);
    cpk_proc_free(&p);
    return path;
}

/* cloudpickle-load --call FILE -- args... */
static void
call(cpk_proc *p, const char *file, const char *const *args)
{
    const char *argv[40] = {CPK_LOAD, "--call", file, "--"};
    int i = 4;
    for (; args[i - 4] != NULL; i++)
        argv[i] = args[i - 4];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

static void
assert_usage(cpk_proc *p, const char *line)
{
    cpk_assert_exit(p, 2);
    char expected[1024];
    snprintf(expected, sizeof(expected),
             "cloudpickle-load: %s\n"
             "Try 'cloudpickle-load --help' for more information.\n",
             line);
    cr_assert_str_eq(p->err, expected);
    cr_assert_str_eq(p->out, "");
}

static const char *
echo_file(void)
{
    return pickle_file("echo.pkl", "", "lambda *a, **k: (a, k)");
}

Test(cli_callargs, literals_keywords_and_strings)
{
    cpk_proc p;
    call(&p, echo_file(),
         (const char *[]){"3", "-2", "-.5", "+3", ".5", "1e3", "0x10", "1_000",
                          "1j", "[1, 'x']", "(1,)", "{'a=1': 2}", "'x-y=1'",
                          "\"'-v'\"", "b'x'", "rb'\\d'", "hello", "...",
                          "set()", "", "True", "False", "None", "x=-2", "y=",
                          "z=a=b", "w='007'", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out,
                     "((3, -2, -0.5, 3, 0.5, 1000.0, 16, 1000, 1j, [1, 'x'], "
                     "(1,), {'a=1': 2}, 'x-y=1', \"'-v'\", b'x', b'\\\\d', "
                     "'hello', '...', 'set()', '', True, False, None), "
                     "{'x': -2, 'y': '', 'z': 'a=b', 'w': '007'})\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

/* Issue 7: a malformed literal silently became a string. */
Test(cli_callargs, malformed_literals_are_usage_errors)
{
    static const char *const bad[] = {"[1,", "007", "1.2.3", "1+2", "(1",
                                      "{'a':}", "'open", "f'x'", "2024-01-01",
                                      "-1x", NULL};
    const char *file = echo_file();
    for (int i = 0; bad[i] != NULL; i++) {
        cpk_proc p;
        call(&p, file, (const char *[]){"1", bad[i], NULL});
        char line[256];
        snprintf(line, sizeof(line),
                 "--call argument '%s': not a valid Python literal", bad[i]);
        assert_usage(&p, line);
        cpk_proc_free(&p);
    }
    /* In a keyword's value too. */
    cpk_proc p;
    call(&p, file, (const char *[]){"x=[1,", NULL});
    assert_usage(&p, "--call argument 'x=[1,': not a valid Python literal");
    cpk_proc_free(&p);
    /* Deep nesting: a usage error, the argument cut in the message. */
    char *deep = malloc(100001);
    memset(deep, '[', 100000);
    deep[100000] = '\0';
    call(&p, file, (const char *[]){deep, NULL});
    char line[256];
    snprintf(line, sizeof(line),
             "--call argument '%.60s...': not a valid Python literal", deep);
    assert_usage(&p, line);
    cpk_proc_free(&p);
    free(deep);
}

/* Issue 7: --x=1 and x-y=1 silently became positional strings. */
Test(cli_callargs, bad_keyword_names_and_options_are_usage_errors)
{
    const char *file = echo_file();
    static const struct {
        const char *arg;
        const char *line;
    } cases[] = {
        {"--x=1", "--call argument '--x=1': '--x' is not a Python identifier"},
        {"x-y=1", "--call argument 'x-y=1': 'x-y' is not a Python identifier"},
        {"=1", "--call argument '=1': '' is not a Python identifier"},
        {"a b=1", "--call argument 'a b=1': 'a b' is not a Python identifier"},
        {"-v", "--call argument '-v': looks like an option, not a value"},
        {"--verbose",
         "--call argument '--verbose': looks like an option, not a value"},
        {"-", "--call argument '-': looks like an option, not a value"},
        {"-inf", "--call argument '-inf': looks like an option, not a value"},
        {"x=-v", "--call argument 'x=-v': looks like an option, not a value"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cpk_proc p;
        call(&p, file, (const char *[]){cases[i].arg, NULL});
        assert_usage(&p, cases[i].line);
        cpk_proc_free(&p);
    }
    cpk_proc p;
    call(&p, file, (const char *[]){"a=1", "a=2", NULL});
    assert_usage(&p, "--call argument 'a=2': keyword 'a' given twice");
    cpk_proc_free(&p);
}

/* Issue 7: wrong arity printed a bare TypeError without the prefix. Now
 * the arguments are bound to the signature first: nothing is called. */
Test(cli_callargs, arguments_not_fitting_the_signature)
{
    const char *scale = pickle_file(
        "scale.pkl",
        "def scale(x, factor=2):\n"
        "    print('called')\n"
        "    return x * factor\n",
        "scale");
    static const struct {
        const char *args[4];
        const char *line;
    } cases[] = {
        {{NULL}, "--call scale(): missing a required argument: 'x'"},
        {{"factor=3", NULL}, "--call scale(): missing a required argument: 'x'"},
        {{"1", "2", "3", NULL}, "--call scale(): too many positional arguments"},
        {{"1", "y=2", NULL},
         "--call scale(): got an unexpected keyword argument 'y'"},
        {{"1", "x=2", NULL},
         "--call scale(): multiple values for argument 'x'"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cpk_proc p;
        call(&p, scale, cases[i].args);
        assert_usage(&p, cases[i].line);
        cpk_proc_free(&p);
    }
    cpk_proc p;
    call(&p, scale, (const char *[]){"4", "factor=3", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "called\n12\n");
    cpk_proc_free(&p);

    /* A class: its __init__'s signature; a callable instance: __call__'s,
     * named by its type. */
    const char *point = pickle_file(
        "point.pkl",
        "class Point:\n"
        "    def __init__(self, x, y): self.x, self.y = x, y\n"
        "    def __repr__(self): return f'Point({self.x}, {self.y})'\n",
        "Point");
    call(&p, point, (const char *[]){"1", NULL});
    assert_usage(&p, "--call Point(): missing a required argument: 'y'");
    cpk_proc_free(&p);
    call(&p, point, (const char *[]){"1", "y=2", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "Point(1, 2)\n");
    cpk_proc_free(&p);
    const char *adder = pickle_file(
        "adder.pkl",
        "class Adder:\n"
        "    def __call__(self, x): return x + 1\n",
        "Adder()");
    call(&p, adder, (const char *[]){NULL});
    assert_usage(&p, "--call <Adder object>(): missing a required argument: "
                     "'x'");
    cpk_proc_free(&p);
}

/* Without a usable signature the callable is called unchecked: what it
 * raises is its own error (exit 1). */
Test(cli_callargs, callables_without_signature_are_called_unbound)
{
    const char *file = pickle_file("int.pkl", "", "int");
    cpk_proc p;
    call(&p, file, (const char *[]){"'42'", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "42\n");
    cpk_proc_free(&p);

    /* inspect.signature raises an exception whose str() raises. */
    file = pickle_file(
        "odd.pkl",
        "class Unstr(Exception):\n"
        "    def __str__(self): raise Unstr()\n"
        "class Odd:\n"
        "    @property\n"
        "    def __signature__(self):\n"
        "        if __import__('sys').argv[0] != '-c': raise Unstr()\n"
        "    def __call__(self, x): return x * 2\n",
        "Odd()");
    call(&p, file, (const char *[]){"21", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "42\n");
    cpk_proc_free(&p);
    call(&p, file, (const char *[]){NULL});
    cpk_assert_exit(&p, 1);
    cr_assert(strstr(p.err, "TypeError") != NULL, "%s", p.err);
    cpk_proc_free(&p);
}

/* Arguments that fit a plain function are checked without importing
 * inspect (which costs more than the rest of the run); each shape of
 * signature binds, and a refusal still gets inspect's wording. */
Test(cli_callargs, plain_functions_bind_without_inspect)
{
    const char *f = pickle_file(
        "shapes.pkl", "import sys\n"
                      "def f(a, /, b, c=3, *rest, d, e=5, **kw):\n"
                      "    return ('inspect' in sys.modules, a, b, c, rest,"
                      " d, e, kw)\n",
        "f");
    cpk_proc p;
    call(&p, f, (const char *[]){"1", "2", "d=4", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "(False, 1, 2, 3, (), 4, 5, {})\n");
    cpk_proc_free(&p);
    call(&p, f, (const char *[]){"1", "b=2", "d=4", "e=6", "z=7", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "(False, 1, 2, 3, (), 4, 6, {'z': 7})\n");
    cpk_proc_free(&p);
    call(&p, f, (const char *[]){"1", "2", "3", "8", "9", "d=4", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "(False, 1, 2, 3, (8, 9), 4, 5, {})\n");
    cpk_proc_free(&p);
    /* Refusals. */
    call(&p, f, (const char *[]){"1", "2", NULL});
    assert_usage(&p, "--call f(): missing a required argument: 'd'");
    cpk_proc_free(&p);
    call(&p, f, (const char *[]){"1", "2", "b=2", "d=1", NULL});
    assert_usage(&p, "--call f(): multiple values for argument 'b'");
    cpk_proc_free(&p);
}
