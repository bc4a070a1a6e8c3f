"""The opt-in ``cloudpickle`` alias (companion of src/engine/glue.c).

``ccloudpickle.install_alias()`` (forwarded here) makes ``import
cloudpickle``, ``cloudpickle.cloudpickle`` and ``cloudpickle.cloudpickle_fast``
resolve to ccloudpickle in this process: engines that import cloudpickle by
name (distributed, scalene, spyder-kernels, doit) pickle with ccloudpickle.
The environment variable ``CCLOUDPICKLE_ALIAS=1`` does it in every Python
process started with it set, through ``ccloudpickle-alias.pth`` in
site-packages, which calls :func:`_from_environment`: a finder on
``sys.meta_path`` that imports ccloudpickle only when something imports
cloudpickle.

In compat mode (``install_alias(compat="cloudpickle3")``,
``CCLOUDPICKLE_ALIAS=cloudpickle3``, ``=cloudpickle2`` or any value
``dumps(compat=...)`` takes) the alias writes with that ``compat=``, so
processes with only stock cloudpickle load what it writes: a cluster can
mix the two.

This module imports nothing but ``sys`` until the alias is built.
"""

import sys

# The cloudpickle API level the alias implements. The alias reports
# ``cloudpickle.__version__`` as this release with a PEP 440 local label
# naming ccloudpickle ("3.1.2+ccloudpickle.0.6.0"): version checks that
# parse it (distributed's CLOUDPICKLE_GTE_20 through packaging, distutils'
# LooseVersion, a split on ".") see 3.1.2, and distributed's
# "Mismatched versions found" table shows which side runs the alias.
# ccloudpickle's own version is ``cloudpickle.__ccloudpickle_version__``.
CLOUDPICKLE_API_VERSION = "3.1.2"

NAMES = ("cloudpickle", "cloudpickle.cloudpickle",
         "cloudpickle.cloudpickle_fast")
ORIGIN = "ccloudpickle alias"

# Stock cloudpickle 3.x's cloudpickle.__all__.
_ALL = ["__version__", "Pickler", "CloudPickler", "dumps", "loads", "dump",
        "load", "register_pickle_by_value", "unregister_pickle_by_value"]

_DOC = """ccloudpickle, answering as cloudpickle (installed by
ccloudpickle.install_alias() or CCLOUDPICKLE_ALIAS=1).

__version__ is the cloudpickle API level implemented with a local label
naming ccloudpickle (%s); __ccloudpickle_version__ is ccloudpickle's own
version; __ccloudpickle_compat__ is the compat= target the alias writes
for (None: ccloudpickle's own format, which needs ccloudpickle to load).
"""

_modules = None  # {name: module}, built once
_compat = None   # the compat= target the alias writes with (None: native)
_ON = ("1", "true", "yes", "on")
_OFF = ("", "0", "false", "no", "off")


def alias_version(own):
    """The alias's __version__ for ccloudpickle version `own`: the API
    level with a PEP 440 local label ("3.1.2+ccloudpickle.0.6.0")."""
    label = "".join(c if c.isalnum() else "." for c in own.lower())
    label = ".".join(p for p in label.split(".") if p)
    return "%s+ccloudpickle.%s" % (CLOUDPICKLE_API_VERSION, label or "0")


class _AliasLoader:
    """Loader of the alias modules: hands out the prebuilt objects."""

    def create_module(self, spec):
        return _build()[spec.name]

    def exec_module(self, module):
        # The package brings its submodules along (they are not files).
        if module.__name__ == "cloudpickle":
            for name, mod in _build().items():
                if name != "cloudpickle":
                    sys.modules[name] = mod

    def is_package(self, fullname):
        return fullname == "cloudpickle"

    def get_source(self, fullname):
        return None

    def __repr__(self):
        return "<ccloudpickle alias loader>"


_loader = _AliasLoader()


def _build():
    """The three alias modules, made on first use. {name: module}."""
    global _modules
    if _modules is not None:
        return _modules
    import ccloudpickle
    from importlib.machinery import ModuleSpec

    _check_compat(ccloudpickle, _compat)
    public = {n: getattr(ccloudpickle, n) for n in dir(ccloudpickle)
              if not n.startswith("_")}
    # Stock cloudpickle's reconstructor names (_make_function,
    # _make_skeleton_class, subimport, CellType, ...) answered by ours, so
    # stock's pickles load through plain pickle.loads.
    compat = ccloudpickle._compat_names()
    version = alias_version(ccloudpickle.__version__)
    doc = _DOC % version
    modules = {}
    for name in NAMES:
        is_pkg = name == "cloudpickle"
        mod = type(sys)(name, doc)
        mod.__spec__ = ModuleSpec(name, _loader, origin=ORIGIN,
                                  is_package=is_pkg)
        mod.__loader__ = _loader
        mod.__package__ = "cloudpickle"
        mod.__dict__.update(public)
        if is_pkg:
            mod.__path__ = []
            mod.__all__ = list(_ALL)
            mod.subimport = compat["subimport"]
            mod.dynamic_subimport = compat["dynamic_subimport"]
            mod.CellType = compat["CellType"]
        else:
            mod.__dict__.update(compat)
        mod.__version__ = version
        mod.__ccloudpickle_version__ = ccloudpickle.__version__
        modules[name] = mod
    _set_writers(modules, ccloudpickle, _compat)
    pkg = modules["cloudpickle"]
    pkg.cloudpickle = modules["cloudpickle.cloudpickle"]
    pkg.cloudpickle_fast = modules["cloudpickle.cloudpickle_fast"]
    _modules = modules
    return modules


def _writers(ccloudpickle, compat):
    """{name: object}: the alias's dumps, dump, Pickler and CloudPickler
    writing with `compat` (None: ccloudpickle's own)."""
    if compat is None:
        return {"dumps": ccloudpickle.dumps, "dump": ccloudpickle.dump,
                "Pickler": ccloudpickle.Pickler,
                "CloudPickler": ccloudpickle.Pickler}
    import functools
    base = ccloudpickle.Pickler

    class Pickler(base):
        __doc__ = base.__doc__

        def __init__(self, file, protocol=None, buffer_callback=None, *,
                     compat=compat):
            super().__init__(file, protocol, buffer_callback, compat=compat)

    Pickler.__module__ = "cloudpickle"
    Pickler.__qualname__ = "Pickler"
    # A keyword compat= of the caller's still wins.
    dumps = functools.partial(ccloudpickle.dumps, compat=compat)
    dump = functools.partial(ccloudpickle.dump, compat=compat)
    return {"dumps": dumps, "dump": dump, "Pickler": Pickler,
            "CloudPickler": Pickler}


def _check_compat(ccloudpickle, compat):
    """ValueError unless `compat` is None or a value dumps(compat=) takes."""
    if compat is not None:
        ccloudpickle.dumps(None, compat=compat)


def _set_writers(modules, ccloudpickle, compat):
    writers = _writers(ccloudpickle, compat)
    for mod in modules.values():
        mod.__dict__.update(writers)
        mod.__ccloudpickle_compat__ = compat


def is_alias(module):
    """True if `module` is one of the alias modules."""
    return _modules is not None and any(module is m
                                        for m in _modules.values())


class _AliasFinder:
    """First on sys.meta_path: serves the alias for cloudpickle's names."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in NAMES:
            return None
        try:
            modules = _build()
        except ImportError as e:
            # A broken installation must not take stock cloudpickle away
            # silently: say so, and let the next finder serve it. Said
            # without raising: under -W error (pytest's filterwarnings)
            # the warning would make `import cloudpickle` fail after all.
            _say("CCLOUDPICKLE_ALIAS: ccloudpickle cannot be imported "
                 "(%s); cloudpickle is not aliased: reinstall ccloudpickle "
                 "for %s, or unset CCLOUDPICKLE_ALIAS" % (e, sys.executable))
            return None
        except ValueError as e:
            # CCLOUDPICKLE_ALIAS named no compat= target ccloudpickle knows.
            _say("CCLOUDPICKLE_ALIAS=%s: %s; cloudpickle is not aliased: "
                 "set it to 1, cloudpickle3 or cloudpickle2, or unset it"
                 % (_compat, e))
            return None
        return modules[fullname].__spec__

    def invalidate_caches(self):
        pass

    def __repr__(self):
        return "<ccloudpickle alias finder>"


def _say(message):
    """A RuntimeWarning, or where warnings are errors, a line on stderr."""
    try:
        import warnings
        warnings.warn(message, RuntimeWarning, stacklevel=3)
    except Exception:
        try:
            sys.stderr.write("RuntimeWarning: %s\n" % message)
        except Exception:
            pass


def _install_finder():
    for finder in sys.meta_path:
        if isinstance(finder, _AliasFinder):
            return
    sys.meta_path.insert(0, _AliasFinder())


def _stock_modules():
    """{name: module} of cloudpickle's names in sys.modules that are not
    the alias (stock cloudpickle, or anything else under that name)."""
    return {n: m for n, m in list(sys.modules.items())
            if (n == "cloudpickle" or n.startswith("cloudpickle."))
            and m is not None and not is_alias(m)}


def _keep_stock_reconstructors(modules, stock):
    """After replace=True: the functions and classes the stock modules
    define (its reconstructors: _make_function, subimport, ...) stay
    findable under their names, now the alias's; the API stays ours.
    Stock cloudpickle, still held by earlier importers, pickles its
    reconstructors by reference, and pickle finds them through
    sys.modules[obj.__module__]: were ours found there instead, it would
    try to pickle its own reconstructors by value, without end. Stock's
    pickles then load through stock's reconstructors, which share the
    class tracker with ours."""
    function = type(_keep_stock_reconstructors)
    for name in NAMES[1:]:
        old = stock.get(name)
        if old is None:
            continue
        alias = modules[name]
        for attr, value in list(vars(old).items()):
            if (attr not in _API and isinstance(value, (function, type))
                    and getattr(value, "__module__", None) == name):
                setattr(alias, attr, value)


# The names the alias answers with ccloudpickle's objects in any case.
_API = frozenset(("dumps", "dump", "loads", "load", "Pickler",
                  "CloudPickler", "register_pickle_by_value",
                  "unregister_pickle_by_value",
                  "list_registry_pickle_by_value"))


def install_alias(*, replace=False, compat=None):
    """Make `import cloudpickle` resolve to ccloudpickle in this process.

    After it, ``import cloudpickle``, ``import cloudpickle.cloudpickle``,
    ``import cloudpickle.cloudpickle_fast`` and ``from cloudpickle import
    dumps`` give ccloudpickle's objects: the alias modules have
    ccloudpickle's public API (dumps, dump, loads, load, Pickler,
    CloudPickler, register_pickle_by_value, unregister_pickle_by_value,
    list_registry_pickle_by_value, PicklingError, DEFAULT_PROTOCOL, ...)
    and, in cloudpickle.cloudpickle and cloudpickle.cloudpickle_fast,
    stock cloudpickle's reconstructor names (_make_function,
    _make_skeleton_class, _class_setstate, subimport, ...) answered by
    ccloudpickle's implementations, so pickles written by stock
    cloudpickle (2.x, 3.x) load through plain ``pickle.loads``.
    ``cloudpickle.__version__`` is the cloudpickle API level implemented
    ("3.1.2"); ``cloudpickle.__ccloudpickle_version__`` is ccloudpickle's.
    A finder on sys.meta_path keeps serving the alias if the modules are
    removed from sys.modules. Calling it again does nothing but set
    `compat`.

    ``compat`` (a value ``dumps(compat=...)`` takes: "cloudpickle3",
    "cloudpickle2", "2.2", ...) makes the alias's dumps, dump and Pickler
    write with that compat=, so that processes with only stock
    cloudpickle load what this one writes (a cluster whose workers are
    not all upgraded); loads reads both formats either way. ValueError
    for a value dumps() refuses. ``cloudpickle.__ccloudpickle_compat__``
    says which is in force.

    If stock cloudpickle (or anything named cloudpickle) is already
    imported, RuntimeError is raised: modules that imported it hold it,
    and would keep pickling with it. With ``replace=True`` the alias
    replaces it in sys.modules anyway: later imports get ccloudpickle,
    earlier importers keep stock cloudpickle, and the two share one
    by-value registry and one class tracker. Stock's reconstructors then
    stay under their names in the alias's submodules (stock still pickles
    them by reference, and its pickles load through them).

    Returns the alias ``cloudpickle`` module.
    """
    global _compat
    if compat is not None:
        import ccloudpickle
        _check_compat(ccloudpickle, compat)
    _compat = compat
    if _modules is not None:
        import ccloudpickle
        _set_writers(_modules, ccloudpickle, compat)
    stock = _stock_modules()
    if stock:
        if not replace:
            pkg = stock.get("cloudpickle")
            where = getattr(pkg, "__file__", None) or repr(pkg)
            raise RuntimeError(
                "cloudpickle is already imported (version %s, %s): modules "
                "that imported it would keep using it; call "
                "install_alias() before anything imports cloudpickle, set "
                "CCLOUDPICKLE_ALIAS=1, or pass replace=True"
                % (getattr(pkg, "__version__", "unknown"), where))
        import ccloudpickle
        cp = stock.get("cloudpickle.cloudpickle")
        if cp is not None:
            ccloudpickle._share_with_stock(cp)
        for name in stock:
            del sys.modules[name]
    modules = _build()
    if stock:
        _keep_stock_reconstructors(modules, stock)
    for name, mod in modules.items():
        sys.modules[name] = mod
    _install_finder()
    return modules["cloudpickle"]


def _enabled(value):
    return value.strip().lower() not in _OFF


def _from_environment():
    """What ccloudpickle-alias.pth runs when CCLOUDPICKLE_ALIAS turns the
    alias on (the .pth line tests the value itself, so that "0" costs
    nothing and prints nothing): the finder. 1, true, yes or on: the
    alias writes ccloudpickle's format; any other value is a compat=
    target, checked when cloudpickle is first imported. Imports
    nothing."""
    global _compat
    import os
    value = os.environ.get("CCLOUDPICKLE_ALIAS", "")
    if _enabled(value):
        value = value.strip()
        _compat = None if value.lower() in _ON else value
        _install_finder()


# What a worker says about itself. builtins.eval and a str travel by
# reference and as data with any pickler, so the probe reaches workers
# that have no ccloudpickle (a pickled function of ours would not load
# there: that is what is being checked).
_PROBE = (
    "(lambda find, imp: {"
    "'ccloudpickle': find('ccloudpickle') and imp('ccloudpickle').__version__, "
    "'format': find('ccloudpickle') and getattr(imp('ccloudpickle'), 'FORMAT', None), "
    "'cloudpickle': find('cloudpickle') and imp('cloudpickle').__version__})"
    "(lambda n: __import__('importlib.util').util.find_spec(n) is not None, "
    "__import__('importlib').import_module)")


def _worker_problem(facts, own, own_format, compat):
    """Why a worker described by `facts` (the probe's answer) cannot load
    what this process writes, with the fix; None when it can."""
    theirs = facts.get("ccloudpickle") or None
    stock = facts.get("cloudpickle") or None
    if compat is not None:
        if theirs is not None:
            return None
        if stock is None:
            return ("neither ccloudpickle nor cloudpickle is installed: "
                    "install cloudpickle or ccloudpickle there")
        if compat.startswith(("cloudpickle3", "3")) or compat == "cloudpickle":
            if stock.split(".")[0] == "2":
                return ("stock cloudpickle %s cannot load compat=%r pickles: "
                        "write with compat='cloudpickle2' here, or upgrade "
                        "cloudpickle there" % (stock, compat))
        return None
    if theirs is None:
        return ("no ccloudpickle (stock cloudpickle %s): it cannot load "
                "ccloudpickle's pickles (ModuleNotFoundError: No module "
                "named 'ccloudpickle'): install ccloudpickle %s there, or "
                "write for stock cloudpickle here (CCLOUDPICKLE_ALIAS="
                "cloudpickle3, install_alias(compat='cloudpickle3') or "
                "dumps(compat='cloudpickle3'))" % (stock or "absent", own))
    theirs_format = facts.get("format")
    if own_format is not None and theirs_format is not None:
        if theirs_format < own_format:
            return ("ccloudpickle %s (format %s) cannot load format %s, "
                    "which ccloudpickle %s writes here: upgrade ccloudpickle "
                    "there, or write with format=%s here"
                    % (theirs, theirs_format, own_format, own,
                       theirs_format))
        return None
    if theirs != own:
        return ("ccloudpickle %s, %s here (one side does not report its "
                "format number; the versions differ): install the same "
                "version on both sides" % (theirs, own))
    return None


def check_workers(client):
    """{worker: problem} for each worker of a distributed `client` that
    cannot load what this process writes (it lacks ccloudpickle, or holds
    an older format, or for the alias's compat mode, lacks a stock
    cloudpickle that loads it); each problem says the fix. Empty when
    every worker can."""
    import ccloudpickle
    cp = sys.modules.get("cloudpickle")
    compat = getattr(cp, "__ccloudpickle_compat__", None) \
        if cp is not None and is_alias(cp) else None
    own_format = getattr(ccloudpickle, "FORMAT", None)
    problems = {}
    for worker, facts in client.run(eval, _PROBE).items():
        problem = _worker_problem(facts, ccloudpickle.__version__,
                                  own_format, compat)
        if problem is not None:
            problems[worker] = problem
    return problems
