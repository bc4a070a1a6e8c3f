/* test_culprit.c - a failed ccloudpickle.dumps(), dump() or Pickler.dump()
 * names the path to what cannot be pickled (src/engine/diagnose.c), on the very
 * exception raised: a note on 3.11+ ("when pickling f.__globals__['LOCK']
 * (_thread._local)"), its message before ("...; when pickling ..."). The
 * exception keeps its type, identity, traceback and cause; a search that
 * fails leaves it as it was; interrupts during the search propagate;
 * successful dumps run nothing more. The search itself (_find_unpicklable)
 * is test_diagnose.c's and test_coverage_io.c's. */
#include "support.h"

#include <string.h>

TestSuite(culprit, .init = cpk_py_start, .fini = cpk_py_stop);

/* failure(fn): the exception fn() raises. culprit(e): its "when pickling
 * ..." words (the note, or the tail of the message before 3.11), None if
 * it has none; it also checks that the rest of the exception is as
 * _pickle made it (one note at most; before 3.11 args is the one str). */
#define PRELUDE                                                              \
    "import ccloudpickle as cp, threading, io, sys, pickle\n"                \
    "NOTES = sys.version_info >= (3, 11)\n"                                  \
    "def failure(fn):\n"                                                     \
    "    try:\n"                                                             \
    "        fn()\n"                                                         \
    "    except BaseException as e:\n"                                       \
    "        return e\n"                                                     \
    "    raise AssertionError('no error')\n"                                 \
    "def culprit(e):\n"                                                      \
    "    if NOTES:\n"                                                        \
    "        notes = getattr(e, '__notes__', [])\n"                          \
    "        assert len(notes) <= 1, notes\n"                                \
    "        return notes[0] if notes else None\n"                           \
    "    assert not hasattr(e, '__notes__')\n"                               \
    "    msg = str(e)\n"                                                     \
    "    i = msg.find('; when pickling ')\n"                                 \
    "    if i < 0:\n"                                                        \
    "        return None\n"                                                  \
    "    assert e.args == (msg,), e.args\n"                                  \
    "    return msg[i + 2:]\n"                                               \
    "LOCK = threading.local()\n"                                              \
    "def locked():\n"                                                        \
    "    return LOCK\n"

Test(culprit, lock_in_function_globals)
{
    cpk_py(PRELUDE
           "e = failure(lambda: cp.dumps(locked))\n"
           "assert type(e) is TypeError, repr(e)\n"
           "assert culprit(e) == \"when pickling locked.__globals__['LOCK'] "
           "(_thread._local)\", culprit(e)\n"
           "assert str(e).startswith(\"cannot pickle '_thread._local' object\")\n");
}

Test(culprit, lock_in_closure_cell)
{
    cpk_py(PRELUDE
           "def outer():\n"
           "    lock = threading.local()\n"
           "    def inner():\n"
           "        return lock\n"
           "    return inner\n"
           "e = failure(lambda: cp.dumps(outer()))\n"
           "assert culprit(e) == 'when pickling outer.<locals>.inner"
           ".__closure__[0].cell_contents (_thread._local)', culprit(e)\n");
}

Test(culprit, lock_in_nested_dict_list_and_attribute)
{
    /* The example, and roots without a __qualname__: named by
     * their type. */
    cpk_py(PRELUDE
           "class Conn:\n"
           "    def __init__(self):\n"
           "        self.conn = {'lock': threading.local()}\n"
           "client = Conn()\n"
           "def handler():\n"
           "    return client\n"
           "e = failure(lambda: cp.dumps(handler))\n"
           "assert culprit(e) == \"when pickling handler.__globals__['client']"
           ".conn['lock'] (_thread._local)\", culprit(e)\n"
           "class Obj:\n"
           "    def __init__(self):\n"
           "        self.items = [1, {'x': (i for i in ())}]\n"
           "e = failure(lambda: cp.dumps({'a': [0, Obj()]}))\n"
           "assert culprit(e) == \"when pickling <dict object>['a'][1].items[1]"
           "['x'] (generator)\", culprit(e)\n"
           "e = failure(lambda: cp.dumps(Obj()))\n"
           "assert culprit(e) == \"when pickling <Obj object>.items[1]['x'] "
           "(generator)\", culprit(e)\n"
           /* The root itself is the culprit: nothing to add. */
           "e = failure(lambda: cp.dumps(LOCK))\n"
           "assert culprit(e) is None, culprit(e)\n");
}

Test(culprit, lock_in_class_attribute_of_a_class_by_value)
{
    cpk_py(PRELUDE
           "class Holder:\n"
           "    lock = threading.local()\n"
           "    def meth(self):\n"
           "        return 1\n"
           "e = failure(lambda: cp.dumps(Holder))\n"
           "assert culprit(e) == 'when pickling Holder.lock (_thread._local)', "
           "culprit(e)\n"
           "e = failure(lambda: cp.dumps([Holder]))\n"
           "assert culprit(e) == 'when pickling <list object>[0].lock "
           "(_thread._local)', culprit(e)\n");
}

Test(culprit, dump_to_a_file_object)
{
    cpk_py(PRELUDE
           "f = io.BytesIO()\n"
           "e = failure(lambda: cp.dump({'f': locked}, f))\n"
           "assert culprit(e) == \"when pickling <dict object>['f']"
           ".__globals__['LOCK'] (_thread._local)\", culprit(e)\n"
           /* With a protocol and with a signing key (made in memory). */
           "e = failure(lambda: cp.dump([locked], f, 2))\n"
           "assert culprit(e) == \"when pickling <list object>[0]"
           ".__globals__['LOCK'] (_thread._local)\", culprit(e)\n"
           "e = failure(lambda: cp.dump([locked], f, sign_key=b'k' * 32))\n"
           "assert culprit(e) == \"when pickling <list object>[0]"
           ".__globals__['LOCK'] (_thread._local)\", culprit(e)\n"
           "assert f.getvalue() == b''\n");
}

Test(culprit, pickler_and_subclasses)
{
    cpk_py(PRELUDE
           "e = failure(lambda: cp.Pickler(io.BytesIO()).dump(locked))\n"
           "assert culprit(e) == \"when pickling locked.__globals__['LOCK'] "
           "(_thread._local)\", culprit(e)\n"
           "class Sub(cp.Pickler):\n"
           "    pass\n"
           "e = failure(lambda: Sub(io.BytesIO()).dump(locked))\n"
           "assert culprit(e) == \"when pickling locked.__globals__['LOCK'] "
           "(_thread._local)\", culprit(e)\n"
           /* loky's way: a dispatch_table with its own reducers, which the
            * search uses too (the thread-local is fine there, the generator is not). */
           "import copyreg\n"
           "class Custom(cp.Pickler):\n"
           "    def __init__(self, f):\n"
           "        super().__init__(f)\n"
           "        self.dispatch_table = copyreg.dispatch_table.copy()\n"
           "        self.dispatch_table[type(LOCK)] = "
           "lambda l: (threading.Lock, ())\n"
           "e = failure(lambda: Custom(io.BytesIO()).dump("
           "[LOCK, {'r': (i for i in ())}]))\n"
           "assert culprit(e) == \"when pickling <list object>[1]['r'] "
           "(generator)\", culprit(e)\n"
           /* An entry added to an instance's view of the default table. */
           "p = cp.Pickler(io.BytesIO())\n"
           "p.dispatch_table[type(LOCK)] = lambda l: (threading.Lock, ())\n"
           "e = failure(lambda: p.dump([LOCK, (i for i in ())]))\n"
           "assert culprit(e) == 'when pickling <list object>[1] "
           "(generator)', culprit(e)\n"
           /* Its own reducer_override or persistent_id: a plain Pickler
            * cannot retrace its steps, so no path. */
           "class Override(cp.Pickler):\n"
           "    def reducer_override(self, obj):\n"
           "        return super().reducer_override(obj)\n"
           "e = failure(lambda: Override(io.BytesIO()).dump(locked))\n"
           "assert type(e) is TypeError and culprit(e) is None, culprit(e)\n"
           "class Persistent(cp.Pickler):\n"
           "    def persistent_id(self, obj):\n"
           "        return None\n"
           "e = failure(lambda: Persistent(io.BytesIO()).dump(locked))\n"
           "assert type(e) is TypeError and culprit(e) is None, culprit(e)\n"
           /* A dump() of its own is left alone, unless it calls ours. */
           "class OwnDump(cp.Pickler):\n"
           "    def dump(self, obj):\n"
           "        return super().dump(obj)\n"
           "e = failure(lambda: OwnDump(io.BytesIO()).dump(locked))\n"
           "assert culprit(e) == \"when pickling locked.__globals__['LOCK'] "
           "(_thread._local)\", culprit(e)\n");
}

Test(culprit, turned_off)
{
    /* The search re-runs user reducers: diagnose=False on dumps/dump, the
     * `diagnose` attribute of a Pickler (instance or subclass). */
    cpk_py(PRELUDE
           "calls = []\n"
           "class Counted:\n"
           "    def __reduce__(self):\n"
           "        calls.append(1)\n"
           "        raise TypeError('counted')\n"
           "e = failure(lambda: cp.dumps([Counted()]))\n"
           "assert culprit(e) == 'when pickling <list object>[0] (Counted)', "
           "culprit(e)\n"
           "assert len(calls) > 1, calls\n"
           "del calls[:]\n"
           "e = failure(lambda: cp.dumps([Counted()], diagnose=False))\n"
           "assert str(e) == 'counted' and culprit(e) is None\n"
           "assert len(calls) == 1, calls\n"
           "del calls[:]\n"
           "e = failure(lambda: cp.dump([Counted()], io.BytesIO(), "
           "diagnose=0))\n"
           "assert culprit(e) is None and len(calls) == 1, calls\n"
           "assert cp.Pickler.diagnose is True\n"
           "p = cp.Pickler(io.BytesIO())\n"
           "p.diagnose = False\n"
           "del calls[:]\n"
           "e = failure(lambda: p.dump([Counted()]))\n"
           "assert culprit(e) is None and len(calls) == 1, calls\n"
           "class Quiet(cp.Pickler):\n"
           "    diagnose = False\n"
           "e = failure(lambda: Quiet(io.BytesIO()).dump(locked))\n"
           "assert culprit(e) is None\n"
           /* Parsed like any argument; the default is on. */
           "assert cp.dumps(1, diagnose=False) == cp.dumps(1)\n"
           "import inspect\n"
           "assert inspect.signature(cp.dumps).parameters['diagnose']"
           ".default is True\n");
    cpk_py_raises(PRELUDE
                  "class Bad:\n"
                  "    def __bool__(self):\n"
                  "        raise ValueError('no bool')\n"
                  "cp.dumps(1, diagnose=Bad())\n",
                  "ValueError", "no bool");
}

Test(culprit, exception_is_the_original)
{
    /* A user reducer's PicklingError, raised from another error: the same
     * object, type, cause and traceback (the reducer's frame), plus the
     * path. */
    cpk_py(PRELUDE
           "raised = []\n"
           "class Bad:\n"
           "    def __reduce__(self):\n"
           "        try:\n"
           "            1 / 0\n"
           "        except ZeroDivisionError as z:\n"
           "            raised.append(pickle.PicklingError('no Bad'))\n"
           "            raise raised[-1] from z\n"
           "e = failure(lambda: cp.dumps({'b': Bad()}))\n"
           "assert e is raised[0], (e, raised)\n"
           "assert type(e) is pickle.PicklingError\n"
           "assert type(e.__cause__) is ZeroDivisionError\n"
           "assert culprit(e) == \"when pickling <dict object>['b'] (Bad)\", "
           "culprit(e)\n"
           "import traceback\n"
           "names = [f.name for f in traceback.extract_tb(e.__traceback__)]\n"
           "assert '__reduce__' in names, names\n"
           /* Other types, other args. */
           "class Odd:\n"
           "    def __init__(self, exc):\n"
           "        self.exc = exc\n"
           "    def __reduce__(self):\n"
           "        raise self.exc\n"
           "for exc in (ValueError('v'), AttributeError('a'), OSError(5, 'io'),\n"
           "            KeyError('k'), TypeError('a', 'b'), RuntimeError()):\n"
           "    e = failure(lambda: cp.dumps([Odd(exc)]))\n"
           "    assert e is exc, (e, exc)\n"
           "    if NOTES:\n"
           "        assert e.__notes__ == ['when pickling <list object>[0] "
           "(Odd)'], e.__notes__\n"
           "    else:\n"
           /* Only a message that is exactly its one str argument changes. */
           "        simple = type(e) in (ValueError, AttributeError)\n"
           "        assert (culprit(e) is not None) == simple, (e, e.args)\n"
           "    assert type(e) is type(exc)\n");
}

Test(culprit, failing_search_leaves_the_original)
{
    cpk_py(PRELUDE
           /* The walk itself fails (iterating the set raises): the
            * exception from the dump goes out as it was. */
           "class S(set):\n"
           "    def __iter__(self):\n"
           "        raise ValueError('iter')\n"
           "e = failure(lambda: cp.dumps([S([1])]))\n"
           "assert type(e) is ValueError and e.args == ('iter',), repr(e)\n"
           "assert culprit(e) is None and e.__context__ is None\n"
           /* Reading the Pickler's diagnose fails. */
           "class Broken(cp.Pickler):\n"
           "    @property\n"
           "    def diagnose(self):\n"
           "        raise ValueError('diagnose')\n"
           "e = failure(lambda: Broken(io.BytesIO()).dump(locked))\n"
           "assert type(e) is TypeError, repr(e)\n"
           "assert str(e) == \"cannot pickle '_thread._local' object\", str(e)\n"
           "assert culprit(e) is None and e.__context__ is None\n");
}

Test(culprit, interrupt_during_the_search_propagates)
{
    /* The first reduce fails, the search's one is interrupted: the
     * interrupt is raised, with the original as its __context__ (as an
     * exception raised in an except block). */
    cpk_py(PRELUDE
           "for stop in (KeyboardInterrupt, SystemExit, MemoryError):\n"
           "    calls = []\n"
           "    class Stop:\n"
           "        def __reduce__(self):\n"
           "            calls.append(1)\n"
           "            if len(calls) == 1:\n"
           "                raise TypeError('first')\n"
           "            raise stop('second')\n"
           "    e = failure(lambda: cp.dumps([Stop()]))\n"
           "    assert type(e) is stop and e.args == ('second',), repr(e)\n"
           "    ctx = e.__context__\n"
           "    assert type(ctx) is TypeError and ctx.args == ('first',), ctx\n"
           "    assert ctx.__traceback__ is not None\n"
           "    assert not hasattr(ctx, '__notes__')\n"
           "    assert len(calls) == 2, calls\n");
}

Test(culprit, not_for_interrupts_nor_successes)
{
    /* KeyboardInterrupt, SystemExit, MemoryError from the dump itself: no
     * search (the reducer runs once), nothing added. */
    cpk_py(PRELUDE
           "for stop in (KeyboardInterrupt, SystemExit, MemoryError):\n"
           "    calls = []\n"
           "    class Stop:\n"
           "        def __reduce__(self):\n"
           "            calls.append(1)\n"
           "            raise stop('now')\n"
           "    e = failure(lambda: cp.dumps({'k': Stop()}))\n"
           "    assert type(e) is stop and str(e) == 'now', repr(e)\n"
           "    assert len(calls) == 1 and not hasattr(e, '__notes__')\n"
           /* A dump that works runs each reducer once, as before. */
           "calls = []\n"
           "class Fine:\n"
           "    def __reduce__(self):\n"
           "        calls.append(1)\n"
           "        return (Fine, ())\n"
           "assert type(cp.loads(cp.dumps([Fine(), 1]))[0]) is Fine\n"
           "f = io.BytesIO()\n"
           "cp.dump({'f': Fine()}, f)\n"
           "cp.Pickler(io.BytesIO()).dump(Fine())\n"
           "assert len(calls) == 3, calls\n");
}

Test(culprit, compat_formats_search_in_their_format)
{
    /* A field sentinel cloudpickle 2.2 cannot rebuild: the path is where
     * the compat dump fails (ours would pickle it). */
    cpk_py(PRELUDE
           "import dataclasses\n"
           "odd = dataclasses._FIELD_BASE('custom')\n"
           "e = failure(lambda: cp.dumps({'k': [odd]}, compat='2.2'))\n"
           "assert type(e) is pickle.PicklingError\n"
           "assert culprit(e) == \"when pickling <dict object>['k'][0] "
           "(_FIELD_BASE)\", culprit(e)\n"
           "e = failure(lambda: cp.dumps(locked, compat='cloudpickle3'))\n"
           "assert culprit(e) == \"when pickling locked.__globals__['LOCK'] "
           "(_thread._local)\", culprit(e)\n"
           "e = failure(lambda: cp.Pickler(io.BytesIO(), compat='2.2')"
           ".dump([1, odd]))\n"
           "assert culprit(e) == 'when pickling <list object>[1] "
           "(_FIELD_BASE)', culprit(e)\n");
}

Test(culprit, deep_and_huge_structures, .timeout = 120)
{
    /* Too deep even for the retry on a large stack (pickler.c): the
     * recursion error as before, no search. A huge flat list: bisected,
     * the lock at its end found. */
    cpk_py(PRELUDE
           "deep = [LOCK]\n"
           "for _ in range(600000):\n"
           "    deep = [deep]\n"
           "e = failure(lambda: cp.dumps(deep))\n"
           "assert type(e) is pickle.PicklingError, repr(e)\n"
           "assert type(e.__cause__) is RecursionError\n"
           "assert culprit(e) is None\n"
           "big = list(range(1000000)) + [LOCK]\n"
           "e = failure(lambda: cp.dumps(big))\n"
           "assert culprit(e) == 'when pickling <list object>[1000000] "
           "(_thread._local)', culprit(e)\n"
           "big = {i: str(i) for i in range(100000)}\n"
           "big['lock'] = LOCK\n"
           "e = failure(lambda: cp.dumps(big))\n"
           "assert culprit(e) == \"when pickling <dict object>['lock'] "
           "(_thread._local)\", culprit(e)\n"
           /* Deep but within the limit: the path stops at 40 levels. */
           "mid = LOCK\n"
           "for _ in range(60):\n"
           "    mid = [mid]\n"
           "e = failure(lambda: cp.dumps(mid))\n"
           "assert culprit(e) == 'when pickling <list object>' + '[0]' * 40 "
           "+ ' (list)', culprit(e)\n");
}

Test(culprit, nested_dumps_are_not_diagnosed_during_a_search)
{
    /* A reducer calling dumps() itself: its failure gets a path when the
     * reducer runs for the dump, none when it runs again for a search. */
    cpk_py(PRELUDE
           "seen = []\n"
           "class Inner:\n"
           "    def __reduce__(self):\n"
           "        try:\n"
           "            cp.dumps(locked)\n"
           "        except TypeError as e:\n"
           "            seen.append(culprit(e))\n"
           "        raise TypeError('inner')\n"
           "e = failure(lambda: cp.dumps([Inner()]))\n"
           "assert culprit(e) == 'when pickling <list object>[0] (Inner)'\n"
           "assert seen[0] == \"when pickling locked.__globals__['LOCK'] "
           "(_thread._local)\", seen\n"
           "assert len(seen) > 1 and set(seen[1:]) == {None}, seen\n");
}

Test(culprit, threads_each_get_their_own)
{
    cpk_py(PRELUDE
           "out = {}\n"
           "def work(i):\n"
           "    obj = {'t%d' % i: [locked]}\n"
           "    for _ in range(20):\n"
           "        out[i] = culprit(failure(lambda: cp.dumps(obj)))\n"
           "ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]\n"
           "for t in ts: t.start()\n"
           "for t in ts: t.join()\n"
           "for i in range(4):\n"
           "    assert out[i] == \"when pickling <dict object>['t%d'][0]"
           ".__globals__['LOCK'] (_thread._local)\" % i, out\n");
}

/* What an uncaught failure prints, in a fresh interpreter: the note under
 * the exception line on 3.11+, one longer line before. */
Test(culprit, uncaught_traceback_shows_the_path)
{
    cpk_proc p;
    cpk_python(&p,
               "import ccloudpickle, threading\n"
               "LOCK = threading.local()\n"
               "def locked():\n"
               "    return LOCK\n"
               "ccloudpickle.dumps(locked)\n",
               NULL, 0);
    cpk_assert_exit(&p, 1);
    const char *want =
        PY_VERSION_HEX >= 0x030B0000
            ? "TypeError: cannot pickle '_thread._local' object\n"
              "when pickling locked.__globals__['LOCK'] (_thread._local)\n"
            : "TypeError: cannot pickle '_thread._local' object; "
              "when pickling locked.__globals__['LOCK'] (_thread._local)\n";
    size_t n = strlen(want);
    cr_assert(p.err_len >= n && strcmp(p.err + p.err_len - n, want) == 0,
              "stderr:\n%s", p.err);
    cr_assert(strstr(p.err, "Traceback (most recent call last):") != NULL);
    cpk_proc_free(&p);
}
