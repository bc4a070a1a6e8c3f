"""Run one "beyond cloudpickle" scenario with one pickler, the way users
ship code: pickle in one process, load and check in a fresh one where the
defining code does not exist.

    python run.py PICKLER SCENARIO.py

A scenario is a Python file in two parts, split by a line "# --- load ---".
The first part runs as __main__ of the dumping process (so what it defines
goes by value) and defines make(), whose result is pickled. The second
part runs in the loading process with `obj` (the loaded object) in its
namespace and asserts the behaviour. Exit status: 0 pass, 1 the check
failed, 2 the dump failed, 3 the load failed, 4 usage or set-up (the
pickler cannot be imported), 5 a side ran longer than TIMEOUT seconds
($CPK_BEYOND_TIMEOUT, default 300: some picklers hang on some scenarios).

PICKLER: ccloudpickle (from $CPK_BUILD_DIR), cloudpickle3 (cloudpickle
3.x from $CPK_CLOUDPICKLE3, a source tree), cloudpickle2 (the installed
cloudpickle), dill, dill-recurse.
"""
import os
import subprocess
import sys
import tempfile
import traceback

PICKLERS = ("ccloudpickle", "cloudpickle3", "cloudpickle2", "dill",
            "dill-recurse")
MARK = "# --- load ---"
TIMEOUT = int(os.environ.get("CPK_BEYOND_TIMEOUT", "300"))


def pickler(name):
    if name == "ccloudpickle":
        sys.path.insert(0, os.environ["CPK_BUILD_DIR"])
        import ccloudpickle
        return ccloudpickle.dumps, ccloudpickle.loads
    if name == "cloudpickle3":
        sys.path.insert(0, os.environ["CPK_CLOUDPICKLE3"])
        import cloudpickle
        assert cloudpickle.__version__.startswith("3."), cloudpickle.__file__
        return cloudpickle.dumps, cloudpickle.loads
    if name == "cloudpickle2":
        import cloudpickle
        assert cloudpickle.__version__.startswith("2."), cloudpickle.__file__
        return cloudpickle.dumps, cloudpickle.loads
    if name in ("dill", "dill-recurse"):
        import dill
        recurse = name == "dill-recurse"
        return (lambda o: dill.dumps(o, recurse=recurse)), dill.loads
    raise KeyError(name)


def parts(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if MARK not in text:
        raise SystemExit("run.py: %s has no %r line" % (path, MARK))
    dump, load = text.split(MARK, 1)
    # The load part keeps its line numbers in tracebacks.
    return dump, "\n" * dump.count("\n") + load


def setup(name):
    try:
        return pickler(name)
    except (ImportError, KeyError, AssertionError) as e:
        raise SystemExit("run.py: cannot use %s: %r" % (name, e)) from None


def dump_side(name, path, out):
    dumps, _ = setup(name)
    src, _ = parts(path)
    main = sys.modules["__main__"]
    main.__file__ = path
    exec(compile(src, path, "exec"), main.__dict__)
    try:
        data = dumps(main.make())
    except BaseException:
        traceback.print_exc()
        return 2
    with open(out, "wb") as f:
        f.write(data)
    return 0


def load_side(name, path, inp):
    _, loads = setup(name)
    _, src = parts(path)
    with open(inp, "rb") as f:
        data = f.read()
    try:
        obj = loads(data)
    except BaseException:
        traceback.print_exc()
        return 3
    ns = {"__name__": "__check__", "obj": obj}
    try:
        exec(compile(src, path, "exec"), ns)
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def main(argv):
    if len(argv) == 5 and argv[1] in ("--dump", "--load"):
        side = dump_side if argv[1] == "--dump" else load_side
        try:
            return side(argv[2], argv[3], argv[4])
        except SystemExit as e:
            if isinstance(e.code, str):
                print(e.code, file=sys.stderr)
                return 4
            raise
    if len(argv) != 3 or argv[1] not in PICKLERS:
        print("usage: run.py {%s} SCENARIO.py" % ",".join(PICKLERS),
              file=sys.stderr)
        return 4
    name, path = argv[1], os.path.abspath(argv[2])
    here = os.path.abspath(__file__)
    with tempfile.TemporaryDirectory() as tmp:
        pkl = os.path.join(tmp, "obj.pkl")
        # Neither side runs in the scenario's directory: the loader must
        # not find anything the dumper defined.
        for side in ("--dump", "--load"):
            try:
                r = subprocess.run([sys.executable, here, side, name, path,
                                    pkl], cwd=tmp, timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                print("run.py: %s %s: no result after %d s" % (side, name,
                                                              TIMEOUT),
                      file=sys.stderr)
                return 5
            if r.returncode != 0:
                return r.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
