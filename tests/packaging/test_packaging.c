/* test_packaging.c - pip: `pip install --no-build-isolation .` into a venv
 * (with Debian's `wheel` through --system-site-packages, and into a plain
 * venv without it, where buildsys/ccloudpickle_build.py builds the wheel
 * itself; that wheel equals bdist_wheel's) and `pip wheel
 * --no-build-isolation --no-deps .`, offline, install the
 * extension, every python/ companion, the .pth hook, the stubs and the
 * licence, with importlib.metadata's version taken from CPK_VERSION, and
 * `pip uninstall` leaves nothing (tests/packaging/pip_check.py does the
 * steps). `make install` writes a dist-info whose RECORD pip uninstalls
 * and replaces (tests/packaging/make_pip_check.py). The stubs
 * (stubs/ccloudpickle.pyi) name exactly the module's public names, with
 * its parameters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define PIP_CHECK CPK_SOURCE_DIR "/tests/packaging/pip_check.py"
#define MAKE_PIP_CHECK CPK_SOURCE_DIR "/tests/packaging/make_pip_check.py"
#define STUB CPK_SOURCE_DIR "/stubs/ccloudpickle.pyi"

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

/* Two builds of the extension (~15 s each alone) on a shared machine. */
TestSuite(pip, .init = setup, .fini = remove_dir, .timeout = 400);

/* pip needs Debian's python3-venv, python3-pip, python3-setuptools and
 * python3-wheel (scripts/install-deps check). */
static void
require_pip(void)
{
    const char *argv[] = {"/usr/bin/python3", "-c",
                          "import setuptools, wheel, pip, venv, ensurepip",
                          NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", NULL, 0, NULL);
    int ok = p.exited && p.status == 0;
    cpk_proc_free(&p);
    if (!ok)
        cr_skip_test("/usr/bin/python3 lacks venv, pip, setuptools or wheel "
                     "(scripts/install-deps check installs them)");
}

static void
pip_check_with(const char *mode, const char *base)
{
    require_pip();
    const char *argv[] = {"/usr/bin/python3", PIP_CHECK, mode,
                          CPK_SOURCE_DIR, dir, base, NULL};
    /* No index: offline, whatever pip's configuration says. */
    const char *env[] = {"PIP_NO_INDEX=1", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, env);
    cr_assert(p.exited && p.status == 0, "pip_check %s:\n%s%s", mode, p.out,
              p.err);
    cr_assert(strstr(p.out, "OK\n") != NULL, "%s", p.out);
    cpk_proc_free(&p);
}

static void
pip_check(const char *mode)
{
    pip_check_with(mode, NULL);
}

Test(pip, install_into_venv_and_uninstall)
{
    pip_check("install");
}

Test(pip, wheel_install_and_uninstall)
{
    pip_check("wheel");
}

/* Issue 9: Debian's `python3 -m venv` gives pip and setuptools 66, no
 * `wheel`; setuptools < 70.1 cannot make a wheel without it, so the
 * backend does (and asks for no `wheel`, and refuses `pip install -e`
 * with its own message). */
Test(pip, install_into_plain_venv_without_wheel)
{
    pip_check("plain");
}

/* The backend's own wheel against bdist_wheel's, from one tree: same
 * files, same bytes but WHEEL's Generator, a RECORD that matches, a
 * deterministic zip. */
Test(pip, backend_wheel_equals_bdist_wheel)
{
    pip_check("compare");
}

/* A venv whose setuptools cannot build ccloudpickle: `pip install
 * --no-build-isolation .` is refused with the backend's message naming the
 * fix, and works once Debian's setuptools wheel is installed into the venv
 * (offline). env names a python3 to use instead of the default. */
static void
pyenv_check(const char *env, const char *fallback)
{
    const char *base = getenv(env);
    if (base == NULL || *base == '\0')
        base = fallback;
    if (access(base, X_OK) != 0)
        cr_skip_test("no %s (set %s)", base, env);
    if (access("/usr/share/python-wheels", R_OK) != 0)
        cr_skip_test("no /usr/share/python-wheels (python3-pip-whl)");
    pip_check_with("pyenv", base);
}

/* 3.12+: ensurepip gives a venv no setuptools. */
Test(pip, venv_without_setuptools_is_refused_then_works)
{
    pyenv_check("CPK_PYTHON_NO_SETUPTOOLS",
                "/root/.pyenv/versions/3.12.1/bin/python3");
}

/* 3.9: the venv's setuptools 58.1 ignores pyproject.toml's [project] and
 * built a package named UNKNOWN; now refused. */
Test(pip, venv_with_old_setuptools_is_refused_then_works)
{
    pyenv_check("CPK_PYTHON_OLD_SETUPTOOLS",
                "/root/.pyenv/versions/3.9.18/bin/python3");
}

/* make install and pip (tests/packaging/make_pip_check.py MODE PYTHON BUILD
 * DIR): a venv of the Python this build is for, make install from this
 * build directory (up to date: nothing is rebuilt), pip offline. */
static void
make_pip_check(const char *mode, const char *python)
{
    require_pip();
    const char *argv[] = {"/usr/bin/python3", MAKE_PIP_CHECK, mode, python,
                          CPK_BUILD_DIR, dir, NULL};
    const char *unset[] = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "VIRTUAL_ENV",
                           "PYTHONPATH", NULL};
    const char *env[] = {"PIP_NO_INDEX=1", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .env = env,
                        .unset = unset};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cr_assert(p.exited && p.status == 0, "make_pip_check %s:\n%s%s", mode,
              p.out, p.err);
    cr_assert(strstr(p.out, "OK\n") != NULL, "%s", p.out);
    cpk_proc_free(&p);
}

TestSuite(make_pip, .init = setup, .fini = remove_dir, .timeout = 400);

/* The dist-info (version, INSTALLER, a RECORD of exactly the files make
 * wrote, with their hashes) makes pip list and importlib.metadata see the
 * install, and pip uninstall remove programs, man pages, completion,
 * module and .pth, and nothing else in the venv. */
Test(make_pip, make_install_is_seen_and_removed_by_pip)
{
    make_pip_check("record", CPK_PYTHON);
}

/* pip install . over make install uninstalls make's files first: one
 * install is left, pip's, with the METADATA make wrote. */
Test(make_pip, pip_install_over_make_install_replaces_it)
{
    make_pip_check("pip-over", CPK_PYTHON);
}

/* make uninstall removes the dist-info; make install replaces one of
 * make's of another version and refuses one of pip's. */
Test(make_pip, make_uninstall_removes_the_dist_info)
{
    make_pip_check("uninstall", CPK_PYTHON);
}

/* With DESTDIR, RECORD names the final place; install-strip updates its
 * hashes. */
Test(make_pip, destdir_record_names_the_final_place)
{
    make_pip_check("destdir", CPK_PYTHON);
}

/* scripts/distinfo.py's TOML reader (Pythons without tomllib) against
 * tomllib, and METADATA under pyenv's 3.9 (when installed) as under this
 * Python. */
Test(make_pip, metadata_without_tomllib)
{
    const char *old = "/root/.pyenv/versions/3.9.18/bin/python3";
    make_pip_check("toml", access(old, X_OK) == 0 ? old : "/usr/bin/python3");
}

/* The stub checker: public names of a stub (top-level functions, classes,
 * assignments, `import X as X` re-exports, not starting with "_") against
 * the module's (dir() without "_"); then each function's and class's
 * parameters against inspect.signature where the module has one. */
static const char stub_checker[] =
    "import ast, inspect, ccloudpickle\n"
    "def stub_names(tree):\n"
    "    names = set()\n"
    "    for n in tree.body:\n"
    "        if isinstance(n, (ast.FunctionDef, ast.ClassDef)):\n"
    "            names.add(n.name)\n"
    "        elif isinstance(n, ast.AnnAssign):\n"
    "            names.add(n.target.id)\n"
    "        elif isinstance(n, ast.Assign):\n"
    "            names.update(t.id for t in n.targets)\n"
    "        elif isinstance(n, ast.ImportFrom):\n"
    "            names.update(a.asname for a in n.names\n"
    "                         if a.asname == a.name)\n"
    "    return names\n"
    "def public(names):\n"
    "    return {n for n in names if not n.startswith('_')}\n"
    "def mismatch(tree):\n"
    "    s = public(stub_names(tree))\n"
    "    m = public(dir(ccloudpickle))\n"
    "    return sorted(m - s), sorted(s - m)\n"
    "def params(fn):\n"
    "    a = fn.args\n"
    "    out = [(x.arg, 'POSITIONAL_ONLY') for x in a.posonlyargs]\n"
    "    out += [(x.arg, 'POSITIONAL_OR_KEYWORD') for x in a.args]\n"
    "    if a.vararg: out.append((a.vararg.arg, 'VAR_POSITIONAL'))\n"
    "    out += [(x.arg, 'KEYWORD_ONLY') for x in a.kwonlyargs]\n"
    "    if a.kwarg: out.append((a.kwarg.arg, 'VAR_KEYWORD'))\n"
    "    return out\n"
    "def signature_mismatch(tree):\n"
    "    bad = []\n"
    "    for n in tree.body:\n"
    "        fn, obj = n, getattr(ccloudpickle, getattr(n, 'name', ''), None)\n"
    "        if isinstance(n, ast.ClassDef):\n"
    "            fn = next((b for b in n.body if isinstance(b, ast.FunctionDef)\n"
    "                       and b.name == '__init__'), None)\n"
    "        if not isinstance(fn, ast.FunctionDef) or obj is None:\n"
    "            continue\n"
    /* 3.9 reads no text signature from a heap type's doc: inspect then
     * shows _pickle's base class's, not ours. */
    "        if isinstance(n, ast.ClassDef) and obj.__text_signature__ is None:\n"
    "            continue\n"
    "        try:\n"
    "            sig = inspect.signature(obj)\n"
    "        except (TypeError, ValueError):\n"
    "            continue\n"
    "        got = [(p.name, p.kind.name) for p in sig.parameters.values()]\n"
    "        want = params(fn)\n"
    "        if isinstance(n, ast.ClassDef):\n"
    "            want = want[1:]\n"
    "        if got != want:\n"
    "            bad.append((n.name, got, want))\n"
    "    return bad\n"
    "with open('" STUB "') as f:\n"
    "    SOURCE = f.read()\n"
    "TREE = ast.parse(SOURCE, '" STUB "')\n";

TestSuite(stubs, .init = cpk_py_start, .fini = cpk_py_stop);

Test(stubs, public_names_equal_the_module)
{
    cpk_py(stub_checker);
    cpk_py("missing, extra = mismatch(TREE)\n"
           "assert not missing, 'public names without a stub: %s' % missing\n"
           "assert not extra, 'stubs for names the module lacks: %s' % extra\n"
           "assert '__version__' in stub_names(TREE)\n"
           "assert len(public(stub_names(TREE))) > 20\n");
}

/* The other side: a stub without `wrap`, or with a name the module lacks,
 * is caught. */
Test(stubs, a_missing_or_extra_stub_is_caught)
{
    cpk_py(stub_checker);
    cpk_py("cut = ast.parse(SOURCE)\n"
           "cut.body = [n for n in cut.body if getattr(n, 'name', '') != 'wrap']\n"
           "assert mismatch(cut) == (['wrap'], []), mismatch(cut)\n"
           "more = ast.parse(SOURCE + '\\ndef not_in_module() -> None: ...\\n')\n"
           "assert mismatch(more) == ([], ['not_in_module']), mismatch(more)\n");
}

Test(stubs, parameters_equal_the_module)
{
    cpk_py(stub_checker);
    cpk_py("bad = signature_mismatch(TREE)\n"
           "assert not bad, 'stub parameters differ (name, module, stub): %r'"
           " % bad\n"
           "checked = [n for n in ('dumps', 'dump', 'loads', 'load')\n"
           "           if inspect.signature(getattr(ccloudpickle, n))]\n"
           "assert len(checked) == 4\n"
           "renamed = ast.parse(SOURCE.replace('sign_key: Optional', "
           "'signkey: Optional', 1))\n"
           "assert [b[0] for b in signature_mismatch(renamed)] == ['dumps']\n");
}
