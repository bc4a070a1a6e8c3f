# Type stubs of the ccloudpickle extension module (src/module.c and the
# companion modules it forwards to). Installed twice by pip: as the
# stub-only package ccloudpickle-stubs/__init__.pyi (what mypy reads, PEP
# 561) and as ccloudpickle.pyi beside the extension (pyright, IDEs).
# tests/packaging/test_packaging.c checks that the public names here are exactly the
# module's: a new public function needs its stub.
import pickle
from types import ModuleType
from typing import (Any, Callable, Iterable, Optional, Protocol, Set,
                    Union)

from pickle import PicklingError as PicklingError
from pickle import UnpicklingError as UnpicklingError

# What the buffer protocol accepts (typing_extensions.Buffer from 3.12).
_Buffer = Union[bytes, bytearray, memoryview]
_Key = Union[bytes, bytearray, memoryview]
_Patterns = Iterable[str]


class _ReadableFile(Protocol):
    def read(self, n: int = ..., /) -> bytes: ...
    def readline(self) -> bytes: ...


class _WritableFile(Protocol):
    def write(self, data: bytes, /) -> Any: ...


__version__: str
DEFAULT_PROTOCOL: int
HIGHEST_PROTOCOL: int
FORMAT: int  # the pickle format this version writes (doc/FORMAT.md)


class PolicyError(UnpicklingError):
    """loads()/load() with allow= or deny= refused the pickle."""


class SignatureError(UnpicklingError):
    """A signed pickle was refused before anything in it ran."""


class FormatError(UnpicklingError):
    """The pickle needs a newer format than this version loads."""


class ReconstructorTypeError(UnpicklingError, TypeError):
    """A reconstructor got an argument of the wrong type or count."""


class ReconstructorValueError(UnpicklingError, ValueError):
    """A reconstructor got an argument of the right type, wrong value."""


class Pickler(pickle.Pickler):
    """cloudpickle's CloudPickler, in C.

    When dump() fails, the exception (same type, traceback and cause) gets
    the path to the culprit, e.g. the note "when pickling
    handler.__globals__['client'].conn['lock'] (_thread.lock)" on 3.11+
    (before 3.11: after its message, when its args are one str). Finding
    it pickles parts of the object again, so their __reduce__ code runs
    again; set diagnose = False (instance or subclass) to skip that.
    Subclasses overriding reducer_override or persistent_id get no path.
    """

    dispatch_table: Any
    globals_ref: dict
    diagnose: bool

    def __init__(
        self,
        file: _WritableFile,
        protocol: Optional[int] = None,
        buffer_callback: Optional[Callable[[pickle.PickleBuffer], Any]] = None,
        *,
        compat: Optional[str] = None,
        portable: bool = False,
        format: Optional[int] = None,
    ) -> None: ...
    def reducer_override(self, obj: Any) -> Any: ...


CloudPickler = Pickler


class Unpickler(pickle.Unpickler):
    """A pickle.Unpickler that also reads stock cloudpickle's pickles."""

    def __init__(
        self,
        file: _ReadableFile,
        *,
        fix_imports: bool = True,
        encoding: str = "ASCII",
        errors: str = "strict",
        buffers: Optional[Iterable[Any]] = (),
    ) -> None: ...


def dumps(
    obj: Any,
    protocol: Optional[int] = None,
    buffer_callback: Optional[Callable[[pickle.PickleBuffer], Any]] = None,
    *,
    compat: Optional[str] = None,
    sign_key: Optional[_Key] = None,
    diagnose: bool = True,
    portable: bool = False,
    format: Optional[int] = None,
) -> bytes:
    """Pickle obj. A failure names the culprit's path (see Pickler); the
    search re-pickles parts of obj (user __reduce__ code runs again):
    diagnose=False skips it. portable=True also ships the proven source of
    each function carried by value, so another CPython version can run it
    (not with compat=). format=N (1 to FORMAT) writes what the ccloudpickle
    release of format N loads (doc/FORMAT.md; not with compat=)."""


def dump(
    obj: Any,
    file: _WritableFile,
    protocol: Optional[int] = None,
    buffer_callback: Optional[Callable[[pickle.PickleBuffer], Any]] = None,
    *,
    compat: Optional[str] = None,
    sign_key: Optional[_Key] = None,
    diagnose: bool = True,
    portable: bool = False,
    format: Optional[int] = None,
) -> None:
    """Pickle obj to file; failures, portable= and format= as in dumps()."""


def loads(
    data: _Buffer,
    /,
    *,
    fix_imports: bool = True,
    encoding: str = "ASCII",
    errors: str = "strict",
    buffers: Optional[Iterable[Any]] = None,
    verify_key: Optional[_Key] = None,
    allow: Optional[_Patterns] = None,
    deny: Optional[_Patterns] = None,
) -> Any: ...


def load(
    file: _ReadableFile,
    *,
    fix_imports: bool = True,
    encoding: str = "ASCII",
    errors: str = "strict",
    buffers: Optional[Iterable[Any]] = None,
    verify_key: Optional[_Key] = None,
    allow: Optional[_Patterns] = None,
    deny: Optional[_Patterns] = None,
) -> Any: ...


def register_pickle_by_value(module: ModuleType) -> None: ...
def unregister_pickle_by_value(module: ModuleType) -> None: ...
def list_registry_pickle_by_value() -> Set[str]: ...

# Reconstructors that pickles name (doc/FORMAT.md).
def subimport(name: str) -> ModuleType: ...
def dynamic_subimport(name: str, vars: dict) -> ModuleType: ...

# Forwarded to the companion modules _ccloudpickle_alias and
# _ccloudpickle_engines (python/).
def install_alias(*, replace: bool = ..., compat: Optional[str] = ...) -> ModuleType: ...
def check_workers(client: Any) -> dict[str, str]: ...
def install_multiprocessing(enable: bool = ...,
                            warn_globals: Optional[int] = ...) -> None: ...
def wrap(obj: Any, keep_wrapper: bool = ...) -> Any: ...
