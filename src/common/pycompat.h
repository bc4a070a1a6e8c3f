/* pycompat.h - the Python-version layer: every line of src/ and cli/ that
 * differs between CPython versions is here or in pycompat.c (the larger
 * functions), and pycompat_scan.h (pkscan's flags, for files without
 * Python.h). A port to a new CPython changes these files only; the list
 * of internals to check is doc/INSTALL.md's. `make lint-compat` keeps
 * PY_VERSION_HEX out of every other file. The programs (cli/) include
 * this header too.
 */
#ifndef CPK_COMMON_PYCOMPAT_H
#define CPK_COMMON_PYCOMPAT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if PY_VERSION_HEX < 0x03090000
/* Heap types that know their module (PEP 573) arrived in 3.9. */
#error "ccloudpickle needs CPython 3.9 or later"
#endif

/* C API functions of newer versions, written for the older ones ---------- */

#if PY_VERSION_HEX < 0x030A0000
/* 3.10 added Py_NewRef and Py_XNewRef (bpo-42522). */
static inline PyObject *
Py_NewRef(PyObject *o)
{
    Py_INCREF(o);
    return o;
}

static inline PyObject *
Py_XNewRef(PyObject *o)
{
    Py_XINCREF(o);
    return o;
}

/* 3.10 added PyModule_AddObjectRef. */
static inline int
PyModule_AddObjectRef(PyObject *m, const char *name, PyObject *value)
{
    int r = PyModule_AddObject(m, name, value);
    if (r == 0)
        Py_INCREF(value);
    return r;
}
#endif

#if PY_VERSION_HEX < 0x030D0000
/* 3.13 made _PyObject_LookupAttr public under this name. */
static inline int
PyObject_GetOptionalAttr(PyObject *obj, PyObject *name, PyObject **result)
{
    return _PyObject_LookupAttr(obj, name, result);
}

static inline int
PyObject_GetOptionalAttrString(PyObject *obj, const char *name,
                               PyObject **result)
{
    PyObject *n = PyUnicode_FromString(name);
    if (n == NULL) {
        *result = NULL;
        return -1;
    }
    int r = _PyObject_LookupAttr(obj, n, result);
    Py_DECREF(n);
    return r;
}
#endif

#if PY_VERSION_HEX < 0x030B0000
/* 3.11 added PyType_GetModuleByDef: the module of the first class in the
 * MRO that a module with `def` defined. Borrowed reference. */
static inline PyObject *
PyType_GetModuleByDef(PyTypeObject *type, PyModuleDef *def)
{
    PyObject *mro = type->tp_mro;
    for (Py_ssize_t i = 0; mro && i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *t = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        if (!(t->tp_flags & Py_TPFLAGS_HEAPTYPE))
            continue;
        PyObject *m = ((PyHeapTypeObject *)t)->ht_module;
        if (m != NULL && PyModule_GetDef(m) == def)
            return m;
    }
    PyErr_Format(PyExc_TypeError, "%s is not a ccloudpickle type",
                 type->tp_name);
    return NULL;
}
#endif

/* d[key] as a new reference in *result: 1 found, 0 missing (*result
 * NULL), -1 error. What 3.13's PyDict_GetItemRef does; the lookup may run
 * Python code (a colliding key's __eq__), so a borrowed result could be
 * gone by the time the caller uses it. */
static inline int
cpk_dict_get_ref(PyObject *d, PyObject *key, PyObject **result)
{
#if PY_VERSION_HEX >= 0x030D0000
    return PyDict_GetItemRef(d, key, result);
#else
    PyObject *v = PyDict_GetItemWithError(d, key);
    *result = Py_XNewRef(v);
    return v != NULL ? 1 : PyErr_Occurred() ? -1 : 0;
#endif
}

/* The referent of a weak reference as a new reference, NULL if it died
 * (3.13 deprecates PyWeakref_GET_OBJECT for PyWeakref_GetRef). */
static inline PyObject *
cpk_weakref_get(PyObject *ref)
{
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *obj;
    if (PyWeakref_GetRef(ref, &obj) < 0)
        PyErr_Clear();
    return obj;
#else
    PyObject *obj = PyWeakref_GET_OBJECT(ref);
    return obj == Py_None ? NULL : Py_NewRef(obj);
#endif
}

/* A type's namespace, new reference. 3.12 keeps static builtin types'
 * dicts per interpreter: their tp_dict is NULL (PyType_GetDict). */
static inline PyObject *
cpk_type_dict(PyTypeObject *type)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyType_GetDict(type);
#else
    return Py_NewRef(type->tp_dict);
#endif
}

/* 1 if the str `s` can be read with PyUnicode_GET_LENGTH and friends,
 * -1 with an error. Legacy (not ready) strings exist until 3.12 (PEP
 * 623). cli/report.c. */
static inline int
cpk_py_unicode_ready(PyObject *s)
{
#if PY_VERSION_HEX < 0x030C0000
    return PyUnicode_READY(s) < 0 ? -1 : 1;
#else
    (void)s;
    return 1;
#endif
}

/* Types ----------------------------------------------------------------- */

/* A heap type that refuses instances: CPK_PY_TPFLAGS_DISALLOW_INSTANTIATION
 * in its flags, CPK_PY_DISALLOW_NEW_SLOT first in its slots. 3.10 has the
 * flag (bpo-43916); before it a tp_new that raises CPython's message
 * (stock.c). */
#if PY_VERSION_HEX >= 0x030A0000
#define CPK_PY_TPFLAGS_DISALLOW_INSTANTIATION Py_TPFLAGS_DISALLOW_INSTANTIATION
#define CPK_PY_DISALLOW_NEW_SLOT
#else
static inline PyObject *
cpk_py_new_disallowed(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    (void)args;
    (void)kwargs;
    PyErr_Format(PyExc_TypeError, "cannot create '%s' instances",
                 type->tp_name);
    return NULL;
}
#define CPK_PY_TPFLAGS_DISALLOW_INSTANTIATION 0
#define CPK_PY_DISALLOW_NEW_SLOT {Py_tp_new, (void *)cpk_py_new_disallowed},
#endif

/* The flag of heap types that C modules create immutable: 3.10 has it
 * (bpo-43908); before it no type carries it, so 0. */
#ifdef Py_TPFLAGS_IMMUTABLETYPE
#define CPK_PY_TPFLAGS_IMMUTABLETYPE Py_TPFLAGS_IMMUTABLETYPE
#else
#define CPK_PY_TPFLAGS_IMMUTABLETYPE 0
#endif

/* 0 if `tp` changed since it got its tp_version_tag although the tag is
 * still there: before 3.12 a change clears only
 * Py_TPFLAGS_VALID_VERSION_TAG, keeping the old tag until the next lookup
 * gives a new one; 3.12 drops the tag itself (and 3.13 no longer sets the
 * flag). 1 otherwise: the tag then tells. pickler.c. */
static inline int
cpk_py_type_tag_valid(PyTypeObject *tp)
{
#if PY_VERSION_HEX < 0x030C0000
    return (tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) != 0;
#else
    (void)tp;
    return 1;
#endif
}

/* 1 where _pickle.Pickler.persistent_id is a getset whose C getter says,
 * running no Python code, whether an instance has one (before 3.13); 0
 * where it is a plain attribute. pickler.c. */
static inline int
cpk_py_pickler_persid_getset(void)
{
    return PY_VERSION_HEX < 0x030D0000;
}

/* 1 where ContextVar's type names its module (3.10: "_contextvars"); 3.9's
 * says "builtins", which no stock loader can import it from.
 * primitives.c. */
static inline int
cpk_py_contextvar_named(void)
{
    return PY_VERSION_HEX >= 0x030A0000;
}

/* A stamp of the dict `d` that changes whenever it does: its
 * ma_version_tag (PEP 509), bumped on every mutation from 3.6 to 3.13
 * (deprecated in 3.12, gone in 3.14). 0 where there is none, which the
 * caller takes as "changed" (lazytypes.c). */
static inline uint64_t
cpk_py_dict_stamp(PyObject *d)
{
#if PY_VERSION_HEX < 0x030E0000
    if (PyDict_Check(d)) {
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
        return ((PyDictObject *)d)->ma_version_tag;
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    }
#endif
    (void)d;
    return 0;
}

/* Functions ------------------------------------------------------------- */

/* A function's PEP 695 type parameters (3.12 func_typeparams), borrowed,
 * NULL if none or before 3.12. function.c. */
static inline PyObject *
cpk_py_func_typeparams(PyFunctionObject *f)
{
#if PY_VERSION_HEX >= 0x030C0000
    return f->func_typeparams;
#else
    (void)f;
    return NULL;
#endif
}

/* Put `note` on the exception `exc`: add_note() on 3.11+ (PEP 678), the
 * message ("...; when pickling ...") before, where args is one str and
 * str(exc) is that str, so nothing but the message changes. 0 or -1.
 * diagnose.c. */
int cpk_py_exception_note(PyObject *exc, PyObject *note);

/* The thread's recursion budget, raised by `n` levels (negative: lowered
 * back). 3.9/3.10 count the depth against the interpreter's limit, 3.11
 * counts what remains (Python frames included), 3.12 split off a C-only
 * counter, which is the one Py_EnterRecursiveCall (so the pickler)
 * spends. deepstack.c. */
static inline void
cpk_py_recursion_headroom_add(PyThreadState *ts, int n)
{
#if PY_VERSION_HEX >= 0x030C0000
    ts->c_recursion_remaining += n;
#elif PY_VERSION_HEX >= 0x030B0000
    ts->recursion_remaining += n;
#else
    ts->recursion_depth -= n;
#endif
}

/* Code objects ---------------------------------------------------------- */

/* Number of free variables (closure cells) a code object needs: 3.11
 * counts them (co_nfreevars), before it only co_freevars holds them. */
static inline Py_ssize_t
cpk_code_nfreevars(PyObject *code)
{
#if PY_VERSION_HEX >= 0x030B0000
    return ((PyCodeObject *)code)->co_nfreevars;
#else
    return PyTuple_GET_SIZE(((PyCodeObject *)code)->co_freevars);
#endif
}

/* The qualified name a code object gives its functions, borrowed:
 * co_qualname from 3.11, co_name before (function.c, portable.c). */
static inline PyObject *
cpk_py_code_qualname(PyCodeObject *co)
{
#if PY_VERSION_HEX >= 0x030B0000
    return co->co_qualname;
#else
    return co->co_name;
#endif
}

/* Bytecode with specialised instructions and inline caches undone (the
 * caches read as zeros, CACHE is opcode 0). New reference. 3.11 keeps the
 * adaptive form in place; PyCode_GetCode gives the plain one
 * (codeinfo.c). */
static inline PyObject *
cpk_py_code_bytes(PyCodeObject *co)
{
#if PY_VERSION_HEX >= 0x030B0000
    return PyCode_GetCode(co);
#else
    return Py_NewRef(co->co_code);
#endif
}

/* The co_names index in LOAD_GLOBAL's oparg: 3.11 uses the low bit for
 * "push NULL first" (bpo-46314). codeinfo.c. */
static inline unsigned int
cpk_py_load_global_name(unsigned int oparg)
{
#if PY_VERSION_HEX >= 0x030B0000
    return oparg >> 1;
#else
    return oparg;
#endif
}

/* The PEP 523 per-code extra slots (codeinfo.c), private API before 3.12
 * and PyUnstable_ from it. */
static inline Py_ssize_t
cpk_py_code_extra_index(freefunc free)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyUnstable_Eval_RequestCodeExtraIndex(free);
#else
    return _PyEval_RequestCodeExtraIndex(free);
#endif
}

static inline int
cpk_py_code_get_extra(PyObject *code, Py_ssize_t index, void **extra)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyUnstable_Code_GetExtra(code, index, extra);
#else
    return _PyCode_GetExtra(code, index, extra);
#endif
}

static inline int
cpk_py_code_set_extra(PyObject *code, Py_ssize_t index, void *extra)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyUnstable_Code_SetExtra(code, index, extra);
#else
    return _PyCode_SetExtra(code, index, extra);
#endif
}

/* The attribute names of this version's types.CodeType constructor
 * arguments, in order, NULL-terminated (code.c; the layout stock
 * cloudpickle 3.x uses for 3.11 and later). */
extern const char *const cpk_py_code_fields[];

/* A code object as marshal writes it (Python/marshal.c w_complex_object,
 * TYPE_CODE), after the type byte: CPK_PY_CODE_MARSHAL_INTS 32-bit ints,
 * CPK_PY_CODE_MARSHAL_OBJECTS objects, co_firstlineno, then
 * CPK_PY_CODE_MARSHAL_TAIL objects. 3.11 dropped co_nlocals and
 * co_varnames/freevars/cellvars (for co_localsplusnames/kinds) and added
 * co_qualname and co_exceptiontable. code.c reads this layout,
 * codewrite.c writes it. */
#if PY_VERSION_HEX >= 0x030B0000
enum {
    CPK_PY_CODE_MARSHAL_INTS = 5,
    CPK_PY_CODE_MARSHAL_OBJECTS = 8,
    CPK_PY_CODE_MARSHAL_TAIL = 2
};
#else
enum {
    CPK_PY_CODE_MARSHAL_INTS = 6,
    CPK_PY_CODE_MARSHAL_OBJECTS = 8,
    CPK_PY_CODE_MARSHAL_TAIL = 1
};
#endif

/* co's fields in marshal's order: the ints, the objects (objects[0] is the
 * bytecode, a new reference the caller releases; the rest borrowed), the
 * tail objects (borrowed). 0, or -1 with an error. */
int cpk_py_code_marshal_fields(PyCodeObject *co, int *ints,
                               PyObject **objects, PyObject **tail);

/* 1 where code can end inside the inline caches of its last instruction
 * and copying its bytecode then overflows: CPython 3.11's PyCode_GetCode
 * (deopt_code) writes one CACHE unit per inline cache past the end of the
 * copy. code.c then checks code with cpk_py_code_ends_on_boundary. */
static inline int
cpk_py_code_may_end_in_caches(void)
{
    return PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000;
}

/* 1 if co's bytecode ends on an instruction boundary, 0 if not, -1 with
 * an error; reads the code units in place. Always 1 where
 * cpk_py_code_may_end_in_caches() is 0. */
int cpk_py_code_ends_on_boundary(PyCodeObject *co);

#endif
