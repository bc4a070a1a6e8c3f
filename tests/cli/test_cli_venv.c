/* test_cli_venv.c - a VIRTUAL_ENV that cannot be honoured (its directory
 * is gone, or it was made with another Python version): cloudpickle-load
 * goes on without it, with one warning line, and names it when a missing
 * module may have been there; cloudpickle-dump refuses, naming the fix
 * ('deactivate'). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

static void
remove_dir(void)
{
    const char *argv[] = {"/bin/rm", "-rf", dir, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", NULL, 0, NULL);
    cpk_proc_free(&p);
}

TestSuite(cli_venv, .init = setup, .fini = remove_dir);

static const char plain[] = "\x80\x04K\x07.";
static const char needs_module[] = "\x80\x04\x8c\x0bnot_here_xy\x94\x8c\x01"
                                   "f\x94\x93\x94.";

static void
with_venv(cpk_proc *p, const char *venv, const char *const *argv,
          const char *in, size_t len)
{
    char var[256];
    snprintf(var, sizeof(var), "VIRTUAL_ENV=%s", venv);
    const char *env[] = {var, NULL};
    cpk_spawn(p, argv, dir, in, len, env);
}

/* The three behaviours for a VIRTUAL_ENV whose problem is `why`. */
static void
check(const char *venv, const char *why)
{
    cpk_proc p;
    const char *load[] = {CPK_LOAD, "--load", NULL};
    with_venv(&p, venv, load, plain, sizeof(plain) - 1);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "value      7\n") != NULL, "%s", p.out);
    char expected[600];
    snprintf(expected, sizeof(expected),
             "cloudpickle-load: warning: ignored VIRTUAL_ENV=%s, which %s; "
             "run 'deactivate'\n",
             venv, why);
    cr_assert_str_eq(p.err, expected);
    cpk_proc_free(&p);

    with_venv(&p, venv, load, needs_module, sizeof(needs_module) - 1);
    cpk_assert_exit(&p, 4);
    snprintf(expected, sizeof(expected),
             "cloudpickle-load: standard input: cannot load, a module is "
             "missing: ModuleNotFoundError: No module named 'not_here_xy' "
             "(ignored VIRTUAL_ENV=%s, which %s; run 'deactivate')\n",
             venv, why);
    cr_assert_str_eq(p.err, expected);
    cpk_proc_free(&p);

    const char *dump[] = {CPK_DUMP, "os:getcwd", NULL};
    with_venv(&p, venv, dump, NULL, 0);
    cpk_assert_exit(&p, 5);
    snprintf(expected, sizeof(expected),
             "cloudpickle-dump: VIRTUAL_ENV=%s %s; run 'deactivate'\n", venv,
             why);
    cr_assert_str_eq(p.err, expected);
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cli_venv, stale_virtualenv)
{
    char venv[128];
    snprintf(venv, sizeof(venv), "%s/gone", dir);
    check(venv, "has no bin/python (a stale virtualenv?)");
}

/* A real virtualenv of another Python found on this machine (pyenv's),
 * else a minimal one that says it is. */
Test(cli_venv, virtualenv_of_another_python)
{
    static const char *const others[] = {
        "/root/.pyenv/versions/3.12.1/bin/python3",
        "/root/.pyenv/versions/3.10.13/bin/python3",
        "/root/.pyenv/versions/3.13.0/bin/python3",
    };
    char venv[128], cmd[512];
    snprintf(venv, sizeof(venv), "%s/other", dir);
    const char *python = NULL;
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        char mm[16];
        snprintf(mm, sizeof(mm), "/%d.%d.", PY_MAJOR_VERSION,
                 PY_MINOR_VERSION);
        if (access(others[i], X_OK) == 0 && strstr(others[i], mm) == NULL) {
            python = others[i];
            break;
        }
    }
    char version[16];
    if (python != NULL) {
        snprintf(cmd, sizeof(cmd), "%s -m venv --without-pip %s", python,
                 venv);
        cr_assert(system(cmd) == 0, "%s", cmd);
        /* "/root/.pyenv/versions/3.12.1/..." -> "3.12" */
        const char *v = strstr(python, "versions/") + 9;
        const char *dot = strchr(strchr(v, '.') + 1, '.');
        snprintf(version, sizeof(version), "%.*s", (int)(dot - v), v);
    }
    else {
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/bin && ln -s %s %s/bin/python",
                 venv, CPK_PYTHON, venv);
        cr_assert(system(cmd) == 0);
        snprintf(version, sizeof(version), "3.%d", PY_MINOR_VERSION + 1);
        char cfg[200], text[100];
        snprintf(cfg, sizeof(cfg), "%s/pyvenv.cfg", venv);
        snprintf(text, sizeof(text), "home = /usr/bin\nversion = %s.0\n",
                 version);
        cpk_write_file(cfg, text);
    }
    char why[200];
    snprintf(why, sizeof(why),
             "is a Python %s environment and %%s embeds Python %d.%d",
             version, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    char why_load[200], why_dump[200];
    snprintf(why_load, sizeof(why_load), why, "cloudpickle-load");
    snprintf(why_dump, sizeof(why_dump), why, "cloudpickle-dump");
    /* check() wants one reason; the program name differs: load side. */
    cpk_proc p;
    const char *load[] = {CPK_LOAD, "--load", NULL};
    with_venv(&p, venv, load, plain, sizeof(plain) - 1);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "value      7\n") != NULL, "%s", p.out);
    char expected[600];
    snprintf(expected, sizeof(expected),
             "cloudpickle-load: warning: ignored VIRTUAL_ENV=%s, which %s; "
             "run 'deactivate'\n",
             venv, why_load);
    cr_assert_str_eq(p.err, expected);
    cpk_proc_free(&p);

    const char *call[] = {CPK_LOAD, "--call", "-", NULL};
    with_venv(&p, venv, call, needs_module, sizeof(needs_module) - 1);
    cpk_assert_exit(&p, 4);
    snprintf(expected, sizeof(expected),
             "cloudpickle-load: standard input: cannot load, a module is "
             "missing: ModuleNotFoundError: No module named 'not_here_xy' "
             "(ignored VIRTUAL_ENV=%s, which %s; run 'deactivate')\n",
             venv, why_load);
    cr_assert_str_eq(p.err, expected);
    cpk_proc_free(&p);

    const char *dump[] = {CPK_DUMP, "os:getcwd", NULL};
    with_venv(&p, venv, dump, NULL, 0);
    cpk_assert_exit(&p, 5);
    snprintf(expected, sizeof(expected),
             "cloudpickle-dump: VIRTUAL_ENV=%s %s; run 'deactivate'\n", venv,
             why_dump);
    cr_assert_str_eq(p.err, expected);
    cpk_proc_free(&p);
}

/* An active virtualenv's bin/python is sys.executable, as for that
 * python itself (without one it is the built-for python3.X:
 * test_cli_path.c). */
Test(cli_venv, sys_executable_is_the_virtualenvs_python)
{
    char venv[128], cmd[512], mod[160];
    snprintf(venv, sizeof(venv), "%s/venv", dir);
    snprintf(cmd, sizeof(cmd), CPK_PYTHON " -m venv --without-pip %s", venv);
    cr_assert(system(cmd) == 0, "%s", cmd);
    snprintf(mod, sizeof(mod), "%s/exe_of.py", dir);
    cpk_write_file(mod, "import sys\n"
                        "def f():\n"
                        "    return sys.executable\n");
    const char *dump[] = {CPK_DUMP, "exe_of:f", NULL};
    cpk_proc d;
    with_venv(&d, venv, dump, NULL, 0);
    cpk_assert_exit(&d, 0);
    const char *load[] = {CPK_LOAD, "--call", NULL};
    cpk_proc p;
    with_venv(&p, venv, load, d.out, d.out_len);
    cpk_assert_exit(&p, 0);
    char expected[200];
    snprintf(expected, sizeof(expected), "'%s/bin/python'\n", venv);
    cr_assert_str_eq(p.out, expected);
    cpk_proc_free(&p);
    cpk_proc_free(&d);
}

/* A program copied into a venv's bin/ uses that venv unactivated only when
 * the venv was made from the Python the program was built for: one made
 * from another build of the same version (pyenv's 3.11.7 for Debian's
 * 3.11.2) would supply another standard library, so it is not used. */
Test(cli_venv, own_virtualenv_only_of_the_same_python, .timeout = 120)
{
    char other[128];
    snprintf(other, sizeof(other), "/root/.pyenv/versions/%d.%d.7/bin/python3",
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    if (strcmp(CPK_PYTHON, "/usr/bin/python3") != 0 || access(other, X_OK) != 0)
        cr_skip_test("needs the system Python build and %s", other);
    const char *pythons[] = {CPK_PYTHON, other};
    for (int i = 0; i < 2; i++) {
        char script[2048];
        snprintf(script, sizeof(script),
                 "set -e\n"
                 "rm -rf v%d\n"
                 "'%s' -m venv --without-pip v%d\n"
                 "cp '%s' v%d/bin/\n"
                 "echo 'def f(): return 1' > "
                 "v%d/lib/python%d.%d/site-packages/onlyinvenv.py\n",
                 i, pythons[i], i, CPK_DUMP, i, i, PY_MAJOR_VERSION,
                 PY_MINOR_VERSION);
        const char *sh[] = {"/bin/sh", "-c", script, NULL};
        const char *unset[] = {"VIRTUAL_ENV", "PYTHONPATH", NULL};
        cpk_spawn_opts o = {.argv = sh, .cwd = dir, .unset = unset};
        cpk_proc p;
        cpk_spawn_ex(&p, &o);
        cpk_assert_exit(&p, 0);
        cpk_proc_free(&p);

        char prog[128];
        snprintf(prog, sizeof(prog), "%s/v%d/bin/cloudpickle-dump", dir, i);
        const char *dump[] = {prog, "-o", "/dev/null", "onlyinvenv:f", NULL};
        cpk_spawn_opts d = {.argv = dump, .cwd = "/", .unset = unset};
        cpk_spawn_ex(&p, &d);
        if (i == 0) {
            cpk_assert_exit(&p, 0);
        } else {
            cpk_assert_exit(&p, 4);
            cr_assert(strstr(p.err, "No module named 'onlyinvenv'") != NULL,
                      "%s", p.err);
        }
        cpk_proc_free(&p);
    }
}
