"""Source text for portable pickles (companion of src/types/portable.c).

``dumps(obj, portable=True)`` ships, beside each by-value function's
bytecode, the source it was compiled from, so that another CPython version
can compile it again. :func:`find` locates a code object's ``def`` or
``lambda`` in its file (``linecache``, ``ast``) and proves it is the
running code: it rebuilds the function's lexical nest (enclosing classes
for name mangling and ``super()``'s ``__class__`` cell, an enclosing
function binding its free variables), compiles that, and compares the code
it gets with the live one, field by field, nested code included. Only a
proven match is shipped; otherwise the reason is. :func:`compile_portable`
is the loading side.

A shipped source is ``(text, filename, name, line, flags, shift)``:
``text`` is a module whose compilation holds the target code object, the
one named ``name`` whose first line is ``line`` (the first found, breadth
first), once ``shift`` blank lines are put before it; ``flags`` are the
``__future__`` flags it is compiled with. The blank lines (not shipped:
the nest above the target is a few lines) make every line number the
file's: tracebacks, co_firstlineno, 3.13's ``__firstlineno__`` constant
of a class body.
"""

import ast
import linecache
import sys

# __future__ features that change compilation (co_flags keeps them).
_FUTURE_MASK = 0
for _name in ("annotations", "generator_stop", "barry_as_FLUFL"):
    _FUTURE_MASK |= getattr(__import__("__future__"), _name).compiler_flag

_CODE_FIELDS = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount",
                "co_flags", "co_code", "co_names", "co_varnames",
                "co_freevars", "co_cellvars", "co_name")

# filename -> (lines, parents, index, imports): a file is parsed once per
# version of its text (linecache's lines list is replaced when the file
# changes).
_parsed = {}


def _parse(filename):
    lines = linecache.getlines(filename)
    if not lines:
        return None, "no source: %s cannot be read" % filename
    hit = _parsed.get(filename)
    if hit is not None and hit[0] is lines:
        return hit, None
    try:
        tree = ast.parse("".join(lines), filename)
    except (SyntaxError, ValueError, RecursionError) as e:
        return None, "its file %s does not parse (%s)" % (filename, e)
    parents = {}
    index = {}  # (name, first line) -> def or lambda nodes
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
        if isinstance(node, ast.Lambda):
            index.setdefault(("<lambda>", node.lineno), []).append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            index.setdefault((node.name, _first_line(node)), []).append(node)
    hit = (lines, parents, index, _module_imports(tree, parents))
    if len(_parsed) > 64:
        _parsed.clear()
    _parsed[filename] = hit
    return hit, None


def _module_imports(tree, parents):
    """{bound name: import statement} for the file's module-level imports
    (also under if/try, not in a def or class). 3.11+ compile a method
    call on a name a module-level import binds differently (LOAD_ATTR
    rather than LOAD_METHOD): the rebuilt text must bind it the same way.
    Star and __future__ imports bind nothing that matters here."""
    found = {}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        p = parents.get(node)
        while p is not None and not isinstance(p, (ast.Module, _SCOPES)):
            p = parents.get(p)
        if not isinstance(p, ast.Module):
            continue
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        for alias in node.names:
            if alias.name == "*":
                continue
            asname = " as " + alias.asname if alias.asname else ""
            if isinstance(node, ast.Import):
                bound = alias.asname or alias.name.split(".")[0]
                stmt = "import " + alias.name + asname
            else:
                bound = alias.asname or alias.name
                stmt = "from %s%s import %s%s" % (
                    "." * node.level, node.module or "", alias.name, asname)
            found.setdefault(bound, stmt)
    return found


def _all_names(code, out):
    out.update(code.co_names)
    for k in code.co_consts:
        if hasattr(k, "co_code"):
            _all_names(k, out)
    return out


def _same_const(a, b):
    if type(a) is not type(b):
        return False
    if hasattr(a, "co_code"):
        return _same_code(a, b)
    if isinstance(a, (tuple, frozenset)):
        if len(a) != len(b):
            return False
        if isinstance(a, frozenset):
            return a == b
        return all(_same_const(x, y) for x, y in zip(a, b))
    if isinstance(a, (float, complex)):
        return repr(a) == repr(b)  # 0.0 and -0.0 differ, nan equals nan
    return a == b


def _same_code(a, b):
    for f in _CODE_FIELDS:
        if getattr(a, f) != getattr(b, f):
            return False
    # 3.11+: where each handler covers (None before).
    if getattr(a, "co_exceptiontable", None) != \
            getattr(b, "co_exceptiontable", None):
        return False
    if len(a.co_consts) != len(b.co_consts):
        return False
    return all(_same_const(x, y) for x, y in zip(a.co_consts, b.co_consts))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _segment(lines, node):
    """The source text of `node` (ast's offsets count UTF-8 bytes)."""
    first, last = node.lineno - 1, node.end_lineno - 1
    if last >= len(lines):
        return None
    try:
        if first == last:
            return lines[first].encode()[
                node.col_offset:node.end_col_offset].decode()
        return "".join(
            [lines[first].encode()[node.col_offset:].decode()] +
            lines[first + 1:last] +
            [lines[last].encode()[:node.end_col_offset].decode()])
    except UnicodeDecodeError:
        return None


def _first_line(node):
    decos = getattr(node, "decorator_list", None)
    return decos[0].lineno if decos else node.lineno


def _prefix(lines, node):
    line = lines[_first_line(node) - 1]
    return line[:len(line) - len(line.lstrip())]


def _inside(scope, path):
    """Is path[0] (reached through path[1:], innermost first) evaluated in
    `scope`'s own namespace? Decorators, defaults, annotations, a class's
    bases and keywords, and a comprehension's first iterable are evaluated
    in the enclosing one."""
    child = path[-1]  # the direct child of `scope` on the way
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef,
                          ast.ClassDef)):
        return any(child is b for b in scope.body)
    if isinstance(scope, ast.Lambda):
        return child is scope.body
    # A comprehension: all but generators[0].iter.
    first = scope.generators[0]
    if child is first and len(path) >= 2 and path[-2] is first.iter:
        return False
    return True


def _wrapper(lines, parents, node, code):
    """(text, line, shift): the module text holding `node` in its lexical
    nest, the line the target's code starts on once shifted, the shift."""
    chain = []
    is_lambda = isinstance(node, ast.Lambda)
    path = [node]
    p = parents.get(node)
    while p is not None and not isinstance(p, ast.Module):
        if isinstance(p, _SCOPES):
            if _inside(p, path):
                chain.append(p)
        elif not is_lambda and isinstance(p, ast.stmt):
            chain.append(p)
        path.append(p)
        p = parents.get(p)
    chain.reverse()
    free = [n for n in code.co_freevars
            if n not in ("__class__", "__classdict__")]
    out = []
    if is_lambda:
        # Inside parentheses indentation is free: a synthetic nest, one
        # space per level, each scope a def or class header.
        # Free variables are bound in the innermost function of the nest
        # (a class body between it and the lambda keeps its qualname).
        depth = 0
        inner_fn = max((i for i, a in enumerate(chain)
                        if not isinstance(a, ast.ClassDef)), default=-1)
        for i, anc in enumerate(chain):
            if isinstance(anc, ast.ClassDef):
                out.append(" " * depth + "class %s:" % anc.name)
            else:
                name = getattr(anc, "name", "__cpk_scope__")
                out.append(" " * depth + "def %s():" % name)
            depth += 1
            if i == inner_fn and free:
                out.append(" " * depth + " = ".join(free) + " = None")
        if free and inner_fn < 0:
            out.append(" " * depth + "def __cpk_scope__():")
            depth += 1
            out.append(" " * depth + " = ".join(free) + " = None")
        text = _segment(lines, node)
        if text is None:
            return None, 0, 0
        # The lambda on its own column (in UTF-8 bytes, as the line
        # tables count) when the nest leaves room: its positions are the
        # file's.
        col = node.col_offset
        if col > depth:
            body = [" " * depth + "(" + " " * (col - depth - 1) + text + ")"]
        else:
            body = [" " * depth + "(" + text + ")"]
        target_offset = 0
    else:
        # A def's own lines keep their indentation: every header of its
        # nest keeps its original indentation too.
        # A compound statement holding it (if, for, with, try, match)
        # becomes "if 1:", which keeps its indentation and no more.
        heads = [(anc, _prefix(lines, anc)) for anc in chain]
        inner_fn = max((i for i, (a, _) in enumerate(heads)
                        if isinstance(a, (ast.FunctionDef,
                                          ast.AsyncFunctionDef))),
                       default=-1)
        last = None
        for i, (anc, pre) in enumerate(heads):
            if isinstance(anc, ast.ClassDef):
                out.append(pre + "class %s:" % anc.name)
            elif isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append(pre + "def %s():" % anc.name)
            elif pre != last:
                out.append(pre + "if 1:")
            # else: an elif (an If in the orelse of one at the same
            # indentation): the header above holds it already.
            last = pre
            if i == inner_fn and free:
                nxt = heads[i + 1][1] if i + 1 < len(heads) else \
                    _prefix(lines, node)
                out.append(nxt + " = ".join(free) + " = None")
        if free and inner_fn < 0:
            return None, 0, 0
        start = _first_line(node)
        body = lines[start - 1:node.end_lineno]
        body = [b.rstrip("\n") for b in body]
        target_offset = 0
    # Shifted, the target is on its original line when the nest fits
    # above it, so tracebacks and line numbers match the file.
    text = "\n".join(out + body) + "\n"
    shift = code.co_firstlineno - 1 - len(out)
    if shift >= 0:
        return text, code.co_firstlineno, shift
    return text, len(out) + 1 + target_offset, 0


def _find_code(top, name, line):
    todo = [top]
    while todo:
        nxt = []
        for c in todo:
            for k in c.co_consts:
                if hasattr(k, "co_code"):
                    if k.co_name == name and k.co_firstlineno == line:
                        return k
                    nxt.append(k)
        todo = nxt
    return None


# The most blank lines a shipped source may ask for (a file of ten
# million lines; more would be a hostile pickle's memory bomb).
_MAX_SHIFT = 10 ** 7


def _compile(text, filename, flags, shift):
    # optimize=0 on both sides: under -O the running code lacks its
    # asserts, and an edit inside one would be "proven" yet run elsewhere;
    # at level 0 such code simply does not match (not portable).
    return compile("\n" * shift + text, filename, "exec", flags,
                   dont_inherit=True, optimize=0)


def find(code):
    """(source, None) for code whose source is found and proven, else
    (None, reason)."""
    filename = code.co_filename
    # A pseudo-file has source only where its maker put it in linecache
    # (IPython's cells, 3.13's REPL): proven as any other.
    if filename.startswith("<") and filename.endswith(">") and \
            not linecache.getlines(filename):
        return None, "no source file (%s)" % filename
    hit, why = _parse(filename)
    if hit is None:
        return None, why
    lines, parents, index, imports = hit
    line = code.co_firstlineno
    name = code.co_name
    cands = index.get((name, line))
    if not cands:
        return None, ("its source is not at %s, line %d (the file changed "
                      "since?)" % (filename, line))
    flags = code.co_flags & _FUTURE_MASK
    for node in cands:
        text, at, shift = _wrapper(lines, parents, node, code)
        if text is None:
            continue
        # After the target (no line moves): the module-level imports of
        # the names the code uses.
        used = sorted(n for n in _all_names(code, set()) if n in imports)
        if used:
            text += "".join(imports[n] + "\n" for n in used)
        try:
            top = _compile(text, filename, flags, shift)
        except (SyntaxError, ValueError, RecursionError):
            continue
        got = _find_code(top, name, at)
        if got is not None and _same_code(got, code):
            return (text, filename, name, at, flags, shift), None
    return None, ("its source at %s, line %d does not compile to the "
                  "running code (the file changed since?)" % (filename, line))


def compile_portable(source, qualname=None):
    """The code object of a shipped source, compiled by this Python."""
    text, filename, name, line, flags, shift = source
    # Only __future__ features: other flags would make compile() return
    # an AST, accept top-level await, and so on.
    if flags & ~_FUTURE_MASK:
        raise ValueError("flags %#x are not __future__ features" % flags)
    if not 0 <= shift <= _MAX_SHIFT:
        raise ValueError("line shift %d out of range" % shift)
    top = _compile(text, filename, flags, shift)
    got = _find_code(top, name, line)
    if got is None:
        raise ValueError("no code %r at line %d in the shipped source"
                         % (name, line))
    return got
