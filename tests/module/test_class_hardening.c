/* test_class_hardening.c - classes by value at the edges: static types
 * that cannot be found by name, typing's special classes (TypedDict,
 * NamedTuple, Generic, Protocol), namespaces with keys that are not
 * strings, one tracker id per class under threads, errors of user code
 * (KeyboardInterrupt, a failing __bool__) that must propagate. */
#include "support.h"

TestSuite(class_hardening, .init = cpk_py_start, .fini = cpk_py_stop);

Test(class_hardening, static_type_not_found_by_name_is_refused)
{
    /* 3.12+: such a type's tp_dict is NULL (a crash when read); 3.11:
     * it was rebuilt as a new class that only looks like it. */
    cpk_py("import sys, pickle, io, ccloudpickle\n"
           "for t in (type(sys.flags), type(sys.version_info),\n"
           "          type(sys.float_info)):\n"
           "    for kw in ({}, {'compat': 'cloudpickle'}):\n"
           "        try:\n"
           "            ccloudpickle.dumps(t, **kw)\n"
           "        except pickle.PicklingError as e:\n"
           "            assert 'not the same object as sys.' in str(e), e\n"
           "        else:\n"
           "            raise AssertionError('pickled %r' % t)\n"
           "    try:\n"
           "        ccloudpickle.Pickler(io.BytesIO()).dump([1, t])\n"
           "    except pickle.PicklingError:\n"
           "        pass\n"
           "    else:\n"
           "        raise AssertionError('Pickler pickled %r' % t)\n"
           "import types, collections\n"
           "for t in (int, type(None), types.FunctionType, types.CodeType,\n"
           "          collections.OrderedDict, type(sys.stdout)):\n"
           "    assert ccloudpickle.loads(ccloudpickle.dumps(t)) is t, t\n");
}

/* typing's classes with metaclasses that build other bases than the class
 * statement names, or check them. */
#define TYPING_CLASSES                                                       \
    "import typing\n"                                                        \
    "from typing import (TypedDict, NamedTuple, Generic, TypeVar,\n"         \
    "                    Protocol, runtime_checkable)\n"                     \
    "T = TypeVar('T')\n"                                                     \
    "class Movie(TypedDict):\n"                                              \
    "    title: str\n"                                                       \
    "    year: int\n"                                                        \
    "class Partial(TypedDict, total=False):\n"                               \
    "    note: str\n"                                                        \
    "class Sub(Movie):\n"                                                    \
    "    rating: float\n"                                                    \
    "class Point(NamedTuple):\n"                                             \
    "    x: int\n"                                                           \
    "    y: int = 0\n"                                                       \
    "    def norm1(self):\n"                                                 \
    "        return abs(self.x) + abs(self.y)\n"                             \
    "class Box(Generic[T]):\n"                                               \
    "    def __init__(self, item):\n"                                        \
    "        self.item = item\n"                                             \
    "    def get(self):\n"                                                   \
    "        return self.item\n"                                             \
    "@runtime_checkable\n"                                                   \
    "class Closable(Protocol):\n"                                            \
    "    def close(self) -> None: ...\n"                                     \
    "class Plain(Protocol):\n"                                               \
    "    def meth(self) -> int: ...\n"                                       \
    "class Strict(type):\n"                                                  \
    "    '''A metaclass that checks the bases it is given.'''\n"             \
    "    def __new__(mcls, name, bases, ns, **kw):\n"                        \
    "        for b in bases:\n"                                              \
    "            if not isinstance(b, type):\n"                              \
    "                raise TypeError('not a class: %r' % (b,))\n"            \
    "        return super().__new__(mcls, name, bases, ns)\n"                \
    "class Checked(Box[int], metaclass=Strict):\n"                           \
    "    pass\n"                                                             \
    "class Row(Point, metaclass=Strict):\n"                                  \
    "    pass\n"

#define TYPING_CHECK                                                         \
    "(Movie, Partial, Sub, Point, Box, Closable, Plain, Checked,\n"          \
    " Row) = obj\n"                                                          \
    "m = Movie(title='x', year=1)\n"                                         \
    "assert m == {'title': 'x', 'year': 1} and type(m) is dict\n"            \
    "assert Movie.__required_keys__ == {'title', 'year'}, Movie.__dict__\n"  \
    "assert Movie.__total__ is True and not Movie.__optional_keys__\n"       \
    "assert Partial.__total__ is False\n"                                    \
    "assert Partial.__optional_keys__ == {'note'}\n"                         \
    "assert Partial() == {} and Partial(note='n') == {'note': 'n'}\n"        \
    "assert Sub(title='a', year=2, rating=1.0)['rating'] == 1.0\n"           \
    "assert Sub.__required_keys__ == {'title', 'year', 'rating'}\n"          \
    "assert Sub.__annotations__['rating'] is float\n"                        \
    "p = Point(1, -2)\n"                                                     \
    "assert p.norm1() == 3 and Point(5).y == 0 and p._fields == ('x', 'y')\n" \
    "assert isinstance(p, tuple) and p._replace(x=4) == (4, -2)\n"           \
    "assert Box(3).get() == 3 and len(Box.__parameters__) == 1\n"            \
    "assert Box[int].__origin__ is Box\n"                                    \
    "assert isinstance(open('/dev/null'), Closable)\n"                       \
    "assert not isinstance(3, Closable)\n"                                   \
    "try:\n"                                                                 \
    "    isinstance(3, Plain)\n"                                             \
    "    raise AssertionError('Plain became runtime checkable')\n"           \
    "except TypeError:\n"                                                    \
    "    pass\n"                                                             \
    "class Impl(Plain):\n"                                                   \
    "    def meth(self):\n"                                                  \
    "        return 1\n"                                                     \
    "assert Impl().meth() == 1\n"                                            \
    "assert type(Checked).__name__ == 'Strict' and Checked(5).get() == 5\n"  \
    "assert Checked.__orig_bases__[0].__args__ == (int,)\n"                  \
    "assert type(Row).__name__ == 'Strict' and Row(1, 2).norm1() == 3\n"

Test(class_hardening, typing_classes_by_value)
{
    cpk_py(TYPING_CLASSES);
    /* In this process first (the originals come back), then fresh. */
    cpk_py("import ccloudpickle\n"
           "obj = ccloudpickle.loads(ccloudpickle.dumps(\n"
           "    [Movie, Partial, Sub, Point, Box, Closable, Plain, Checked,\n"
           "     Row]))\n"
           "assert obj[0] is Movie and obj[-1] is Row\n" TYPING_CHECK);
    cpk_fresh_protos("[Movie, Partial, Sub, Point, Box, Closable, Plain, "
                     "Checked, Row]",
                     TYPING_CHECK);
}

Test(class_hardening, typing_classes_one_at_a_time)
{
    /* Each alone: nothing else in the pickle makes its bases first. */
    cpk_py(TYPING_CLASSES);
    cpk_fresh("__import__('ccloudpickle').dumps(Movie)",
              "assert obj(title='t', year=3) == {'title': 't', 'year': 3}\n"
              "assert obj.__required_keys__ == {'title', 'year'}\n");
    cpk_fresh("__import__('ccloudpickle').dumps(Partial)",
              "assert obj.__total__ is False and obj() == {}\n");
    cpk_fresh("__import__('ccloudpickle').dumps(Point)",
              "assert obj(2, 3).norm1() == 5\n");
    cpk_fresh("__import__('ccloudpickle').dumps(Closable)",
              "import io\n"
              "assert isinstance(io.StringIO(), obj)\n");
}

Test(class_hardening, namespace_keys_that_are_not_strings)
{
    cpk_py("import pickle, ccloudpickle\n"
           "C = type('C', (), {1: 'one', (2, 'x'): 'two', 'a': 1,\n"
           "                   'f': lambda self: self.a + 1})\n"
           "b = ccloudpickle.dumps(C)\n"
           "assert ccloudpickle.loads(b) is C\n"
           "try:\n"
           "    ccloudpickle.dumps(C, compat='cloudpickle')\n"
           "except pickle.PicklingError as e:\n"
           "    assert 'not strings' in str(e), e\n"
           "else:\n"
           "    raise AssertionError('the cloudpickle format took it')\n");
    cpk_fresh_protos("C",
                     "assert obj.__dict__[1] == 'one'\n"
                     "assert obj.__dict__[(2, 'x')] == 'two'\n"
                     "assert obj.a == 1 and obj().f() == 2\n"
                     "assert [k for k in obj.__dict__ if not isinstance(k, "
                     "str)] == [1, (2, 'x')]\n");
}

Test(class_hardening, failing_bool_of_a_file_propagates)
{
    /* The file reducer tests `closed` and `isatty()` for truth: an error
     * there is the error raised, not a SystemError. */
    cpk_py("import io, ccloudpickle\n"
           "class Boom:\n"
           "    def __bool__(self):\n"
           "        raise ZeroDivisionError('bool of ' + self.what)\n"
           "    def __init__(self, what):\n"
           "        self.what = what\n"
           "class Raw(io.RawIOBase):\n"
           "    name = 'raw'\n"
           "    bad = 'closed'\n"
           "    def readable(self):\n"
           "        return True\n"
           "    @property\n"
           "    def closed(self):\n"
           "        return Boom('closed') if self.bad == 'closed' else False\n"
           "    def isatty(self):\n"
           "        return Boom('isatty')\n"
           "for bad in ('closed', 'isatty'):\n"
           "    raw = Raw()\n"
           "    raw.bad = bad\n"
           "    f = io.TextIOWrapper(raw)\n"
           "    f.mode = 'r'\n"
           "    try:\n"
           "        ccloudpickle.dumps(f)\n"
           "    except ZeroDivisionError as e:\n"
           "        assert str(e) == 'bool of ' + bad, e\n"
           "    else:\n"
           "        raise AssertionError('pickled')\n"
           "    raw.bad = None\n");
}

/* A stand-in for stock cloudpickle whose class tracker raises `exc`. */
#define FAKE_CLOUDPICKLE(exc)                                                \
    "import sys, types\n"                                                    \
    "class Tracker:\n"                                                       \
    "    def get(self, key, default=None):\n"                                \
    "        raise " exc "\n"                                                \
    "fake = types.ModuleType('cloudpickle.cloudpickle')\n"                   \
    "fake._DYNAMIC_CLASS_TRACKER_BY_CLASS = Tracker()\n"                     \
    "fake._DYNAMIC_CLASS_TRACKER_BY_ID = Tracker()\n"                        \
    "sys.modules['cloudpickle.cloudpickle'] = fake\n"

Test(class_hardening, tracker_lets_keyboard_interrupt_through)
{
    cpk_py(FAKE_CLOUDPICKLE("KeyboardInterrupt") "import ccloudpickle\n"
           "class K:\n"
           "    pass\n"
           "try:\n"
           "    ccloudpickle.dumps(K)\n"
           "except KeyboardInterrupt:\n"
           "    pass\n"
           "else:\n"
           "    raise AssertionError('KeyboardInterrupt swallowed')\n");
}

Test(class_hardening, tracker_ignores_errors_of_cloudpickle)
{
    /* What cloudpickle's `except Exception` would ignore is ignored. */
    cpk_py(FAKE_CLOUDPICKLE("ValueError('no')") "import ccloudpickle\n"
           "class K:\n"
           "    pass\n"
           "assert ccloudpickle.loads(ccloudpickle.dumps(K)) is K\n");
}

/* Threads pickling one fresh class at the same moment: one tracker id,
 * so one class when all their pickles are loaded in another process. */
Test(class_hardening, one_tracker_id_per_class_under_threads, .timeout = 900)
{
    cpk_py("import sys, threading, re, pickle, ccloudpickle\n"
           "try:\n"
           "    import cloudpickle  # our tracker consults its: Python code\n"
           "except ImportError:\n"
           "    pass\n"
           "sys.setswitchinterval(1e-6)\n"
           "N = 8\n"
           "runs = []\n"
           "for run in range(100):\n"
           "    C = type('C%d' % run, (), {'v': run})\n"
           "    out = [None] * N\n"
           "    barrier = threading.Barrier(N)\n"
           "    def work(i):\n"
           "        barrier.wait()\n"
           "        out[i] = ccloudpickle.dumps(C)\n"
           "    ts = [threading.Thread(target=work, args=(i,))\n"
           "          for i in range(N)]\n"
           "    for t in ts:\n"
           "        t.start()\n"
           "    for t in ts:\n"
           "        t.join()\n"
           "    runs.append(out)\n"
           "bad = [i for i, out in enumerate(runs)\n"
           "       if len({re.search(rb'[0-9a-f]{32}', b).group()\n"
           "               for b in out}) != 1]\n"
           "assert not bad, 'runs with several ids: %r' % bad\n"
           "data = pickle.dumps(runs)\n");
    cpk_fresh("data",
              "import pickle, ccloudpickle\n"
              "runs = pickle.loads(obj) if isinstance(obj, bytes) else obj\n"
              "for i, out in enumerate(runs):\n"
              "    classes = [ccloudpickle.loads(b) for b in out]\n"
              "    assert all(c is classes[0] for c in classes), i\n"
              "    assert ccloudpickle.loads(out[0]).v == i\n");
}

/* A fresh /usr/bin/python3-like interpreter with Python's debug allocator,
 * which poisons freed memory: a use of a freed object crashes there. */
static void
debug_malloc_run(const char *code)
{
    const char *argv[] = {CPK_PYTHON, "-c", code, NULL};
    const char *env[] = {"PYTHONPATH=" CPK_BUILD_DIR ":" CPK_FIXTURES,
                         "PYTHONMALLOC=debug", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", NULL, 0, env);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* A non-str key in a base class whose hash collides with a name's: its
 * __eq__ runs during the lookup of that name and replaces the value being
 * pickled. The value is held: the pickle has the value the class had. */
Test(class_hardening, class_value_replaced_during_a_lookup)
{
    debug_malloc_run(
        "import ccloudpickle as cp\n"
        "class Payload:\n"
        "    def __reduce__(self):\n"
        "        return (str, ('payload',))\n"
        "class Evil:\n"
        "    armed = False\n"
        "    def __hash__(self):\n"
        "        return hash('foo')\n"
        "    def __eq__(self, other):\n"
        "        if Evil.armed:\n"
        "            Evil.armed = False\n"
        "            C.foo = None\n"
        "        return False\n"
        "Base = type('Base', (), {Evil(): 1})\n"
        "C = type('C', (Base,), {'foo': Payload()})\n"
        "Evil.armed = True\n"
        "D = cp.loads(cp.dumps(C))\n"
        "assert D.__dict__.get('foo') in ('payload', None), D.__dict__\n");
}

/* An enum member's attribute whose key is a str subclass with a __hash__
 * that empties the member's __dict__: not shipped (only exact str names
 * are attributes an __init__ sets), and nothing freed is used (3.9/3.10
 * hash a key before taking references to it). */
Test(class_hardening, enum_member_attribute_key_clearing_the_dict)
{
    debug_malloc_run(
        "import ccloudpickle as cp, enum\n"
        "armed = [False]\n"
        "class K(str):\n"
        "    def __hash__(self):\n"
        "        if armed[0]:\n"
        "            armed[0] = False\n"
        "            E.A.__dict__.clear()\n"
        "        return str.__hash__(self)\n"
        "    __eq__ = str.__eq__\n"
        "class E(enum.Enum):\n"
        "    A = 1\n"
        "E.A.__dict__[K('zz_extra')] = object()\n"
        "armed[0] = True\n"
        "F = cp.loads(cp.dumps(E))\n"
        "assert F.A.value == 1\n");
}

/* A heap type of a C module whose module is not imported (itemgetter is
 * operator.itemgetter, made by _operator): pickled by name, so the load
 * imports operator, never rebuilt by value (a copy without its C layout
 * failed to load). 3.10+ marks such types immutable. */
Test(class_hardening, c_heap_type_of_an_unimported_module_goes_by_name)
{
    cpk_py("import sys, _operator, ccloudpickle\n"
           "saved = sys.modules.pop('operator', None)\n"
           "try:\n"
           "    data = ccloudpickle.dumps(_operator.itemgetter(1))\n"
           "finally:\n"
           "    if saved is not None:\n"
           "        sys.modules['operator'] = saved\n"
           "if sys.version_info >= (3, 10):\n"
           "    assert b'_make_skeleton_class' not in data, data\n"
           "    assert b'operator' in data and b'itemgetter' in data\n");
    cpk_fresh("__import__('ccloudpickle').dumps("
              "__import__('_operator').itemgetter(1))",
              "assert obj([5, 6]) == 6, obj\n");
}
