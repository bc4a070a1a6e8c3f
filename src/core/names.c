/* names.c - the private copies of names that make pickles deterministic.
 *
 * The loader interns the names it meets (class and function attribute
 * names, global names, module names, code names), and pickle memoizes by
 * identity: a name that was the very object of an equal string value where
 * it was pickled, but not where it was loaded (or the other way round),
 * would change the bytes of the next pickle. So every pickle uses one
 * private copy per name, shared by nothing a user holds: names then share
 * memo entries exactly as their values say, in any process (cloudpickle
 * 3.x copies them for the same reason).
 */
#include "core/names.h"
#include "core/state.h"
#include "common/pycompat.h"

/* The smallest table size that triggers a sweep. */
#define CPK_NAMES_SWEEP_MIN 1024

/* A new str equal to the exact str `s`, never a shared one (new
 * reference). Not PyUnicode_FromKindAndData: it returns the shared object
 * of a one-character string, which a loaded pickle's strings are and
 * compiled constants may not be. */
static PyObject *
str_copy(PyObject *s)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    PyObject *copy = PyUnicode_New(n, PyUnicode_MAX_CHAR_VALUE(s));
    if (copy != NULL)
        memcpy(PyUnicode_DATA(copy), PyUnicode_DATA(s),
               (size_t)n * PyUnicode_KIND(s));
    return copy;
}

/* Drop the copies nothing but the table holds (the table's key and value
 * are its only two references): no pickler memo, cached code reduction
 * or other live object uses them, so a later pickle makes an equal copy
 * and writes the same bytes. Keeps the table as large as the names in use,
 * not as all names ever pickled. */
static int
sweep(cpk_state *st)
{
    PyObject *dead = PyList_New(0);
    if (dead == NULL)
        return -1;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(st->name_copies, &pos, &k, &v)) {
        if (k == v && Py_REFCNT(k) == 2 && PyList_Append(dead, k) < 0) {
            Py_DECREF(dead);
            return -1;
        }
    }
    int r = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(dead) && r == 0; i++)
        r = PyDict_DelItem(st->name_copies, PyList_GET_ITEM(dead, i));
    Py_DECREF(dead);
    Py_ssize_t size = PyDict_GET_SIZE(st->name_copies);
    st->name_sweep_at = size * 2 > CPK_NAMES_SWEEP_MIN ? size * 2
                                                        : CPK_NAMES_SWEEP_MIN;
    return r;
}

PyObject *
cpk_name(cpk_state *st, PyObject *name)
{
    if (!PyUnicode_CheckExact(name) || PyUnicode_GET_LENGTH(name) == 0)
        return Py_NewRef(name);
    if (st->name_copies == NULL) {
        /* Allocating may run the GC and other threads: re-check. */
        PyObject *d = PyDict_New();
        if (d == NULL)
            return NULL;
        if (st->name_copies == NULL)
            st->name_copies = d;
        else
            Py_DECREF(d);
    }
    /* Keyed by the copy itself, so no user string is kept alive. Exact
     * str keys only: the lookup, the copy (not a GC allocation) and the
     * store run no Python code and let no other thread in. */
    PyObject *copy = PyDict_GetItemWithError(st->name_copies, name);
    if (copy != NULL)
        return Py_NewRef(copy);
    if (PyErr_Occurred())
        return NULL;
    if (PyDict_GET_SIZE(st->name_copies) >= st->name_sweep_at &&
        sweep(st) < 0)
        return NULL;
    PyObject *fresh = str_copy(name);
    if (fresh == NULL)
        return NULL;
    copy = PyDict_SetDefault(st->name_copies, fresh, fresh);
    Py_DECREF(fresh);
    return Py_XNewRef(copy);
}
