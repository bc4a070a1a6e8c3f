"""Build the ccloudpickle extension with setuptools (pyproject.toml).

The same sources and flags as the Makefile's extension: src/*/*.c and
src/module.c with -Isrc -std=c11 -D_GNU_SOURCE -fvisibility=hidden,
linked with OpenSSL's libcrypto (Debian: libssl-dev). The version is CPK_VERSION in src/ccloudpickle.h,
read here, written nowhere else.

Besides the extension, a wheel holds:
  - every python/*.py companion module, top level (py_modules);
  - python/ccloudpickle-alias.pth, if it exists, at the top of
    site-packages (the CCLOUDPICKLE_ALIAS=1 hook);
  - the type stubs: stubs/ccloudpickle.pyi as a stub-only package
    ccloudpickle-stubs/__init__.pyi with py.typed (PEP 561: py.typed
    marks packages, and ccloudpickle is a single extension module), and as
    ccloudpickle.pyi beside the extension (what pyright/IDEs read).

setuptools works in build-pip/, never in build/, which belongs to `make`.
pip runs this file through buildsys/ccloudpickle_build.py (pyproject.toml's
backend), which builds the wheel itself where the `wheel` package is
missing; whatever this file adds to the build must be in build_py's or
build_ext's get_outputs(), which is what that wheel holds.
"""
import glob
import os
import re

from setuptools import Extension, setup
try:
    from setuptools.command.build import build
except ImportError:  # setuptools < 62.4
    from distutils.command.build import build
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
# Paths relative to the source directory, where pip runs setup.py.
BUILD_BASE = "build-pip"


def read_version():
    with open(os.path.join(HERE, "src", "ccloudpickle.h"), encoding="utf-8") as f:
        m = re.search(r'^#define\s+CPK_VERSION\s+"([^"]+)"', f.read(), re.M)
    if m is None:
        raise RuntimeError("CPK_VERSION not found in src/ccloudpickle.h")
    return m.group(1)


class build_py_extras(build_py):
    """build_py that also puts the .pth file(s) of python/ and the stubs
    into the build tree, so that they land in the wheel (and its RECORD,
    which pip uninstall removes)."""

    def _extras(self):
        """(source, path relative to build_lib) pairs."""
        out = [(p, os.path.basename(p))
               for p in sorted(glob.glob(os.path.join("python", "*.pth")))]
        stub = os.path.join("stubs", "ccloudpickle.pyi")
        out.append((stub, "ccloudpickle.pyi"))
        out.append((stub, os.path.join("ccloudpickle-stubs", "__init__.pyi")))
        out.append((os.path.join("stubs", "py.typed"),
                    os.path.join("ccloudpickle-stubs", "py.typed")))
        return out

    def run(self):
        super().run()
        for src, rel in self._extras():
            dst = os.path.join(self.build_lib, rel)
            self.mkpath(os.path.dirname(dst))
            self.copy_file(src, dst, preserve_mode=False)

    def get_outputs(self, include_bytecode=1):
        return super().get_outputs(include_bytecode) + [
            os.path.join(self.build_lib, rel) for _, rel in self._extras()]


class build_always_py(build):
    """build that runs build_py even without companion modules (setuptools
    skips it then), for the stubs and the .pth."""

    sub_commands = [(name, None if name == "build_py" else pred)
                    for name, pred in build.sub_commands]


os.makedirs(os.path.join(HERE, BUILD_BASE), exist_ok=True)

setup(
    version=read_version(),
    ext_modules=[Extension(
        "ccloudpickle",
        sources=sorted(glob.glob(os.path.join("src", "*", "*.c")) +
                       [os.path.join("src", "module.c")]),
        depends=sorted(glob.glob(os.path.join("src", "**", "*.h"),
                                 recursive=True) +
                       glob.glob(os.path.join("src", "*", "*.inc"))),
        # Headers by their path under src/ (Makefile's LAYER_INCLUDES).
        # src/ alone, as the Makefile compiles the library's objects: the
        # Makefile's -Icli is for the programs, which pip does not build
        # (an sdist holds no cli/, MANIFEST.in).
        include_dirs=["src"],
        libraries=["crypto"],
        extra_compile_args=["-std=c11", "-D_GNU_SOURCE", "-fvisibility=hidden",
                            "-Wno-unused-parameter",
                            "-Wno-missing-field-initializers"],
    )],
    package_dir={"": "python"},
    py_modules=sorted(os.path.splitext(os.path.basename(p))[0]
                      for p in glob.glob(os.path.join("python", "*.py"))),
    cmdclass={"build": build_always_py, "build_py": build_py_extras},
    options={
        "build": {"build_base": BUILD_BASE},
        "egg_info": {"egg_base": BUILD_BASE},
    },
    zip_safe=False,
)
