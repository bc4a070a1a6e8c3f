/* unpickler.c - the Unpickler type: a subclass of _pickle.Unpickler whose
 * find_class answers ccloudpickle's own names without the import machinery
 * and maps stock cloudpickle's reconstructor names to ours (compat.c), and
 * whose load() pauses the cyclic garbage collector (gcpause.c). loads()/
 * load() are in module.c, the in-memory reader in memio.c.
 */
#include "engine/unpickler.h"
#include "core/state.h"
#include "ccloudpickle.h"
#include "common/pycompat.h"
#include "common/pyerr.h" /* cpk_error_clearable */
#include "core/subtype.h"
#include "engine/gcpause.h"
#include "scan/policy.h" /* cpk_policy_names_free */
#include "types/compat.h"

#include <stddef.h>
#include <structmember.h>

/* CPython's Unpickler slots, the same for every module instance. */
static cpk_base_slots base_slots;

/* The base load() with the collector paused: see cpk_call_paused. */
PyObject *
cpk_load_with(cpk_state *st, PyObject *unpickler, Py_ssize_t size)
{
    PyObject *args[1] = {unpickler};
    return cpk_call_paused(st, size, st->base_load, args, 1, NULL);
}

static PyObject *
Unpickler_load(PyObject *self, PyObject *unused)
{
    (void)unused;
    return cpk_load_with(cpk_get_state(CPK_UNPICKLER_EXT(self)->module), self,
                         -1);
}

void
cpk_missing_own_name(PyObject *name)
{
    PyErr_Format(PyExc_AttributeError,
                 CPK_MISSING_OWN_NAME_PREFIX "%S, which ccloudpickle %s "
                 "does not have (written by a newer version?)",
                 name, CPK_VERSION);
}

/* A name of our module that this version does not have: most likely a
 * pickle written by a newer ccloudpickle. */
static PyObject *
own_name(cpk_unpickler_ext *ext, PyObject *name)
{
    PyObject *obj = PyObject_GetAttr(ext->module, name);
    if (obj == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        cpk_missing_own_name(name);
    }
    return obj;
}

/* find_class's answer: our names, cloudpickle's mapped to ours, else
 * CPython's find_class. New reference. */
static PyObject *
find_class_impl(PyObject *self, cpk_unpickler_ext *ext, cpk_state *st,
                PyObject *module, PyObject *name)
{
    if (PyUnicode_Check(module) && PyUnicode_Check(name)) {
        /* pickle's find_class raises this audit event for every name;
         * so do ours, whichever of the loads' paths takes them. */
        if (PyUnicode_CompareWithASCIIString(module, CPK_MODULE_NAME) == 0)
            return PySys_Audit("pickle.find_class", "OO", module, name) < 0
                       ? NULL
                       : own_name(ext, name);
        PyObject *ours = cpk_compat_find(st, module, name);
        if (ours != NULL)
            return PySys_Audit("pickle.find_class", "OO", module, name) < 0
                       ? NULL
                       : Py_NewRef(ours);
        if (PyErr_Occurred())
            return NULL;
    }
    PyObject *bargs[3] = {self, module, name};
    return PyObject_Vectorcall(st->base_find_class, bargs, 3, NULL);
}

/* find_class under a policy (loads(allow=/deny=)): 0 if
 * find_class(module, name) may run, else -1 with PolicyError naming it. */
static int
policy_find_class(cpk_state *st, const cpk_policy_names *names,
                  PyObject *module, PyObject *name)
{
    if (PyUnicode_Check(module) && PyUnicode_Check(name)) {
        Py_ssize_t ml, nl;
        const char *m = PyUnicode_AsUTF8AndSize(module, &ml);
        const char *n = m ? PyUnicode_AsUTF8AndSize(name, &nl) : NULL;
        if (n != NULL &&
            cpk_policy_names_has(names, m, (size_t)ml, n, (size_t)nl))
            return 0;
        if (n == NULL) {
            /* a lone surrogate: nothing the scan listed */
            if (!cpk_error_clearable())
                return -1;
            PyErr_Clear();
        }
    }
    PyErr_Format(st->PolicyError,
                 "import policy refuses find_class(%R, %R): not among the "
                 "imports the static check permitted",
                 module, name);
    return -1;
}

static PyObject *
Unpickler_find_class(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError,
                     "find_class() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    cpk_unpickler_ext *ext = CPK_UNPICKLER_EXT(self);
    cpk_state *st = cpk_get_state(ext->module);
    PyObject *module = args[0], *name = args[1];
    if (ext->policy_names == NULL)
        return find_class_impl(self, ext, st, module, name);
    /* The import policy (loadpolicy.c) first: not even our own names
     * escape it. Then no module object: pickles name modules through
     * reconstructors (subimport), and a module in hand starts attribute
     * paths the static check cannot follow. */
    if (policy_find_class(st, ext->policy_names, module, name) < 0)
        return NULL;
    PyObject *obj = find_class_impl(self, ext, st, module, name);
    if (obj != NULL && PyModule_Check(obj)) {
        Py_DECREF(obj);
        PyErr_Format(st->PolicyError,
                     "import policy refuses find_class(%R, %R): it gives a "
                     "module object",
                     module, name);
        return NULL;
    }
    return obj;
}

static PyObject *
Unpickler_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *module = PyType_GetModuleByDef(type, &cpk_module_def);
    if (module == NULL)
        return NULL;
    PyObject *self = base_slots.tp_new(type, args, kwds);
    if (self == NULL)
        return NULL;
    CPK_UNPICKLER_EXT(self)->module = Py_NewRef(module);
    return self;
}

static int
Unpickler_traverse(PyObject *self, visitproc visit, void *arg)
{
    cpk_unpickler_ext *ext = CPK_UNPICKLER_EXT(self);
    Py_VISIT(ext->dict);
    Py_VISIT(ext->module);
    if (!base_slots.is_heap)
        Py_VISIT(Py_TYPE(self));
    return base_slots.tp_traverse(self, visit, arg);
}

static int
Unpickler_clear(PyObject *self)
{
    Py_CLEAR(CPK_UNPICKLER_EXT(self)->dict);
    return base_slots.tp_clear(self);
}

static void
Unpickler_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    cpk_unpickler_ext *ext = CPK_UNPICKLER_EXT(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(ext->dict);
    Py_CLEAR(ext->module);
    cpk_policy_names_free(ext->policy_names);
    ext->policy_names = NULL;
    base_slots.tp_dealloc(self);
    if (!base_slots.is_heap)
        Py_DECREF(tp);
}

static PyMethodDef Unpickler_methods[] = {
    {"find_class", (PyCFunction)(void (*)(void))Unpickler_find_class,
     METH_FASTCALL,
     PyDoc_STR("find_class(module_name, global_name)\n--\n\n"
               "Return the object a pickle names; cloudpickle's "
               "reconstructors map to ccloudpickle's.")},
    {"load", Unpickler_load, METH_NOARGS,
     PyDoc_STR("load()\n--\n\nRead one pickle from the file.")},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Unpickler_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef Unpickler_members[2];

PyDoc_STRVAR(Unpickler_doc,
"Unpickler(file, *, fix_imports=True, encoding='ASCII', errors='strict',\n"
"          buffers=())\n--\n\n"
"A pickle.Unpickler that also reads stock cloudpickle's pickles where\n"
"cloudpickle is not installed.");

int
cpk_unpickler_init_type(PyObject *module, cpk_state *st)
{
    if (cpk_base_slots_get((PyTypeObject *)st->base_unpickler, &base_slots) < 0)
        return -1;
    Py_ssize_t off = cpk_ext_offset((PyTypeObject *)st->base_unpickler);
    cpk_unpickler_ext_offset = off;
    Unpickler_members[0] = (PyMemberDef){
        "__dictoffset__", T_PYSSIZET, off + offsetof(cpk_unpickler_ext, dict),
        READONLY, NULL};
    Unpickler_members[1] = (PyMemberDef){NULL, 0, 0, 0, NULL};

    PyType_Slot slots[] = {
        {Py_tp_new, Unpickler_new},
        {Py_tp_dealloc, Unpickler_dealloc},
        {Py_tp_traverse, Unpickler_traverse},
        {Py_tp_clear, Unpickler_clear},
        {Py_tp_methods, Unpickler_methods},
        {Py_tp_members, Unpickler_members},
        {Py_tp_getset, Unpickler_getset},
        {Py_tp_doc, (void *)Unpickler_doc},
        {0, NULL},
    };
    st->unpickler_type = cpk_make_subtype(module, st->base_unpickler,
                                          "ccloudpickle.Unpickler",
                                          off + sizeof(cpk_unpickler_ext),
                                          slots);
    if (st->unpickler_type == NULL)
        return -1;
    if ((st->base_find_class = PyObject_GetAttrString(st->base_unpickler,
                                                      "find_class")) == NULL ||
        (st->base_load = PyObject_GetAttrString(st->base_unpickler,
                                                "load")) == NULL)
        return -1;
    PyObject *pickle = PyImport_ImportModule("_pickle");
    if (pickle == NULL)
        return -1;
    st->base_loads = PyObject_GetAttrString(pickle, "loads");
    Py_DECREF(pickle);
    if (st->base_loads == NULL)
        return -1;
    if (PyCFunction_Check(st->base_loads) &&
        PyCFunction_GET_FLAGS(st->base_loads) ==
            (METH_FASTCALL | METH_KEYWORDS)) {
        st->base_loads_fast = (_PyCFunctionFastWithKeywords)(void (*)(void))
            PyCFunction_GET_FUNCTION(st->base_loads);
        st->base_loads_self = PyCFunction_GET_SELF(st->base_loads);
    }
    return 0;
}
