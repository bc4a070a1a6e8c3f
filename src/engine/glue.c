/* glue.c - the engine and alias entry points, forwarded to Python.
 *
 * install_alias(), install_multiprocessing() and wrap() are plumbing
 * around other libraries' Python classes and sys.modules (subclassing
 * multiprocessing's pickler, building module objects): short in Python,
 * long and fragile in C, and never on a hot path. They live in companion
 * modules installed next to the extension (python/ in the source tree)
 * and are imported on first call, so `import ccloudpickle` does not pay
 * for them.
 */
#include "engine/glue.h"

/* Call companion_module.attr(*args, **kwargs). New reference. */
static PyObject *
forward(const char *companion, const char *attr, PyObject *args,
        PyObject *kwargs)
{
    PyObject *mod = PyImport_ImportModule(companion);
    if (mod == NULL)
        return NULL;
    PyObject *func = PyObject_GetAttrString(mod, attr);
    Py_DECREF(mod);
    if (func == NULL)
        return NULL;
    PyObject *res = PyObject_Call(func, args, kwargs);
    Py_DECREF(func);
    return res;
}

#define FORWARDER(name, companion)                                        \
    static PyObject *glue_##name(PyObject *m, PyObject *args,             \
                                 PyObject *kwargs)                        \
    {                                                                     \
        return forward(companion, #name, args, kwargs);                   \
    }

FORWARDER(install_alias, "_ccloudpickle_alias")
FORWARDER(check_workers, "_ccloudpickle_alias")
FORWARDER(install_multiprocessing, "_ccloudpickle_engines")
FORWARDER(wrap, "_ccloudpickle_engines")
#undef FORWARDER

PyDoc_STRVAR(install_alias_doc,
"install_alias(*, replace=False, compat=None)\n--\n\n"
"Make `import cloudpickle` (and cloudpickle.cloudpickle,\n"
"cloudpickle.cloudpickle_fast) resolve to ccloudpickle in this process;\n"
"returns the alias module. RuntimeError if cloudpickle is already\n"
"imported, unless replace=True (earlier importers keep stock\n"
"cloudpickle, sharing the by-value registry and class tracker).\n"
"compat ('cloudpickle3', 'cloudpickle2', or any value dumps(compat=)\n"
"takes) makes the alias write what stock cloudpickle loads, for\n"
"workers without ccloudpickle. The environment variable\n"
"CCLOUDPICKLE_ALIAS=1 (or =cloudpickle3, =cloudpickle2) does it in\n"
"every Python process started with it set.");

PyDoc_STRVAR(check_workers_doc,
"check_workers(client)\n--\n\n"
"{worker: problem} for each worker of a distributed client that cannot\n"
"load what this process writes (no ccloudpickle, an older format, or in\n"
"the alias's compat mode no stock cloudpickle that loads it); each\n"
"problem names the fix. Empty when every worker can.");

PyDoc_STRVAR(install_multiprocessing_doc,
"install_multiprocessing(enable=True, warn_globals=1048576)\n--\n\n"
"Make multiprocessing and concurrent.futures pickle with ccloudpickle\n"
"in this process (usable as a pool's initializer); spawn and forkserver\n"
"children install it too. Functions of the main script that workers\n"
"can import go by name; a function sent by value whose globals pickle\n"
"to more than warn_globals bytes (None: no limit) gets one\n"
"RuntimeWarning. install_multiprocessing(False) restores\n"
"multiprocessing's own pickler. RuntimeError if multiprocessing uses a\n"
"custom reducer, which it would replace.");

PyDoc_STRVAR(wrap_doc,
"wrap(obj, keep_wrapper=True)\n--\n\n"
"Wrap obj so that any pickler sends it through ccloudpickle; loading\n"
"gives the wrapper back, or obj itself with keep_wrapper=False.");

PyMethodDef cpk_glue_methods[] = {
    {"install_alias", (PyCFunction)(void (*)(void))glue_install_alias,
     METH_VARARGS | METH_KEYWORDS, install_alias_doc},
    {"check_workers", (PyCFunction)(void (*)(void))glue_check_workers,
     METH_VARARGS | METH_KEYWORDS, check_workers_doc},
    {"install_multiprocessing",
     (PyCFunction)(void (*)(void))glue_install_multiprocessing,
     METH_VARARGS | METH_KEYWORDS, install_multiprocessing_doc},
    {"wrap", (PyCFunction)(void (*)(void))glue_wrap,
     METH_VARARGS | METH_KEYWORDS, wrap_doc},
    {NULL, NULL, 0, NULL},
};
