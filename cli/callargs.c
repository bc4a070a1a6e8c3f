/* callargs.c - parse --call arguments (callargs.h). Integers, True, False,
 * None and bare words skip the `ast` import: a call without such
 * arguments costs no parsing time. Everything else goes through
 * ast.literal_eval, so the result is exactly Python's. */
#include "callargs.h"

#include <ctype.h>
#include <string.h>

/* A decimal integer as Python spells one: no leading zeros but "0". */
static int
is_plain_int(const char *s)
{
    if (*s == '-')
        s++;
    if (!isdigit((unsigned char)*s) || (s[0] == '0' && s[1] != '\0'))
        return 0;
    for (; *s != '\0'; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

/* ASCII letters, digits, underscore, not starting with a digit: a name
 * that literal_eval rejects, so the argument is that string. */
static int
is_ascii_word(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s != '\0'; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

PyObject *
cpk_callargs_value(const char *s)
{
    if (is_plain_int(s))
        return PyLong_FromString(s, NULL, 10);
    if (strcmp(s, "True") == 0)
        Py_RETURN_TRUE;
    if (strcmp(s, "False") == 0)
        Py_RETURN_FALSE;
    if (strcmp(s, "None") == 0)
        Py_RETURN_NONE;
    if (is_ascii_word(s))
        return PyUnicode_DecodeFSDefault(s);
    PyObject *text = PyUnicode_DecodeFSDefault(s);
    if (text == NULL)
        return NULL;
    PyObject *ast = PyImport_ImportModule("ast");
    PyObject *v = NULL;
    if (ast != NULL) {
        v = PyObject_CallMethod(ast, "literal_eval", "(O)", text);
        Py_DECREF(ast);
    }
    if (v == NULL && (PyErr_ExceptionMatches(PyExc_SyntaxError) ||
                      PyErr_ExceptionMatches(PyExc_ValueError) ||
                      PyErr_ExceptionMatches(PyExc_TypeError) ||
                      PyErr_ExceptionMatches(PyExc_RecursionError))) {
        PyErr_Clear();
        return text;
    }
    Py_DECREF(text);
    return v;
}

int
cpk_callargs_build(int n, char **strs, PyObject **args, PyObject **kwargs)
{
    PyObject *pos = PyList_New(0), *kw = PyDict_New();
    if (pos == NULL || kw == NULL)
        goto error;
    for (int i = 0; i < n; i++) {
        const char *s = strs[i];
        const char *eq = strchr(s, '=');
        PyObject *name = NULL;
        if (eq != NULL && eq != s) {
            name = PyUnicode_DecodeFSDefaultAndSize(s, eq - s);
            if (name == NULL)
                goto error;
            if (!PyUnicode_IsIdentifier(name))
                Py_CLEAR(name);
        }
        PyObject *v = cpk_callargs_value(name ? eq + 1 : s);
        if (v == NULL) {
            Py_XDECREF(name);
            goto error;
        }
        int r;
        if (name == NULL)
            r = PyList_Append(pos, v);
        else if ((r = PyDict_Contains(kw, name)) == 1) {
            PyErr_Format(PyExc_TypeError,
                         "keyword argument '%U' given twice", name);
            r = -1;
        }
        else if (r == 0)
            r = PyDict_SetItem(kw, name, v);
        Py_DECREF(v);
        Py_XDECREF(name);
        if (r < 0)
            goto error;
    }
    *args = PyList_AsTuple(pos);
    Py_DECREF(pos);
    if (*args == NULL) {
        Py_DECREF(kw);
        return -1;
    }
    *kwargs = kw;
    return 0;
error:
    Py_XDECREF(pos);
    Py_XDECREF(kw);
    return -1;
}
