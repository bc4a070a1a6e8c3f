/* test_coverage_io.c - behaviour of the in-memory files behind dumps() and
 * loads() (memio.c) with pickles of many frames, bytes-like inputs of odd
 * shapes and protocol 0 line-based pickles, and of the culprit search
 * (_find_unpicklable, diagnose.c) through each kind of container it walks:
 * sets, classes, modules, cells, methods, function fields, reduction
 * states, long or failing key reprs, and its argument checks. */
#include "support.h"

TestSuite(coverage_io, .init = cpk_py_start, .fini = cpk_py_stop);

Test(coverage_io, dumps_of_many_frames_matches_pickle)
{
    /* Several frames, then a large bytes and a large bytearray written out
     * of frame (the latter as a memoryview): one output, byte for byte
     * what pickle writes, and it loads back. */
    cpk_py("import ccloudpickle as cp, pickle\n"
           "big = [str(i) * 7 for i in range(40000)]\n"
           "obj = [big, b'x' * 300000, bytearray(b'y' * 200000), 'end']\n"
           "for proto in (2, 4, 5):\n"
           "    data = cp.dumps(obj, proto)\n"
           "    assert type(data) is bytes\n"
           "    assert data == pickle.dumps(obj, proto), proto\n"
           "    assert cp.loads(data) == obj\n"
           "    assert cp.loads(bytearray(data)) == obj\n"
           "    assert cp._loads_exact(memoryview(data)) == obj\n");
}

Test(coverage_io, small_dumps_is_one_bytes_object)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "for obj in (None, 1, 'a', (), [1, 2]):\n"
           "    d = cp.dumps(obj)\n"
           "    assert d == pickle.dumps(obj, 5) and cp.loads(d) == obj\n");
}

Test(coverage_io, protocol0_pickles_read_line_by_line)
{
    /* Protocol 0 is line based: read from a bytearray (the reader, not
     * pickle.loads), with and without the exact-length check. */
    cpk_py("import ccloudpickle as cp, pickle\n"
           "obj = [1, 'ab', (2.5, None), {'k': b'v'}, 10**30]\n"
           "for proto in (0, 1):\n"
           "    d = pickle.dumps(obj, protocol=proto)\n"
           "    assert cp.loads(bytearray(d)) == obj\n"
           "    assert cp._loads_exact(bytearray(d)) == obj\n"
           "    assert cp.loads(bytearray(d) + b'junk') == obj\n");
    cpk_py_raises("import ccloudpickle as cp, pickle\n"
                  "cp._loads_exact(bytearray(pickle.dumps(5, 0)) + b'xyz')\n",
                  "UnpicklingError", "3 bytes of trailing data");
    cpk_py_raises("import ccloudpickle as cp, pickle\n"
                  "cp._loads_exact(pickle.dumps(5, 0) + b'x')\n",
                  "UnpicklingError", "1 byte of trailing data");
}

Test(coverage_io, truncated_line_pickle_is_refused)
{
    /* A line with no newline at the end of the data. */
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(bytearray(b\"S'abc'\"))\n",
                  "UnpicklingError", "truncated");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(bytearray(b'I12'))\n",
                  "UnpicklingError", "truncated");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(bytearray(b''))\n",
                  "EOFError", "");
}

Test(coverage_io, large_bytes_from_a_buffer)
{
    /* A payload larger than what the unpickler buffers itself. */
    cpk_py("import ccloudpickle as cp\n"
           "payload = bytes(range(256)) * 4000\n"
           "for proto in (2, 3, 4, 5):\n"
           "    d = cp.dumps([payload, bytearray(payload)], proto)\n"
           "    out = cp.loads(bytearray(d))\n"
           "    assert out == [payload, bytearray(payload)], proto\n"
           "    assert type(out[1]) is bytearray\n");
}

Test(coverage_io, loads_of_multidimensional_and_strided_buffers)
{
    /* A 2-D view is read as its bytes; a strided one is refused. */
    cpk_py("import ccloudpickle as cp, array\n"
           "d = cp.dumps(list(range(10)))\n"
           "assert len(d) % 2 == 0, len(d)\n"
           "m = memoryview(bytearray(d)).cast('B', (2, len(d) // 2))\n"
           "assert cp.loads(m) == list(range(10))\n"
           "assert cp._loads_exact(m) == list(range(10))\n"
           /* Items wider than a byte: still read byte by byte. */
           "d4 = d + b'.' * (-len(d) % 4)\n"
           "a = array.array('i'); a.frombytes(d4)\n"
           "assert cp.loads(a) == list(range(10))\n");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "d = cp.dumps([1, 2, 3])\n"
                  "cp.loads(memoryview(bytearray(d * 2))[::2])\n",
                  "BufferError", "pickle data must be contiguous");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(12)\n",
                  "TypeError", "");
}

Test(coverage_io, find_unpicklable_in_sets_and_cells)
{
    cpk_py("import ccloudpickle as cp, threading, types\n"
           "lock = threading.local()\n"
           "path, culprit = cp._find_unpicklable({1, 2, lock})\n"
           "assert path.startswith('.<item>[') and culprit is lock, path\n"
           "path, culprit = cp._find_unpicklable(frozenset([lock]))\n"
           "assert path == '.<item>[0]' and culprit is lock, path\n"
           "path, culprit = cp._find_unpicklable(types.CellType(lock))\n"
           "assert path == '.cell_contents' and culprit is lock, path\n"
           "assert cp._find_unpicklable(types.CellType(3)) is None\n"
           "assert cp._find_unpicklable(types.CellType()) is None\n");
}

Test(coverage_io, find_unpicklable_in_classes_modules_methods)
{
    cpk_py("import ccloudpickle as cp, threading, types\n"
           "lock = threading.local()\n"
           "class Local:\n"
           "    guard = lock\n"
           "path, culprit = cp._find_unpicklable(Local)\n"
           "assert path == '.guard' and culprit is lock, path\n"
           "m = types.ModuleType('dynamic_mod_for_test')\n"
           "m.guard = lock\n"
           "path, culprit = cp._find_unpicklable(m)\n"
           "assert path == '.guard' and culprit is lock, path\n"
           "class Holder:\n"
           "    def meth(self):\n"
           "        return 1\n"
           "h = Holder()\n"
           "h.guard = lock\n"
           "path, culprit = cp._find_unpicklable(h.meth)\n"
           "assert path == '.__self__.guard' and culprit is lock, path\n"
           "assert cp._find_unpicklable(Holder().meth) is None\n");
}

Test(coverage_io, find_unpicklable_in_function_fields)
{
    cpk_py("import ccloudpickle as cp, threading\n"
           "lock = threading.local()\n"
           "def outer():\n"
           "    held = lock\n"
           "    def inner():\n"
           "        return held\n"
           "    return inner\n"
           "path, culprit = cp._find_unpicklable(outer())\n"
           "assert path == '.__closure__[0].cell_contents', path\n"
           "assert culprit is lock\n"
           "def dflt(a, b=1, c=lock):\n"
           "    return a\n"
           "path, culprit = cp._find_unpicklable(dflt)\n"
           "assert path == '.__defaults__[1]' and culprit is lock, path\n"
           "def kw(*, k=lock):\n"
           "    return k\n"
           "path, culprit = cp._find_unpicklable(kw)\n"
           "assert path == \".__kwdefaults__['k']\" and culprit is lock, path\n"
           "def attr():\n"
           "    return 0\n"
           "attr.guard = lock\n"
           "path, culprit = cp._find_unpicklable(attr)\n"
           "assert path == '.guard' and culprit is lock, path\n");
}

Test(coverage_io, find_unpicklable_in_reduction_states)
{
    /* A state dict names attributes; a (dict, slots dict) state too. */
    cpk_py("import ccloudpickle as cp, threading\n"
           "lock = threading.local()\n"
           "class Plain:\n"
           "    pass\n"
           "p = Plain(); p.x = 1; p.guard = lock\n"
           "path, culprit = cp._find_unpicklable(p)\n"
           "assert path == '.guard' and culprit is lock, path\n"
           "class Slotted:\n"
           "    __slots__ = ('a', 'guard')\n"
           "s = Slotted(); s.a = 1; s.guard = lock\n"
           "path, culprit = cp._find_unpicklable(s, 2)\n"
           "assert path == '.guard' and culprit is lock, path\n"
           "class Odd:\n"
           "    def __reduce_ex__(self, proto):\n"
           "        return 'not a tuple'\n"
           "path, culprit = cp._find_unpicklable([Odd()])\n"
           "assert path == '[0]' and type(culprit) is Odd, path\n");
}

Test(coverage_io, find_unpicklable_key_reprs)
{
    /* Long key reprs are cut to 60 characters; a failing one is '?'. */
    cpk_py("import ccloudpickle as cp, threading\n"
           "lock = threading.local()\n"
           "key = 'k' * 100\n"
           "path, culprit = cp._find_unpicklable({key: lock})\n"
           "assert path == '[' + repr(key)[:57] + '...]', path\n"
           "assert culprit is lock\n"
           "class BadRepr:\n"
           "    def __repr__(self):\n"
           "        raise ValueError('no repr')\n"
           "path, culprit = cp._find_unpicklable({BadRepr(): lock})\n"
           "assert path == '[?]' and culprit is lock, path\n");
    cpk_py_raises("import ccloudpickle as cp, threading\n"
                  "class Stop:\n"
                  "    def __repr__(self):\n"
                  "        raise SystemExit('repr exit')\n"
                  "cp._find_unpicklable({Stop(): threading.local()})\n",
                  "SystemExit", "repr exit");
}

Test(coverage_io, find_unpicklable_cycles_and_shared_objects)
{
    /* An object met twice is tried once: a cycle ends, and a culprit
     * shared by two containers is named on the first path. */
    cpk_py("import ccloudpickle as cp, threading\n"
           "lock = threading.local()\n"
           "a = [1]; a.append(a); a.append(lock)\n"
           "path, culprit = cp._find_unpicklable(a)\n"
           "assert path == '[2]' and culprit is lock, path\n"
           "shared = [lock]\n"
           "path, culprit = cp._find_unpicklable([shared, shared])\n"
           "assert path == '[0][0]' and culprit is lock, path\n");
}

Test(coverage_io, find_unpicklable_depth_and_tries_limits)
{
    /* Deeper than 40 levels the search names the container at the limit;
     * past 2000 tries it stops looking and names the last container. A
     * long list is bisected (a few tries); a function's globals are not. */
    cpk_py("import ccloudpickle as cp, threading\n"
           "lock = threading.local()\n"
           "deep = lock\n"
           "for _ in range(60):\n"
           "    deep = [deep]\n"
           "path, culprit = cp._find_unpicklable(deep)\n"
           "assert path == '[0]' * 40, (len(path), path)\n"
           "assert type(culprit) is list\n"
           "wide = [[i] for i in range(2100)] + [lock]\n"
           "path, culprit = cp._find_unpicklable(wide)\n"
           "assert path == '[2100]' and culprit is lock, path\n"
           "names = ['g%d' % i for i in range(2100)]\n"
           "ns = {n: [i] for i, n in enumerate(names)}\n"
           "ns['lock'] = lock\n"
           "exec('def f():\\n    return (' + ', '.join(names) + ', lock)\\n', ns)\n"
           "path, culprit = cp._find_unpicklable(ns['f'])\n"
           "assert path == '' and culprit is ns['f'], path\n"
           "wide2 = [[i] for i in range(100)] + [lock]\n"
           "path, culprit = cp._find_unpicklable(wide2)\n"
           "assert path == '[100]' and culprit is lock, path\n");
}

Test(coverage_io, find_unpicklable_arguments)
{
    cpk_py("import ccloudpickle as cp, threading\n"
           "lock = threading.local()\n"
           "assert cp._find_unpicklable([lock], 2) == ('[0]', lock)\n"
           "assert cp._find_unpicklable(42, 0) is None\n");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp._find_unpicklable()\n",
                  "TypeError",
                  "_find_unpicklable(obj, protocol=5, compat=None)");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp._find_unpicklable(1, 2, None, 4)\n",
                  "TypeError",
                  "_find_unpicklable(obj, protocol=5, compat=None)");
}

/* Unpickler ---------------------------------------------------------------- */

Test(coverage_io, unpickler_find_class_arguments)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "u = cp.Unpickler(io.BytesIO(b''))\n"
           "assert u.find_class('builtins', 'len') is len\n"
           "for args in ((), ('builtins',), ('builtins', 'len', 'x')):\n"
           "    try:\n"
           "        u.find_class(*args)\n"
           "    except TypeError as e:\n"
           "        want = 'find_class() takes 2 arguments (%d given)' % len(args)\n"
           "        assert str(e) == want, e\n"
           "    else:\n"
           "        raise AssertionError(args)\n");
}

Test(coverage_io, unpickler_in_a_reference_cycle_is_collected)
{
    /* A cycle through the instance __dict__ is freed by the collector. */
    cpk_py("import ccloudpickle as cp, io, gc\n"
           "freed = []\n"
           "class Fin:\n"
           "    def __del__(self):\n"
           "        freed.append(1)\n"
           "u = cp.Unpickler(io.BytesIO(cp.dumps(7)))\n"
           "assert u.load() == 7\n"
           "u.fin = Fin()\n"
           "u.me = u\n"
           "del u\n"
           "gc.collect()\n"
           "assert freed == [1], freed\n");
}

Test(coverage_io, gc_threshold_errors_of_large_loads_propagate)
{
    /* Large loads pause the collector through gc.get_threshold (looked
     * up once); its errors are the load's, small loads never call it,
     * and the real threshold is untouched. */
    cpk_py("import ccloudpickle as cp, gc, io\n"
           "real = gc.get_threshold\n"
           "before = real()\n"
           "class Switch:\n"
           "    mode = 'bad'\n"
           "    def __call__(self):\n"
           "        if self.mode == 'bad':\n"
           "            return 'bad'\n"
           "        if self.mode == 'raise':\n"
           "            raise RuntimeError('boom')\n"
           "        return real()\n"
           "sw = Switch()\n"
           "gc.get_threshold = sw\n"
           "try:\n"
           "    big = cp.dumps(b'x' * 100000)\n"
           "    small = cp.dumps([1, 2])\n"
           "    for mode, exc, msg in (('bad', TypeError, 'is not a tuple'),\n"
           "                           ('raise', RuntimeError, 'boom')):\n"
           "        sw.mode = mode\n"
           "        for data in (big, bytearray(big)):\n"
           "            try:\n"
           "                cp.loads(data)\n"
           "            except exc as e:\n"
           "                assert msg in str(e), e\n"
           "            else:\n"
           "                raise AssertionError(mode)\n"
           "        assert cp.loads(small) == [1, 2]\n"
           "        assert real() == before\n"
           "    sw.mode = 'real'\n"
           "    assert cp.loads(big) == b'x' * 100000\n"
           "    assert cp.Unpickler(io.BytesIO(big)).load() == b'x' * 100000\n"
           "    assert real() == before\n"
           "finally:\n"
           "    gc.get_threshold = real\n");
}
