"""Class keywords read back from source (companion of src/types/classkw.c).

``class CsvReader(Reader, fmt="csv")`` passes ``fmt`` to the metaclass
and to ``Reader.__init_subclass__``, and CPython keeps it nowhere on the
class. ccloudpickle, pickling such a class by value, asks
:func:`class_keywords` for them so that loading can pass them again: the
defining file's text (linecache), its ``ClassDef`` of that qualified name
(ast), each keyword's value a literal or a name of the defining module
as it is bound now (a class statement in a loop, which rebinds its names
on every pass, takes literals only).
``None`` when they cannot be known: no source (exec'd code, a REPL), a
keyword naming a local of the enclosing function, ``**kwargs``, several
class statements of that name that the class cannot be told apart from.
Imported only when a class has a base defining ``__init_subclass__`` or
a metaclass of its own.
"""

import ast
import builtins
import linecache
import sys

# filename -> (linecache's list of lines, {qualname: [(ClassDef,
# enclosing function nodes)]}): one parse per file while linecache keeps
# the same text.
_cache = {}

_UNKNOWN = object()


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _index(tree):
    found = {}

    def walk(node, prefix, funcs, looped):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                q = prefix + child.name
                # A class statement a loop runs: its keywords' names were
                # bound to other values on other passes.
                child._cpk_looped = looped
                found.setdefault(q, []).append((child, funcs))
                walk(child, q + ".", funcs, looped)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                walk(child, prefix + child.name + ".<locals>.",
                     funcs + (child,), looped)
            elif isinstance(child, ast.stmt):
                walk(child, prefix, funcs,
                     looped or isinstance(child, _LOOPS))

    walk(tree, "", (), False)
    return found


def _classdefs(filename, module_globals):
    lines = linecache.getlines(filename, module_globals)
    if not lines:
        return None
    hit = _cache.get(filename)
    if hit is not None and hit[0] is lines:
        return hit[1]
    try:
        tree = ast.parse("".join(lines), filename)
    except (SyntaxError, ValueError):
        return None
    index = _index(tree)
    _cache[filename] = (lines, index)
    return index


def _functions(cls):
    """Code objects of the functions defined in the class body."""
    for v in vars(cls).values():
        for f in (v, getattr(v, "__func__", None), getattr(v, "fget", None)):
            code = getattr(f, "__code__", None)
            if code is not None and hasattr(code, "co_firstlineno"):
                yield code
                break


def _first_line(node):
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


def _pick(cls, candidates):
    """The ClassDef of `cls` among those of its qualified name."""
    first = vars(cls).get("__firstlineno__")  # 3.13
    if isinstance(first, int):
        hits = [c for c in candidates if _first_line(c[0]) == first]
        return hits[0] if len(hits) == 1 else None
    if len(candidates) == 1:
        return candidates[0]
    lines = [c.co_firstlineno for c in _functions(cls)]
    if lines:
        hits = [c for c in candidates
                if all(c[0].lineno <= n <= c[0].end_lineno for n in lines)]
        if len(hits) == 1:
            return hits[0]
    return None


def _bound_names(func):
    """Names a function binds (parameters, assignments, imports, defs)."""
    names = set()
    a = func.args
    for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
        if arg is not None:
            names.add(arg.arg)
    for node in ast.walk(func):
        if node is func:
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                               ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return names


def _value(node, ns, local, names_ok=True):
    try:
        return ast.literal_eval(node)
    except Exception:
        pass
    if not names_ok:
        return _UNKNOWN
    if isinstance(node, ast.Name):
        if node.id in local:
            return _UNKNOWN
        if node.id in ns:
            return ns[node.id]
        return getattr(builtins, node.id, _UNKNOWN)
    if isinstance(node, ast.Attribute):
        base = _value(node.value, ns, local)
        if base is _UNKNOWN:
            return _UNKNOWN
        try:
            return getattr(base, node.attr)
        except Exception:
            return _UNKNOWN
    return _UNKNOWN


def _keywords(cls):
    module = sys.modules.get(getattr(cls, "__module__", None))
    ns = getattr(module, "__dict__", None)
    if not isinstance(ns, dict):
        return None
    filename = next((c.co_filename for c in _functions(cls)), None)
    if filename is None:
        filename = ns.get("__file__")
    if not isinstance(filename, str):
        return None
    index = _classdefs(filename, ns)
    qualname = getattr(cls, "__qualname__", None)
    if index is None or not isinstance(qualname, str):
        return None
    hit = _pick(cls, index.get(qualname, ()))
    if hit is None:
        return None
    node, funcs = hit
    local = set()
    for f in funcs:
        local |= _bound_names(f)
    out = {}
    for kw in node.keywords:
        if kw.arg is None:  # **kwargs
            return None
        if kw.arg == "metaclass":
            continue
        # A name is read as the module holds it now: what the class
        # statement saw unless rebound since, which a loop around the
        # statement does on every pass (for fmt in ...: class R(B,
        # fmt=fmt)): there, literals only.
        v = _value(kw.value, ns, local,
                   not getattr(node, "_cpk_looped", False))
        if v is _UNKNOWN:
            return None
        out[kw.arg] = v
    return out


def class_keywords(cls):
    """{keyword: value} of the class statement that made `cls` (without
    metaclass=), or None when they cannot be known."""
    try:
        return _keywords(cls)
    except Exception:
        return None
