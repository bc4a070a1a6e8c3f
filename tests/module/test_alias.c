/* test_alias.c - the opt-in `cloudpickle` alias (python/_ccloudpickle_alias.py):
 * ccloudpickle.install_alias() in a process, what the alias modules hold,
 * what it does when stock cloudpickle is already imported, stock's
 * pickles through plain pickle.loads, and CCLOUDPICKLE_ALIAS=1 through
 * the ccloudpickle-alias.pth hook of a real virtual environment (with
 * and without the variable, and in a spawned child). */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define DEBIAN_PACKAGES "/usr/lib/python3/dist-packages"

TestSuite(alias, .init = cpk_py_start, .fini = cpk_py_stop);

/* In this process ----------------------------------------------------------- */

Test(alias, names_resolve_to_ccloudpickle)
{
    cpk_py_file("names_resolve_to_ccloudpickle.py");
}

Test(alias, survives_removal_from_sys_modules)
{
    cpk_py_file("survives_removal_from_sys_modules.py");
}

Test(alias, refuses_when_stock_cloudpickle_is_imported)
{
    cpk_require("cloudpickle");
    cpk_py("import sys, cloudpickle as stock, ccloudpickle\n"
           "assert stock.__version__.startswith('2.')\n");
    cpk_py_raises("ccloudpickle.install_alias()\n", "RuntimeError",
                  "cloudpickle is already imported (version 2.");
    cpk_py_raises("ccloudpickle.install_alias()\n", "RuntimeError",
                  "pass replace=True");
    cpk_py("assert sys.modules['cloudpickle'] is stock\n"
           "assert stock.dumps is not ccloudpickle.dumps\n");
}

Test(alias, replace_takes_over_and_shares_the_registry)
{
    cpk_require("cloudpickle");
    cpk_py_file("replace_takes_over_and_shares_the_registry.py");
}

/* Stock cloudpickle's pickles through plain pickle.loads ------------------- */

/* Pickle `code`'s `obj` with stock cloudpickle found on `path`; checks its
 * major version. Caller frees. */
static char *
stock_dumps(const char *path, const char *major, const char *code,
            size_t *len)
{
    char full[8192];
    snprintf(full, sizeof(full),
             "import sys, cloudpickle\n"
             "assert cloudpickle.__version__.startswith('%s'), "
             "cloudpickle.__version__\n"
             "%s\n"
             "sys.stdout.buffer.write(cloudpickle.dumps(obj))\n",
             major, code);
    cpk_proc p;
    cpk_python_path(&p, path, full, NULL, 0);
    cr_assert(p.exited && p.status == 0, "stock cloudpickle failed:\n%s",
              p.err);
    free(p.err);
    *len = p.out_len;
    return p.out;
}

#define STOCK_CHECKS                                                         \
    "add, Point, p, red, cell, empty, keys = obj[:7]\n"                      \
    "assert add(1) == 12 and isinstance(p, Point) and p.x == 3\n"            \
    "assert red.name == 'RED' and type(red)(1) is red\n"                     \
    "assert cell.cell_contents == 5 and list(keys) == ['a']\n"

/* In a Python where stock cloudpickle is not importable: plain
 * pickle.loads refuses stock's pickle, then loads it with the alias on. */
static void
plain_loads_with_alias(const char *data, size_t len, const char *extra)
{
    char code[8192];
    snprintf(code, sizeof(code),
             "import sys, pickle\n"
             "data = sys.stdin.buffer.read()\n"
             "try:\n"
             "    pickle.loads(data)\n"
             "    raise AssertionError('loaded without the alias')\n"
             "except ImportError as e:\n"
             "    assert 'cloudpickle' in str(e), e\n"
             "import ccloudpickle\n"
             "ccloudpickle.install_alias()\n"
             "obj = pickle.loads(data)\n"
             "assert sys.modules['cloudpickle'].__ccloudpickle_version__\n"
             "%s%s",
             STOCK_CHECKS, extra);
    cpk_proc p;
    cpk_python_path(&p, CPK_BUILD_DIR, code, data, len);
    cr_assert(p.exited && p.status == 0, "loading failed:\n%s", p.err);
    cpk_proc_free(&p);
}

Test(alias, debian_cloudpickle_pickles_load_with_plain_pickle)
{
    cpk_require("cloudpickle");
    size_t len;
    char *data = stock_dumps(DEBIAN_PACKAGES, "2.",
                             cpk_py_text("_stock_objects.py"), &len);
    plain_loads_with_alias(data, len, "");
    free(data);
}

Test(alias, cloudpickle3_pickles_load_with_plain_pickle)
{
    const char *dir = cpk_stock_cloudpickle("CPK_CLOUDPICKLE3");
    size_t len;
    char *data = stock_dumps(
        dir, "3.", cpk_py_text("_stock_objects.py", "dataclass_too.py"), &len);
    plain_loads_with_alias(data, len,
                           "DC = obj[-1]\n"
                           "assert DC().a == 1\n");
    free(data);
}

/* install_alias(compat=...): the alias's dumps, dump and Pickler write
 * what stock cloudpickle loads, in a Python without ccloudpickle; the
 * caller's own compat= still wins; a bad value changes nothing. */
Test(alias, compat_mode_writes_for_stock)
{
    const char *dir = cpk_stock_cloudpickle("CPK_CLOUDPICKLE3");
    cpk_py_file("_import_ccloudpickle_io_sys.py", "_stock_objects.py",
                "compat_mode_writes_for_stock.py");
    size_t len;
    char *data = cpk_py_bytes("data", &len);
    cpk_proc p;
    cpk_python_path(&p, dir,
                    "import sys, cloudpickle\n"
                    "assert not hasattr(cloudpickle, '__ccloudpickle_version__')\n"
                    "obj = cloudpickle.loads(sys.stdin.buffer.read())\n"
                    STOCK_CHECKS,
                    data, len);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    free(data);
}

/* The alias's __version__ is 3.1.2 with a PEP 440 local label naming
 * ccloudpickle: what engines parse it with still reads 3.1.2, and
 * distributed's version-mismatch table names ccloudpickle. */
Test(alias, version_parses_and_names_ccloudpickle)
{
    cpk_py_file("version_parses_and_names_ccloudpickle.py");
}

/* check_workers(client): a stand-in client whose "workers" are fresh
 * interpreters, one with stock cloudpickle 3.1.2 only, one with this
 * build; the probe reaches both (it is builtins.eval and a str). */
#define FAKE_CLIENT                                                          \
    "import ccloudpickle, subprocess, sys, ast, pickle\n"                    \
    "import os\n"                                                            \
    "san = os.environ.get('CPK_SAN_PRELOAD')\n"                              \
    "ENV = {'LD_PRELOAD': san} if san else {}\n"                             \
    "class Client:\n"                                                        \
    "    def __init__(self, paths):\n"                                       \
    "        self.paths = paths\n"                                           \
    "    def run(self, fn, *args):\n"                                        \
    "        fn, args = pickle.loads(pickle.dumps((fn, args)))\n"            \
    "        assert fn is eval\n"                                            \
    "        out = {}\n"                                                     \
    "        for name, path in self.paths.items():\n"                        \
    "            r = subprocess.run([PYTHON, '-S', '-c',\n"                  \
    "                'import sys; print(repr(eval(sys.argv[1])))', *args],\n" \
    "                env=dict(os.environ, PYTHONPATH=path, **ENV),\n"       \
    "                capture_output=True,\n"                                 \
    "                text=True, check=True)\n"                               \
    "            out[name] = ast.literal_eval(r.stdout)\n"                   \
    "        return out\n"

Test(alias, check_workers_names_what_each_lacks)
{
    const char *dir = cpk_stock_cloudpickle("CPK_CLOUDPICKLE3");
    char code[8192];
    snprintf(code, sizeof(code),
             "PYTHON = '" CPK_PYTHON "'\n"
             FAKE_CLIENT
             "client = Client({'stock': '%s', 'ours': '%s'})\n"
             "facts = client.run(eval, __import__('_ccloudpickle_alias')._PROBE)\n"
             "assert facts['stock']['ccloudpickle'] is False, facts\n"
             "assert facts['stock']['cloudpickle'] == '3.1.2', facts\n"
             "assert facts['ours']['ccloudpickle'] == ccloudpickle.__version__\n"
             "assert facts['ours']['format'] == getattr(ccloudpickle, 'FORMAT', None)\n"
             "bad = ccloudpickle.check_workers(client)\n"
             "assert list(bad) == ['stock'], bad\n"
             "assert bad['stock'].startswith('no ccloudpickle (stock cloudpickle "
             "3.1.2): it cannot load'), bad\n"
             "assert 'CCLOUDPICKLE_ALIAS=cloudpickle3' in bad['stock'], bad\n"
             /* In compat mode the stock worker loads what we write. */
             "ccloudpickle.install_alias(compat='cloudpickle3')\n"
             "import cloudpickle\n"
             "assert ccloudpickle.check_workers(client) == {}\n"
             "from _ccloudpickle_alias import _worker_problem as wp\n"
             "assert 'compat=\\'cloudpickle2\\'' in wp({'ccloudpickle': False,\n"
             "    'cloudpickle': '2.2.1'}, '1', 5, 'cloudpickle3')\n"
             "assert wp({'ccloudpickle': False, 'cloudpickle': '2.2.1'}, '1', 5,\n"
             "          'cloudpickle2') is None\n"
             "assert 'neither' in wp({'ccloudpickle': False, 'cloudpickle': False},\n"
             "                       '1', 5, 'cloudpickle2')\n"
             /* Formats, and versions where a side has no number. */
             "m = wp({'ccloudpickle': '0.4.0', 'format': 3}, '0.6.0', 5, None)\n"
             "assert m == ('ccloudpickle 0.4.0 (format 3) cannot load format 5, '\n"
             "    'which ccloudpickle 0.6.0 writes here: upgrade ccloudpickle there, '\n"
             "    'or write with format=3 here'), m\n"
             "assert wp({'ccloudpickle': '0.7.0', 'format': 6}, '0.6.0', 5, None) is None\n"
             "assert 'versions differ' in wp({'ccloudpickle': '0.4.0', 'format': None},\n"
             "                               '0.6.0', 5, None)\n"
             "assert wp({'ccloudpickle': '0.6.0', 'format': None}, '0.6.0', None,\n"
             "          None) is None\n",
             dir, CPK_BUILD_DIR);
    cpk_py(code);
}

Test(alias, distributed_mismatch_warning_names_ccloudpickle)
{
    cpk_require("distributed");
    cpk_py_file("distributed_mismatch_warning_names_ccloudpickle.py");
}

/* Our compat="cloudpickle" pickles name stock's module through
 * __import__: with the alias on, plain pickle.loads finds ours. */
Test(alias, compat_pickles_load_with_plain_pickle)
{
    cpk_py_file("_import_ccloudpickle.py", "_stock_objects.py",
                "compat_pickles_load_with_plain_pickle.py");
    size_t len;
    char *data = cpk_py_bytes("data", &len);
    plain_loads_with_alias(data, len, "");
    free(data);
}

/* CCLOUDPICKLE_ALIAS through the .pth of a virtual environment ------------- */

static char venv_dir[64];
static char venv_python[256];

static int
remove_entry(const char *path, const struct stat *sb, int flag,
             struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Remove the venv made by make_venv, at exit of the test's process,
 * passed or failed; CPK_KEEP_TMP set keeps it for a look. */
static void
drop_venv(void)
{
    if (venv_dir[0] == '\0')
        return;
    const char *keep = getenv("CPK_KEEP_TMP");
    if (keep != NULL && *keep != '\0') {
        fprintf(stderr, "CPK_KEEP_TMP: kept %s\n", venv_dir);
        return;
    }
    nftw(venv_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A venv (with Debian's packages when `system`) where the build is
 * installed as the packaging installs it (tests/engines/alias_venv.py). */
static void
make_venv(int system)
{
    cpk_tmpdir(venv_dir, sizeof(venv_dir));
    atexit(drop_venv);
    char target[128];
    snprintf(target, sizeof(target), "%s/venv", venv_dir);
    const char *argv[] = {CPK_PYTHON,
                          CPK_SOURCE_DIR "/tests/engines/alias_venv.py",
                          CPK_BUILD_DIR,
                          CPK_SOURCE_DIR,
                          target,
                          system ? "--system-site-packages" : NULL,
                          NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    snprintf(venv_python, sizeof(venv_python), "%.*s", (int)strcspn(p.out, "\n"),
             p.out);
    cpk_proc_free(&p);
}

/* Run the venv's python with `args` (script or -c code), the variable set
 * to `value` (NULL: unset); PYTHONPATH is unset, so only the venv's
 * site-packages can provide ccloudpickle. */
static void
venv_run(cpk_proc *p, const char *value, const char *const *args)
{
    const char *argv[8] = {venv_python};
    size_t n = 1;
    for (size_t i = 0; args[i] != NULL && n < 7; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    char var[128];
    snprintf(var, sizeof(var), "CCLOUDPICKLE_ALIAS=%s", value ? value : "");
    const char *env[] = {var, NULL};
    const char *unset_all[] = {"PYTHONPATH", "CCLOUDPICKLE_ALIAS", NULL};
    const char *unset_path[] = {"PYTHONPATH", NULL};
    cpk_spawn_opts o = {
        .argv = argv,
        .cwd = "/",
        .env = value ? env : NULL,
        .unset = value ? unset_path : unset_all,
    };
    cpk_spawn_ex(p, &o);
}

static void
venv_ok(const char *value, const char *code)
{
    const char *args[] = {"-c", code, NULL};
    cpk_proc p;
    venv_run(&p, value, args);
    cr_assert(p.exited && p.status == 0, "CCLOUDPICKLE_ALIAS=%s:\n%s",
              value ? value : "(unset)", p.err);
    cpk_proc_free(&p);
}

Test(alias, pth_unset_costs_nothing)
{
    make_venv(0);
    venv_ok(NULL,
            "import sys, os\n"
            "assert 'CCLOUDPICKLE_ALIAS' not in os.environ\n"
            /* Installed: the hook ran, and imported nothing. */
            "assert any(os.path.exists(os.path.join(p, 'ccloudpickle-alias.pth'))\n"
            "           for p in sys.path)\n"
            "assert '_ccloudpickle_alias' not in sys.modules\n"
            "assert 'ccloudpickle' not in sys.modules\n"
            "assert not any('alias' in repr(f) for f in sys.meta_path)\n"
            "try:\n"
            "    import cloudpickle\n"
            "    raise AssertionError('cloudpickle importable in a bare venv')\n"
            "except ModuleNotFoundError:\n"
            "    pass\n"
            "import ccloudpickle\n");
    /* Off values. */
    venv_ok("0", "import sys\n"
                 "assert '_ccloudpickle_alias' not in sys.modules\n"
                 "assert 'ccloudpickle' not in sys.modules\n"
                 "assert not any('alias' in repr(f) for f in sys.meta_path)\n");
    venv_ok("", "import sys\n"
                "assert '_ccloudpickle_alias' not in sys.modules\n");
}

Test(alias, pth_set_aliases_on_first_import)
{
    make_venv(0);
    venv_ok("1",
            "import sys\n"
            /* The finder is in place; ccloudpickle waits for cloudpickle. */
            "assert '_ccloudpickle_alias' in sys.modules\n"
            "assert 'ccloudpickle' not in sys.modules\n"
            "from cloudpickle.cloudpickle_fast import dumps\n"
            "import cloudpickle, ccloudpickle, pickle\n"
            "assert dumps is ccloudpickle.dumps is cloudpickle.dumps\n"
            "assert cloudpickle.__version__.startswith('3.1.2+ccloudpickle.')\n"
            "assert cloudpickle.__ccloudpickle_compat__ is None\n"
            "assert pickle.loads(cloudpickle.dumps(lambda x: x + 1))(1) == 2\n");
}

/* CCLOUDPICKLE_ALIAS=cloudpickle3 / cloudpickle2: the alias writes what
 * stock cloudpickle loads; the variable's value is the compat= target. */
Test(alias, pth_compat_values)
{
    make_venv(0);
    static const char *const targets[] = {"cloudpickle3", "cloudpickle2",
                                          "2.2", NULL};
    for (int i = 0; targets[i] != NULL; i++) {
        char code[1024];
        snprintf(code, sizeof(code),
                 "import cloudpickle, ccloudpickle, pickle\n"
                 "assert cloudpickle.__ccloudpickle_compat__ == '%s'\n"
                 "data = cloudpickle.dumps(lambda x: x + 1)\n"
                 "assert b'ccloudpickle' not in data, data\n"
                 "assert data == ccloudpickle.dumps(pickle.loads(data), compat='%s')\n"
                 "assert pickle.loads(data)(1) == 2\n",
                 targets[i], targets[i]);
        venv_ok(targets[i], code);
    }
}

Test(alias, pth_wins_over_installed_stock_cloudpickle)
{
    cpk_require("cloudpickle");
    make_venv(1);
    venv_ok("1", "import cloudpickle, ccloudpickle\n"
                 "assert cloudpickle.dumps is ccloudpickle.dumps\n"
                 "assert cloudpickle.__ccloudpickle_version__\n");
    venv_ok(NULL, "import cloudpickle\n"
                  "assert cloudpickle.__version__.startswith('2.')\n"
                  "assert not hasattr(cloudpickle, '__ccloudpickle_version__')\n");
}

/* Worker processes that multiprocessing spawns (a fresh interpreter, as
 * engines start theirs) inherit the variable, so the alias. */
Test(alias, pth_spawned_child_inherits)
{
    make_venv(0);
    char script[128];
    snprintf(script, sizeof(script), "%s/spawn_probe.py", venv_dir);
    cpk_write_file(script,
                   "import multiprocessing as mp, os, sys\n"
                   "def probe(_):\n"
                   "    before = 'ccloudpickle' in sys.modules\n"
                   "    import cloudpickle, ccloudpickle\n"
                   "    f = cloudpickle.loads(cloudpickle.dumps(lambda: 4))\n"
                   "    return (before, cloudpickle.dumps is ccloudpickle.dumps,\n"
                   "            f(), os.getpid())\n"
                   "if __name__ == '__main__':\n"
                   "    want = os.environ.get('CCLOUDPICKLE_ALIAS') == '1'\n"
                   "    with mp.get_context('spawn').Pool(1) as pool:\n"
                   "        before, aliased, four, pid = pool.map(probe, [0])[0]\n"
                   "    assert pid != os.getpid() and four == 4\n"
                   "    assert not before, 'the child imported ccloudpickle early'\n"
                   "    assert aliased == want, (aliased, want)\n"
                   "    print('aliased' if aliased else 'stock')\n");
    const char *args[] = {script, NULL};
    cpk_proc p;
    venv_run(&p, "1", args);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "aliased\n");
    cpk_proc_free(&p);
}
