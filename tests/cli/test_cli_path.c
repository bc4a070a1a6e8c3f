/* test_cli_path.c - where the programs look for modules. cloudpickle-load
 * never lets a file in the current directory shadow the standard library
 * or an installed package (it searches the current directory last, -P
 * directories first); cloudpickle-dump finds modules as `python -m` does,
 * current directory first. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static char dir[64];

/* A module that, when imported, leaves a marker file in the current
 * directory: proof that it ran. */
static void
trap(const char *name)
{
    char path[128], text[256];
    snprintf(path, sizeof(path), "%s/%s.py", dir, name);
    snprintf(text, sizeof(text),
             "open('ran-%s', 'w').close()\n"
             "def dumps(*a, **k):\n"
             "    return 'shadow'\n",
             name);
    cpk_write_file(path, text);
}

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    trap("typing");
    trap("inspect");
    trap("json");
    trap("enum");
    char path[128];
    snprintf(path, sizeof(path), "%s/localmod.py", dir);
    cpk_write_file(path, "def f():\n    return 'local'\n");
}

TestSuite(cli_path, .init = setup);

static int
ran(const char *name)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/ran-%s", dir, name);
    return access(path, F_OK) == 0;
}

/* cloudpickle-load with args and `in`, in dir. */
static void
load(cpk_proc *p, const char *in, size_t len, const char *const *args)
{
    /* Without --call: --load, the live report (the default is the
     * static one, test_cli_describe.c). */
    const char *argv[16] = {CPK_LOAD};
    int i = 1, call = 0;
    for (int k = 0; args[k] != NULL; k++)
        call |= strcmp(args[k], "--call") == 0;
    if (!call)
        argv[i++] = "--load";
    for (int k = 0; args[k] != NULL; k++)
        argv[i++] = args[k];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, in, len, NULL);
}

Test(cli_path, current_directory_does_not_shadow_the_standard_library)
{
    /* A function whose report reads its signature (inspect), of a pickle
     * naming json.dumps by reference. */
    const char data[] = "\x80\x04\x8c\x04json\x94\x8c\x05" "dumps\x94\x93\x94.";
    cpk_proc p;
    load(&p, data, sizeof(data) - 1, (const char *[]){NULL});
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "module     json\n") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    load(&p, data, sizeof(data) - 1,
         (const char *[]){"--call", "-", "--", "[1]", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "'[1]'\n");
    cpk_proc_free(&p);
    cr_assert(!ran("typing") && !ran("inspect") && !ran("json") &&
                  !ran("enum"),
              "a module of the current directory ran");
}

Test(cli_path, current_directory_is_searched_last)
{
    /* What only the current directory has is still found there. */
    const char data[] = "\x80\x04\x8c\x08localmod\x94\x8c\x01" "f\x94\x93\x94.";
    cpk_proc p;
    load(&p, data, sizeof(data) - 1, (const char *[]){"--call", "-", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "'local'\n");
    cpk_proc_free(&p);
}

Test(cli_path, path_option_comes_first)
{
    /* -P . is a deliberate choice: its json wins. */
    const char data[] = "\x80\x04\x8c\x04json\x94\x8c\x05" "dumps\x94\x93\x94.";
    cpk_proc p;
    load(&p, data, sizeof(data) - 1,
         (const char *[]){"-P", ".", "--call", "-", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "'shadow'\n");
    cr_assert(ran("json"));
    cpk_proc_free(&p);
}

Test(cli_path, dump_searches_the_current_directory_first)
{
    /* python -m semantics, documented: the json of the current directory
     * is the one pickled. */
    const char *argv[] = {CPK_DUMP, "json:dumps", NULL};
    cpk_proc p, q;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(ran("json"));
    const char *argv2[] = {CPK_LOAD, "--call", "-", NULL};
    cpk_spawn(&q, argv2, "/", p.out, p.out_len, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "'shadow'\n");
    cpk_proc_free(&p);
    cpk_proc_free(&q);
}

/* A lib/python3.X/ planted beside the pickle, in the current directory or
 * above it never supplies the standard library: the programs use the one
 * of the Python they were built for, and sys.executable is that Python,
 * one that runs `-c` (subprocess, multiprocessing's spawn), not the
 * program. */
Test(cli_path, standard_library_is_never_taken_from_beside_the_pickle)
{
    char sub[160], stdlib[512], planted[240], exe[64];
    snprintf(sub, sizeof(sub), "%s/x", dir);
    snprintf(exe, sizeof(exe), "%d.%d", PY_MAJOR_VERSION, PY_MINOR_VERSION);
    snprintf(stdlib, sizeof(stdlib), "mkdir -p %s/lib/python%s %s/lib/python%s",
             sub, exe, dir, exe);
    cr_assert(system(stdlib) == 0);
    const char *where[] = {sub, dir};
    for (int i = 0; i < 2; i++) {
        snprintf(planted, sizeof(planted), "%s/lib/python%s/os.py", where[i],
                 exe);
        cpk_write_file(planted, "open('/dev/null')\n"
                                "raise SystemExit('planted os.py ran')\n");
    }
    /* A pickle by value, in x/, of a function that runs sys.executable. */
    cpk_proc d;
    const char *dargv[] = {CPK_DUMP, "-o", "x/f.pkl", "cpk_exe:f", NULL};
    snprintf(planted, sizeof(planted), "%s/cpk_exe.py", dir);
    cpk_write_file(planted, "import os, sys\n"
                            "def f():\n"
                            "    import subprocess\n"
                            "    assert sys.executable != os.readlink('/proc/self/exe')\n"
                            "    return subprocess.run([sys.executable, '-c',"
                            " 'print(6*7)'], capture_output=True).stdout\n");
    cpk_spawn(&d, dargv, dir, NULL, 0, NULL);
    cpk_assert_exit(&d, 0);
    cpk_proc_free(&d);
    const char *files[] = {"x/f.pkl", "-"};
    for (int i = 0; i < 2; i++) {
        size_t len = 0;
        char path[200];
        snprintf(path, sizeof(path), "%s/x/f.pkl", dir);
        char *data = i == 1 ? cpk_read_file(path, &len) : NULL;
        const char *argv[] = {CPK_LOAD, "--call", files[i], NULL};
        cpk_proc p;
        cpk_spawn(&p, argv, i == 1 ? sub : dir, data, len, NULL);
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.out, "b'42\\n'\n", "%s", p.err);
        cr_assert(strstr(p.err, "planted") == NULL, "%s", p.err);
        cpk_proc_free(&p);
        free(data);
    }
}

/* With sys.executable a real Python, multiprocessing's spawn start method
 * works inside --call (it ran this program with -c before). */
Test(cli_path, multiprocessing_spawn_works_in_call, .timeout = 60)
{
    char mod[160];
    snprintf(mod, sizeof(mod), "%s/cpk_mp.py", dir);
    cpk_write_file(mod, "def f():\n"
                        "    import multiprocessing as mp\n"
                        "    with mp.get_context('spawn').Pool(1) as p:\n"
                        "        return p.map(abs, [-1, -2])\n");
    const char *dargv[] = {CPK_DUMP, "cpk_mp:f", NULL};
    cpk_proc d;
    cpk_spawn(&d, dargv, dir, NULL, 0, NULL);
    cpk_assert_exit(&d, 0);
    const char *argv[] = {CPK_LOAD, "--call", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", d.out, d.out_len, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "[1, 2]\n");
    cpk_proc_free(&p);
    cpk_proc_free(&d);
}
