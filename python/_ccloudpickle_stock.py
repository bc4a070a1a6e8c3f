"""Stock cloudpickle imported after ccloudpickle (companion of src/stock.c).

ccloudpickle's meta path watcher (the C type ``ccloudpickle._StockWatcher``,
first on ``sys.meta_path``) calls :func:`find_spec` when
``cloudpickle.cloudpickle`` is about to be imported. The spec the other
finders give is returned with a loader that, once the module has run,
makes it share ccloudpickle's by-value registry and class tracker
(``ccloudpickle._share_with_stock``). Imported only then.
"""

import sys
from _thread import get_ident

# (name, thread) pairs being looked up: a second watcher (another
# ccloudpickle module object) must not send the lookup round again.
_busy = set()


class _SharingLoader:
    """Wraps a loader: runs the module, then shares with it."""

    def __init__(self, loader, ccloudpickle):
        self._loader = loader
        self._ccloudpickle = ccloudpickle

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._ccloudpickle._share_with_stock(module)

    def __getattr__(self, name):
        # get_source, get_code, get_filename, is_package, ...
        return getattr(self._loader, name)

    def __repr__(self):
        return "<ccloudpickle sharing loader for %r>" % (self._loader,)


def find_spec(watcher, ccloudpickle, fullname, path=None, target=None):
    """The spec of `fullname` from the finders after `watcher`, its
    loader wrapped; None where they have none."""
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
            loader = spec.loader
            if loader is not None and hasattr(loader, "exec_module"):
                spec.loader = _SharingLoader(loader, ccloudpickle)
            return spec
        return None
    finally:
        _busy.discard(key)
