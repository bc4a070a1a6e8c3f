/* test_codewrite.c - code objects are written straight in the compact
 * marshal form (src/types/codewrite.c). The oracle is the definition: marshal's
 * version 2 bytes rewritten as doc/FORMAT.md says (ASCII strings in the
 * short forms, small tuples as TYPE_SMALL_TUPLE, set elements sorted),
 * done here in Python on marshal.dumps(code, 2). Every code object of the
 * running interpreter's standard library, and constants of every kind,
 * must give exactly those bytes, and load back to code that marshal
 * writes the same way again. */
#include "internal.h" /* cpk_code_compact */
#include "support.h"

/* The pickler's calls of the writer go through this wrapper (the Makefile
 * links this test with --wrap=cpk_code_compact), counted: the pickle is
 * the same whether the writer or the old path made it, so only the count
 * shows the writer is used. */
PyObject *__real_cpk_code_compact(PyObject *code);
PyObject *__wrap_cpk_code_compact(PyObject *code);
static long writer_calls;

PyObject *
__wrap_cpk_code_compact(PyObject *code)
{
    writer_calls++;
    return __real_cpk_code_compact(code);
}

/* direct(code): what the writer alone gives, None where it declines;
 * calls(): how many times the pickler called it. */
static PyObject *
direct(PyObject *self, PyObject *code)
{
    (void)self;
    PyObject *out = __real_cpk_code_compact(code);
    if (out == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return out;
}

static PyObject *
calls(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(writer_calls);
}

static PyMethodDef hooks[] = {
    {"direct", direct, METH_O, NULL},
    {"calls", calls, METH_NOARGS, NULL},
};

static void
start(void)
{
    cpk_py_start();
    for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
        PyObject *f = PyCFunction_New(&hooks[i], NULL);
        cr_assert(f != NULL && PyDict_SetItemString(PyEval_GetBuiltins(),
                                                    hooks[i].ml_name,
                                                    f) == 0);
        Py_DECREF(f);
    }
}

TestSuite(codewrite, .init = start, .fini = cpk_py_stop);

Test(codewrite, standard_library_byte_for_byte)
{
    cpk_py_file("_oracle.py", "standard_library_byte_for_byte.py");
}

Test(codewrite, every_kind_of_constant)
{
    cpk_py_file("_oracle.py", "every_kind_of_constant.py");
}

/* What the writer leaves to the old path gives the old path's answer:
 * code nested deeper than it goes, constants marshal refuses (the code
 * then travels as its constructor's fields). */
Test(codewrite, what_it_leaves_to_marshal)
{
    cpk_py_file("_oracle.py", "what_it_leaves_to_marshal.py");
}
