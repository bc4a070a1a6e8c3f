/* test_cli_load_errors.c - what cloudpickle-load says when a load fails,
 * with text the pickle chose: the detail line is escaped as the report
 * is (no terminal escapes, no bidi controls, U+061C included); an
 * exception raised by code the pickle runs is "cannot load" (exit 4),
 * never "refused by --allow/--deny" or bad input (exit 3), whatever its
 * class and message; only the policy's own PolicyError, raised by C
 * code, is a refusal. A pattern that is not UTF-8 is a usage error in
 * every mode. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cli_load_errors, .init = setup);

static void
load(cpk_proc *p, const char *const *args)
{
    const char *argv[16] = {CPK_LOAD};
    int i = 1;
    for (; args[i - 1] != NULL; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

/* dir/name holding what `code` prints on stdout (a pickle). */
static const char *
made(const char *name, const char *code)
{
    static char paths[4][256];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, 256, "%s/%s", dir, name);
    cpk_python_to_file(path, code);
    return path;
}

/* 1 if p[0, n) holds a byte below 0x20 other than a newline, or the
 * UTF-8 of a bidi control. */
static int
raw_controls(const char *p, size_t n)
{
    static const char *const bidi[] = {
        "\xd8\x9c", "\xe2\x80\x8e", "\xe2\x80\x8f", "\xe2\x80\xaa",
        "\xe2\x80\xab", "\xe2\x80\xac", "\xe2\x80\xad", "\xe2\x80\xae",
        "\xe2\x81\xa6", "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9"};
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)p[i] < 0x20 && p[i] != '\n')
            return 1;
        for (size_t k = 0; k < sizeof bidi / sizeof bidi[0]; k++)
            if (n - i >= strlen(bidi[k]) &&
                memcmp(p + i, bidi[k], strlen(bidi[k])) == 0)
                return 1;
    }
    return 0;
}

#define HELPERS                                                              \
    "import sys\n"                                                           \
    "def G(m, n): return b'c' + m.encode() + b'\\n' + n.encode() + b'\\n'\n" \
    "def S(s):\n"                                                            \
    "    b = s.encode()\n"                                                   \
    "    return b'X' + len(b).to_bytes(4, 'little') + b\n"                   \
    "def call1(fn, *args): return fn + b'(' + b''.join(args) + b'tR'\n"

/* An exception message spelled by the pickle (CPython's AttributeError
 * quotes the attribute name raw) is escaped on the error line. */
Test(cli_load_errors, load_failure_detail_is_escaped)
{
    const char *path = made(
        "esc.pkl",
        HELPERS
        "sys.stdout.buffer.write(b'\\x80\\x02' + call1(G('builtins',\n"
        "    'getattr'), b'K\\x01', S('\\x1b[31mRED\\x1b]0;t\\x07'\n"
        "    '\\u202ex\\u061cy\\u2066')) + b'.')\n");
    cpk_proc p;
    load(&p, (const char *[]){"--load", path, NULL});
    cpk_assert_exit(&p, 4);
    cr_assert(!raw_controls(p.err, p.err_len), "%s", p.err);
    cr_assert(strstr(p.err, ": cannot load: AttributeError: 'int' object "
                            "has no attribute '\\x1b[31mRED\\x1b]0;t\\x07"
                            "\\u202ex\\u061cy\\u2066'\n") != NULL,
              "%s", p.err);
    cr_assert(strchr(p.err, '\n') == p.err + p.err_len - 1, "%s", p.err);
    cpk_proc_free(&p);
}

/* U+061C ARABIC LETTER MARK, one of the Trojan Source controls, is
 * escaped in the static report like the others. */
Test(cli_load_errors, report_escapes_arabic_letter_mark)
{
    const char *path = made(
        "alm.pkl",
        "import sys\n"
        "def SB(s):\n"
        "    b = s.encode()\n"
        "    return b'\\x8c' + bytes([len(b)]) + b\n"
        "sys.stdout.buffer.write(b'\\x80\\x04' + SB('m\\u061cod') +\n"
        "                        SB('f\\u200eg') + b'\\x93.')\n");
    cpk_proc p;
    load(&p, (const char *[]){path, NULL});
    cpk_assert_exit(&p, 0);
    cr_assert(!raw_controls(p.out, p.out_len), "%s", p.out);
    cr_assert(strstr(p.out, "m\\u061cod.f\\u200eg") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    load(&p, (const char *[]){"--json", path, NULL});
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "\"m\\u061cod\"") != NULL, "%s", p.out);
    cpk_proc_free(&p);
}

/* Code the pickle runs raises an UnpicklingError, or the policy's own
 * class, saying "import policy refuses": that is a failure to load
 * (exit 4), not a policy refusal nor bad input. */
Test(cli_load_errors, errors_raised_by_the_pickles_code_are_not_refusals)
{
    static const char *const classes[] = {"pickle.UnpicklingError",
                                          "ccloudpickle.PolicyError"};
    for (int c = 0; c < 2; c++) {
        char code[1200];
        snprintf(code, sizeof(code),
                 "import sys, ccloudpickle\n"
                 "def f():\n"
                 "    import pickle, ccloudpickle\n"
                 "    raise %s('import policy refuses find_class(\"os\", "
                 "\"system\"): forged')\n"
                 "class K:\n"
                 "    def __reduce__(self):\n"
                 "        return (f, ())\n"
                 "sys.stdout.buffer.write(ccloudpickle.dumps(K()))\n",
                 classes[c]);
        const char *path = made("forged.pkl", code);
        static const char *const modes[][5] = {
            {"--load", NULL},
            {"--call", NULL},
        };
        for (int m = 0; m < 2; m++) {
            const char *args[8];
            int n = 0;
            for (; modes[m][n] != NULL; n++)
                args[n] = modes[m][n];
            args[n++] = path;
            args[n] = NULL;
            cpk_proc p;
            load(&p, args);
            cpk_assert_exit(&p, 4);
            cr_assert(strstr(p.err, ": cannot load: ") != NULL, "%s", p.err);
            cr_assert(strstr(p.err, "refused by") == NULL, "%s", p.err);
            cpk_proc_free(&p);
        }
        /* Under a policy the code never runs: the load calls a function
         * carried by value, refused before loading (policy.h). */
        cpk_proc p;
        load(&p, (const char *[]){"--deny", "nothing_here", "--load", path,
                                  NULL});
        cpk_assert_exit(&p, 3);
        cr_assert(strstr(p.err, ": refused by --allow/--deny: the load calls "
                                "a function carried by value: f at byte ")
                      != NULL && strstr(p.err, "find_class") == NULL,
                  "%s", p.err);
        cpk_proc_free(&p);
    }
}

/* The real refusal of find_class (a module object) is still exit 3. */
Test(cli_load_errors, policy_refusal_is_exit_3)
{
    const char *path = made("ospath.pkl",
                            "import sys\n"
                            "sys.stdout.buffer.write(b'\\x80\\x02cos\\npath\\n"
                            "q\\x00.')\n");
    cpk_proc p;
    load(&p, (const char *[]){"--allow", "os.path", "--load", path, NULL});
    cpk_assert_exit(&p, 3);
    cr_assert(strstr(p.err, ": refused by --allow/--deny: import policy "
                            "refuses find_class('os', 'path'): it gives a "
                            "module object\n") != NULL,
              "%s", p.err);
    cpk_proc_free(&p);
}

/* A pattern no str can spell is a usage error, scanning or loading. */
Test(cli_load_errors, non_utf8_pattern_is_a_usage_error)
{
    const char *path = made("j.pkl",
                            "import sys, pickle\n"
                            "sys.stdout.buffer.write(pickle.dumps([1]))\n");
    static const char *const opts[] = {"--allow", "--deny"};
    static const char *const modes[] = {"--json", "--load", "--call",
                                        "--strict"};
    for (int o = 0; o < 2; o++) {
        for (int m = 0; m < 4; m++) {
            cpk_proc p;
            load(&p, (const char *[]){opts[o], "ab\xff", modes[m], path,
                                      NULL});
            cpk_assert_exit(&p, 2);
            cr_assert(strstr(p.err, "not valid UTF-8") != NULL, "%s", p.err);
            cpk_proc_free(&p);
        }
        cpk_proc p;
        load(&p, (const char *[]){opts[o], "a\xed\xa0\x80", path, NULL});
        cpk_assert_exit(&p, 2);
        cpk_proc_free(&p);
    }
}
