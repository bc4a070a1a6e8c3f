/* secondary.c - the SecondaryStdout type (secondary.h); when it replaces
 * sys.stdout is host.c's concern. */
#include "common/secondary.h"

#include <stddef.h>
#include <structmember.h> /* PyMemberDef, T_OBJECT_EX (3.9-3.11) */

typedef struct {
    PyObject_HEAD
    PyObject *f;       /* the wrapped stream, sys.stderr */
    PyObject *dict;    /* attributes set on the instance */
    PyObject *weakrefs; /* weakref.ref(sys.stdout), as for the class it
                         * replaces */
    PyObject *str_write; /* "write", interned once: every print calls it */
} secondary;

/* The wrapped stream (borrowed), or NULL with AttributeError once the
 * instance was cleared. */
static PyObject *
wrapped(PyObject *self)
{
    PyObject *f = ((secondary *)self)->f;
    if (f == NULL)
        PyErr_SetString(PyExc_AttributeError, "_f");
    return f;
}

static PyObject *
Secondary_write(PyObject *self, PyObject *s)
{
    PyObject *f = wrapped(self);
    if (f == NULL)
        return NULL;
    /* Not PyObject_CallMethod(f, "write", "O", s): a tuple s would
     * become the argument list. f is held across the call: a write may
     * replace sys.stdout and drop this object's last reference. */
    Py_INCREF(f);
    PyObject *args[2] = {f, s};
    PyObject *r = PyObject_VectorcallMethod(
        ((secondary *)self)->str_write, args,
        2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    Py_DECREF(f);
    if (r == NULL && PyErr_ExceptionMatches(PyExc_OSError)) {
        PyErr_Clear();
        Py_ssize_t n = PyObject_Length(s);
        return n < 0 ? NULL : PyLong_FromSsize_t(n);
    }
    return r;
}

static PyObject *
Secondary_writelines(PyObject *self, PyObject *lines)
{
    PyObject *it = PyObject_GetIter(lines);
    if (it == NULL)
        return NULL;
    PyObject *line;
    while ((line = PyIter_Next(it)) != NULL) {
        PyObject *r = Secondary_write(self, line);
        Py_DECREF(line);
        if (r == NULL) {
            Py_DECREF(it);
            return NULL;
        }
        Py_DECREF(r);
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
Secondary_flush(PyObject *self, PyObject *unused)
{
    PyObject *f = wrapped(self);
    if (f == NULL)
        return NULL;
    Py_INCREF(f);
    PyObject *r = PyObject_CallMethod(f, "flush", NULL);
    Py_DECREF(f);
    if (r == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_OSError))
            return NULL;
        PyErr_Clear();
    }
    Py_XDECREF(r);
    Py_RETURN_NONE;
}

/* What the instance and its type do not have, the wrapped stream has
 * (the Python class's __getattr__). */
static PyObject *
Secondary_getattro(PyObject *self, PyObject *name)
{
    PyObject *r = PyObject_GenericGetAttr(self, name);
    PyObject *f = ((secondary *)self)->f;
    if (r != NULL || f == NULL ||
        !PyErr_ExceptionMatches(PyExc_AttributeError))
        return r;
    PyErr_Clear();
    return PyObject_GetAttr(f, name);
}

static int
Secondary_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(((secondary *)self)->f);
    Py_VISIT(((secondary *)self)->dict);
    return 0;
}

static int
Secondary_clear(PyObject *self)
{
    Py_CLEAR(((secondary *)self)->f);
    Py_CLEAR(((secondary *)self)->dict);
    return 0;
}

static void
Secondary_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (((secondary *)self)->weakrefs != NULL)
        PyObject_ClearWeakRefs(self);
    (void)Secondary_clear(self);
    Py_XDECREF(((secondary *)self)->str_write);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyMethodDef secondary_methods[] = {
    {"write", Secondary_write, METH_O, NULL},
    {"writelines", Secondary_writelines, METH_O, NULL},
    {"flush", Secondary_flush, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef secondary_members[] = {
    {"_f", T_OBJECT_EX, offsetof(secondary, f), 0, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(secondary, dict), READONLY,
     NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(secondary, weakrefs),
     READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot secondary_slots[] = {
    {Py_tp_methods, secondary_methods},
    {Py_tp_members, secondary_members},
    {Py_tp_getattro, Secondary_getattro},
    {Py_tp_traverse, Secondary_traverse},
    {Py_tp_clear, Secondary_clear},
    {Py_tp_dealloc, Secondary_dealloc},
    {0, NULL},
};

static PyType_Spec secondary_spec = {
    .name = "cloudpickle_host.SecondaryStdout",
    .basicsize = sizeof(secondary),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = secondary_slots,
};

PyObject *
cpk_secondary_stdout(PyObject *f)
{
    PyTypeObject *type = (PyTypeObject *)PyType_FromSpec(&secondary_spec);
    if (type == NULL)
        return NULL;
    secondary *self = PyObject_GC_New(secondary, type);
    Py_DECREF(type); /* the instance holds the type now */
    if (self == NULL)
        return NULL;
    Py_INCREF(f);
    self->f = f;
    self->dict = NULL;
    self->weakrefs = NULL;
    self->str_write = PyUnicode_InternFromString("write");
    if (self->str_write == NULL) {
        Py_DECREF(self); /* untracked: dealloc untracks harmlessly */
        return NULL;
    }
    PyObject_GC_Track(self);
    return (PyObject *)self;
}
