"""The dist-info of `make install`: how pip knows ccloudpickle is there.

    python scripts/distinfo.py check DESTDIR SITE
        exit 2 with a message when SITE (under DESTDIR) holds a
        ccloudpickle dist-info that make did not write: its files are
        pip's to replace or remove (make install and make uninstall ask
        first).
    python scripts/distinfo.py write DESTDIR SITE FILE...
        write SITE/ccloudpickle-VERSION.dist-info under DESTDIR: METADATA,
        INSTALLER ("make"), LICENSE and RECORD. FILE... are the paths make
        installed, as seen after DESTDIR is gone; RECORD lists them and the
        dist-info's own files relative to SITE (../../../bin/... as pip
        records scripts), with the sha256 of what is under DESTDIR now
        (install-strip runs this again after strip). A dist-info make wrote
        before (another version) goes, with any file it listed that is no
        longer installed.
    python scripts/distinfo.py remove DESTDIR SITE
        remove make's dist-info (make uninstall).

METADATA has the fields `pip install .` writes (setuptools' core metadata
2.1), from pyproject.toml's [project] and CPK_VERSION in
src/ccloudpickle.h; a [project] key this file does not map stops it, so the
two cannot drift apart unnoticed (tests/packaging/test_packaging.c compares them).
Runs with any Python 3.9+: tomllib where there is one, else a reader of
the TOML that pyproject.toml uses (strings, arrays, inline tables).
"""
import base64
import csv
import glob
import hashlib
import io
import json
import os
import re
import shutil
import sys

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "ccloudpickle"
INSTALLER = "make"
# The content type setuptools gives a readme, by its extension.
README_TYPES = {".md": "text/markdown", ".rst": "text/x-rst"}


def version():
    with open(os.path.join(SOURCE, "src", "ccloudpickle.h"),
              encoding="utf-8") as f:
        m = re.search(r'^#define\s+CPK_VERSION\s+"([^"]+)"', f.read(), re.M)
    if m is None:
        sys.exit("distinfo.py: CPK_VERSION not found in src/ccloudpickle.h")
    return m.group(1)


TOKEN = re.compile(r'\s+|#[^\n]*|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|'
                   r'[][{}=,]|[A-Za-z0-9_-]+|.', re.S)


def toml_subset(text):
    """The top-level tables of text, for the TOML subset pyproject.toml
    uses: [table] headers, bare keys, basic and literal strings, arrays
    and inline tables of those. Anything else raises ValueError."""
    toks = [t for t in TOKEN.findall(text)
            if t.strip() and not t.startswith("#")]
    pos = [0]

    def take(want=None):
        if pos[0] >= len(toks):
            raise ValueError("pyproject.toml: unexpected end")
        t = toks[pos[0]]
        if want is not None and t != want:
            raise ValueError("pyproject.toml: %r where %r was expected"
                             % (t, want))
        pos[0] += 1
        return t

    def value():
        t = take()
        if t.startswith('"'):
            return json.loads(t)
        if t.startswith("'"):
            return t[1:-1]
        if t in ("[", "{"):
            close = "]" if t == "[" else "}"
            out = [] if t == "[" else {}
            while toks[pos[0]] != close:
                if t == "[":
                    out.append(value())
                else:
                    key = take()
                    take("=")
                    out[key] = value()
                if toks[pos[0]] != close:
                    take(",")
            take(close)
            return out
        raise ValueError("pyproject.toml: value %r is not handled" % t)

    tables, current = {}, None
    while pos[0] < len(toks):
        if toks[pos[0]] == "[":
            take("[")
            current = tables
            while True:   # a dotted name: [tool.x]
                name = take()
                if not re.match(r"[A-Za-z0-9_-]+$", name):
                    raise ValueError("pyproject.toml: table %r is not "
                                     "handled" % name)
                current = current.setdefault(name, {})
                if take() == "]":
                    break
                pos[0] -= 1
                take(".")
            continue
        key = take()
        take("=")
        if current is None:
            raise ValueError("pyproject.toml: key %r outside a table" % key)
        current[key] = value()
    return tables


def project():
    with open(os.path.join(SOURCE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    try:
        import tomllib
    except ImportError:   # before 3.11
        return toml_subset(text)["project"]
    return tomllib.loads(text)["project"]


def metadata(proj, ver):
    """METADATA's text, field for field as setuptools writes it."""
    fields = [("Metadata-Version", "2.1"), ("Name", proj["name"]),
              ("Version", ver)]
    handled = {"name", "version", "dynamic", "description", "authors",
               "license", "keywords", "classifiers", "requires-python",
               "readme"}
    unknown = sorted(set(proj) - handled)
    if unknown or proj.get("dynamic", ["version"]) != ["version"]:
        sys.exit("distinfo.py: pyproject.toml's [project] has %s: map it "
                 "to METADATA here" % (unknown or "dynamic fields"))
    if "description" in proj:
        fields.append(("Summary", proj["description"]))
    names = [a["name"] for a in proj.get("authors", []) if "email" not in a]
    mails = ["%s <%s>" % (a["name"], a["email"]) if "name" in a
             else a["email"] for a in proj.get("authors", []) if "email" in a]
    if names:
        fields.append(("Author", ", ".join(names)))
    if mails:
        fields.append(("Author-email", ", ".join(mails)))
    if "license" in proj:
        if set(proj["license"]) != {"text"}:
            sys.exit("distinfo.py: only license = {text = ...} is mapped")
        fields.append(("License", proj["license"]["text"]))
    if proj.get("keywords"):
        fields.append(("Keywords", ",".join(proj["keywords"])))
    fields += [("Classifier", c) for c in proj.get("classifiers", [])]
    if "requires-python" in proj:
        fields.append(("Requires-Python", proj["requires-python"]))
    body = ""
    if "readme" in proj:
        readme = proj["readme"]
        if not isinstance(readme, str):
            sys.exit("distinfo.py: only readme = \"FILE\" is mapped")
        ext = os.path.splitext(readme)[1].lower()
        fields.append(("Description-Content-Type",
                       README_TYPES.get(ext, "text/plain")))
        with open(os.path.join(SOURCE, readme), encoding="utf-8") as f:
            body = f.read()
    fields.append(("License-File", "LICENSE"))
    head = "".join("%s: %s\n" % kv for kv in fields)
    return head + ("\n" + body if body else "")


def infos(root_site):
    return sorted(glob.glob(os.path.join(root_site, NAME + "-*.dist-info")))


def installer_of(info):
    try:
        with open(os.path.join(info, "INSTALLER"), encoding="utf-8") as f:
            return f.read().strip() or "pip"
    except OSError:
        return "pip"


def check(destdir, site):
    for info in infos(destdir + site):
        if installer_of(info) != INSTALLER:
            sys.stderr.write(
                "make: ccloudpickle in %s was installed by %s: run pip "
                "uninstall ccloudpickle\n" % (site, installer_of(info)))
            return 2
    return 0


def digest(data):
    raw = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def recorded(info):
    """The files a dist-info's RECORD lists, as absolute paths under the
    directory that holds the dist-info."""
    try:
        with open(os.path.join(info, "RECORD"), encoding="utf-8",
                  newline="") as f:
            rows = list(csv.reader(f))
    except OSError:
        return set()
    base = os.path.dirname(info)
    return {os.path.normpath(os.path.join(base, r[0])) for r in rows if r}


def remove(destdir, site, keep=()):
    """Remove make's dist-infos in site, and each file one of them lists
    that is not in keep (absolute paths under destdir)."""
    for info in infos(destdir + site):
        if installer_of(info) != INSTALLER:
            continue
        for path in sorted(recorded(info) - set(keep)):
            if not path.startswith(info + os.sep) and os.path.isfile(path):
                os.remove(path)
        shutil.rmtree(info)
    return 0


def write_file(path, data):
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, 0o644)


def write(destdir, site, files):
    ver = version()
    meta = metadata(project(), ver).encode("utf-8")
    with open(os.path.join(SOURCE, "LICENSE"), "rb") as f:
        licence = f.read()
    root_site = destdir + site
    remove(destdir, site, keep=[os.path.normpath(destdir + p) for p in files])
    info_name = "%s-%s.dist-info" % (NAME, ver)
    info = os.path.join(root_site, info_name)
    os.makedirs(info)
    os.chmod(info, 0o755)
    own = {"METADATA": meta, "INSTALLER": (INSTALLER + "\n").encode(),
           "LICENSE": licence}
    rows = []
    for name, data in own.items():
        write_file(os.path.join(info, name), data)
        rows.append((info_name + "/" + name, digest(data), str(len(data))))
    for path in files:
        with open(destdir + path, "rb") as f:
            data = f.read()
        rows.append((os.path.relpath(path, site), digest(data),
                     str(len(data))))
    rows.append((info_name + "/RECORD", "", ""))
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(sorted(rows))
    write_file(os.path.join(info, "RECORD"), out.getvalue().encode("utf-8"))
    return 0


def main(argv):
    if len(argv) < 4 or argv[1] not in ("check", "write", "remove"):
        sys.stderr.write("usage: distinfo.py check|write|remove DESTDIR SITE "
                         "[FILE...]\n")
        return 2
    what, destdir, site = argv[1], argv[2], os.path.normpath(argv[3])
    if what == "check":
        return check(destdir, site)
    if what == "remove":
        return remove(destdir, site)
    return write(destdir, site, [os.path.normpath(p) for p in argv[4:]])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
