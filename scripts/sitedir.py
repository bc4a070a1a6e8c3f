"""Where `make install` puts things for the interpreter that runs this.

    python scripts/sitedir.py prefix          the default PREFIX
    python scripts/sitedir.py site PREFIX     the module directory under PREFIX
    python scripts/sitedir.py note DIR        a note on stderr if the
                                              interpreter does not search DIR
    python scripts/sitedir.py config          its python3.X-config

The default PREFIX is /usr/local for the system interpreter (sys.prefix
/usr: Debian searches /usr/local/lib/python3.X/dist-packages, its
"posix_local" scheme), and the interpreter's own sys.prefix otherwise (a
pyenv build, a virtualenv), whose site-packages it searches. PREFIX=/usr
with Debian's interpreter is its "deb_system" scheme
(/usr/lib/python3/dist-packages). Any other prefix gets the standard
site-packages layout, which the user adds to PYTHONPATH (note).

A virtualenv has no python3-config of its own: it is its base
interpreter's (sys.base_prefix/bin/python3.X-config).
"""
import os
import sys
import sysconfig


def default_prefix():
    return "/usr/local" if sys.prefix == "/usr" else sys.prefix


def site(prefix):
    schemes = sysconfig.get_scheme_names()
    prefix = os.path.normpath(prefix)
    if prefix == os.path.normpath(sys.prefix) and sys.prefix != "/usr":
        # The interpreter's own place (a venv, pyenv): its default scheme.
        return sysconfig.get_path("platlib")
    if prefix == "/usr/local" and "posix_local" in schemes:
        # posix_local appends "local" to the base itself.
        return sysconfig.get_path("platlib", "posix_local",
                                  vars={"platbase": "/usr", "base": "/usr"})
    if prefix == "/usr" and "deb_system" in schemes:
        return sysconfig.get_path("platlib", "deb_system",
                                  vars={"platbase": "/usr", "base": "/usr"})
    return sysconfig.get_path("platlib", "posix_prefix",
                              vars={"platbase": prefix, "base": prefix})


def searched(directory):
    want = os.path.realpath(directory)
    return any(os.path.realpath(p or ".") == want for p in sys.path)


def config():
    version = "%d.%d" % sys.version_info[:2]
    names = ["python%s-config" % version, "python3-config"]
    dirs = [os.path.dirname(os.path.realpath(sys.executable)),
            os.path.join(sys.base_prefix, "bin"),
            sysconfig.get_config_var("BINDIR") or ""]
    for d in dirs:
        for n in names:
            path = os.path.join(d, n)
            if d and os.access(path, os.X_OK):
                return path
    return os.path.join(sys.base_prefix, "bin", names[0])


def main(argv):
    what = argv[1] if len(argv) > 1 else "site"
    if what == "prefix":
        print(default_prefix())
    elif what == "site":
        print(site(argv[2] if len(argv) > 2 else default_prefix()))
    elif what == "note":
        if not searched(argv[2]):
            sys.stderr.write(
                "note: %s does not search %s; to import ccloudpickle from "
                "there, set PYTHONPATH=%s\n"
                % (sys.executable, argv[2], argv[2]))
    elif what == "config":
        print(config())
    else:
        sys.stderr.write("sitedir.py: unknown request %r\n" % what)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
