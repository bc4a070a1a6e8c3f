/* test_coverage_map.c - cloudpickle-load --map --in pickle on records
 * that pass the static check and then fail to load (a module that is not
 * there: exit 4; the policy's find_class refusing what the check let
 * through: exit 3), in the program and in workers, with and without
 * --keep-going and --error-json; and the fallback line when the called
 * function's exception cannot be described (its str() raises
 * MemoryError), for --call --error-json and for --map. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

/* repr.pkl: builtins.repr by reference. load.pkl: records (1,), one
 * naming a module that does not exist, (3,). policy.pkl: the same, then
 * (os.path,), which --allow os.path lets through the static check but
 * not the load (find_class gives a module object). nostr.pkl: a function
 * raising an exception whose str() raises MemoryError. */
static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char code[2048];
    snprintf(code, sizeof(code),
             "import os, pickle, ccloudpickle as cp\n"
             "os.chdir('%s')\n"
             "open('repr.pkl', 'wb').write(pickle.dumps(repr))\n"
             "ok1, ok3 = pickle.dumps((1,), 2), pickle.dumps((3,), 2)\n"
             "missing = b'\\x80\\x02cno_such_module_h4\\nthing\\n'"
             " b'\\x85q\\x00.'\n"
             "ospath = b'\\x80\\x02cos\\npath\\nq\\x00\\x85q\\x01.'\n"
             "open('load.pkl', 'wb').write(ok1 + missing + ok3)\n"
             "open('policy.pkl', 'wb').write(ok1 + missing + ok3 + ospath)\n"
             "class NoStr(Exception):\n"
             "    def __str__(self):\n"
             "        raise MemoryError('in str')\n"
             "def nostr(x=0):\n"
             "    raise NoStr()\n"
             "NoStr.__module__ = nostr.__module__ = '__main__'\n"
             "open('nostr.pkl', 'wb').write(cp.dumps(nostr))\n",
             dir);
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

static void
teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert(system(cmd) == 0);
}

TestSuite(coverage_map, .init = setup, .fini = teardown, .timeout = 60);

/* cloudpickle-load ARGS... in dir, `in` on standard input. */
static void
load_n(cpk_proc *p, const char *in, const char *const *args)
{
    const char *argv[32] = {CPK_LOAD};
    int i = 1;
    for (; args[i - 1] != NULL; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, in, in ? strlen(in) : 0, NULL);
}

#define LOAD(p, in, ...)                                                      \
    load_n((p), (in), (const char *[]){__VA_ARGS__, NULL})

#define PROG "cloudpickle-load: "
#define MISSING_LINE                                                         \
    PROG "load.pkl: record 2: cannot load: ModuleNotFoundError: No module "  \
         "named 'no_such_module_h4'\n"
#define MISSING_RECORD                                                       \
    "{\"error\":{\"type\":\"InvalidRecord\",\"message\":\"cannot load: "      \
    "ModuleNotFoundError: No module named 'no_such_module_h4'\","            \
    "\"traceback\":\"\",\"record\":2}}\n"

Test(coverage_map, record_that_cannot_load_stops_the_run)
{
    static const char *const jobs[] = {"1", "2"};
    for (int j = 0; j < 2; j++) {
        cpk_proc p;
        LOAD(&p, NULL, "repr.pkl", "--map", "--in", "pickle", "--input",
             "load.pkl", "-j", jobs[j]);
        cpk_assert_exit(&p, 4);
        cr_assert_str_eq(p.out, "\"1\"\n", "-j %s", jobs[j]);
        cr_assert_str_eq(p.err, MISSING_LINE, "-j %s", jobs[j]);
        cpk_proc_free(&p);
    }
}

Test(coverage_map, record_that_cannot_load_is_an_error_record)
{
    static const char *const jobs[] = {"1", "2"};
    for (int j = 0; j < 2; j++) {
        cpk_proc p;
        LOAD(&p, NULL, "repr.pkl", "--map", "--in", "pickle", "--input",
             "load.pkl", "--keep-going", "-j", jobs[j]);
        cpk_assert_exit(&p, 4);
        cr_assert_str_eq(p.out, "\"1\"\n" MISSING_RECORD "\"3\"\n", "-j %s",
                         jobs[j]);
        cr_assert_str_eq(p.err, MISSING_LINE, "-j %s", jobs[j]);
        cpk_proc_free(&p);
    }
}

#define STATIC_MSG                                                           \
    "import no_such_module_h4.thing refused by --allow/--deny at byte 2"
#define LOAD_MSG                                                             \
    "refused by --allow/--deny: import policy refuses find_class('os', "     \
    "'path'): it gives a module object"

/* The check refuses record 2 before loading it; record 4 passes the check
 * and is refused by the load's find_class: both exit 3, both named. */
Test(coverage_map, policy_refusal_at_load_names_its_record)
{
    cpk_proc p;
    LOAD(&p, NULL, "repr.pkl", "--map", "--in", "pickle", "--input",
         "policy.pkl", "--allow", "os.path", "--allow", "builtins.repr",
         "--keep-going", "-j", "2");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out,
                     "\"1\"\n"
                     "{\"error\":{\"type\":\"InvalidRecord\",\"message\":\""
                     STATIC_MSG "\",\"traceback\":\"\",\"record\":2}}\n"
                     "\"3\"\n"
                     "{\"error\":{\"type\":\"InvalidRecord\",\"message\":\""
                     LOAD_MSG "\",\"traceback\":\"\",\"record\":4}}\n");
    cr_assert_str_eq(p.err, PROG "policy.pkl: record 2: " STATIC_MSG "\n"
                            PROG "policy.pkl: record 4: " LOAD_MSG "\n");
    cpk_proc_free(&p);
    /* --error-json: the same refusals as JSON lines on standard error */
    LOAD(&p, NULL, "repr.pkl", "--map", "--in", "pickle", "--input",
         "policy.pkl", "--allow", "os.path", "--allow", "builtins.repr",
         "--keep-going", "--error-json", "--result", "none");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "");
    cr_assert_str_eq(p.err,
                     "{\"type\":\"InvalidRecord\",\"message\":\"" STATIC_MSG
                     "\",\"traceback\":\"\",\"record\":2}\n"
                     "{\"type\":\"InvalidRecord\",\"message\":\"" LOAD_MSG
                     "\",\"traceback\":\"\",\"record\":4}\n");
    cpk_proc_free(&p);
}

/* The policy refusal alone, without --keep-going: the run stops there,
 * after the records before it. */
Test(coverage_map, policy_refusal_at_load_stops_the_run)
{
    cpk_proc mk;
    cpk_python(&mk,
               "import sys, pickle\n"
               "w = sys.stdout.buffer.write\n"
               "w(pickle.dumps((1,), 2))\n"
               "w(b'\\x80\\x02cos\\npath\\nq\\x00\\x85q\\x01.')\n"
               "w(pickle.dumps((3,), 2))\n",
               NULL, 0);
    cpk_assert_exit(&mk, 0);
    cpk_proc p;
    const char *argv[] = {CPK_LOAD, "repr.pkl", "--map", "--in", "pickle",
                          "--allow", "os.path", "--allow", "builtins.repr",
                          NULL};
    cpk_spawn(&p, argv, dir, mk.out, mk.out_len, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "\"1\"\n");
    cr_assert_str_eq(p.err,
                     PROG "standard input: record 2: " LOAD_MSG "\n");
    cpk_proc_free(&p);
    cpk_proc_free(&mk);
}

/* The exception cannot be described (its str() raises MemoryError):
 * --error-json says so in one line, exit 1, nothing on standard output. */
Test(coverage_map, undescribable_exception_with_error_json)
{
    cpk_proc p;
    LOAD(&p, NULL, "nostr.pkl", "--call", "--error-json");
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.out, "");
    cr_assert_str_eq(p.err, PROG "cannot describe the exception: "
                                 "MemoryError: in str\n");
    cpk_proc_free(&p);
    /* without --error-json, Python's own traceback */
    LOAD(&p, NULL, "nostr.pkl", "--call");
    cpk_assert_exit(&p, 1);
    cr_assert(strstr(p.err, "NoStr: <exception str() failed>\n") != NULL,
              "%s", p.err);
    cpk_proc_free(&p);
}

/* In --map, what must propagate (MemoryError) ends the run at that
 * record, --keep-going or not: in the program the record is named; a
 * worker says so and dies, and the program names the record it was
 * running. */
Test(coverage_map, undescribable_exception_ends_a_map)
{
    static const char *const extra[][3] = {
        {"--error-json", NULL},
        {"--keep-going", NULL},
        {"--error-json", "--keep-going", NULL},
    };
    for (int e = 0; e < 3; e++) {
        const char *args[12] = {"nostr.pkl", "--map"};
        int n = 2;
        for (int k = 0; extra[e][k] != NULL; k++)
            args[n++] = extra[e][k];
        args[n] = NULL;
        cpk_proc p;
        load_n(&p, "1\n2\n", args);
        cpk_assert_exit(&p, 1);
        cr_assert_str_eq(p.out, "");
        cr_assert_str_eq(p.err, PROG "standard input: record 1: "
                                     "MemoryError: in str\n",
                         "case %d", e);
        cpk_proc_free(&p);
    }
    cpk_proc p;
    LOAD(&p, "1\n2\n", "nostr.pkl", "--map", "--error-json", "-j", "2");
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.out, "");
    cr_assert(strstr(p.err, ": MemoryError: in str\n") != NULL, "%s", p.err);
    cr_assert(strstr(p.err, "exited with status 1 while running record ") !=
                  NULL,
              "%s", p.err);
    cpk_proc_free(&p);
}
