"""Make a virtual environment with the built ccloudpickle installed in it
the way the packaging installs it: the extension module and the companion
modules (python/*.py, copied into BUILD) in site-packages, and
ccloudpickle-alias.pth at its root, so that CCLOUDPICKLE_ALIAS=1 takes
effect at interpreter start-up as it would for a user.

    python3 alias_venv.py BUILD SOURCE VENV [--system-site-packages]

Prints the venv's python. Used by tests/module/test_alias.c and
tests/engines/test_engine_distributed.c.
"""
import glob
import os
import shutil
import subprocess
import sys


def main(argv):
    build, source, venv = argv[1:4]
    system = "--system-site-packages" in argv[4:]
    cmd = [sys.executable, "-m", "venv", "--without-pip"]
    if system:
        cmd.append("--system-site-packages")
    subprocess.run(cmd + [venv], check=True)
    python = os.path.join(venv, "bin", "python3")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('platlib'))"],
        check=True, capture_output=True, text=True).stdout.strip()
    files = glob.glob(os.path.join(build, "ccloudpickle*.so"))
    files += glob.glob(os.path.join(build, "_ccloudpickle_*.py"))
    files.append(os.path.join(source, "python", "ccloudpickle-alias.pth"))
    if len(files) < 3:
        sys.exit("alias_venv: nothing built in %s" % build)
    for f in files:
        shutil.copy(f, site)
    print(python)


if __name__ == "__main__":
    main(sys.argv)
