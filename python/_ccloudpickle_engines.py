"""ccloudpickle as multiprocessing's pickler, and wrap() for single objects.

`ccloudpickle.install_multiprocessing()` and `ccloudpickle.wrap()` (the C
forwarders of src/engine/glue.c) call the functions of the same names here.

multiprocessing pickles everything it sends (Pool tasks and results,
Queue, SimpleQueue, Pipe/Connection.send, concurrent.futures'
ProcessPoolExecutor, the Process object sent to a spawn or forkserver
child) with `multiprocessing.reduction.ForkingPickler`, a subclass of
plain `pickle.Pickler`, which sends functions and classes by name only.
The class is bound at import time under three names:

    multiprocessing.reduction.ForkingPickler   (reduction.dump and
                                                 reduction.register use it)
    multiprocessing.connection._ForkingPickler (Connection.send / recv)
    multiprocessing.queues._ForkingPickler     (Queue, SimpleQueue, hence
                                                 Pool and ProcessPoolExecutor)

(the same on CPython 3.9 to 3.13). install_multiprocessing() rebinds all
three to ForkingCloudPickler, a ccloudpickle.Pickler that keeps
multiprocessing's own reducers (ForkingPickler._extra_reducers: sockets,
connections, bound methods, partials, shared ctypes, ...; the dict is
shared, so register() on either class is seen by both). Loading stays
plain pickle.loads: ccloudpickle's pickles load with it wherever
ccloudpickle is importable.

Children: a fork child inherits the rebinding. A spawn or forkserver child
is a fresh interpreter: ForkingCloudPickler sends the Process object it
starts (the last thing the parent sends it, loaded after
multiprocessing.spawn.prepare() has applied the parent's sys.path and
working directory) inside a reduce that calls install_multiprocessing() in
the child once the Process object is loaded, before the child runs. So
workers send lambdas, closures and classes of __main__ back without
anything else. It is only done when the parent's sys.path (which the child
gets) reaches this module, so that loading the Process object never fails
for it. Using ccloudpickle.install_multiprocessing as a pool's initializer
is harmless (idempotent), and is the way for a parent that does not
install it itself to have its workers reply with ccloudpickle.

A custom reducer (ctx.reducer = ..., or another class bound to one of the
three names) is refused with RuntimeError naming it: its overrides would
be silently lost.

install_multiprocessing(False) puts the original bindings back.

Functions of __main__: stock multiprocessing sends them by name, and the
worker finds them in its own __main__ (a fork child's copy of the
parent's; the main script that a spawn or forkserver child imports again
as __mp_main__). ForkingCloudPickler does the same for a function that is
sure to be there under both start methods (_by_reference): defined by a
top-level def of the main script outside `if __name__ == "__main__":`,
still bound to that name, and, once the process has forked, bound to it
at every fork since (a fork child has only what existed when it was
made). Everything else (lambdas, closures, functions of an interactive
session or defined in the guard) goes by value, with the globals it
reads; when those pickle to more than a threshold, one RuntimeWarning per
process says so and how to avoid it (_check_globals; wrap() too).
"""

import ast
import copyreg
import io
import os
import pickle
import sys
import threading
import types
import warnings
import weakref

import ccloudpickle

__all__ = ["install_multiprocessing", "wrap"]

_lock = threading.RLock()


def _reset_lock():
    # A fork while another thread held the lock (inside
    # install_multiprocessing) would leave the child's copy held forever.
    global _lock
    _lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_lock)

# While installed: the original objects, as [(module, name, value)].
_saved = None

# By-value functions whose globals pickle to more than this many bytes
# get the warning (install_multiprocessing(warn_globals=...); None: never).
_warn_globals = 1 << 20
_warned = False
# Code objects whose globals were measured (each once).
_measured = weakref.WeakSet()


# Functions of __main__ by reference ----------------------------------------

# The top-level functions of __main__ at every fork so far: {name: function},
# or None before the first fork.
_at_forks = None


def _main_functions():
    main = sys.modules.get("__main__")
    namespace = getattr(main, "__dict__", None)
    if not isinstance(namespace, dict):
        return {}
    return {k: v for k, v in list(namespace.items())
            if type(v) is types.FunctionType}


def _before_fork():
    global _at_forks
    try:
        now = _main_functions()
        if _at_forks is None:
            _at_forks = now
        else:
            _at_forks = {k: v for k, v in _at_forks.items()
                         if now.get(k) is v}
    except Exception:
        # Unknown contents: nothing of __main__ goes by reference.
        _at_forks = {}


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork)

# (path, mtime_ns) -> names of the main script's top-level functions.
_script_defs = {}


def _top_level_defs(body, out):
    """Add to `out` the names of the functions defined by statements that
    run when the script is imported as __mp_main__."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(node.name)
        elif isinstance(node, ast.If):
            if not _is_main_guard(node.test):
                _top_level_defs(node.body, out)
                _top_level_defs(node.orelse, out)
        elif isinstance(node, ast.Try):
            for part in (node.body, node.orelse, node.finalbody):
                _top_level_defs(part, out)
        elif isinstance(node, ast.With):
            _top_level_defs(node.body, out)


def _is_main_guard(test):
    return (isinstance(test, ast.Compare) and len(test.ops) == 1 and
            isinstance(test.left, ast.Name) and test.left.id == "__name__")


def _main_script_defs(main):
    """The names a spawn or forkserver child defines when it imports the
    main script again, as multiprocessing.spawn.prepare() does: empty when
    it would not (an interactive session, python -c, a package's
    __main__, a script that no longer reads as it did)."""
    spec = getattr(main, "__spec__", None)
    name = getattr(spec, "name", None)
    if name is not None:
        if name == "__main__" or name.endswith(".__main__"):
            return frozenset()
        path = getattr(spec, "origin", None)
    else:
        path = getattr(main, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py"):
        return frozenset()
    try:
        key = (path, os.stat(path).st_mtime_ns)
        found = _script_defs.get(key)
        if found is None:
            with open(path, "rb") as f:
                tree = ast.parse(f.read(), path)
            names = set()
            _top_level_defs(tree.body, names)
            found = _script_defs[key] = frozenset(names)
        return found
    except (OSError, SyntaxError, ValueError):
        return frozenset()


def _by_reference(func):
    """True if a worker of any start method finds `func` as
    __main__.<its name> (see the module's docstring)."""
    if getattr(func, "__module__", None) != "__main__":
        return False
    name = func.__qualname__
    main = sys.modules.get("__main__")
    if getattr(main, name, None) is not func or name != func.__name__:
        return False
    code = func.__code__
    if getattr(main, "__file__", None) != code.co_filename and \
            getattr(getattr(main, "__spec__", None), "origin", None) != \
            code.co_filename:
        return False
    if _at_forks is not None and _at_forks.get(name) is not func:
        return False
    return name in _main_script_defs(main)


def _globals_of(code, names):
    names.update(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _globals_of(const, names)
    return names


def _check_globals(func, where):
    """Warn once per process when `func`, sent by value, carries globals
    that pickle to more than _warn_globals bytes."""
    global _warned
    if _warned or _warn_globals is None or type(func) is not types.FunctionType:
        return
    code = func.__code__
    if code in _measured:
        return
    _measured.add(code)
    namespace = func.__globals__
    used = {k: namespace[k] for k in _globals_of(code, set())
            if k in namespace and not isinstance(namespace[k], types.ModuleType)}
    if not used:
        return
    try:
        size = len(ccloudpickle.dumps(used))
    except Exception:
        return
    if size <= _warn_globals:
        return
    _warned = True
    warnings.warn(
        "%s: %s.%s goes to the workers by value with its globals, %.1f MB "
        "per task (%s): define it with a top-level def in the main script "
        "(outside `if __name__ == '__main__':`) or in an importable module "
        "so that it goes by reference, or pass large data once (a pool's "
        "initializer, shared memory) instead of reading it as a global"
        % (where, func.__module__, func.__qualname__, size / 1e6,
           ", ".join(sorted(used))[:200]),
        RuntimeWarning, stacklevel=2)


def _pickler_class(original):
    """ForkingCloudPickler on `original` (multiprocessing's ForkingPickler),
    made at each install, so that it shares the current _extra_reducers."""
    class ForkingCloudPickler(ccloudpickle.Pickler):
        """multiprocessing's ForkingPickler on ccloudpickle's Pickler."""

        # The very dict of the original: register() on either is seen by both.
        _extra_reducers = original._extra_reducers
        _copyreg_dispatch_table = copyreg.dispatch_table

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            table = self._copyreg_dispatch_table.copy()
            table.update(self._extra_reducers)
            if types.FunctionType not in table:
                table[types.FunctionType] = self._reduce_function
            self.dispatch_table = table

        def _reduce_function(self, func):
            # By name (CPython's save_global), or by value: ccloudpickle's
            # own reduction, asked with this entry out of the table for
            # the call (it returns the reduce tuple; what the tuple holds
            # is pickled after the entry is back).
            if _by_reference(func):
                return func.__qualname__
            _check_globals(func, "ccloudpickle.install_multiprocessing")
            table = self.dispatch_table
            del table[types.FunctionType]
            try:
                return ccloudpickle.Pickler.reducer_override(self, func)
            finally:
                table[types.FunctionType] = self._reduce_function

        @classmethod
        def register(cls, type, reduce):
            """Register a reduce function for a type."""
            cls._extra_reducers[type] = reduce

        @classmethod
        def dumps(cls, obj, protocol=None):
            buf = io.BytesIO()
            cls(buf, protocol).dump(obj)
            return buf.getbuffer()

        loads = pickle.loads

        def dump(self, obj):
            # The Process object of a spawn/forkserver child (sent by
            # reduction.dump in popen_spawn_posix/popen_forkserver).
            if isinstance(obj, _BaseProcess()) and _child_can_import():
                obj = _ProcessCarrier(obj)
            return super().dump(obj)

    ForkingCloudPickler.__module__ = __name__
    ForkingCloudPickler.__qualname__ = "ForkingCloudPickler"
    return ForkingCloudPickler


def _BaseProcess():
    from multiprocessing.process import BaseProcess
    return BaseProcess


def _child_can_import():
    """True if this module and ccloudpickle are found on sys.path, which a
    spawn/forkserver child gets before it loads the Process object."""
    here = {os.path.dirname(os.path.abspath(m.__file__))
            for m in (sys.modules[__name__], ccloudpickle)
            if getattr(m, "__file__", None)}
    if not here:
        return False
    cwd = os.getcwd()
    path = {os.path.abspath(os.path.join(cwd, p)) for p in sys.path
            if isinstance(p, str)}
    return here <= path


class _ProcessCarrier:
    """Loads as the Process object, after install_multiprocessing() ran in
    the loading (child) process."""

    __slots__ = ("process",)

    def __init__(self, process):
        self.process = process

    def __reduce__(self):
        return (_install_then_return, (self.process,))


def _install_then_return(process):
    install_multiprocessing()
    return process


def _custom_reducer(reduction, connection, queues, context):
    """A description of the reducer that is not multiprocessing's own, or
    None."""
    own = reduction.ForkingPickler
    if getattr(context, "reduction", reduction) is not reduction:
        return "ctx.reducer = %r" % (context.reduction,)
    if (getattr(own, "__module__", None) != "multiprocessing.reduction" or
            getattr(own, "__qualname__", None) != "ForkingPickler"):
        return "multiprocessing.reduction.ForkingPickler = %r" % (own,)
    for module, name in ((connection, "_ForkingPickler"),
                         (queues, "_ForkingPickler")):
        value = getattr(module, name)
        if value is not own:
            return "%s.%s = %r" % (module.__name__, name, value)
    return None


def install_multiprocessing(enable=True, warn_globals=1 << 20):
    """Make multiprocessing and concurrent.futures pickle with ccloudpickle.

    Pool, Queue, SimpleQueue, Pipe/Connection.send, ProcessPoolExecutor and
    the Process object sent to spawn/forkserver children then send
    lambdas, closures and classes defined in __main__ by value, for the
    fork, spawn and forkserver start methods; spawn and forkserver children
    install it too. Idempotent, and usable as a pool's initializer.
    install_multiprocessing(False) restores multiprocessing's own pickler.
    Functions of the main script that a worker can import (a top-level
    def outside the `if __name__ == "__main__":` guard) go by name, as
    with stock multiprocessing. A function sent by value whose globals
    pickle to more than warn_globals bytes (None: no limit) gets one
    RuntimeWarning per process. RuntimeError if multiprocessing uses a custom reducer (ctx.reducer, or
    another ForkingPickler bound in its place), which it would replace.
    Returns None.
    """
    global _saved, _warn_globals
    if warn_globals is not None and (not isinstance(warn_globals, int) or
                                     warn_globals < 0):
        raise ValueError("warn_globals must be a byte count or None")
    with _lock:
        _warn_globals = warn_globals
        if enable:
            if _saved is not None:
                return None
            # Import every module that binds the pickler now, so that none
            # binds the original later.
            import multiprocessing.connection as connection
            import multiprocessing.context as context
            import multiprocessing.queues as queues
            import multiprocessing.reduction as reduction

            custom = _custom_reducer(reduction, connection, queues, context)
            if custom is not None:
                raise RuntimeError(
                    "ccloudpickle.install_multiprocessing: multiprocessing "
                    "uses a custom reducer (%s); installing would silently "
                    "replace it. Derive its pickler from ccloudpickle.Pickler "
                    "instead, or use ccloudpickle.wrap() on the objects"
                    % custom)
            cls = _pickler_class(reduction.ForkingPickler)
            saved = [
                (reduction, "ForkingPickler", reduction.ForkingPickler),
                (connection, "_ForkingPickler", connection._ForkingPickler),
                (queues, "_ForkingPickler", queues._ForkingPickler),
            ]
            for module, name, _ in saved:
                setattr(module, name, cls)
            _saved = saved
        else:
            if _saved is None:
                return None
            for module, name, value in _saved:
                setattr(module, name, value)
            _saved = None
    return None


def _installed():
    """True while install_multiprocessing() is in effect (for tests)."""
    return _saved is not None


# wrap() ---------------------------------------------------------------------


class _Wrapped:
    """An object that any pickler sends through ccloudpickle.

    Attribute reads are forwarded to the wrapped object (special methods,
    which Python looks up on the type, are not). The wrapped object itself
    is `__wrapped__`.
    """

    __slots__ = ("__wrapped__", "_keep_wrapper")

    # ccloudpickle's C pickler refuses instances of a type with this marker
    # in the stock formats (compat=...), whose loaders cannot rebuild them.
    __ccloudpickle_wrapper__ = True

    def __init__(self, obj, keep_wrapper=True):
        object.__setattr__(self, "__wrapped__", obj)
        object.__setattr__(self, "_keep_wrapper", keep_wrapper)

    def __getattr__(self, name):
        return getattr(object.__getattribute__(self, "__wrapped__"), name)

    def __reduce__(self):
        obj = self.__wrapped__
        _check_globals(obj, "ccloudpickle.wrap")
        try:
            data = ccloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            raise
        except Exception as exc:
            raise pickle.PicklingError(
                "ccloudpickle.wrap: cannot pickle the wrapped %s %s: %s"
                % (type(obj).__name__, _short_repr(obj), exc)) from exc
        return (_rebuild, (bytes(data), self._keep_wrapper))

    def __repr__(self):
        return "ccloudpickle.wrap(%r)" % (self.__wrapped__,)


class _CallableWrapped(_Wrapped):
    __slots__ = ()

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)


class _ClassWrapped(_Wrapped):
    """A wrapped class: calling it makes wrapped instances (loky's way)."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        return _wrap(self.__wrapped__(*args, **kwargs), self._keep_wrapper)

    def __instancecheck__(self, instance):
        if isinstance(instance, _Wrapped):
            instance = instance.__wrapped__
        return isinstance(instance, self.__wrapped__)


def _short_repr(obj):
    try:
        text = repr(obj)
    except Exception:
        text = "<%s object>" % type(obj).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _wrap(obj, keep_wrapper):
    if isinstance(obj, type):
        return _ClassWrapped(obj, keep_wrapper)
    if callable(obj):
        return _CallableWrapped(obj, keep_wrapper)
    return _Wrapped(obj, keep_wrapper)


def _rebuild(data, keep_wrapper):
    """Load-side of wrap(): the object, wrapped again unless told not to.

    Inside ccloudpickle.loads/load with allow= or deny=, the inner pickle
    is loaded under the same rules (ccloudpickle._load_policy holds them
    while such a load runs). The import policy treats this function as a
    nested unpickler: a policy lets it run only when an allow rule names
    it."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("ccloudpickle.wrap: expected bytes, got %s"
                        % type(data).__name__)
    policy = ccloudpickle._load_policy.get(None)
    if policy is None:
        obj = pickle.loads(data)
    else:
        allow, deny = policy
        obj = ccloudpickle.loads(data, allow=allow, deny=deny)
    return _wrap(obj, keep_wrapper) if keep_wrapper else obj


def wrap(obj, keep_wrapper=True):
    """Wrap obj so that any pickler (plain pickle included) sends it through
    ccloudpickle, like loky's wrap_non_picklable_objects.

    The wrapper is callable if obj is (so it works as a decorator on
    functions), forwards attribute reads to obj and pickles as
    ccloudpickle.dumps(obj); loading gives the wrapper back (or obj itself
    with keep_wrapper=False). A wrapped class makes wrapped instances and
    answers isinstance() for them. An object ccloudpickle cannot pickle
    raises pickle.PicklingError naming it when the wrapper is pickled.
    Wrapping a wrapper returns it unchanged.
    """
    if isinstance(obj, _Wrapped):
        return obj
    return _wrap(obj, bool(keep_wrapper))
