/* made.c - the functions, classes and modules this process's loads made
 * by value (_function_new, _make_function, the skeleton class and enum
 * reconstructors, _module_new, dynamic_subimport): the only objects the
 * fill reconstructors (_function_fill, _class_setstate, _module_fill)
 * write into. A pickle can name any imported function, class or module;
 * filling one would patch the process (collections.UserDict.__init__,
 * a namedtuple's __new__ globals) and run code no import policy sees.
 * Kept as {id: weak reference}: an entry counts only while its referent
 * is that very object; dead entries are swept as the dict doubles.
 */
#include "internal.h"

int
cpk_made_add(cpk_state *st, PyObject *obj)
{
    if (st->made == NULL && (st->made = PyDict_New()) == NULL)
        return -1;
    if (PyDict_GET_SIZE(st->made) >= st->made_sweep) {
        PyObject *keep = PyDict_New(), *k, *v;
        Py_ssize_t pos = 0;
        if (keep == NULL)
            return -1;
        while (PyDict_Next(st->made, &pos, &k, &v)) {
            PyObject *o = cpk_weakref_get(v);
            int r = o != NULL ? PyDict_SetItem(keep, k, v) : 0;
            Py_XDECREF(o); /* no code runs: the dict's keys are ints */
            if (r < 0) {
                Py_DECREF(keep);
                return -1;
            }
        }
        Py_SETREF(st->made, keep);
        st->made_sweep = 2 * PyDict_GET_SIZE(keep) + 1024;
    }
    PyObject *key = PyLong_FromVoidPtr(obj);
    PyObject *ref = key ? PyWeakref_NewRef(obj, NULL) : NULL;
    int r = ref ? PyDict_SetItem(st->made, key, ref) : -1;
    Py_XDECREF(key);
    Py_XDECREF(ref);
    return r;
}

/* 1 if a load made obj, 0 if not, -1 with an error. */
int
cpk_made_has(cpk_state *st, PyObject *obj)
{
    if (st->made == NULL)
        return 0;
    PyObject *key = PyLong_FromVoidPtr(obj), *ref = NULL;
    if (key == NULL)
        return -1;
    int r = cpk_dict_get_ref(st->made, key, &ref);
    Py_DECREF(key);
    if (r > 0) {
        PyObject *o = cpk_weakref_get(ref);
        r = o == obj;
        Py_XDECREF(o);
    }
    Py_XDECREF(ref);
    return r;
}

/* 0 if a load made obj, else -1 with ReconstructorValueError naming
 * fname and what obj was to be. */
int
cpk_made_check(cpk_state *st, const char *fname, const char *what,
               PyObject *obj)
{
    int r = cpk_made_has(st, obj);
    if (r == 0)
        cpk_arg_error(st, 1, fname,
                      "argument 1 (%s) must be a %s the pickle made by "
                      "value, not %R",
                      what, what, obj);
    return r > 0 ? 0 : -1;
}
