"""pip installs of ccloudpickle, checked end to end (tests/test_packaging.c).

    python3 pip_check.py install SOURCE TMP   pip install . into a venv
    python3 pip_check.py wheel SOURCE TMP     pip wheel ., install the wheel

Both work offline on a copy of the source tree in TMP (so that parallel
runs do not share setuptools' build directory), with a fixture companion
module added to its python/ (every python/*.py must ship) and, when the
tree has none yet, a fixture python/ccloudpickle-alias.pth. They check the
installed files, importlib.metadata, that the module imports and works
outside the source tree, that setuptools left make's build/ alone, and that
pip uninstall leaves no file of ours in site-packages. Prints OK last.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import zipfile

SYSTEM_PYTHON = "/usr/bin/python3"
FIXTURE = "_cpk_fixture_companion"


def run(argv, **kw):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, **kw)
    if r.returncode != 0:
        sys.exit("%s failed (%d):\n%s" % (" ".join(argv), r.returncode,
                                          r.stdout))
    return r.stdout


def copy_tree(src, dst):
    os.makedirs(dst)
    for name in ("setup.py", "pyproject.toml", "MANIFEST.in", "LICENSE",
                 "README.md"):
        shutil.copy(os.path.join(src, name), dst)
    for name in ("src", "stubs"):
        shutil.copytree(os.path.join(src, name), os.path.join(dst, name))
    if os.path.isdir(os.path.join(src, "python")):
        shutil.copytree(os.path.join(src, "python"),
                        os.path.join(dst, "python"),
                        ignore=shutil.ignore_patterns("__pycache__"))
    else:
        os.makedirs(os.path.join(dst, "python"))
    with open(os.path.join(dst, "python", FIXTURE + ".py"), "w") as f:
        f.write("VALUE = 42\n")
    pth = os.path.join(dst, "python", "ccloudpickle-alias.pth")
    if not os.path.exists(pth):
        with open(pth, "w") as f:
            f.write("# fixture: the alias hook's place\n")


def version_of(tree):
    with open(os.path.join(tree, "src", "ccloudpickle.h")) as f:
        return re.search(r'#define CPK_VERSION "([^"]+)"', f.read()).group(1)


def expected_files(tree):
    """Paths relative to site-packages that the install must create."""
    files = [os.path.basename(p)
             for p in glob.glob(os.path.join(tree, "python", "*.py"))]
    files += [os.path.basename(p)
              for p in glob.glob(os.path.join(tree, "python", "*.pth"))]
    files += ["ccloudpickle.pyi", "ccloudpickle-stubs/__init__.pyi",
              "ccloudpickle-stubs/py.typed"]
    return files


def ours(tree, name):
    """Whether a site-packages entry (or __pycache__ file) is ours."""
    companions = [os.path.splitext(os.path.basename(p))[0]
                  for p in glob.glob(os.path.join(tree, "python", "*.p*"))]
    return name.startswith("ccloudpickle") or any(
        name.startswith(c) for c in companions)


def check_installed(venv, tree, cwd):
    python = os.path.join(venv, "bin", "python")
    site = run([python, "-c", "import sysconfig; "
                "print(sysconfig.get_path('platlib'))"]).strip()
    ext = run([python, "-c", "import sysconfig; "
               "print(sysconfig.get_config_var('EXT_SUFFIX'))"]).strip()
    for rel in ["ccloudpickle" + ext] + expected_files(tree):
        assert os.path.isfile(os.path.join(site, rel)), (
            "%s not installed in %s: %s" % (rel, site, sorted(os.listdir(site))))
    with open(os.path.join(tree, "stubs", "ccloudpickle.pyi")) as f:
        stub = f.read()
    with open(os.path.join(site, "ccloudpickle-stubs", "__init__.pyi")) as f:
        assert f.read() == stub
    # Imports from there, not from the tree, with no PYTHONPATH.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = run([python, "-c",
               "import ccloudpickle, importlib.metadata as m, %s\n"
               "assert ccloudpickle.loads(ccloudpickle.dumps(lambda: 7))() == 7\n"
               "assert %s.VALUE == 42\n"
               "md = m.metadata('ccloudpickle')\n"
               "print(m.version('ccloudpickle'), ccloudpickle.__version__)\n"
               "print(ccloudpickle.__file__)\n"
               "print(md['License'])\n"
               "print('\\n'.join(md.get_all('Classifier')))\n"
               "print(sorted(f.name for f in m.files('ccloudpickle')"
               " if f.name.startswith('LICENSE')))\n"
               % (FIXTURE, FIXTURE)], cwd=cwd, env=env)
    lines = out.splitlines()
    want = version_of(tree)
    assert lines[0] == "%s %s" % (want, want), out
    assert lines[1] == os.path.join(site, "ccloudpickle" + ext), out
    assert lines[2] == "BSD-3-Clause", out
    assert "License :: OSI Approved :: BSD License" in lines, out
    assert "['LICENSE']" in lines, out
    return python, site


def check_uninstalled(venv, tree, python, site):
    run([os.path.join(venv, "bin", "pip"), "uninstall", "-y", "ccloudpickle"])
    left = [n for n in os.listdir(site) if ours(tree, n)]
    cache = os.path.join(site, "__pycache__")
    if os.path.isdir(cache):
        left += ["__pycache__/" + n for n in os.listdir(cache) if ours(tree, n)]
    assert not left, "left after pip uninstall: %s" % left
    r = subprocess.run([python, "-c", "import ccloudpickle"],
                       stderr=subprocess.PIPE, cwd="/")
    assert r.returncode != 0


def main(mode, source, tmp):
    tree = os.path.join(tmp, "src")
    copy_tree(source, tree)
    venv = os.path.join(tmp, "venv")
    pip_env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    if mode == "install":
        # --system-site-packages: Debian's python3-wheel builds the wheel
        # that pip installs (a venv gets only pip and setuptools).
        run([SYSTEM_PYTHON, "-m", "venv", "--system-site-packages", venv])
        run([os.path.join(venv, "bin", "pip"), "install",
             "--no-build-isolation", tree], env=pip_env)
    else:
        dist = os.path.join(tmp, "dist")
        run([SYSTEM_PYTHON, "-m", "pip", "wheel", "--no-build-isolation",
             "--no-deps", "-w", dist, tree], env=pip_env)
        wheels = glob.glob(os.path.join(dist, "ccloudpickle-*.whl"))
        assert len(wheels) == 1, os.listdir(dist)
        names = zipfile.ZipFile(wheels[0]).namelist()
        for rel in expected_files(tree):
            assert rel in names, "%s not in the wheel: %s" % (rel, names)
        assert not any(n.startswith(("src/", "build")) for n in names), names
        assert os.path.basename(wheels[0]).startswith(
            "ccloudpickle-%s-" % version_of(tree))
        # A plain venv: installing a wheel needs no setuptools nor wheel.
        run([SYSTEM_PYTHON, "-m", "venv", venv])
        run([os.path.join(venv, "bin", "pip"), "install", wheels[0]],
            env=pip_env)
    # setuptools built in build-pip/, never in make's build/.
    assert os.path.isdir(os.path.join(tree, "build-pip")), os.listdir(tree)
    assert not os.path.exists(os.path.join(tree, "build")), os.listdir(tree)
    assert not glob.glob(os.path.join(tree, "python", "*.egg-info"))
    python, site = check_installed(venv, tree, tmp)
    check_uninstalled(venv, tree, python, site)
    print("OK")


if __name__ == "__main__":
    main(*sys.argv[1:4])
