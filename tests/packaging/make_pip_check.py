"""`make install` and pip, one record of the files (tests/packaging/test_packaging.c).

    python3 make_pip_check.py MODE PYTHON BUILD TMP

MODE, each in a venv made from PYTHON in TMP, with files that are not
ccloudpickle's put beside where make installs (bin/, man1/, completions/,
site-packages), which must survive whatever removes ccloudpickle:

    record     make install writes ccloudpickle-VERSION.dist-info: the
               version the module reports, INSTALLER "make", a RECORD of
               exactly the files make wrote (../../../bin/... for the
               programs), with their sha256; pip list and importlib.metadata
               see it; pip uninstall removes all of it, programs, man pages,
               completion, module, .pth and __pycache__ included.
    pip-over   pip install --no-build-isolation . over make install: pip
               removes make's files first (no program is left), one
               dist-info remains, pip's, whose METADATA is the one make
               wrote; pip uninstall then leaves the venv as it was.
    uninstall  make uninstall removes the dist-info too; make install
               replaces a dist-info make wrote for another version (and a
               file only that one listed), and refuses, installing nothing,
               over one pip wrote.
    destdir    DESTDIR and PREFIX: RECORD's paths are those of the final
               place, relative to site-packages, with no DESTDIR in them.
    toml       scripts/distinfo.py's own TOML reader (for Pythons before
               3.11) reads pyproject.toml as tomllib does; under an older
               PYTHON, when given, METADATA comes out the same.

BUILD is a build directory for PYTHON (make install does not rebuild it).
Prints OK last.
"""
import base64
import csv
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(SOURCE, "scripts"))
import distinfo  # noqa: E402  scripts/distinfo.py
import pip_check  # noqa: E402  copy_tree: a tree of our own for pip

PROGS = ("cloudpickle-dump", "cloudpickle-load")
# Not ccloudpickle's, where make install writes: nothing may remove them.
FOREIGN = ("bin/not-ours", "share/man/man1/not-ours.1",
           "share/bash-completion/completions/not-ours")
FOREIGN_SITE = "not_ours.py"


def env():
    drop = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "PYTHONPATH", "VIRTUAL_ENV",
            "CCLOUDPICKLE_BUILD_FALLBACK", "SOURCE_DATE_EPOCH",
            "PYTHONDONTWRITEBYTECODE"}   # companions leave __pycache__
    out = {k: v for k, v in os.environ.items() if k not in drop}
    out.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return out


def run(argv, ok=True, cwd="/"):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env(), cwd=cwd)
    if ok and r.returncode != 0:
        sys.exit("%s failed (%d):\n%s%s" % (" ".join(argv), r.returncode,
                                            r.stdout, r.stderr))
    return r


def make(python, build, *args, ok=True):
    return run(["make", "-s", "-C", SOURCE, "BUILD=" + build,
                "PYTHON=" + python] + list(args), ok=ok)


def files_under(root):
    out = set()
    for d, _, names in os.walk(root):
        out.update(os.path.relpath(os.path.join(d, n), root) for n in names)
    return out


class Venv:
    def __init__(self, base, tmp, pip=True):
        self.root = os.path.join(tmp, "venv")
        run([base, "-m", "venv"] + ([] if pip else ["--without-pip"]) +
            [self.root])
        self.python = os.path.join(self.root, "bin", "python3")
        self.site = self.py("import sysconfig; "
                            "print(sysconfig.get_path('platlib'))").strip()
        self.ext = self.py("import sysconfig; "
                           "print(sysconfig.get_config_var('EXT_SUFFIX'))"
                           ).strip()
        for rel in FOREIGN:
            self.write(os.path.join(self.root, rel))
        self.write(os.path.join(self.site, FOREIGN_SITE))
        if pip:
            self.pip("list")   # whatever pip caches, before the snapshot
        self.before = files_under(self.root)

    @staticmethod
    def write(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("not ccloudpickle's\n")

    def py(self, code):
        return run([self.python, "-c", code]).stdout

    def pip(self, *args):
        return run([self.python, "-m", "pip"] + list(args)).stdout

    def infos(self):
        return sorted(glob.glob(os.path.join(self.site,
                                             "ccloudpickle-*.dist-info")))

    def added(self):
        """Files now in the venv that were not there at first."""
        return files_under(self.root) - self.before

    def assert_as_before(self, after):
        now = files_under(self.root)
        left = sorted(now - self.before)
        assert not left, "left after %s: %s" % (after, left)
        gone = sorted(self.before - now)
        assert not gone, "%s removed files not ccloudpickle's: %s" % (
            after, gone)


def record_rows(info):
    with open(os.path.join(info, "RECORD"), newline="") as f:
        return [r for r in csv.reader(f) if r]


def sha256(path):
    with open(path, "rb") as f:
        data = f.read()
    raw = hashlib.sha256(data).digest()
    return ("sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode(),
            str(len(data)))


def check_record(info, root):
    """RECORD's rows against the files under root (site-packages seen
    through DESTDIR): each exists with its hash and size; RECORD itself
    has none, nor have the .pyc files pip compiles. Returns the listed
    paths, relative to root."""
    rows = record_rows(info)
    site = os.path.dirname(info)
    name = os.path.basename(info)
    listed = set()
    for path, digest, size in rows:
        full = os.path.normpath(os.path.join(site, path))
        assert full.startswith(root + os.sep), (path, root)
        listed.add(os.path.relpath(full, root))
        if path == name + "/RECORD" or (
                "/__pycache__/" in full and digest == ""):
            assert (digest, size) == ("", ""), (path, digest, size)
            continue
        assert re.match(r"sha256=[A-Za-z0-9_-]{43}$", digest), digest
        assert (digest, size) == sha256(full), path
    assert len(listed) == len(rows), "RECORD lists a file twice"
    return listed


def companions():
    return [os.path.basename(p) for p in
            glob.glob(os.path.join(SOURCE, "python", "*.py")) +
            glob.glob(os.path.join(SOURCE, "python", "*.pth"))]


def expected_install(v, info_name):
    """What make install must write into the venv, relative to it."""
    site = os.path.relpath(v.site, v.root)
    out = {"bin/" + p for p in PROGS}
    out |= {"share/man/man1/%s.1" % p for p in PROGS}
    out |= {"share/bash-completion/completions/" + p for p in PROGS}
    out |= {os.path.join(site, rel) for rel in
            ["ccloudpickle" + v.ext, "ccloudpickle.pyi",
             "ccloudpickle-stubs/__init__.pyi", "ccloudpickle-stubs/py.typed"]
            + companions()}
    out |= {os.path.join(site, info_name, f)
            for f in ("METADATA", "INSTALLER", "LICENSE", "RECORD")}
    return out


def record(base, build, tmp):
    v = Venv(base, tmp)
    make(v.python, build, "install")
    ver = distinfo.version()
    info_name = "ccloudpickle-%s.dist-info" % ver
    assert v.infos() == [os.path.join(v.site, info_name)], v.infos()
    info = v.infos()[0]
    with open(os.path.join(info, "INSTALLER")) as f:
        assert f.read() == "make\n"
    with open(os.path.join(info, "METADATA")) as f:
        head = f.read().split("\n\n", 1)[0].splitlines()
    assert head[:3] == ["Metadata-Version: 2.1", "Name: ccloudpickle",
                        "Version: " + ver], head
    # Every file make wrote, and only those, in RECORD.
    added = v.added()
    assert added == expected_install(v, info_name), sorted(added)
    assert check_record(info, v.root) == added, sorted(added)
    rows = [r[0] for r in record_rows(info)]
    for p in PROGS:
        assert "../../../bin/" + p in rows, rows
    out = v.py("import ccloudpickle, importlib.metadata as m\n"
               "print(ccloudpickle.__version__, m.version('ccloudpickle'))\n"
               "import _ccloudpickle_alias, _ccloudpickle_engines\n")
    assert out == "%s %s\n" % (ver, ver), out
    listed = v.pip("list", "--format=freeze")
    assert "ccloudpickle==%s\n" % ver in listed, listed
    shown = v.pip("show", "-f", "ccloudpickle")
    assert "../../../bin/cloudpickle-dump" in shown, shown
    # The import left __pycache__ files of companions: pip removes them.
    assert any(f.startswith(os.path.relpath(v.site, v.root) + "/__pycache__/")
               for f in v.added()), sorted(v.added())
    v.pip("uninstall", "-y", "ccloudpickle")
    v.assert_as_before("pip uninstall")
    r = run([v.python, "-c", "import ccloudpickle"], ok=False)
    assert r.returncode != 0


def pip_over(base, build, tmp):
    v = Venv(base, tmp)
    # pip's build needs setuptools >= 61 here, which venvs of 3.12 on lack
    # and those of pyenv's 3.9 and 3.10 have older: Debian's wheel,
    # offline, before the snapshot
    r = subprocess.run([v.python, "-c", "import setuptools\n"
                        "v = setuptools.__version__.split('.')[0]\n"
                        "assert int(v) >= 61, v"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        wheels = sorted(glob.glob("/usr/share/python-wheels/"
                                  "setuptools-*.whl"))
        assert wheels, "no Debian setuptools wheel for %s's venv" % base
        v.pip("install", wheels[-1])
        v.before = files_under(v.root)
    make(v.python, build, "install")
    ver = distinfo.version()
    with open(os.path.join(v.infos()[0], "METADATA")) as f:
        make_metadata = f.read()
    tree = os.path.join(tmp, "src")
    pip_check.copy_tree(SOURCE, tree)
    out = v.pip("install", "--no-build-isolation", tree)
    assert "Successfully uninstalled ccloudpickle-%s" % ver in out, out
    infos = v.infos()
    assert len(infos) == 1, infos
    with open(os.path.join(infos[0], "INSTALLER")) as f:
        assert f.read().strip() == "pip"
    with open(os.path.join(infos[0], "METADATA")) as f:
        assert f.read() == make_metadata, "pip's METADATA is not make's"
    # What is in the venv now is pip's install and nothing else: no
    # program, man page or completion of make's is left.
    site = os.path.relpath(v.site, v.root)
    pip_files = {f for f in check_record(infos[0], v.root)
                 if "__pycache__" not in f}
    now = {f for f in v.added() if "__pycache__" not in f}
    assert now == pip_files, ("not pip's", sorted(now - pip_files))
    for f in now:
        assert f.startswith(site + "/"), "left by make install: " + f
    out = v.py("import ccloudpickle, importlib.metadata as m\n"
               "assert ccloudpickle.loads(ccloudpickle.dumps(lambda: 7))() == 7\n"
               "print(ccloudpickle.__version__, m.version('ccloudpickle'))\n")
    assert out == "%s %s\n" % (ver, ver), out
    v.pip("uninstall", "-y", "ccloudpickle")
    v.assert_as_before("pip uninstall")


def uninstall(base, build, tmp):
    v = Venv(base, tmp, pip=False)
    make(v.python, build, "install")
    ver = distinfo.version()
    make(v.python, build, "uninstall")
    assert not v.infos(), v.infos()
    v.assert_as_before("make uninstall")
    # A dist-info make wrote for another version: make install replaces
    # it, and removes a file only that one listed.
    old = os.path.join(v.site, "ccloudpickle-0.0.1.dist-info")
    os.makedirs(old)
    stale = os.path.join(v.site, "_ccloudpickle_dropped.py")
    v.write(stale)
    with open(os.path.join(old, "INSTALLER"), "w") as f:
        f.write("make\n")
    with open(os.path.join(old, "RECORD"), "w") as f:
        f.write("_ccloudpickle_dropped.py,,\n../../../bin/cloudpickle-dump,,\n"
                "ccloudpickle-0.0.1.dist-info/INSTALLER,,\n"
                "ccloudpickle-0.0.1.dist-info/RECORD,,\n")
    make(v.python, build, "install")
    assert [os.path.basename(i) for i in v.infos()] == [
        "ccloudpickle-%s.dist-info" % ver], v.infos()
    assert not os.path.exists(stale)
    assert os.access(os.path.join(v.root, "bin", "cloudpickle-dump"), os.X_OK)
    make(v.python, build, "uninstall")
    v.assert_as_before("make uninstall")
    # One pip wrote (INSTALLER pip) is pip's: install refuses, exit 2,
    # before writing anything; so does uninstall.
    pips = os.path.join(v.site, "ccloudpickle-%s.dist-info" % ver)
    os.makedirs(pips)
    with open(os.path.join(pips, "INSTALLER"), "w") as f:
        f.write("pip\n")
    for target in ("install", "uninstall"):
        r = make(v.python, build, target, ok=False)
        assert r.returncode == 2, (target, r.returncode, r.stderr)
        assert ("ccloudpickle in %s was installed by pip: run pip uninstall "
                "ccloudpickle\n" % v.site) in r.stderr, r.stderr
        assert v.added() == {os.path.relpath(pips, v.root) + "/INSTALLER"}, (
            target, sorted(v.added()))


def destdir(base, build, tmp):
    d = os.path.join(tmp, "stage")
    make(base, build, "DESTDIR=" + d, "PREFIX=/opt/cpk", "install")
    sites = glob.glob(d + "/opt/cpk/lib/python*/site-packages")
    assert len(sites) == 1, sites
    infos = glob.glob(sites[0] + "/ccloudpickle-*.dist-info")
    assert len(infos) == 1, infos
    listed = check_record(infos[0], d)
    assert listed == files_under(d), sorted(files_under(d) ^ listed)
    with open(os.path.join(infos[0], "RECORD")) as f:
        text = f.read()
    assert d not in text and "/opt/cpk" not in text, text
    for p in PROGS:
        assert "../../../bin/%s,sha256=" % p in text, text
        assert "../../../share/man/man1/%s.1,sha256=" % p in text, text
    # install-strip changes the programs and the module: RECORD follows.
    make(base, build, "DESTDIR=" + d, "PREFIX=/opt/cpk", "install-strip")
    assert check_record(infos[0], d) == files_under(d)
    make(base, build, "DESTDIR=" + d, "PREFIX=/opt/cpk", "uninstall")
    assert not files_under(d), sorted(files_under(d))


def toml(base, build, tmp):
    import tomllib
    with open(os.path.join(SOURCE, "pyproject.toml")) as f:
        text = f.read()
    assert distinfo.toml_subset(text) == tomllib.loads(text)
    here = distinfo.metadata(distinfo.project(), distinfo.version())
    if base != sys.executable:
        code = ("import sys; sys.path.insert(0, %r)\nimport distinfo\n"
                "sys.stdout.write(distinfo.metadata(distinfo.project(), "
                "distinfo.version()))" % os.path.join(SOURCE, "scripts"))
        r = subprocess.run([base, "-c", code], stdout=subprocess.PIPE,
                           universal_newlines=True, check=True)
        assert r.stdout == here, "METADATA differs under %s" % base
    # Metadata this reader cannot map stops make install, loudly.
    try:
        distinfo.metadata(dict(distinfo.project(), dependencies=["x"]), "1")
    except SystemExit as e:
        assert "dependencies" in str(e), e
    else:
        raise AssertionError("an unmapped [project] key went unnoticed")


if __name__ == "__main__":
    mode, python, build, tmp = sys.argv[1:5]
    {"record": record, "pip-over": pip_over, "uninstall": uninstall,
     "destdir": destdir, "toml": toml}[mode](python, build, tmp)
    print("OK")
