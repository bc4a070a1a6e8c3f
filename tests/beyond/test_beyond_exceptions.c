/* Issue 12: exceptions keep __cause__, __context__, __suppress_context__,
 * __notes__ and their attributes, plus one note with the formatted
 * traceback (scenario in tests/beyond); the original is not changed;
 * classes with their own reduction are left to it; the pickles need no
 * reconstructor, so stock loaders load them. */
#include "support.h"

#include <stdlib.h>

Test(beyond_exceptions, chain_notes_and_attributes_survive)
{
    cpk_beyond("exceptions");
}

TestSuite(exception_pickles, .init = cpk_py_start, .fini = cpk_py_stop);

#define CHAIN                                                                 \
    "import ccloudpickle as cp, copyreg, pickle, sys\n"                      \
    "def fail():\n"                                                          \
    "    try:\n"                                                             \
    "        {}['k']\n"                                                      \
    "    except KeyError as e:\n"                                            \
    "        err = ValueError('bad', 2)\n"                                   \
    "        err.hint = 'retry'\n"                                           \
    "        raise err from e\n"                                             \
    "try:\n"                                                                 \
    "    fail()\n"                                                           \
    "except ValueError as e:\n"                                              \
    "    exc = e\n"                                                          \
    "NOTE = 'Traceback (most recent call last, before pickling):\\n'\n"

/* The documented note, on the copy only. */
Test(exception_pickles, copy_gets_the_traceback_note_original_unchanged)
{
    cpk_py(CHAIN
           "before = dict(exc.__dict__)\n"
           "e = cp.loads(cp.dumps(exc))\n"
           "assert exc.__dict__ == before and not hasattr(exc, '__notes__')\n"
           "assert e.args == ('bad', 2) and e.hint == 'retry'\n"
           "assert e.__notes__ == [e.__notes__[0]]\n"
           "n = e.__notes__[0]\n"
           "assert n.startswith(NOTE + '  File '), n\n"
           "assert 'line 8, in fail' in n, n\n"
           "assert not n.endswith('\\n')\n"
           "c = e.__cause__\n"
           "assert type(c) is KeyError and c.args == ('k',)\n"
           "assert 'in fail' in c.__notes__[0]\n"
           "assert e.__suppress_context__ and e.__context__ is c\n"
           "assert e.__traceback__ is None\n"
           /* Same object, same bytes; builtins only: allow=[] loads it. */
           "assert cp.dumps(exc) == cp.dumps(exc)\n"
           "assert cp.loads(cp.dumps(exc), allow=[]).__cause__.args == "
           "('k',)\n");
}

Test(exception_pickles, notes_are_copied_not_mutated)
{
    cpk_py(CHAIN
           "if sys.version_info >= (3, 11):\n"
           "    exc.add_note('first')\n"
           "else:\n"
           "    exc.__notes__ = ['first']\n"
           "e = cp.loads(cp.dumps(exc))\n"
           "assert exc.__notes__ == ['first']\n"
           "assert e.__notes__[0] == 'first' and len(e.__notes__) == 2\n"
           "assert e.__notes__[1].startswith(NOTE)\n"
           /* Not a list: left as it is, no note added. */
           "exc.__notes__ = ('t',)\n"
           "assert cp.loads(cp.dumps(exc)).__notes__ == ('t',)\n"
           /* Never raised: no traceback, no note, no state at all. */
           "plain = KeyError('x')\n"
           "assert cp.dumps(plain) == pickle.dumps(plain, 5)\n");
}

/* __suppress_context__ as it was, whichever way __cause__ left it; a
 * context cycle made by hand. */
Test(exception_pickles, suppress_context_and_cycles)
{
    cpk_py("import ccloudpickle as cp\n"
           "a, b = RuntimeError('a'), RuntimeError('b')\n"
           "a.__cause__ = b\n"
           "a.__suppress_context__ = False\n"
           "b.__context__ = a\n"
           "b.__suppress_context__ = True\n"
           "a2 = cp.loads(cp.dumps(a))\n"
           "b2 = a2.__cause__\n"
           "assert b2.__context__ is a2 and a2.__context__ is None\n"
           "assert not a2.__suppress_context__ and b2.__suppress_context__\n"
           "assert b2.__cause__ is None\n");
}

/* OSError and ImportError reduce themselves (errno, filename, name): the
 * chain is added to what their __reduce__ gives. */
Test(exception_pickles, builtin_reducers_keep_their_fields)
{
    cpk_py("import ccloudpickle as cp\n"
           "try:\n"
           "    try:\n"
           "        open('/nonexistent/x')\n"
           "    except OSError as e:\n"
           "        raise ImportError('no', name='m', path='/p') from e\n"
           "except ImportError as e:\n"
           "    exc = e\n"
           "e = cp.loads(cp.dumps(exc))\n"
           "assert (e.name, e.path) == ('m', '/p')\n"
           "c = e.__cause__\n"
           "assert type(c) is FileNotFoundError and c.filename == "
           "'/nonexistent/x'\n"
           "assert c.errno == exc.__cause__.errno\n"
           "assert c.__notes__[0].startswith('Traceback')\n");
}

/* Classes that reduce themselves, or that copyreg knows, are left to
 * that: their pickles are what pickle.dumps writes. */
Test(exception_pickles, own_reducers_are_left_alone)
{
    cpk_py(CHAIN
           "class Own(Exception):\n"
           "    def __reduce__(self):\n"
           "        return (Own, ('own',))\n"
           "class OwnEx(Exception):\n"
           "    def __reduce_ex__(self, p):\n"
           "        return (OwnEx, ('ownex',))\n"
           "class OwnState(Exception):\n"
           "    def __setstate__(self, s):\n"
           "        self.got = s\n"
           "class Reg(Exception):\n"
           "    pass\n"
           "copyreg.pickle(Reg, lambda e: (Reg, ('reg',)))\n"
           "for cls in (Own, OwnEx, OwnState, Reg):\n"
           "    try:\n"
           "        raise cls('x') from exc\n"
           "    except cls as e:\n"
           "        e.attr = 1\n"
           "        e2 = cp.loads(cp.dumps(e))\n"
           "        assert type(e2) is cls and e2.__cause__ is None, cls\n"
           "        assert not hasattr(e2, '__notes__'), cls\n"
           "assert e2.args == ('reg',)\n"
           /* A subclass of a plain exception class is ours again. */
           "class Sub(Reg):\n"
           "    pass\n"
           "try:\n"
           "    raise Sub('s') from exc\n"
           "except Sub as e:\n"
           "    assert cp.loads(cp.dumps(e)).__cause__.args == ('bad', 2)\n");
}

/* A user's dispatch_table still wins. */
Test(exception_pickles, dispatch_table_wins)
{
    cpk_py(CHAIN
           "import io\n"
           "f = io.BytesIO()\n"
           "p = cp.Pickler(f)\n"
           "p.dispatch_table = {ValueError: lambda e: (ValueError, ('t',))}\n"
           "p.dump(exc)\n"
           "e = pickle.loads(f.getvalue())\n"
           "assert e.args == ('t',) and e.__cause__ is None\n");
}

/* Exception classes defined by value, and exception groups (3.11). */
Test(exception_pickles, by_value_classes_and_groups_in_a_fresh_process)
{
    cpk_py(CHAIN
           "class AppError(Exception):\n"
           "    pass\n"
           "try:\n"
           "    raise AppError('app') from exc\n"
           "except AppError as e:\n"
           "    app = e\n"
           "if sys.version_info >= (3, 11):\n"
           "    try:\n"
           "        raise ExceptionGroup('many', [app, exc])\n"
           "    except ExceptionGroup as g:\n"
           "        app = g\n");
    cpk_fresh_protos("app",
                     "import sys\n"
                     "e = obj\n"
                     "if sys.version_info >= (3, 11):\n"
                     "    assert type(e) is ExceptionGroup\n"
                     "    assert e.__notes__[0].startswith('Traceback')\n"
                     "    e = e.exceptions[0]\n"
                     "assert type(e).__name__ == 'AppError'\n"
                     "assert e.args == ('app',)\n"
                     "assert e.__cause__.args == ('bad', 2)\n"
                     "assert e.__cause__.hint == 'retry'\n"
                     "assert e.__cause__.__cause__.args == ('k',)\n");
}

/* No reconstructor: plain pickle (and stock cloudpickle, where the class
 * is by value) loads every format's pickle the same. */
Test(exception_pickles, stock_formats_load_with_plain_pickle)
{
    cpk_require("cloudpickle");
    cpk_py(CHAIN
           "class AppError(Exception):\n"
           "    pass\n"
           "try:\n"
           "    raise AppError('app') from exc\n"
           "except AppError as e:\n"
           "    app = e\n"
           "for c in ('cloudpickle3', 'cloudpickle', 'cloudpickle2'):\n"
           "    assert cp.dumps(exc, compat=c) == cp.dumps(exc)\n"
           "    e = pickle.loads(cp.dumps(exc, compat=c))\n"
           "    assert e.__cause__.args == ('k',)\n"
           "data = cp.dumps(app, compat='cloudpickle2')\n"
           "assert b'ccloudpickle' not in data\n");
    size_t len;
    char *data = cpk_py_bytes("data", &len);
    cpk_proc p;
    cpk_python(&p,
               "import sys, cloudpickle\n"
               "e = cloudpickle.loads(sys.stdin.buffer.read())\n"
               "assert 'ccloudpickle' not in sys.modules\n"
               "assert type(e).__name__ == 'AppError'\n"
               "assert e.__cause__.hint == 'retry'\n"
               "assert e.__cause__.__cause__.args == ('k',)\n"
               "assert 'in fail' in e.__cause__.__notes__[-1]\n",
               data, len);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    free(data);
}
