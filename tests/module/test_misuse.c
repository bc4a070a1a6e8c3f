/* test_misuse.c - a Pickler used in ways its authors did not plan for:
 * globals_ref cleared or replaced between and during dumps, __init__
 * called again, clear_memo, a dump after a failed one, Python subclasses
 * overriding reducer_override and dump, files whose write() raises, and a
 * dispatch_table reducer that drops its own table. Each must give a pickle
 * that loads as it should, or a clean exception: never a crash or a
 * corrupt pickle. */
#include "support.h"

TestSuite(misuse, .init = cpk_py_start, .fini = cpk_py_stop);

/* Objects made after the base globals dict was freed take its address;
 * a pickler still pointing there writes them instead. */
#define DECOYS "decoys = [{'decoy': i} for i in range(200)]\n"

Test(misuse, globals_ref_cleared_between_dumps)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "y = 3\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dump(lambda: y)\n"
           "p.clear_memo()\n"
           "p.globals_ref.clear()\n"
           DECOYS
           "p.dump(lambda: y + 1)\n"
           /* After clear_memo, each pickle loads on its own. */
           "buf.seek(0)\n"
           "f1, f2 = cp.load(buf), cp.load(buf)\n"
           "assert f1() == 3 and f2() == 4\n"
           "assert 'decoy' not in f2.__globals__, f2.__globals__\n"
           /* cloudpickle's setdefault: a fresh entry after the clear. */
           "assert len(p.globals_ref) == 1\n");
}

Test(misuse, globals_ref_entry_replaced_is_used)
{
    /* The map is cloudpickle's: what the user puts there is what ships. */
    cpk_py("import ccloudpickle as cp, io\n"
           "y = 3\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dump(lambda: y)\n"
           "key, = p.globals_ref\n"
           "p.globals_ref[key] = {'__name__': __name__, 'marker': 1}\n"
           "p.dump(lambda: y + 1)\n"
           "buf.seek(0)\n"
           "u = cp.Unpickler(buf)\n"
           "f1, f2 = u.load(), u.load()\n"
           "assert f1() == 3 and f2() == 4\n"
           "assert f2.__globals__.get('marker') == 1\n"
           "assert 'marker' not in f1.__globals__\n");
}

Test(misuse, globals_ref_replaced_with_another_dict)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "y = 5\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dump(lambda: y)\n"
           "p.clear_memo()\n"
           "p.globals_ref = {}\n"
           DECOYS
           "p.dump(lambda: y * 2)\n"
           "assert len(p.globals_ref) == 1\n"
           "buf.seek(0)\n"
           "f1, f2 = cp.load(buf), cp.load(buf)\n"
           "assert f1() == 5 and f2() == 10\n"
           "assert 'decoy' not in f2.__globals__\n");
    cpk_py_raises("import ccloudpickle as cp, io\n"
                  "cp.Pickler(io.BytesIO()).globals_ref = [1]\n",
                  "TypeError", "globals_ref must be a dict");
    cpk_py_raises("import ccloudpickle as cp, io\n"
                  "del cp.Pickler(io.BytesIO()).globals_ref\n",
                  "TypeError", "cannot be deleted");
}

Test(misuse, globals_ref_cleared_while_a_function_is_reduced)
{
    /* A global of the function is a module whose __package__ runs code:
     * it clears globals_ref in the middle of the function's reduction,
     * freeing the base globals dict the reducer is using. */
    cpk_py("import ccloudpickle as cp, importlib, io, sys, types\n"
           "class Pkg(types.ModuleType):\n"
           "    def __reduce__(self):\n"
           "        return (importlib.import_module, (self.__name__,))\n"
           "    @property\n"
           "    def __package__(self):\n"
           "        p.globals_ref.clear()\n"
           "        global decoys\n"
           "        decoys = [{'decoy': i} for i in range(200)]\n"
           "        return ''\n"
           "mod = Pkg('cpk_misuse_pkg')\n"
           "sys.modules['cpk_misuse_pkg'] = mod\n"
           "def f():\n"
           "    return mod\n"
           "for proto, compat in ((2, None), (5, None), (5, 'cloudpickle')):\n"
           "    buf = io.BytesIO()\n"
           "    p = cp.Pickler(buf, proto, compat=compat)\n"
           "    p.dump(f)\n"
           "    g = cp.loads(buf.getvalue())\n"
           "    assert g() is mod\n"
           "    assert 'decoy' not in g.__globals__, g.__globals__\n");
}

Test(misuse, function_attributes_reassigned_during_reduce)
{
    /* __module__ compares with __eq__ code that reassigns the function's
     * attributes while the reducer holds them. */
    cpk_py("import ccloudpickle as cp\n"
           "def f(a=1):\n"
           "    'doc'\n"
           "    return a\n"
           "class Mod(str):\n"
           "    def __eq__(self, other):\n"
           "        f.__doc__ = 'other ' + 'doc'\n"
           "        f.__defaults__ = (2,)\n"
           "        f.__code__ = (lambda a=1: a * 10).__code__\n"
           "        global decoys\n"
           "        decoys = [str(i) * 3 for i in range(300)]\n"
           "        return False\n"
           "    __hash__ = str.__hash__\n"
           "f.__module__ = Mod('elsewhere')\n"
           "g = cp.loads(cp.dumps(f))\n"
           "assert g.__doc__ in ('doc', 'other doc')\n"
           "assert g() in (1, 2, 10, 20), g()\n");
}

Test(misuse, init_again_with_other_file_protocol_and_compat)
{
    cpk_py("import ccloudpickle as cp, io, pickletools\n"
           "y = 7\n"
           "b1, b2, b3 = io.BytesIO(), io.BytesIO(), io.BytesIO()\n"
           "p = cp.Pickler(b1)\n"
           "p.dump(lambda: y)\n"
           "first = b1.getvalue()\n"
           "p.__init__(b2, 2)\n"
           "assert p.proto == 2\n"
           "assert len(p.globals_ref) == 0, 'globals shared across __init__'\n"
           DECOYS
           "p.dump(lambda: y + 1)\n"
           "assert b1.getvalue() == first, 'wrote to the old file'\n"
           "assert b2.getvalue()[:2] == b'\\x80\\x02'\n"
           "g = cp.loads(b2.getvalue())\n"
           "assert g() == 8 and 'decoy' not in g.__globals__\n"
           "p.__init__(b3, protocol=5, compat='cloudpickle')\n"
           "p.dump(lambda: y + 2)\n"
           "data = b3.getvalue()\n"
           "assert data[:2] == b'\\x80\\x05' and b'cloudpickle' in data\n"
           "assert cp.loads(data)() == 9\n"
           /* Keyword and positional forms agree. */
           "p.__init__(file=b1, protocol=3)\n"
           "assert p.proto == 3\n");
}

Test(misuse, init_again_with_bad_arguments_leaves_a_clean_error)
{
    cpk_py("import ccloudpickle as cp, io, pickle\n"
           "p = cp.Pickler(io.BytesIO())\n"
           "p.dump(lambda: 1)\n"
           "for args, kw, exc in (((io.BytesIO(), 99), {}, ValueError),\n"
           "                      ((io.BytesIO(),), {'compat': 'dill'}, ValueError),\n"
           "                      ((object(),), {}, TypeError),\n"
           "                      ((), {}, TypeError)):\n"
           "    try:\n"
           "        p.__init__(*args, **kw)\n"
           "        raise AssertionError('accepted %r %r' % (args, kw))\n"
           "    except exc:\n"
           "        pass\n"
           /* Still usable once initialised properly again. */
           "buf = io.BytesIO()\n"
           "p.__init__(buf)\n"
           "p.dump(lambda: 2)\n"
           "assert cp.loads(buf.getvalue())() == 2\n");
}

Test(misuse, uninitialised_pickler_refuses_to_dump)
{
    cpk_py_raises("import ccloudpickle as cp\n"
                  "class Lazy(cp.Pickler):\n"
                  "    def __init__(self, file):\n"
                  "        pass\n"
                  "Lazy(None).dump(lambda: 1)\n",
                  "PicklingError", "__init__() was not called");
    /* Its other entry points stay safe too. */
    cpk_py("import ccloudpickle as cp\n"
           "class Lazy(cp.Pickler):\n"
           "    def __init__(self, file):\n"
           "        pass\n"
           "p = Lazy(None)\n"
           "assert p.globals_ref == {}\n"
           "r = p.reducer_override(lambda: 1)\n"
           "assert isinstance(r, tuple)\n"
           "assert p.reducer_override(1) is NotImplemented\n");
}

Test(misuse, clear_memo_between_dumps)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "X = [1]\n"
           "def a(): return X\n"
           "def b(): return X\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dump(a)\n"
           "p.clear_memo()\n"
           "p.dump(b)\n"
           "p.clear_memo()\n"
           "p.dump([a, b])\n"
           "buf.seek(0)\n"
           "a1 = cp.load(buf)\n"
           "b1 = cp.load(buf)\n"
           "a2, b2 = cp.load(buf)\n"
           "assert a1() == b1() == a2() == b2() == [1]\n"
           "assert a2.__globals__ is b2.__globals__\n"
           "assert a2() is b2()\n");
}

Test(misuse, dump_after_a_failed_dump)
{
    cpk_py("import ccloudpickle as cp, io, threading\n"
           "lock = threading.local()\n"
           "y = 4\n"
           "f = lambda: y\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "try:\n"
           "    p.dump([f, lock])\n"
           "    raise AssertionError('pickled a lock')\n"
           "except TypeError:\n"
           "    pass\n"
           "assert buf.getvalue() == b'', 'a failed dump wrote'\n"
           /* f was memoized by the failed dump: it must be written again. */
           "p.dump([f, lambda: y + 1])\n"
           "g, h = cp.loads(buf.getvalue())\n"
           "assert g() == 4 and h() == 5\n"
           /* The same after clear_memo(), loading each pickle alone. */
           "p.clear_memo()\n"
           "try:\n"
           "    p.dump([f, {'k': lock}])\n"
           "    raise AssertionError('pickled a lock')\n"
           "except TypeError:\n"
           "    pass\n"
           "p.dump([f, f])\n"
           "buf.seek(0)\n"
           "cp.load(buf)\n"
           "g1, g2 = cp.load(buf)\n"
           "assert g1 is g2 and g1() == 4\n");
}

Test(misuse, file_whose_write_raises)
{
    cpk_py("import ccloudpickle as cp\n"
           "class Broken:\n"
           "    calls = 0\n"
           "    def write(self, data):\n"
           "        Broken.calls += 1\n"
           "        raise OSError(28, 'No space left on device')\n"
           "p = cp.Pickler(Broken())\n"
           "for obj in (1, lambda: 1, list(range(100000))):\n"
           "    try:\n"
           "        p.dump(obj)\n"
           "        raise AssertionError('write error lost')\n"
           "    except OSError as e:\n"
           "        assert e.errno == 28\n"
           "assert Broken.calls >= 3\n"
           "try:\n"
           "    cp.dump(lambda: 2, Broken())\n"
           "    raise AssertionError('write error lost')\n"
           "except OSError as e:\n"
           "    assert e.errno == 28\n");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.Pickler(object())\n",
                  "TypeError", "write");
}

Test(misuse, python_subclass_overrides_reducer_override_and_dump)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "class Special:\n"
           "    pass\n"
           "seen = []\n"
           "class Sub(cp.Pickler):\n"
           "    def reducer_override(self, obj):\n"
           "        if isinstance(obj, Special):\n"
           "            return (str, ('special',))\n"
           "        return super().reducer_override(obj)\n"
           "    def dump(self, obj):\n"
           "        seen.append(obj)\n"
           "        return super().dump(obj)\n"
           "y = 2\n"
           "buf = io.BytesIO()\n"
           "Sub(buf).dump([Special(), lambda: y])\n"
           "s, f = cp.loads(buf.getvalue())\n"
           "assert s == 'special' and f() == 2 and len(seen) == 1\n"
           /* A reducer_override that skips ours: plain pickle rules. */
           "class Plain(cp.Pickler):\n"
           "    def reducer_override(self, obj):\n"
           "        return NotImplemented\n"
           "try:\n"
           "    Plain(io.BytesIO()).dump(lambda: 1)\n"
           "    raise AssertionError('lambda pickled by reference')\n"
           "except Exception as e:\n"
           "    assert 'lambda' in str(e), e\n"
           /* A dump() that never calls ours: nothing written, no crash. */
           "class Noop(cp.Pickler):\n"
           "    def dump(self, obj):\n"
           "        return 'nothing'\n"
           "b = io.BytesIO()\n"
           "assert Noop(b).dump(1) == 'nothing' and b.getvalue() == b''\n"
           /* A reducer_override that raises: the error, unchanged. */
           "class Raising(cp.Pickler):\n"
           "    def reducer_override(self, obj):\n"
           "        raise ValueError('from reducer_override')\n"
           "try:\n"
           "    Raising(io.BytesIO()).dump(lambda: 1)\n"
           "    raise AssertionError('error lost')\n"
           "except ValueError as e:\n"
           "    assert str(e) == 'from reducer_override'\n");
}

Test(misuse, dispatch_table_reducer_drops_its_own_table)
{
    /* The reducer replaces the table it came from, the table's last
     * owner: the pickler must keep the reducer alive for its own call. */
    cpk_py("import ccloudpickle as cp, functools, io, types, weakref\n"
           "alive = []\n"
           "def reduce_function(f):\n"
           "    p.dispatch_table = {}\n"
           "    alive.append(ref() is not None)\n"
           "    return (str, (f.__name__,))\n"
           "def named():\n"
           "    pass\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dispatch_table = {types.FunctionType: functools.partial(reduce_function)}\n"
           "ref = weakref.ref(p.dispatch_table[types.FunctionType])\n"
           "p.dump(named)\n"
           "assert cp.loads(buf.getvalue()) == 'named'\n"
           "assert alive == [True], 'reducer freed during its own call'\n"
           "assert ref() is None, 'reducer leaked'\n");
    /* The same through this instance's view of the default table. */
    cpk_py("import ccloudpickle as cp, functools, io, weakref\n"
           "class Foo:\n"
           "    pass\n"
           "alive = []\n"
           "def reduce_foo(obj):\n"
           "    p.dispatch_table.maps[0].clear()\n"
           "    alive.append(ref() is not None)\n"
           "    return (str, ('foo',))\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dispatch_table[Foo] = functools.partial(reduce_foo)\n"
           "ref = weakref.ref(p.dispatch_table[Foo])\n"
           "p.dump(Foo())\n"
           "assert cp.loads(buf.getvalue()) == 'foo'\n"
           "assert alive == [True]\n"
           "assert ref() is None\n");
}
