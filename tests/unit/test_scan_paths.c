/* test_scan_paths.c - protocol 4 dotted names and getattr chains that walk
 * out of a "plain" module (src/scan/pkscan.h, "Dangerous names"/"Plain data"):
 * STACK_GLOBAL('dataclasses', 'inspect.os.system') is os.system, so it is
 * flagged as os.system is, not called plain; a path through anything but
 * a harmless dunder is "other"; cloudpickle-load --strict refuses such a
 * pickle, which --load shows really runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scan/pkscan.h"
#include "support.h"

TestSuite(scan_paths);
TestSuite(scan_paths_py, .init = cpk_py_start, .fini = cpk_py_stop);

/* PROTO 4, STACK_GLOBAL(m, n), STOP into buf; its length. */
static size_t
stack_global(char *buf, size_t cap, const char *m, const char *n)
{
    int k = snprintf(buf, cap, "\x80\x04\x8c%c%s\x8c%c%s\x93.",
                     (int)strlen(m), m, (int)strlen(n), n);
    cr_assert(k > 0 && (size_t)k < cap);
    return (size_t)k;
}

static int
str_is(pkscan_str s, const char *lit)
{
    return s.s != NULL && s.len == strlen(lit) && memcmp(s.s, lit, s.len) == 0;
}

Test(scan_paths, dotted_names_are_classified_by_where_they_lead)
{
    static const struct {
        const char *m, *n;
        const char *reason; /* NULL: not dangerous */
        pkscan_category cat;
    } cases[] = {
        /* out of a plain module into a dangerous one */
        {"dataclasses", "inspect.os.system", "runs commands",
         PKSCAN_CAT_OTHER},
        {"collections", "abc.sys.modules.get", "interpreter internals",
         PKSCAN_CAT_OTHER},
        {"typing", "sys.modules", "interpreter internals", PKSCAN_CAT_OTHER},
        {"enum", "sys.exit", "interpreter internals", PKSCAN_CAT_OTHER},
        {"uuid", "os.system", "runs commands", PKSCAN_CAT_OTHER},
        {"dataclasses", "builtins.eval", "evaluates code", PKSCAN_CAT_OTHER},
        {"dataclasses", "builtins.open", "opens files", PKSCAN_CAT_OTHER},
        {"fractions", "re.sys.modules", "interpreter internals",
         PKSCAN_CAT_OTHER},
        {"typing", "subprocess.Popen", "runs commands", PKSCAN_CAT_OTHER},
        {"collections", "abc.asyncio.subprocess.create_subprocess_shell",
         "runs commands", PKSCAN_CAT_OTHER},
        /* a module object reached through a plain module's attribute */
        {"typing", "sys", "interpreter internals", PKSCAN_CAT_OTHER},
        {"dataclasses", "builtins", "interpreter internals",
         PKSCAN_CAT_OTHER},
        /* out of a reconstructor module */
        {"cloudpickle.cloudpickle", "sys.modules", "interpreter internals",
         PKSCAN_CAT_OTHER},
        {"ccloudpickle", "_function_new.os.system", "runs commands",
         PKSCAN_CAT_OTHER},
        /* cloudpickle.cloudpickle imports pickle, platform, sys, ... */
        {"cloudpickle.cloudpickle", "pickle.loads", "nested unpickling",
         PKSCAN_CAT_OTHER},
        {"cloudpickle.cloudpickle", "platform.os.system", "runs commands",
         PKSCAN_CAT_OTHER},
        {"cloudpickle.cloudpickle", "sys", NULL, PKSCAN_CAT_OTHER},
        {"cloudpickle", "_make_function.mro", NULL, PKSCAN_CAT_OTHER},
        /* an attribute path that may leave the module: not plain, even
         * when nothing in it is known to be dangerous (an alias) */
        {"collections", "_sys.modules", NULL, PKSCAN_CAT_OTHER},
        {"math", "floor.x", NULL, PKSCAN_CAT_OTHER},
        {"collections", "OrderedDict.mro", NULL, PKSCAN_CAT_OTHER},
        {"builtins", "set.mro", NULL, PKSCAN_CAT_OTHER},
        /* dataclasses is plain name by name: inspect is not listed */
        {"dataclasses", "inspect", NULL, PKSCAN_CAT_OTHER},
        /* user modules: a path through os is flagged, a function named
         * like a module is not */
        {"mymod", "Helper.os.system", "runs commands", PKSCAN_CAT_OTHER},
        {"mymod", "profile", NULL, PKSCAN_CAT_OTHER},
        {"mymod", "Config.code", NULL, PKSCAN_CAT_OTHER},
        /* what stays plain: harmless dunders, listed classmethods */
        {"builtins", "object.__new__", NULL, PKSCAN_CAT_PLAIN},
        {"enum", "Enum.__new__", NULL, PKSCAN_CAT_PLAIN},
        {"collections", "OrderedDict.fromkeys", NULL, PKSCAN_CAT_PLAIN},
        {"zoneinfo", "ZoneInfo._unpickle", NULL, PKSCAN_CAT_PLAIN},
        {"builtins", "dict.fromkeys", NULL, PKSCAN_CAT_PLAIN},
        {"typing", "List", NULL, PKSCAN_CAT_PLAIN},
        {"collections", "OrderedDict", NULL, PKSCAN_CAT_PLAIN},
        {"collections.abc", "Mapping", NULL, PKSCAN_CAT_PLAIN},
        {"ccloudpickle", "_function_new", NULL, PKSCAN_CAT_CCLOUDPICKLE},
        /* internals stay flagged however reached */
        {"enum", "Enum.__new__.__globals__",
         "attribute path through interpreter internals", PKSCAN_CAT_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[200];
        size_t n = stack_global(buf, sizeof buf, cases[i].m, cases[i].n);
        pkscan_report *r = pkscan_scan(buf, n, 0);
        cr_assert(r != NULL && r->status == PKSCAN_OK, "%s.%s", cases[i].m,
                  cases[i].n);
        cr_assert_eq(r->n_imports, 1);
        const pkscan_import *im = &r->imports[0];
        cr_assert_eq(im->dangerous, cases[i].reason != NULL, "%s.%s: %s",
                     cases[i].m, cases[i].n,
                     im->reason ? im->reason : "not dangerous");
        if (cases[i].reason)
            cr_assert_str_eq(im->reason, cases[i].reason, "%s.%s",
                             cases[i].m, cases[i].n);
        cr_assert_eq(im->category, cases[i].cat, "%s.%s: %s", cases[i].m,
                     cases[i].n, pkscan_category_name(im->category));
        cr_assert_eq(pkscan_strict_violation(r),
                     cases[i].reason != NULL ||
                         cases[i].cat == PKSCAN_CAT_OTHER,
                     "%s.%s", cases[i].m, cases[i].n);
        pkscan_free(r);
    }
}

/* getattr(getattr(dataclasses.inspect, "os"), "system")("true"): the
 * chain resolves to dataclasses + inspect.os.system, flagged like the
 * dotted STACK_GLOBAL it amounts to. */
Test(scan_paths, getattr_chains_are_classified_as_dotted_names)
{
    static const char p[] =
        "\x80\x04"
        "\x8c\x08" "builtins\x8c\x07getattr\x93\x94"      /* memo 0 */
        "h\x00"
        "\x8c\x0b" "dataclasses\x8c\x07inspect\x93"
        "\x8c\x02os\x86R"                                 /* inspect.os */
        "\x8c\x06system\x86R"                             /* .system */
        "\x8c\x04true\x85R.";
    pkscan_report *r = pkscan_scan(p, sizeof p - 1, 0);
    cr_assert(r != NULL && r->status == PKSCAN_OK, "%s",
              r && r->error ? r->error : "");
    const pkscan_import *found = NULL, *mid = NULL, *top = NULL;
    for (size_t i = 0; i < r->n_imports; i++) {
        const pkscan_import *im = &r->imports[i];
        if (!str_is(im->module, "dataclasses"))
            continue;
        if (str_is(im->name, "inspect.os.system"))
            found = im;
        else if (str_is(im->name, "inspect.os"))
            mid = im;
        else if (str_is(im->name, "inspect"))
            top = im;
    }
    cr_assert(found != NULL, "inspect.os.system not listed");
    cr_assert_eq(found->via, PKSCAN_VIA_GETATTR);
    cr_assert(found->dangerous);
    cr_assert_str_eq(found->reason, "runs commands");
    cr_assert_eq(found->category, PKSCAN_CAT_OTHER);
    cr_assert(mid != NULL && mid->category == PKSCAN_CAT_OTHER);
    cr_assert(top != NULL);
    cr_assert(pkscan_strict_violation(r));
    pkscan_free(r);
}

/* The premise, checked against CPython: find_class does walk the path
 * out of the module (nothing is called: the result is only compared). */
Test(scan_paths_py, cpython_resolves_the_path_to_another_module)
{
    cpk_py("import pickle, os, sys\n"
           "p = b'\\x80\\x04\\x8c\\x0bdataclasses\\x8c\\x11inspect.os.system"
           "\\x93.'\n"
           "assert pickle.loads(p) is os.system\n"
           "p = b'\\x80\\x04\\x8c\\x06typing\\x8c\\x0bsys.modules\\x93.'\n"
           "assert pickle.loads(p) is sys.modules\n"
           "p = b'\\x80\\x04\\x8c\\x0bcollections\\x8c\\x0c_sys.modules"
           "\\x93.'\n"
           "assert pickle.loads(p) is sys.modules\n");
}

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(scan_paths_cli, .init = setup);

/* STACK_GLOBAL('dataclasses', 'inspect.os.system')('touch MARK') */
static const char evil[] =
    "\x80\x04\x8c\x0b" "dataclasses\x8c\x11inspect.os.system\x93"
    "\x8c\x0atouch MARK\x85R.";

Test(scan_paths_cli, strict_refuses_a_path_out_of_a_plain_module)
{
    char path[256], marker[256];
    snprintf(path, sizeof path, "%s/path.pkl", dir);
    snprintf(marker, sizeof marker, "%s/MARK", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL);
    cr_assert(fwrite(evil, 1, sizeof evil - 1, f) == sizeof evil - 1);
    cr_assert(fclose(f) == 0);

    cpk_proc p;
    const char *strict[] = {CPK_LOAD, "--strict", path, NULL};
    cpk_spawn(&p, strict, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 3);
    char expected[400];
    /* the STACK_GLOBAL is at byte 34 */
    snprintf(expected, sizeof expected,
             "cloudpickle-load: %s: refused import "
             "dataclasses.inspect.os.system (runs commands) at byte 34\n",
             path);
    cr_assert_str_eq(p.err, expected);
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
    struct stat st;
    cr_assert(stat(marker, &st) != 0, "--strict ran it");

    /* the report flags it */
    const char *report[] = {CPK_LOAD, path, NULL};
    cpk_spawn(&p, report, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "runs commands") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    cr_assert(stat(marker, &st) != 0, "the report ran it");

    /* and it is no false alarm: loading it does run the command */
    const char *load[] = {CPK_LOAD, "--load", path, NULL};
    cpk_spawn(&p, load, dir, NULL, 0, NULL);
    cpk_proc_free(&p);
    cr_assert(stat(marker, &st) == 0, "--load did not run os.system");
}
