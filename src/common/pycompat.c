/* pycompat.c - the Python-version layer's functions too large to inline
 * (their contracts are in pycompat.h): tables and code that differ
 * between CPython versions, so that no other file of src/ tests
 * PY_VERSION_HEX.
 */
#include "common/pycompat.h"

#include <string.h>

/* Exceptions ------------------------------------------------------------ */

int
cpk_py_exception_note(PyObject *exc, PyObject *note)
{
#if PY_VERSION_HEX >= 0x030B0000
    /* add_note: PEP 678 */
    PyObject *r = PyObject_CallMethod(exc, "add_note", "O", note);
    Py_XDECREF(r);
    return r != NULL ? 0 : -1;
#else
    PyObject *args = PyObject_GetAttrString(exc, "args");
    if (args == NULL)
        return -1;
    int rc = 0;
    if (PyTuple_CheckExact(args) && PyTuple_GET_SIZE(args) == 1 &&
        PyUnicode_CheckExact(PyTuple_GET_ITEM(args, 0))) {
        PyObject *msg = PyTuple_GET_ITEM(args, 0);
        PyObject *str = PyObject_Str(exc);
        rc = str == NULL ? -1 : 0;
        if (str != NULL && PyUnicode_Compare(str, msg) == 0) {
            PyObject *full = PyUnicode_FromFormat("%U; %U", msg, note);
            PyObject *nargs = full ? PyTuple_Pack(1, full) : NULL;
            rc = nargs ? PyObject_SetAttrString(exc, "args", nargs) : -1;
            Py_XDECREF(nargs);
            Py_XDECREF(full);
        }
        else if (str != NULL && PyErr_Occurred())
            rc = -1;
        Py_XDECREF(str);
    }
    Py_DECREF(args);
    return rc;
#endif
}

/* Code objects ---------------------------------------------------------- */

const char *const cpk_py_code_fields[] = {
    "co_argcount",     "co_posonlyargcount", "co_kwonlyargcount",
    "co_nlocals",      "co_stacksize",       "co_flags",
    "co_code",         "co_consts",          "co_names",
    "co_varnames",     "co_filename",        "co_name",
#if PY_VERSION_HEX >= 0x030B0000
    "co_qualname",
#endif
    "co_firstlineno",
#if PY_VERSION_HEX >= 0x030A0000
    "co_linetable",
#else
    "co_lnotab",
#endif
#if PY_VERSION_HEX >= 0x030B0000
    "co_exceptiontable",
#endif
    "co_freevars",     "co_cellvars",        NULL,
};

int
cpk_py_code_marshal_fields(PyCodeObject *co, int *ints, PyObject **objects,
                           PyObject **tail)
{
#if PY_VERSION_HEX >= 0x030B0000
    /* argcount, posonlyargcount, kwonlyargcount, stacksize, flags; code,
     * consts, names, localsplusnames, localspluskinds, filename, name,
     * qualname; (firstlineno); linetable, exceptiontable. */
    PyObject *bytecode = PyCode_GetCode(co);
    if (bytecode == NULL)
        return -1;
    const int i[CPK_PY_CODE_MARSHAL_INTS] = {
        co->co_argcount, co->co_posonlyargcount, co->co_kwonlyargcount,
        co->co_stacksize, co->co_flags};
    PyObject *const o[CPK_PY_CODE_MARSHAL_OBJECTS] = {
        bytecode,          co->co_consts,          co->co_names,
        co->co_localsplusnames, co->co_localspluskinds, co->co_filename,
        co->co_name,       co->co_qualname};
    PyObject *const t[CPK_PY_CODE_MARSHAL_TAIL] = {co->co_linetable,
                                                   co->co_exceptiontable};
#else
    /* argcount, posonlyargcount, kwonlyargcount, nlocals, stacksize,
     * flags; code, consts, names, varnames, freevars, cellvars, filename,
     * name; (firstlineno); lnotab (3.9) or linetable (3.10). */
    PyObject *bytecode = Py_NewRef(co->co_code);
    const int i[CPK_PY_CODE_MARSHAL_INTS] = {
        co->co_argcount, co->co_posonlyargcount, co->co_kwonlyargcount,
        co->co_nlocals,  co->co_stacksize,       co->co_flags};
    PyObject *const o[CPK_PY_CODE_MARSHAL_OBJECTS] = {
        bytecode,        co->co_consts,   co->co_names,
        co->co_varnames, co->co_freevars, co->co_cellvars,
        co->co_filename, co->co_name};
#if PY_VERSION_HEX >= 0x030A0000
    PyObject *const t[CPK_PY_CODE_MARSHAL_TAIL] = {co->co_linetable};
#else
    PyObject *const t[CPK_PY_CODE_MARSHAL_TAIL] = {co->co_lnotab};
#endif
#endif
    memcpy(ints, i, sizeof(i));
    memcpy(objects, o, sizeof(o));
    memcpy(tail, t, sizeof(t));
    return 0;
}

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
/* CPython 3.11's PyCode_GetCode (co.co_code, marshal.dumps, our globals
 * scan) copies the bytecode and writes one CACHE unit per inline cache of
 * each instruction (deopt_code), past the end of the copy when the
 * bytecode stops inside them: a heap overflow, found by fuzz_loads. The
 * walk below reads the code units in place, mapping specialised opcodes
 * (a code object that ran) to their base ones as dis.deoptmap does. The
 * tables are the interpreter's, the same for every module state. */
#include "common/opcode311.h" /* the tables of every 3.11 release */

static unsigned char op_caches[256], op_deopt[256];
static int have_op_tables;

static int
op_tables(void)
{
    if (have_op_tables)
        return 0;
    /* Every 3.11 release has the tables of opcode311.h; a pre-release
     * with another bytecode magic reads its own. */
    long magic = PyImport_GetMagicNumber();
    if (magic == -1 && PyErr_Occurred())
        return -1;
    if ((magic & 0xFFFF) == CPK_OPCODE311_MAGIC) {
        memcpy(op_caches, cpk_op_caches_311, sizeof(op_caches));
        memcpy(op_deopt, cpk_op_deopt_311, sizeof(op_deopt));
        have_op_tables = 1;
        return 0;
    }
    /* opcode, not dis (which builds the same map, but imports much more):
     * specialised instructions take the unused opcode numbers in order,
     * as dis._all_opmap assigns them. */
    PyObject *opcode = PyImport_ImportModule("opcode");
    if (opcode == NULL)
        return -1;
    int r = -1;
    PyObject *caches = PyObject_GetAttrString(opcode, "_inline_cache_entries");
    PyObject *names = caches ? PyObject_GetAttrString(opcode, "opname") : NULL;
    PyObject *opmap = names ? PyObject_GetAttrString(opcode, "opmap") : NULL;
    PyObject *spec = opmap ? PyObject_GetAttrString(
                                 opcode, "_specialized_instructions")
                           : NULL;
    PyObject *families = spec ? PyObject_GetAttrString(opcode,
                                                       "_specializations")
                              : NULL;
    if (families == NULL)
        goto done;
    if (!PyList_Check(caches) || PyList_GET_SIZE(caches) != 256 ||
        !PyList_Check(names) || PyList_GET_SIZE(names) != 256 ||
        !PyDict_Check(opmap) || !PyList_Check(spec) ||
        !PyDict_Check(families)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "opcode has no tables of the expected shape");
        goto done;
    }
    for (int i = 0; i < 256; i++) {
        long n = PyLong_AsLong(PyList_GET_ITEM(caches, i));
        if (n < 0 || n > 255) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_RuntimeError,
                                "bad opcode._inline_cache_entries");
            goto done;
        }
        op_caches[i] = (unsigned char)n;
        op_deopt[i] = (unsigned char)i;
    }
    /* The number of each specialised instruction, then its base's. */
    int slot = 0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(spec); k++, slot++) {
        while (slot < 256) {
            PyObject *nm = PyList_GET_ITEM(names, slot);
            if (PyUnicode_Check(nm) && PyUnicode_READ_CHAR(nm, 0) == '<')
                break;
            slot++;
        }
        if (slot >= 256)
            break;
        PyObject *sname = PyList_GET_ITEM(spec, k);
        Py_ssize_t pos = 0;
        PyObject *base, *family;
        while (PyDict_Next(families, &pos, &base, &family)) {
            int in = PySequence_Contains(family, sname);
            if (in < 0)
                goto done;
            if (!in)
                continue;
            PyObject *b = PyDict_GetItemWithError(opmap, base);
            if (b == NULL) {
                if (PyErr_Occurred())
                    goto done;
                break;
            }
            long bn = PyLong_AsLong(b);
            if (bn >= 0 && bn < 256)
                op_deopt[slot] = (unsigned char)bn;
            break;
        }
    }
    have_op_tables = 1;
    r = 0;
done:
    Py_XDECREF(caches);
    Py_XDECREF(names);
    Py_XDECREF(opmap);
    Py_XDECREF(spec);
    Py_XDECREF(families);
    Py_DECREF(opcode);
    return r;
}

int
cpk_py_code_ends_on_boundary(PyCodeObject *co)
{
    if (op_tables() < 0)
        return -1;
    const _Py_CODEUNIT *code = _PyCode_CODE(co);
    Py_ssize_t n = Py_SIZE(co), i = 0;
    while (i < n)
        i += 1 + op_caches[op_deopt[_Py_OPCODE(code[i])]];
    return i == n;
}
#else
int
cpk_py_code_ends_on_boundary(PyCodeObject *co)
{
    (void)co;
    return 1;
}
#endif
