"""Print where `make install` puts the extension module for a given PREFIX.

Debian's interpreter searches /usr/local/lib/python3.X/dist-packages (its
"posix_local" scheme) for PREFIX=/usr/local; any other prefix gets the
standard site-packages layout, which the user adds to PYTHONPATH.
"""
import sys
import sysconfig

prefix = sys.argv[1] if len(sys.argv) > 1 else "/usr/local"
schemes = sysconfig.get_scheme_names()
if prefix == "/usr/local" and "posix_local" in schemes:
    # posix_local appends "local" to the base itself.
    print(sysconfig.get_path("platlib", "posix_local",
                             vars={"platbase": "/usr", "base": "/usr"}))
else:
    print(sysconfig.get_path("platlib", "posix_prefix",
                             vars={"platbase": prefix, "base": prefix}))
