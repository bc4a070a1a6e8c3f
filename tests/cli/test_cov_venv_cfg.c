/* test_cov_venv_cfg.c - how cloudpickle-dump, copied into a virtualenv's
 * bin/ and run without VIRTUAL_ENV, reads that venv's pyvenv.cfg: lines
 * of other keys, a `home` with no `=` or with an empty value, blanks and
 * tabs around the key and value, and the version_info key, are all read
 * as the venv tool writes them; no pyvenv.cfg, a home that is not the
 * built-for Python's, or another Python version, and the venv is not
 * used. Whether it is used shows in whether a module only the venv has
 * can be dumped. */
#include <libgen.h>
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
    char script[1024];
    snprintf(script, sizeof(script),
             "set -e\n"
             "mkdir -p v/bin v/lib/python%d.%d/site-packages\n"
             "ln -s '%s' v/bin/python\n"
             "cp '%s' v/bin/\n"
             "echo 'def f(): return 7' > "
             "v/lib/python%d.%d/site-packages/onlyinvenv.py\n",
             PY_MAJOR_VERSION, PY_MINOR_VERSION, CPK_PYTHON, CPK_DUMP,
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    const char *sh[] = {"/bin/sh", "-c", script, NULL};
    cpk_proc p;
    cpk_spawn(&p, sh, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cov_venv_cfg, .init = setup, .timeout = 60);

/* Write pyvenv.cfg (NULL: none), run the venv's copy on onlyinvenv:f
 * from / without VIRTUAL_ENV and PYTHONPATH. */
static void
run(cpk_proc *p, const char *cfg)
{
    char path[160];
    snprintf(path, sizeof(path), "%s/v/pyvenv.cfg", dir);
    if (cfg != NULL)
        cpk_write_file(path, cfg);
    char prog[160], out[160];
    snprintf(prog, sizeof(prog), "%s/v/bin/cloudpickle-dump", dir);
    snprintf(out, sizeof(out), "%s/o.pkl", dir);
    const char *argv[] = {prog, "-o", out, "onlyinvenv:f", NULL};
    const char *unset[] = {"VIRTUAL_ENV", "PYTHONPATH", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = "/", .unset = unset};
    cpk_spawn_ex(p, &o);
}

/* The dir of CPK_PYTHON: the home a venv made from it names. */
static void
home_of_python(char *buf, size_t cap)
{
    char copy[256];
    snprintf(copy, sizeof(copy), "%s", CPK_PYTHON);
    snprintf(buf, cap, "%s", dirname(copy));
}

static void
assert_not_used(cpk_proc *p)
{
    cpk_assert_exit(p, 4);
    cr_assert_str_eq(p->err, "cloudpickle-dump: onlyinvenv:f: cannot import "
                             "onlyinvenv: ModuleNotFoundError: No module "
                             "named 'onlyinvenv'\n");
}

Test(cov_venv_cfg, odd_lines_are_read_as_the_venv_tool_writes_them)
{
    char home[256], cfg[512];
    home_of_python(home, sizeof(home));
    snprintf(cfg, sizeof(cfg),
             "include-system-site-packages = false\n"
             "homepage = nowhere\n"
             "home\n"
             "home = \n"
             " home\t=\t%s \t\n"
             "version_info = %d.%d.0.final.0\n",
             home, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    cpk_proc p;
    run(&p, cfg);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
    /* the pickle carries the venv module's function by value */
    char path[160];
    snprintf(path, sizeof(path), "%s/o.pkl", dir);
    const char *argv[] = {CPK_LOAD, "--call", path, NULL};
    cpk_spawn(&p, argv, "/", NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "7\n");
    cpk_proc_free(&p);
}

Test(cov_venv_cfg, home_of_another_python_is_not_used)
{
    char cfg[128];
    snprintf(cfg, sizeof(cfg), "home = /tmp\nversion = %d.%d.1\n",
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    cpk_proc p;
    run(&p, cfg);
    assert_not_used(&p);
    cpk_proc_free(&p);
}

Test(cov_venv_cfg, another_python_version_is_not_used)
{
    char home[256], cfg[512];
    home_of_python(home, sizeof(home));
    snprintf(cfg, sizeof(cfg), "home = %s\nversion = %d.%d.1\n", home,
             PY_MAJOR_VERSION, PY_MINOR_VERSION + 1);
    cpk_proc p;
    run(&p, cfg);
    assert_not_used(&p);
    cpk_proc_free(&p);
}

Test(cov_venv_cfg, no_pyvenv_cfg_is_no_venv)
{
    cpk_proc p;
    run(&p, NULL);
    assert_not_used(&p);
    cpk_proc_free(&p);
}
