"""ccloudpickle as multiprocessing's pickler, and wrap() for single objects.

`ccloudpickle.install_multiprocessing()` and `ccloudpickle.wrap()` (the C
forwarders of src/glue.c) call the functions of the same names here.

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
is a fresh interpreter; install_multiprocessing() also wraps
multiprocessing.spawn.get_preparation_data so that the preparation data
sent ahead of the Process object carries an entry whose unpickling calls
install_multiprocessing() in the child, before the Process object (and with
it a Pool's tasks queue) is loaded. So workers send lambdas, closures and
classes of __main__ back without anything else; using
ccloudpickle.install_multiprocessing as a pool's initializer is harmless
(idempotent), and is the way for a parent that does not install it itself
to have its workers reply with ccloudpickle.

install_multiprocessing(False) puts the original bindings back.
"""

import copyreg
import io
import pickle
import threading

import ccloudpickle

__all__ = ["install_multiprocessing", "wrap"]

# The key under which spawn/forkserver children receive the installer in
# their preparation data (multiprocessing.spawn.prepare ignores keys it
# does not know).
PREP_KEY = "ccloudpickle_install_multiprocessing"

_lock = threading.RLock()
# While installed: the original objects, as [(module, name, value)].
_saved = None
_ForkingCloudPickler = None


def _pickler_class():
    """ForkingCloudPickler, made once from the original ForkingPickler."""
    global _ForkingCloudPickler
    if _ForkingCloudPickler is not None:
        return _ForkingCloudPickler
    from multiprocessing import reduction

    original = reduction.ForkingPickler  # only called before rebinding

    class ForkingCloudPickler(ccloudpickle.Pickler):
        """multiprocessing's ForkingPickler on ccloudpickle's Pickler."""

        # The very dict of the original: register() on either is seen by both.
        _extra_reducers = original._extra_reducers
        _copyreg_dispatch_table = copyreg.dispatch_table

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            table = self._copyreg_dispatch_table.copy()
            table.update(self._extra_reducers)
            self.dispatch_table = table

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

    ForkingCloudPickler.__module__ = __name__
    ForkingCloudPickler.__qualname__ = "ForkingCloudPickler"
    _ForkingCloudPickler = ForkingCloudPickler
    return ForkingCloudPickler


class _ChildInstaller:
    """Unpickles as a call of ccloudpickle.install_multiprocessing()."""

    __slots__ = ()

    def __reduce__(self):
        return (ccloudpickle.install_multiprocessing, ())

    def __repr__(self):
        return "<ccloudpickle.install_multiprocessing() in the child>"


def _wrap_preparation_data(original):
    def get_preparation_data(name):
        data = original(name)
        data[PREP_KEY] = _ChildInstaller()
        return data

    get_preparation_data.__wrapped__ = original
    get_preparation_data.__doc__ = original.__doc__
    return get_preparation_data


def install_multiprocessing(enable=True):
    """Make multiprocessing and concurrent.futures pickle with ccloudpickle.

    Pool, Queue, SimpleQueue, Pipe/Connection.send, ProcessPoolExecutor and
    the Process object sent to spawn/forkserver children then send
    lambdas, closures and classes defined in __main__ by value, for the
    fork, spawn and forkserver start methods; spawn and forkserver children
    install it too. Idempotent, and usable as a pool's initializer.
    install_multiprocessing(False) restores multiprocessing's own pickler.
    Returns None.
    """
    global _saved
    with _lock:
        if enable:
            if _saved is not None:
                return None
            # Import every module that binds the pickler now, so that none
            # binds the original later.
            import multiprocessing.connection as connection
            import multiprocessing.queues as queues
            import multiprocessing.reduction as reduction
            import multiprocessing.spawn as spawn

            cls = _pickler_class()
            saved = [
                (reduction, "ForkingPickler", reduction.ForkingPickler),
                (connection, "_ForkingPickler", connection._ForkingPickler),
                (queues, "_ForkingPickler", queues._ForkingPickler),
                (spawn, "get_preparation_data", spawn.get_preparation_data),
            ]
            for module, name, _ in saved[:3]:
                setattr(module, name, cls)
            spawn.get_preparation_data = _wrap_preparation_data(
                spawn.get_preparation_data)
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

    def __init__(self, obj, keep_wrapper=True):
        object.__setattr__(self, "__wrapped__", obj)
        object.__setattr__(self, "_keep_wrapper", keep_wrapper)

    def __getattr__(self, name):
        return getattr(object.__getattribute__(self, "__wrapped__"), name)

    def __reduce__(self):
        obj = self.__wrapped__
        try:
            data = ccloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
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
    """Load-side of wrap(): the object, wrapped again unless told not to."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("ccloudpickle.wrap: expected bytes, got %s"
                        % type(data).__name__)
    obj = pickle.loads(data)
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
