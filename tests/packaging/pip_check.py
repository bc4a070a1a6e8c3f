"""pip installs of ccloudpickle, checked end to end (tests/packaging/test_packaging.c).

    python3 pip_check.py install SOURCE TMP   pip install . into a venv made
                                              with --system-site-packages
                                              (Debian's `wheel` builds)
    python3 pip_check.py plain SOURCE TMP     pip install . into a plain venv
                                              (no `wheel`: the backend builds
                                              the wheel itself)
    python3 pip_check.py wheel SOURCE TMP     pip wheel ., install the wheel
    python3 pip_check.py compare SOURCE TMP   the backend's own wheel against
                                              bdist_wheel's, same tree
    python3 pip_check.py pyenv SOURCE TMP PY  a venv of PY without setuptools
                                              (3.12+) or with one older than
                                              61 (3.9): refused with a
                                              message; with Debian's
                                              setuptools wheel installed into
                                              it: works

The backend (buildsys/ccloudpickle_build.py) delegates to setuptools'
bdist_wheel where it can and builds the wheel itself where it cannot; the
dist-info's WHEEL names which one did (Generator), and each mode asserts
the branch it means to test.

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
    for name in ("src", "stubs", "buildsys"):
        if os.path.isdir(os.path.join(src, name)):
            shutil.copytree(os.path.join(src, name),
                            os.path.join(dst, name))
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
    out = run([os.path.join(venv, "bin", "pip"), "show", "ccloudpickle"])
    assert "\nLicense: BSD-3-Clause\n" in out, out
    run([os.path.join(venv, "bin", "pip"), "uninstall", "-y", "ccloudpickle"])
    left = [n for n in os.listdir(site) if ours(tree, n)]
    cache = os.path.join(site, "__pycache__")
    if os.path.isdir(cache):
        left += ["__pycache__/" + n for n in os.listdir(cache) if ours(tree, n)]
    assert not left, "left after pip uninstall: %s" % left
    r = subprocess.run([python, "-c", "import ccloudpickle"],
                       stderr=subprocess.PIPE, cwd="/")
    assert r.returncode != 0


BDIST_WHEEL = "Generator: bdist_wheel "
OURS = "Generator: ccloudpickle_build "
BACKEND_ERROR = "ccloudpickle builds with setuptools >= 61, "
NO_EDITABLE = "ccloudpickle: editable installs (pip install -e) are not supported"


def installed_generator(site):
    """The Generator line of the installed dist-info's WHEEL."""
    infos = glob.glob(os.path.join(site, "ccloudpickle-*.dist-info", "WHEEL"))
    assert len(infos) == 1, infos
    with open(infos[0]) as f:
        return next(l for l in f.read().splitlines()
                    if l.startswith("Generator: ")) + " "


def has_wheel(python):
    return subprocess.run([python, "-c", "import wheel.bdist_wheel"],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def hook_requires(python, tree):
    """get_requires_for_build_wheel of the backend, run by python."""
    out = run([python, "-c", "import sys; sys.path.insert(0, 'buildsys')\n"
               "import ccloudpickle_build as b\n"
               "print(repr(b.get_requires_for_build_wheel()))"], cwd=tree)
    return eval(out.strip().splitlines()[-1])


def pip_wheel(tree, dist, pip_env, extra_env=None):
    env = dict(pip_env, **(extra_env or {}))
    run([SYSTEM_PYTHON, "-m", "pip", "wheel", "--no-build-isolation",
         "--no-deps", "-w", dist, tree], env=env)
    wheels = glob.glob(os.path.join(dist, "ccloudpickle-*.whl"))
    assert len(wheels) == 1, os.listdir(dist)
    return wheels[0]


def record_of(z, info):
    rows = {}
    for line in z.read(info + "/RECORD").decode().splitlines():
        name, digest, size = line.rsplit(",", 2)
        rows[name] = (digest, size)
    return rows


def check_record(z, info):
    """Every file of the wheel, and only those, in RECORD, with its sha256
    (urlsafe base64, no padding) and size."""
    import base64
    import hashlib
    rows = record_of(z, info)
    assert sorted(rows) == sorted(z.namelist()), (sorted(rows), z.namelist())
    for name in z.namelist():
        if name == info + "/RECORD":
            assert rows[name] == ("", ""), rows[name]
            continue
        data = z.read(name)
        digest = base64.urlsafe_b64encode(
            hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert rows[name] == ("sha256=" + digest, str(len(data))), name


def compare(tree, tmp, pip_env):
    """bdist_wheel's wheel and the backend's, built from one tree (the
    second build reuses build-pip/, so even the extension is the same
    file): same names, same bytes but WHEEL's Generator and RECORD's row
    for WHEEL; the backend's zip is deterministic."""
    ref = zipfile.ZipFile(pip_wheel(tree, os.path.join(tmp, "ref"), pip_env))
    ours_path = pip_wheel(tree, os.path.join(tmp, "ours"), pip_env,
                          {"CCLOUDPICKLE_BUILD_FALLBACK": "1"})
    ours = zipfile.ZipFile(ours_path)
    assert os.path.basename(ref.filename) == os.path.basename(ours_path)
    info = "ccloudpickle-%s.dist-info" % version_of(tree)
    assert sorted(ref.namelist()) == sorted(ours.namelist()), (
        ref.namelist(), ours.namelist())
    for name in ref.namelist():
        if name in (info + "/WHEEL", info + "/RECORD"):
            continue
        assert ref.read(name) == ours.read(name), name
    for z, gen in ((ref, BDIST_WHEEL), (ours, OURS)):
        lines = z.read(info + "/WHEEL").decode().splitlines()
        assert any(l.startswith(gen) for l in lines), lines
    strip = lambda z: [l for l in z.read(info + "/WHEEL").decode().splitlines()
                       if not l.startswith("Generator: ")]
    assert strip(ref) == strip(ours), (strip(ref), strip(ours))
    tag = "-".join(os.path.basename(ours_path)[:-4].split("-")[2:])
    assert "Tag: " + tag in strip(ours), (tag, strip(ours))
    assert "Root-Is-Purelib: false" in strip(ours)
    check_record(ref, info)
    check_record(ours, info)
    a, b = record_of(ref, info), record_of(ours, info)
    del a[info + "/WHEEL"], b[info + "/WHEEL"]
    assert a == b, (a, b)
    # Deterministic: one timestamp, regular files 0644 or 0755 (the
    # extension), sorted, dist-info last, RECORD at the very end.
    ext = [n for n in ours.namelist() if n.endswith(".so")]
    assert len(ext) == 1, ours.namelist()
    for zi in ours.infolist():
        assert zi.date_time == (1980, 1, 1, 0, 0, 0), zi
        mode = zi.external_attr >> 16
        assert mode == (0o100755 if zi.filename in ext else 0o100644), (
            zi.filename, oct(mode))
    names = ours.namelist()
    assert names[-1] == info + "/RECORD", names
    body = [n for n in names if not n.startswith(info + "/")]
    assert body == sorted(body) and names[:len(body)] == body, names
    # A second build gives the same bytes.
    again = pip_wheel(tree, os.path.join(tmp, "again"), pip_env,
                      {"CCLOUDPICKLE_BUILD_FALLBACK": "1"})
    with open(again, "rb") as f1, open(ours_path, "rb") as f2:
        assert f1.read() == f2.read(), "the backend's wheel is not reproducible"
    # SOURCE_DATE_EPOCH sets the timestamp (2023-11-14 22:13:20 UTC).
    dated = pip_wheel(tree, os.path.join(tmp, "dated"), pip_env,
                      {"CCLOUDPICKLE_BUILD_FALLBACK": "1",
                       "SOURCE_DATE_EPOCH": "1700000000"})
    stamps = {zi.date_time for zi in zipfile.ZipFile(dated).infolist()}
    assert stamps == {(2023, 11, 14, 22, 13, 20)}, stamps


def pyenv(tree, tmp, venv, base, pip_env):
    """A venv of base whose setuptools cannot build ccloudpickle (3.12+:
    ensurepip gives none; 3.9: 58.1, which ignores [project] and would
    install a package named UNKNOWN): refused with the backend's message;
    with Debian's setuptools wheel: installed."""
    run([base, "-m", "venv", venv])
    python = os.path.join(venv, "bin", "python")
    # Either no setuptools or one older than 61: what this mode is for.
    r = subprocess.run([python, "-c", "import setuptools\n"
                        "assert int(setuptools.__version__.split('.')[0]) < 61"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    missing = "No module named 'setuptools'" in r.stdout
    assert r.returncode == 0 or missing, (
        "%s's venv has setuptools >= 61: %s" % (base, r.stdout))
    r = subprocess.run([os.path.join(venv, "bin", "pip"), "install",
                        "--no-build-isolation", tree], env=pip_env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    assert r.returncode != 0 and BACKEND_ERROR in r.stdout, r.stdout
    wheels = sorted(glob.glob("/usr/share/python-wheels/setuptools-*.whl"))
    assert wheels, "no Debian setuptools wheel"
    run([os.path.join(venv, "bin", "pip"), "install", wheels[-1]],
        env=pip_env)
    assert not has_wheel(python)
    run([os.path.join(venv, "bin", "pip"), "install",
         "--no-build-isolation", tree], env=pip_env)


def main(mode, source, tmp, base=None):
    tree = os.path.join(tmp, "src")
    copy_tree(source, tree)
    venv = os.path.join(tmp, "venv")
    pip_env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    pip_env.pop("CCLOUDPICKLE_BUILD_FALLBACK", None)
    pip_env.pop("SOURCE_DATE_EPOCH", None)
    generator = BDIST_WHEEL
    if mode == "compare":
        compare(tree, tmp, pip_env)
        print("OK")
        return
    if mode == "install":
        # --system-site-packages: Debian's python3-wheel builds the wheel
        # that pip installs (setuptools' bdist_wheel, the backend
        # delegating).
        run([SYSTEM_PYTHON, "-m", "venv", "--system-site-packages", venv])
        assert has_wheel(os.path.join(venv, "bin", "python"))
        run([os.path.join(venv, "bin", "pip"), "install",
             "--no-build-isolation", tree], env=pip_env)
    elif mode == "plain":
        # A plain venv gets pip and setuptools 66, no wheel: the backend
        # builds the wheel, and does not ask for `wheel`.
        run([SYSTEM_PYTHON, "-m", "venv", venv])
        python = os.path.join(venv, "bin", "python")
        assert not has_wheel(python), "the plain venv has wheel"
        assert "wheel" not in hook_requires(python, tree)
        assert "wheel" in hook_requires(SYSTEM_PYTHON, tree) or has_wheel(
            SYSTEM_PYTHON)
        # --check-build-dependencies: pip checks pyproject.toml's requires
        # (setuptools>=61) against the venv. (It does not check what
        # get_requires_for_build_wheel answers: hook_requires above does.)
        run([os.path.join(venv, "bin", "pip"), "install",
             "--no-build-isolation", "--check-build-dependencies", tree],
            env=pip_env)
        # Editable installs are refused with the backend's message.
        r = subprocess.run([os.path.join(venv, "bin", "pip"), "install",
                            "--no-build-isolation", "-e", tree], env=pip_env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        assert r.returncode != 0 and NO_EDITABLE in r.stdout, r.stdout
        generator = OURS
    elif mode == "pyenv":
        pyenv(tree, tmp, venv, base, pip_env)
        generator = OURS
    else:
        dist = os.path.join(tmp, "dist")
        wheel = pip_wheel(tree, dist, pip_env)
        names = zipfile.ZipFile(wheel).namelist()
        for rel in expected_files(tree):
            assert rel in names, "%s not in the wheel: %s" % (rel, names)
        assert not any(n.startswith(("src/", "build")) for n in names), names
        assert os.path.basename(wheel).startswith(
            "ccloudpickle-%s-" % version_of(tree))
        # The sdist carries the backend (MANIFEST.in): pip builds an
        # sdist with it, from backend-path.
        sd = os.path.join(tmp, "sdist")
        out = run([SYSTEM_PYTHON, "-c", "import sys\n"
                   "sys.path.insert(0, 'buildsys')\n"
                   "import ccloudpickle_build as b\n"
                   "print(b.build_sdist(sys.argv[1]))", sd], cwd=tree)
        import tarfile
        with tarfile.open(os.path.join(sd, out.splitlines()[-1])) as t:
            members = [m.split("/", 1)[1] for m in t.getnames() if "/" in m]
        for rel in ("buildsys/ccloudpickle_build.py", "pyproject.toml",
                    "setup.py", "LICENSE", "stubs/ccloudpickle.pyi"):
            assert rel in members, "%s not in the sdist: %s" % (rel, members)
        # A plain venv: installing a wheel needs no setuptools nor wheel.
        run([SYSTEM_PYTHON, "-m", "venv", venv])
        run([os.path.join(venv, "bin", "pip"), "install", wheel],
            env=pip_env)
    # setuptools built in build-pip/, never in make's build/.
    assert os.path.isdir(os.path.join(tree, "build-pip")), os.listdir(tree)
    assert not os.path.exists(os.path.join(tree, "build")), os.listdir(tree)
    assert not glob.glob(os.path.join(tree, "python", "*.egg-info"))
    python, site = check_installed(venv, tree, tmp)
    assert installed_generator(site).startswith(generator), (
        installed_generator(site), generator)
    check_uninstalled(venv, tree, python, site)
    print("OK")


if __name__ == "__main__":
    main(*sys.argv[1:5])
