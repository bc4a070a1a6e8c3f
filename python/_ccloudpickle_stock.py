"""Stock cloudpickle imported after ccloudpickle (companion of src/core/stock.c).

ccloudpickle's meta path watcher (the C type ``ccloudpickle._StockWatcher``,
first on ``sys.meta_path``) calls :func:`find_spec` when
``cloudpickle.cloudpickle`` is about to be imported. The spec the other
finders give is returned as a copy whose loader is a shallow copy of
theirs (same type, same state) with one instance attribute,
``exec_module``, that runs the module and then makes it share
ccloudpickle's by-value registry and class tracker
(``ccloudpickle._share_with_stock``). Specs of the ``cloudpickle`` alias,
loaders that cannot be copied that way, and anything unexpected are
returned as they are: ccloudpickle's next dump or load shares then (its
lazy refresh). Imported only then.
"""

import sys
from _thread import get_ident

# (name, thread) pairs being looked up: a second watcher (another
# ccloudpickle module object) must not send the lookup round again.
_busy = set()

_ALIAS_ORIGIN = "ccloudpickle alias"  # _ccloudpickle_alias.ORIGIN


class _ExecAndShare:
    """The ``exec_module`` of the loader copy: runs the module with the
    original loader's method, then shares with it."""

    __slots__ = ("exec_module", "ccloudpickle")

    def __init__(self, exec_module, ccloudpickle):
        self.exec_module = exec_module
        self.ccloudpickle = ccloudpickle

    def __call__(self, module):
        self.exec_module(module)
        self.ccloudpickle._share_with_stock(module)

    def __repr__(self):
        return "<ccloudpickle: %r, then sharing>" % (self.exec_module,)


def _sharing(spec, ccloudpickle):
    """`spec`, or a copy of it whose loader shares after running."""
    import copy
    loader = spec.loader
    if (loader is None or isinstance(loader, type)
            or spec.origin == _ALIAS_ORIGIN
            or isinstance(getattr(loader, "__dict__", {}).get("exec_module"),
                          _ExecAndShare)):
        return spec
    try:
        exec_module = loader.exec_module
        new_loader = copy.copy(loader)
        if new_loader is loader:
            return spec
        new_loader.exec_module = _ExecAndShare(exec_module, ccloudpickle)
        new_spec = copy.copy(spec)
        new_spec.loader = new_loader
    except Exception:
        return spec
    return new_spec


def find_spec(watcher, ccloudpickle, fullname, path=None, target=None):
    """The spec of `fullname` from the finders after `watcher`, made to
    share once run (see above); None where they have none."""
    key = (fullname, get_ident())
    if key in _busy:
        return None
    _busy.add(key)
    try:
        for finder in list(sys.meta_path):
            if finder is watcher:
                continue
            find = getattr(finder, "find_spec", None)
            if find is None:
                continue
            spec = find(fullname, path, target)
            if spec is None:
                continue
            return _sharing(spec, ccloudpickle)
        return None
    finally:
        _busy.discard(key)
