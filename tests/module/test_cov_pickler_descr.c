/* test_cov_pickler_descr.c - the Pickler's table descriptors
 * (dispatch_table, dispatch, _dispatch_table) used the wrong way: on an
 * object that is no ccloudpickle Pickler, or assigned where only
 * dispatch_table may be; and a ccloudpickle.wrap() wrapper refused by the
 * stock formats, whose loaders could not rebuild it. */
#include "support.h"

TestSuite(cov_pickler_descr, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_pickler_descr, dispatch_table_of_something_else)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "d = vars(cp.Pickler)['dispatch_table']\n"
           "for call in (lambda: d.__get__(5), lambda: d.__set__(5, {}),\n"
           "             lambda: d.__get__(io.BytesIO(), type(None))):\n"
           "    try:\n"
           "        call()\n"
           "    except TypeError as e:\n"
           "        assert str(e) == 'not a ccloudpickle.Pickler', e\n"
           "    else:\n"
           "        raise AssertionError('accepted')\n"
           "# On the class: the default table, the same each time.\n"
           "assert d.__get__(None, cp.Pickler) is cp.Pickler.dispatch_table\n");
}

Test(cov_pickler_descr, only_dispatch_table_is_writable)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "p = cp.Pickler(io.BytesIO())\n"
           "for name in ('dispatch', '_dispatch_table'):\n"
           "    before = getattr(p, name)\n"
           "    try:\n"
           "        setattr(p, name, {})\n"
           "    except AttributeError as e:\n"
           "        assert str(e) == 'attribute is read-only', e\n"
           "    else:\n"
           "        raise AssertionError(name)\n"
           "    assert getattr(p, name) == before\n"
           "class T:\n"
           "    pass\n"
           "p.dispatch_table = {T: lambda o: (T, ())}\n"
           "assert T in p.dispatch_table\n");
}

Test(cov_pickler_descr, wrap_wrapper_refused_by_stock_formats)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "w = cp.wrap(lambda: 41 + 1)\n"
           "for compat in ('cloudpickle', 'cloudpickle2'):\n"
           "    try:\n"
           "        cp.dumps(w, compat=compat)\n"
           "    except pickle.PicklingError as e:\n"
           "        s = str(e)\n"
           "        assert s.startswith(\"Can't pickle a ccloudpickle.wrap() \"\n"
           "                            'wrapper (%s) for ' % type(w).__name__), s\n"
           "        assert s.endswith('pickle the wrapped object (its '\n"
           "                          '__wrapped__) instead'), s\n"
           "    else:\n"
           "        raise AssertionError(compat)\n"
           "assert cp.loads(cp.dumps(w))() == 42\n");
}
