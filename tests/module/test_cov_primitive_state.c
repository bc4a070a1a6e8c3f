/* test_cov_primitive_state.c - synchronisation primitives and weak
 * dicts whose state was tampered with: a semaphore whose count is not an
 * int >= 0 is refused with what it holds (it would be rebuilt with a
 * count it never had), one without a count fails with the lookup's error,
 * and a weak dict whose items() raises or gives no items fails with that
 * error, in every format. */
#include "support.h"

TestSuite(cov_primitive_state, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_primitive_state, semaphore_count_not_a_count)
{
    cpk_py("import ccloudpickle as cp, pickle, threading\n"
           "cases = [(threading.Semaphore, '_value', -1),\n"
           "         (threading.Semaphore, '_value', 'x'),\n"
           "         (threading.BoundedSemaphore, '_initial_value', 2.5),\n"
           "         (threading.BoundedSemaphore, '_initial_value', True)]\n"
           "for kind, attr, bad in cases:\n"
           "    s = kind(2)\n"
           "    setattr(s, attr, bad)\n"
           "    for kw in ({}, {'compat': 'cloudpickle'}):\n"
           "        try:\n"
           "            cp.dumps(s, **kw)\n"
           "        except pickle.PicklingError as e:\n"
           "            want = \"Can't pickle %s: its %s is %r, not an int \"\\\n"
           "                '>= 0' % (kind.__name__, attr, bad)\n"
           "            assert str(e) == want, (str(e), want)\n"
           "        else:\n"
           "            raise AssertionError((kind, bad, kw))\n"
           "ok = threading.BoundedSemaphore(3)\n"
           "back = cp.loads(cp.dumps(ok))\n"
           "assert type(back) is threading.BoundedSemaphore\n"
           "assert back._initial_value == 3\n");
}

Test(cov_primitive_state, semaphore_without_count)
{
    cpk_py_raises("import ccloudpickle as cp, threading\n"
                  "s = threading.Semaphore(2)\n"
                  "del s._value\n"
                  "cp.dumps(s)\n",
                  "AttributeError", "_value");
}

Test(cov_primitive_state, weak_dict_items_errors_propagate)
{
    cpk_py_raises("import ccloudpickle as cp, weakref\n"
                  "w = weakref.WeakValueDictionary()\n"
                  "w.items = lambda: 1 / 0\n"
                  "cp.dumps(w)\n",
                  "ZeroDivisionError", NULL);
    cpk_py_raises("import ccloudpickle as cp, weakref\n"
                  "w = weakref.WeakKeyDictionary()\n"
                  "w.items = lambda: 5\n"
                  "cp.dumps(w, compat='cloudpickle')\n",
                  "TypeError", "'int' object is not iterable");
}
