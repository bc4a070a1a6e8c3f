"""ccloudpickle's PEP 517 build backend: setuptools, with or without `wheel`.

pyproject.toml names this module (build-backend = "ccloudpickle_build",
backend-path = ["buildsys"]). It is setuptools.build_meta, re-exported,
except where setuptools cannot build a wheel by itself: setuptools before
70.1 has no bdist_wheel command and takes it from the separate `wheel`
package, which Debian's `python3 -m venv` does not put in a venv (it gets
pip and setuptools only). Then, and only then, this module builds the wheel
itself:

  - setuptools builds (the `build` command of setup.py's Distribution:
    build_py and build_ext, in build-pip/ as set in setup.py) and egg_info
    gives top_level.txt;
  - METADATA is setuptools' own metadata writer's output
    (Distribution.metadata.write_pkg_file, what bdist_wheel converts too);
  - WHEEL says Wheel-Version 1.0, Root-Is-Purelib false and the tag
    bdist_wheel gives a CPython extension: cpXY-<abi>-<platform>, the ABI
    from SOABI (cp311, cp313t for a free-threaded build), the platform from
    sysconfig.get_platform() (linux_x86_64);
  - the licence files go into the .dist-info, RECORD lists every file with
    its sha256 (urlsafe base64, no padding) and size;
  - the zip is deterministic: sorted entries, one timestamp
    (SOURCE_DATE_EPOCH, or 1980-01-01), modes 0644 or 0755.

prepare_metadata_for_build_wheel writes the same .dist-info without
building. get_requires_for_build_wheel does not ask for `wheel` then.
Editable installs (build_editable) are refused with a message in that case
(and are not supported with `wheel` either: use make and PYTHONPATH=build).

Importing this module fails with a message naming the fix when the
environment has no setuptools (Python 3.12+ venvs) or one older than 61
(which ignores pyproject.toml's [project]: Python 3.9's venv has 58.1).
config_settings are passed to setuptools when it builds the wheel, and
ignored by this module's own wheel.

The result is compared with bdist_wheel's wheel (same files, same METADATA,
same WHEEL but Generator) by tests/packaging/pip_check.py.
"""
import base64
import csv
import hashlib
import io
import os
import re
import stat
import sys
import sysconfig
import time
import zipfile

NEEDS = "ccloudpickle builds with setuptools >= 61"
HOWTO = ("install setuptools >= 61 into it first (offline on Debian: "
         "pip install /usr/share/python-wheels/setuptools-*.whl), or let pip "
         "fetch it (drop --no-build-isolation); see doc/INSTALL.md")
try:
    import setuptools
except ImportError as e:
    # Python 3.12's venv has no setuptools (ensurepip stopped adding it):
    # with --no-build-isolation pip uses what the environment has.
    raise ImportError("%s, which %s lacks: %s"
                      % (NEEDS, sys.executable, HOWTO)) from e
if tuple(int(x) for x in re.findall(r"\d+", setuptools.__version__)[:1]) < (61,):
    # Before 61 setuptools ignores pyproject.toml's [project] and would
    # build a package named UNKNOWN (Python 3.9's venv has 58.1).
    raise ImportError("%s, and %s has setuptools %s, which ignores "
                      "pyproject.toml's [project]: %s"
                      % (NEEDS, sys.executable, setuptools.__version__, HOWTO))

from setuptools import build_meta as _meta
# Every hook setuptools has (build_sdist, get_requires_for_build_sdist,
# prepare_metadata_for_build_editable on newer setuptools, ...).
from setuptools.build_meta import *  # noqa: F401,F403
from setuptools.build_meta import __all__ as _meta_all

__all__ = list(_meta_all)


def _have_bdist_wheel():
    """Whether setuptools can make a wheel: its own bdist_wheel (setuptools
    >= 70.1) or the `wheel` package's."""
    try:
        import setuptools.command.bdist_wheel  # noqa: F401
        return True
    except ImportError:
        pass
    try:
        import wheel.bdist_wheel  # noqa: F401
        return True
    except ImportError:
        return False


# The environment variable forces the fallback even where wheel is
# importable: the tests compare its wheel with bdist_wheel's.
FALLBACK = (os.environ.get("CCLOUDPICKLE_BUILD_FALLBACK") == "1"
            or not _have_bdist_wheel())

GENERATOR = "ccloudpickle_build"


def _requirement_name(req):
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
    return re.sub(r"[-_.]+", "-", m.group(1)).lower() if m else ""


def get_requires_for_build_wheel(config_settings=None):
    reqs = _meta.get_requires_for_build_wheel(config_settings)
    if FALLBACK:
        reqs = [r for r in reqs if _requirement_name(r) != "wheel"]
    return reqs


def _distribution():
    """setup.py's Distribution, configured (pyproject.toml read) but with no
    command run. The hooks run in the source directory."""
    import setuptools  # noqa: F401  (before distutils: setuptools' own)
    from distutils.core import run_setup
    saved = sys.argv[:]
    try:
        return run_setup("setup.py", script_args=[], stop_after="config")
    finally:
        sys.argv[:] = saved


def wheel_tag():
    """cpXY-<abi>-<platform>, as bdist_wheel names a CPython extension."""
    if sys.implementation.name != "cpython":
        raise RuntimeError("ccloudpickle is a CPython extension")
    python = "cp%d%d" % sys.version_info[:2]
    soabi = sysconfig.get_config_var("SOABI") or ""
    parts = soabi.split("-")
    if len(parts) >= 2 and parts[0] == "cpython":
        abi = "cp" + parts[1]
    else:
        abi = python
    plat = re.sub(r"[^A-Za-z0-9_]", "_", sysconfig.get_platform())
    return "%s-%s-%s" % (python, abi, plat)


def _safe(name):
    return re.sub(r"[^A-Za-z0-9.]+", "_", name)


def _dist_info_name(dist):
    return "%s-%s.dist-info" % (_safe(dist.get_name()),
                                _safe(dist.get_version()))


def _metadata_files(dist):
    """{name in .dist-info: bytes}: METADATA, WHEEL, top_level.txt and the
    licence files (by base name, as bdist_wheel puts them)."""
    out = {}
    # egg_info first: it may finalize the version (tag_build) as it does
    # for bdist_wheel.
    dist.run_command("egg_info")
    egg_info = dist.get_command_obj("egg_info").egg_info
    buf = io.StringIO()
    dist.metadata.write_pkg_file(buf)
    out["METADATA"] = buf.getvalue().encode("utf-8")
    out["WHEEL"] = ("Wheel-Version: 1.0\n"
                    "Generator: %s (setuptools %s)\n"
                    "Root-Is-Purelib: false\n"
                    "Tag: %s\n\n" % (GENERATOR, setuptools.__version__,
                                     wheel_tag())).encode("ascii")
    with open(os.path.join(egg_info, "top_level.txt"), "rb") as f:
        out["top_level.txt"] = f.read()
    for path in getattr(dist.metadata, "license_files", None) or []:
        with open(path, "rb") as f:
            out[os.path.basename(path)] = f.read()
    return out


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    if not FALLBACK:
        return _meta.prepare_metadata_for_build_wheel(metadata_directory,
                                                      config_settings)
    dist = _distribution()
    name = _dist_info_name(dist)
    target = os.path.join(metadata_directory, name)
    os.makedirs(target, exist_ok=True)
    for rel, data in _metadata_files(dist).items():
        with open(os.path.join(target, rel), "wb") as f:
            f.write(data)
    return name


def _built_files(dist):
    """{archive name: path} of what the build command made for this tree
    (build_py's and build_ext's outputs, not whatever else build-pip/
    holds from earlier builds)."""
    dist.run_command("build")
    files = {}
    for cmd in ("build_py", "build_ext"):
        obj = dist.get_command_obj(cmd)
        if cmd == "build_py":
            outputs = obj.get_outputs(include_bytecode=0)
        else:
            outputs = obj.get_outputs()
        for path in outputs:
            rel = os.path.relpath(path, obj.build_lib).replace(os.sep, "/")
            if rel.startswith("../"):
                raise RuntimeError("%s is outside %s" % (path, obj.build_lib))
            files[rel] = path
    return files


def _record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _zip_time():
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        t = time.gmtime(max(int(epoch), 315532800))  # not before 1980
        return t[:6]
    return (1980, 1, 1, 0, 0, 0)


def _write_wheel(path, entries):
    """entries: [(archive name, bytes, executable)], in order."""
    date = _zip_time()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data, executable in entries:
            info = zipfile.ZipInfo(name, date_time=date)
            mode = 0o755 if executable else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    if not FALLBACK:
        return _meta.build_wheel(wheel_directory, config_settings,
                                 metadata_directory)
    dist = _distribution()
    info = _dist_info_name(dist)
    entries = []
    for rel, path in sorted(_built_files(dist).items()):
        with open(path, "rb") as f:
            data = f.read()
        executable = bool(os.stat(path).st_mode & stat.S_IXUSR)
        entries.append((rel, data, executable))
    if any(rel.startswith(info + "/") for rel, _, _ in entries):
        raise RuntimeError("the build made files in %s" % info)
    for rel, data in sorted(_metadata_files(dist).items()):
        entries.append((info + "/" + rel, data, False))
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for rel, data, _ in entries:
        writer.writerow((rel, _record_hash(data), len(data)))
    writer.writerow((info + "/RECORD", "", ""))
    entries.append((info + "/RECORD", record.getvalue().encode("utf-8"),
                    False))
    name = "%s-%s-%s.whl" % (_safe(dist.get_name()), _safe(dist.get_version()),
                             wheel_tag())
    os.makedirs(wheel_directory, exist_ok=True)
    tmp = os.path.join(wheel_directory, name + ".tmp")
    _write_wheel(tmp, entries)
    os.replace(tmp, os.path.join(wheel_directory, name))
    return name


def _no_editable(*args, **kwargs):
    raise RuntimeError(
        "ccloudpickle: editable installs (pip install -e) are not supported; "
        "build with make and use PYTHONPATH=build (doc/INSTALL.md)")


if FALLBACK:
    # setuptools' editable wheels need bdist_wheel too: refuse clearly
    # rather than fail on "No module named 'wheel'".
    build_editable = _no_editable
    if "get_requires_for_build_editable" in __all__:
        get_requires_for_build_editable = get_requires_for_build_wheel
    if "prepare_metadata_for_build_editable" in __all__:
        prepare_metadata_for_build_editable = _no_editable
    if "build_editable" not in __all__:
        __all__.append("build_editable")
