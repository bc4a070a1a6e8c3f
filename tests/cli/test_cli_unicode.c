/* test_cli_unicode.c - non-ASCII text through both programs, under a
 * UTF-8 locale and under the POSIX one, as python3 handles it in both:
 * module names, directories and file paths, docstrings, arguments,
 * results, prints and error messages. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/d\xc3\xa9", dir); /* dé */
    cr_assert(mkdir(path, 0755) == 0);
    snprintf(path, sizeof(path), "%s/d\xc3\xa9/mod\xc3\xa9.py", dir);
    cpk_write_file(path,
                   "print('import \xc3\xa7\xc3\xa0')\n"
                   "def f(s='x'):\n"
                   "    '''\xc3\x9c" "ber alles: caf\xc3\xa9.'''\n"
                   "    print('\xc3\xa7" "a va')\n"
                   "    return s + ' \xc3\xa9t\xc3\xa9'\n"
                   "def raw(s):\n"
                   "    return s.encode('utf-8', 'surrogateescape')\n"
                   "def boom():\n"
                   "    raise ValueError('\xc3\xa9t\xc3\xa9 rat\xc3\xa9')\n");
}

TestSuite(cli_unicode, .init = setup);

static const char *const locales[][3] = {
    {"LC_ALL=C.UTF-8", "LANG=C.UTF-8", NULL},
    {"LC_ALL=C", "LANG=C", NULL},
    {"LC_ALL=POSIX", "LANG=", NULL},
};
static const char *const unset[] = {"LANGUAGE", "LC_CTYPE", "LC_MESSAGES",
                                    NULL};

static void
run(cpk_proc *p, int loc, const char *const *argv)
{
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .env = locales[loc],
                        .unset = unset};
    cpk_spawn_ex(p, &o);
}

/* Dump dé/modé.py's `attr` to out-<loc>.pkl; its path in `out`. */
static void
dump(int loc, const char *attr, char *out, size_t cap)
{
    snprintf(out, cap, "%s/sortie-\xc3\xa9-%d.pkl", dir, loc);
    char spec[64];
    snprintf(spec, sizeof(spec), "mod\xc3\xa9:%s", attr);
    const char *argv[] = {CPK_DUMP, "-P", "d\xc3\xa9", "-o", out, spec, NULL};
    cpk_proc p;
    run(&p, loc, argv);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "import \xc3\xa7\xc3\xa0\n", "locale %d", loc);
    cpk_proc_free(&p);
}

Test(cli_unicode, report_shows_names_paths_and_docstrings)
{
    for (int loc = 0; loc < 3; loc++) {
        char out[256];
        dump(loc, "f", out, sizeof(out));
        const char *argv[] = {CPK_LOAD, "--load", out, NULL};
        cpk_proc p;
        run(&p, loc, argv);
        cpk_assert_exit(&p, 0);
        char expected[512];
        snprintf(expected, sizeof(expected),
                 "object     function f\n"
                 "module     mod\xc3\xa9\n"
                 "signature  f(s='x')\n"
                 "doc        \xc3\x9c" "ber alles: caf\xc3\xa9.\n"
                 "source     %s/d\xc3\xa9/mod\xc3\xa9.py, line 2\n",
                 dir);
        cr_assert(strncmp(p.out, expected, strlen(expected)) == 0,
                  "locale %d:\n%s", loc, p.out);
        cr_assert_str_eq(p.err, "");
        cpk_proc_free(&p);
    }
}

Test(cli_unicode, call_with_arguments_prints_and_results)
{
    for (int loc = 0; loc < 3; loc++) {
        char out[256];
        dump(loc, "f", out, sizeof(out));
        const char *argv[] = {CPK_LOAD, "--call", out, "--", "caf\xc3\xa9",
                              NULL};
        cpk_proc p;
        run(&p, loc, argv);
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.out, "\xc3\xa7" "a va\n'caf\xc3\xa9 \xc3\xa9t\xc3\xa9'\n",
                         "locale %d", loc);
        cr_assert_str_eq(p.err, "");
        cpk_proc_free(&p);
    }
}

Test(cli_unicode, undecodable_argument_bytes_round_trip)
{
    /* As python3 decodes argv: UTF-8, surrogateescape for bad bytes. */
    for (int loc = 0; loc < 3; loc++) {
        char out[256];
        dump(loc, "raw", out, sizeof(out));
        const char *argv[] = {CPK_LOAD, "--call", out, "--",
                              "caf\xc3\xa9\xff", NULL};
        cpk_proc p;
        run(&p, loc, argv);
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.out, "b'caf\\xc3\\xa9\\xff'\n", "locale %d", loc);
        cpk_proc_free(&p);
    }
}

Test(cli_unicode, messages_and_tracebacks)
{
    for (int loc = 0; loc < 3; loc++) {
        char out[256];
        dump(loc, "boom", out, sizeof(out));
        const char *argv[] = {CPK_LOAD, "--call", out, NULL};
        cpk_proc p;
        run(&p, loc, argv);
        cpk_assert_exit(&p, 1);
        cr_assert(strstr(p.err, "\nValueError: \xc3\xa9t\xc3\xa9 rat\xc3\xa9\n") !=
                      NULL,
                  "locale %d:\n%s", loc, p.err);
        cpk_proc_free(&p);

        const char *argv2[] = {CPK_DUMP, "-P", "d\xc3\xa9", "-o", out,
                               "mod\xc3\xa9:nop\xc3\xa9", NULL};
        run(&p, loc, argv2);
        cpk_assert_exit(&p, 4);
        cr_assert_str_eq(p.err,
                         "import \xc3\xa7\xc3\xa0\n"
                         "cloudpickle-dump: mod\xc3\xa9:nop\xc3\xa9: "
                         "AttributeError: module 'mod\xc3\xa9' has no "
                         "attribute 'nop\xc3\xa9'\n",
                         "locale %d", loc);
        cpk_proc_free(&p);
    }
}

Test(cli_unicode, dump_to_standard_output)
{
    for (int loc = 0; loc < 3; loc++) {
        const char *argv[] = {CPK_DUMP, "-P", "d\xc3\xa9", "mod\xc3\xa9:f",
                              NULL};
        cpk_proc p, q;
        run(&p, loc, argv);
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.err, "import \xc3\xa7\xc3\xa0\n");
        const char *argv2[] = {CPK_LOAD, "--call", "-", NULL};
        cpk_spawn_opts o = {.argv = argv2, .cwd = "/", .env = locales[loc],
                            .unset = unset, .in = p.out, .in_len = p.out_len};
        cpk_spawn_ex(&q, &o);
        cpk_assert_exit(&q, 0);
        cr_assert_str_eq(q.out, "\xc3\xa7" "a va\n'x \xc3\xa9t\xc3\xa9'\n");
        cpk_proc_free(&p);
        cpk_proc_free(&q);
    }
}
