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
    cpk_py_file("semaphore_count_not_a_count.py");
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
