/* test_cli_site.c - the programs start Python without site.py and do its
 * work in C (cli/site.c): sys.path, sys.prefix, sys._home and the site
 * builtins must come out as the same Python's own `python -I` makes
 * them, in a virtual environment with and without the system's
 * site-packages and outside one, .pth path lines included; the import
 * lines of .pth files run when an import first finds nothing, and what
 * they print goes to standard error. */
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

TestSuite(cli_site, .init = setup, .fini = remove_dir, .timeout = 120);

/* What site.py decides, as one line; the current directory ("/", where
 * cloudpickle-load appends it) left out. */
static const char probe[] =
    "import builtins, sys\n"
    "def state():\n"
    "    b = {n: (type(getattr(builtins, n)).__name__,\n"
    "             repr(vars(getattr(builtins, n))))\n"
    "         for n in ('quit', 'exit', 'copyright', 'credits', 'license',\n"
    "                   'help')}\n"
    "    return repr(([p for p in sys.path if p != '/'], sys.prefix,\n"
    "                 sys.exec_prefix, sys.base_prefix,\n"
    "                 getattr(sys, '_home', '<unset>'), b))\n";

static void
run(const char *script)
{
    const char *sh[] = {"/bin/sh", "-c", script, NULL};
    cpk_proc p;
    cpk_spawn(&p, sh, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* A venv at dir/name; system: include-system-site-packages. Its
 * site-packages gets a .pth of every kind of line. */
static void
make_venv(const char *name, int system)
{
    char script[1024];
    snprintf(script, sizeof(script),
             "set -e\n'%s' -m venv --without-pip %s%s\n"
             "mkdir -p extra rel/inner dotfile\n",
             CPK_PYTHON, system ? "--system-site-packages " : "", name);
    run(script);
    char pth[256], text[512];
    snprintf(pth, sizeof(pth), "%s/%s/lib/python%d.%d/site-packages/a.pth",
             dir, name, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    snprintf(text, sizeof(text),
             "# a comment\n"
             "\n"
             "%s/extra\n"
             "%s/extra/../extra/\n"
             "../../../../rel/inner  \n"
             "%s/missing\n"
             "import sys\n",
             dir, dir, dir);
    cpk_write_file(pth, text);
    /* Read after a.pth: sorted by name. */
    snprintf(pth, sizeof(pth), "%s/%s/lib/python%d.%d/site-packages/b.pth",
             dir, name, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    snprintf(text, sizeof(text), "%s/rel\r\n", dir);
    cpk_write_file(pth, text);
    /* Read first up to 3.12, skipped from 3.13 on. */
    snprintf(pth, sizeof(pth), "%s/%s/lib/python%d.%d/site-packages/.c.pth",
             dir, name, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    snprintf(text, sizeof(text), "%s/dotfile\n", dir);
    cpk_write_file(pth, text);
}

/* The probe's line from `python` -I, and from cloudpickle-load --call
 * (dumped by cloudpickle-dump) with `venv` as VIRTUAL_ENV (NULL: none). */
static void
compare(const char *python, const char *venv)
{
    char path[160];
    snprintf(path, sizeof(path), "%s/siteprobe.py", dir);
    cpk_write_file(path, probe);

    char code[256];
    snprintf(code, sizeof(code),
             "import sys; sys.path.insert(0, '%s'); import siteprobe; "
             "sys.path.pop(0); print(repr(siteprobe.state()))",
             dir);
    const char *py[] = {python, "-I", "-c", code, NULL};
    const char *unset[] = {"VIRTUAL_ENV", "PYTHONPATH", NULL};
    cpk_spawn_opts o = {.argv = py, .cwd = "/", .unset = unset};
    cpk_proc want;
    cpk_spawn_ex(&want, &o);
    cpk_assert_exit(&want, 0);

    char var[200];
    snprintf(var, sizeof(var), "VIRTUAL_ENV=%s", venv ? venv : "");
    const char *env[] = {var, NULL};
    const char *dump[] = {CPK_DUMP, "siteprobe:state", NULL};
    cpk_spawn_opts d = {.argv = dump, .cwd = dir, .env = venv ? env : NULL,
                        .unset = venv ? NULL : unset};
    cpk_proc pickle;
    cpk_spawn_ex(&pickle, &d);
    cpk_assert_exit(&pickle, 0);
    const char *load[] = {CPK_LOAD, "--call", NULL};
    cpk_spawn_opts l = {.argv = load, .cwd = "/", .in = pickle.out,
                        .in_len = pickle.out_len,
                        .env = venv ? env : NULL,
                        .unset = venv ? NULL : unset};
    cpk_proc got;
    cpk_spawn_ex(&got, &l);
    cpk_assert_exit(&got, 0);
    cr_assert_str_eq(got.out, want.out);
    cr_assert_str_eq(got.err, "");
    cpk_proc_free(&got);
    cpk_proc_free(&pickle);
    cpk_proc_free(&want);
}

Test(cli_site, virtualenv_as_site_py_has_it)
{
    make_venv("v", 0);
    char python[160], venv[128];
    snprintf(venv, sizeof(venv), "%s/v", dir);
    snprintf(python, sizeof(python), "%s/bin/python", venv);
    compare(python, venv);
}

Test(cli_site, virtualenv_with_system_site_packages_as_site_py_has_it)
{
    make_venv("s", 1);
    char python[160], venv[128];
    snprintf(venv, sizeof(venv), "%s/s", dir);
    snprintf(python, sizeof(python), "%s/bin/python", venv);
    compare(python, venv);
}

Test(cli_site, system_as_site_py_has_it)
{
    char python[64];
    snprintf(python, sizeof(python), "%s", CPK_PYTHON);
    compare(python, NULL);
}

/* A .pth import line installs a finder (as editable installs do): the
 * module only it finds is found, the line runs only once something is
 * missing, and what it prints is standard error's. */
Test(cli_site, pth_import_lines_run_when_a_module_is_missing)
{
    make_venv("h", 0);
    char site[160], path[256], text[512];
    snprintf(site, sizeof(site), "%s/h/lib/python%d.%d/site-packages", dir,
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    snprintf(path, sizeof(path), "%s/hookmod.py", site);
    snprintf(text, sizeof(text),
             "import importlib.util, sys\n"
             "class Finder:\n"
             "    @classmethod\n"
             "    def find_spec(cls, name, path=None, target=None):\n"
             "        if name == 'onlyviahook':\n"
             "            return importlib.util.spec_from_file_location(\n"
             "                name, '%s/hidden/onlyviahook.py')\n"
             "def install():\n"
             "    print('hook installed')\n"
             "    sys.meta_path.append(Finder)\n"
             "    sys.path.append('/added-by-the-hook')\n",
             dir);
    cpk_write_file(path, text);
    snprintf(path, sizeof(path), "%s/hook.pth", site);
    cpk_write_file(path, "import hookmod; hookmod.install()\n");
    run("mkdir hidden");
    snprintf(path, sizeof(path), "%s/hidden/onlyviahook.py", dir);
    cpk_write_file(path, "def f():\n    return 'found by the hook'\n");
    snprintf(path, sizeof(path), "%s/plain.py", dir);
    cpk_write_file(path, "def f():\n    return 'plain'\n"
                         "def g():\n"
                         "    import sys, onlyviahook\n"
                         "    return onlyviahook.f(), sys.path[-2:]\n");

    char var[200];
    snprintf(var, sizeof(var), "VIRTUAL_ENV=%s/h", dir);
    const char *env[] = {var, NULL};
    cpk_proc p, q;

    /* Nothing missing: the line does not run. */
    const char *plain[] = {CPK_DUMP, "plain:f", NULL};
    cpk_spawn(&p, plain, dir, NULL, 0, env);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);

    /* A module only the hook finds. */
    const char *hooked[] = {CPK_DUMP, "onlyviahook:f", NULL};
    cpk_spawn(&p, hooked, dir, NULL, 0, env);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.err, "hook installed\n") != NULL, "%s", p.err);
    const char *call[] = {CPK_LOAD, "--call", NULL};
    cpk_spawn(&q, call, "/", p.out, p.out_len, env);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "'found by the hook'\n");
    cpk_proc_free(&q);
    cpk_proc_free(&p);

    /* Missing while the called function runs, standard output restored:
     * the line's print still goes to standard error; what it adds to
     * sys.path goes before the current directory, which stays last. */
    const char *g[] = {CPK_DUMP, "plain:g", NULL};
    cpk_spawn(&p, g, dir, NULL, 0, env);
    cpk_assert_exit(&p, 0);
    cpk_spawn(&q, call, "/", p.out, p.out_len, env);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out,
                     "('found by the hook', ['/added-by-the-hook', '/'])\n");
    cr_assert(strstr(q.err, "hook installed\n") != NULL, "%s", q.err);
    cpk_proc_free(&q);
    cpk_proc_free(&p);

    /* Still missing after the lines ran: the usual error. */
    const char *none[] = {CPK_DUMP, "nosuchmodule:f", NULL};
    cpk_spawn(&p, none, dir, NULL, 0, env);
    cpk_assert_exit(&p, 4);
    cr_assert(strstr(p.err, "cloudpickle-dump: nosuchmodule:f: cannot import "
                            "nosuchmodule: ModuleNotFoundError: No module "
                            "named 'nosuchmodule'\n") != NULL,
              "%s", p.err);
    cpk_proc_free(&p);
}

/* The deferred lines and sitecustomize see sys.path as site.py had it:
 * a module a stale .pth imports, or a sitecustomize, is never taken from
 * the current directory (nor from -P directories or PYTHONPATH). */
Test(cli_site, deferred_lines_never_import_from_the_current_directory)
{
    make_venv("t", 0);
    char path[256], text[256];
    snprintf(path, sizeof(path), "%s/t/lib/python%d.%d/site-packages/"
             "stale.pth", dir, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    cpk_write_file(path, "import stalemod\n");
    const char *planted[] = {"stalemod", "sitecustomize"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/%s.py", dir, planted[i]);
        snprintf(text, sizeof(text), "open('%s/ran-%s', 'w').close()\n", dir,
                 planted[i]);
        cpk_write_file(path, text);
    }
    snprintf(path, sizeof(path), "%s/miss.py", dir);
    cpk_write_file(path, "def f():\n"
                         "    try:\n"
                         "        import not_installed_anywhere\n"
                         "    except ImportError:\n"
                         "        return 'missing'\n");
    char var[200];
    snprintf(var, sizeof(var), "VIRTUAL_ENV=%s/t", dir);
    const char *env[] = {var, NULL};
    const char *dump[] = {CPK_DUMP, "-P", dir, "miss:f", NULL};
    cpk_proc p, q;
    cpk_spawn(&p, dump, dir, NULL, 0, env);
    cpk_assert_exit(&p, 0);
    const char *call[] = {CPK_LOAD, "-P", dir, "--call", NULL};
    cpk_spawn(&q, call, dir, p.out, p.out_len, env);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "'missing'\n");
    /* site.py's own report of the stale line */
    cr_assert(strstr(q.err, "stale.pth") != NULL, "%s", q.err);
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/ran-%s", dir, planted[i]);
        cr_assert(access(path, F_OK) != 0, "%s.py ran", planted[i]);
    }
    cpk_proc_free(&q);
    cpk_proc_free(&p);
}
