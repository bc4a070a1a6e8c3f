"""`make install` for an interpreter, checked end to end (tests/packaging/test_install.c).

    python3 install_check.py venv PYTHON BUILD TMP
        a venv made from PYTHON in TMP; make install PYTHON=venv/bin/python3
        (no PREFIX): the programs in the venv's bin/, the module where the
        venv's python imports it with no PYTHONPATH, the venv's
        cloudpickle-dump sees a module installed only in the venv; make
        uninstall leaves no file of it.
    python3 install_check.py destdir PYTHON BUILD TMP
        make install PYTHON=PYTHON DESTDIR=TMP/d (default PREFIX): the module
        lands (under DESTDIR) in a directory PYTHON searches, no note; make
        uninstall leaves no file under DESTDIR.
    python3 install_check.py strip PYTHON BUILD TMP
        make install-strip: stripped programs and module, which still work.
    python3 install_check.py note PYTHON BUILD TMP
        PREFIX=TMP/opt (not searched): make prints the PYTHONPATH note.

BUILD is the build directory to use (it must be, or become, a build for
PYTHON: make rebuilds a build directory made for another Python). Prints
OK last.
"""
import glob
import os
import subprocess
import sys

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PROGS = ("cloudpickle-dump", "cloudpickle-load")


def env_without(*names):
    drop = set(names) | {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "PYTHONPATH",
                         "VIRTUAL_ENV"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def run(argv, ok=True, **kw):
    kw.setdefault("env", env_without())
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, **kw)
    if ok and r.returncode != 0:
        sys.exit("%s failed (%d):\n%s%s" % (" ".join(argv), r.returncode,
                                            r.stdout, r.stderr))
    return r


def make(python, build, *args):
    return run(["make", "-s", "-C", SOURCE, "BUILD=" + build,
                "PYTHON=" + python] + list(args))


def files_under(root):
    out = set()
    for d, _, names in os.walk(root):
        out.update(os.path.relpath(os.path.join(d, n), root) for n in names)
    return out


def py(python, code, cwd="/"):
    return run([python, "-c", code], cwd=cwd).stdout


def companions():
    return ([os.path.basename(p) for p in glob.glob(
        os.path.join(SOURCE, "python", "*.py"))] +
            [os.path.basename(p) for p in glob.glob(
                os.path.join(SOURCE, "python", "*.pth"))])


def check_site(site, ext):
    for rel in ["ccloudpickle" + ext, "ccloudpickle.pyi",
                "ccloudpickle-stubs/__init__.pyi",
                "ccloudpickle-stubs/py.typed"] + companions():
        assert os.path.isfile(os.path.join(site, rel)), (
            "%s not in %s: %s" % (rel, site, sorted(os.listdir(site))))


def venv(python, build, tmp):
    v = os.path.join(tmp, "venv")
    run([python, "-m", "venv", "--without-pip", v])
    vpy = os.path.join(v, "bin", "python3")
    site = py(vpy, "import sysconfig; print(sysconfig.get_path('platlib'))"
              ).strip()
    ext = py(vpy, "import sysconfig; "
             "print(sysconfig.get_config_var('EXT_SUFFIX'))").strip()
    before = files_under(v)
    r = make(vpy, build, "install")
    assert "does not search" not in r.stderr, r.stderr
    for prog in PROGS:
        assert os.access(os.path.join(v, "bin", prog), os.X_OK), prog
        assert os.path.isfile(os.path.join(
            v, "share", "bash-completion", "completions", prog)), prog
        assert os.path.isfile(os.path.join(v, "share", "man", "man1",
                                           prog + ".1")), prog
    check_site(site, ext)
    # The venv's python imports it, from the venv, with no PYTHONPATH.
    out = py(vpy, "import ccloudpickle, sys\n"
             "assert ccloudpickle.loads(ccloudpickle.dumps(lambda: 7))() == 7\n"
             "print(ccloudpickle.__file__)\n"
             "print('%d.%d' % sys.version_info[:2])")
    assert out.splitlines()[0] == os.path.join(site, "ccloudpickle" + ext), out
    version = out.splitlines()[1]
    # The venv's program, run by path (not activated), sees a module
    # installed only in the venv; the build's own program does not.
    with open(os.path.join(site, "onlyinvenv.py"), "w") as f:
        f.write("import sys\n"
                "def f():\n    return 'from the venv'\n"
                "def exe():\n    return sys.executable\n")
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    out_pkl = os.path.join(tmp, "f.pkl")
    run([os.path.join(v, "bin", "cloudpickle-dump"), "-o", out_pkl,
         "onlyinvenv:f"], cwd=empty)
    r = run([os.path.join(v, "bin", "cloudpickle-load"), "--call", out_pkl],
            cwd=empty)
    assert r.stdout == "'from the venv'\n", (r.stdout, r.stderr)
    # Its sys.executable is the venv's python, as for an activated venv.
    run([os.path.join(v, "bin", "cloudpickle-dump"), "-o", out_pkl,
         "onlyinvenv:exe"], cwd=empty)
    r = run([os.path.join(v, "bin", "cloudpickle-load"), "--call", out_pkl],
            cwd=empty)
    assert r.stdout == repr(os.path.join(v, "bin", "python")) + "\n", r.stdout
    r = run([os.path.join(build, "cloudpickle-dump"), "-o", out_pkl,
             "onlyinvenv:f"], ok=False, cwd=empty)
    assert r.returncode == 4 and "No module named 'onlyinvenv'" in r.stderr, (
        r.returncode, r.stderr)
    os.remove(os.path.join(site, "onlyinvenv.py"))
    make(vpy, build, "uninstall")
    left = sorted(f for f in files_under(v) - before
                  if "onlyinvenv" not in f)
    assert not left, "left by make uninstall: %s" % left
    print("venv %s: OK" % version)


def destdir(python, build, tmp):
    d = os.path.join(tmp, "d")
    r = make(python, build, "DESTDIR=" + d, "install")
    assert "does not search" not in r.stderr, r.stderr
    sitedir = run(["make", "-s", "-C", SOURCE, "BUILD=" + build,
                   "PYTHON=" + python, "--eval=show:\n\t@echo $(PYSITEDIR) "
                   "$(PREFIX) $(EXT_SUFFIX)", "show"],
                  env=env_without()).stdout.split()
    site, prefix, ext = sitedir
    searched = py(python, "import sys\nprint('\\n'.join(sys.path))").split("\n")
    assert site in searched, (site, searched)
    info = py(python, "import sys\nprint(sys.prefix)").strip()
    assert prefix == ("/usr/local" if info == "/usr" else info), (prefix, info)
    check_site(d + site, ext)
    for prog in PROGS:
        assert os.access(d + prefix + "/bin/" + prog, os.X_OK), prog
        assert os.path.isfile(d + prefix + "/share/bash-completion/"
                              "completions/" + prog), prog
    # What was installed imports from there (the same directory, seen
    # through DESTDIR).
    r = run([python, "-S", "-c", "import sys; sys.path.insert(0, %r)\n"
             "import ccloudpickle\n"
             "print(ccloudpickle.__file__)" % (d + site)], cwd="/")
    assert r.stdout.strip() == d + site + "/ccloudpickle" + ext, r.stdout
    # Python leaves __pycache__ of a companion imported there: uninstall
    # removes it too.
    if companions():
        run([python, "-S", "-c", "import sys; sys.path.insert(0, %r)\n"
             "import %s" % (d + site,
                            os.path.splitext(
                                [c for c in companions()
                                 if c.endswith(".py")][0])[0])], cwd="/")
    make(python, build, "DESTDIR=" + d, "uninstall")
    left = sorted(files_under(d))
    assert not left, "left by make uninstall: %s" % left
    print("destdir %s: OK" % prefix)


def strip(python, build, tmp):
    d = os.path.join(tmp, "d")
    make(python, build, "DESTDIR=" + d, "PREFIX=/opt/cpk", "install-strip")
    site = glob.glob(d + "/opt/cpk/lib/python*/site-packages")[0]
    ext = glob.glob(site + "/ccloudpickle.*.so")[0]
    for f in [ext] + [d + "/opt/cpk/bin/" + p for p in PROGS]:
        sections = run(["readelf", "-S", "-W", f]).stdout
        assert ".symtab" not in sections, f
        built = os.path.join(build, os.path.basename(f))
        assert os.path.getsize(f) < os.path.getsize(built), f
        if f != ext:
            r = run([f, "--version"])
            assert r.stdout.startswith(os.path.basename(f) + " (ccloudpickle)"), (
                r.stdout)
    r = run([python, "-S", "-c", "import sys; sys.path.insert(0, %r)\n"
             "import ccloudpickle\n"
             "assert ccloudpickle.loads(ccloudpickle.dumps(lambda: 7))() == 7"
             % site], cwd="/")
    make(python, build, "DESTDIR=" + d, "PREFIX=/opt/cpk", "uninstall")
    assert not files_under(d), sorted(files_under(d))
    print("strip: OK")


def note(python, build, tmp):
    d = os.path.join(tmp, "opt")
    r = make(python, build, "PREFIX=" + d, "install")
    site = glob.glob(d + "/lib/python*/site-packages")[0]
    assert ("does not search %s; to import ccloudpickle from there, set "
            "PYTHONPATH=%s\n" % (site, site)) in r.stderr, r.stderr
    make(python, build, "PREFIX=" + d, "uninstall")
    assert not files_under(d), sorted(files_under(d))
    print("note: OK")


if __name__ == "__main__":
    mode, python, build, tmp = sys.argv[1:5]
    {"venv": venv, "destdir": destdir, "strip": strip, "note": note}[mode](
        python, build, tmp)
    print("OK")
