/* dumpexpr.c - evaluating cloudpickle-dump -e EXPR (dumpexpr.h).
 *
 * The source is parsed once with `ast`; the statements before the last
 * are compiled in exec mode, the last one, an expression, in eval mode,
 * both with CPK_EXPR_FILENAME, whose text is put in linecache first so
 * tracebacks and inspect.getsource show it. Failing to compile is a usage
 * error; failing to run is "object could not be made" (exit 4), as a
 * MODULE that raises on import is. */
#include "common/pycompat.h" /* Py_NewRef before 3.10 */
#include "dump/dumpexpr.h"

#include <stdlib.h>
#include <string.h>

#include "common/host.h"    /* cpk_host_exception_line, cpk_host_exit_if_interrupted */
#include "common/message.h" /* cpk_error, exit statuses */

/* The pending exception, normalized, as a new reference (cleared). */
static PyObject *
fetch_exception(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value;
}

/* linecache.cache[filename] = (size, None, lines, filename): an entry
 * with no mtime, which checkcache leaves alone. */
static int
register_source(PyObject *src, PyObject *filename)
{
    PyObject *lc = PyImport_ImportModule("linecache");
    PyObject *cache = lc ? PyObject_GetAttrString(lc, "cache") : NULL;
    PyObject *lines = PyUnicode_Splitlines(src, 1);
    PyObject *entry = NULL;
    int rc = -1;
    if (cache == NULL || lines == NULL)
        goto done;
    entry = Py_BuildValue("(nOOO)", PyUnicode_GET_LENGTH(src), Py_None,
                          lines, filename);
    if (entry != NULL && PyObject_SetItem(cache, filename, entry) == 0)
        rc = 0;
done:
    Py_XDECREF(entry);
    Py_XDECREF(lines);
    Py_XDECREF(cache);
    Py_XDECREF(lc);
    return rc;
}

/* The pending SyntaxError (or other compile error) as one usage line. */
static int
compile_failed(void)
{
    cpk_host_exit_if_interrupted(NULL);
    if (!PyErr_ExceptionMatches(PyExc_SyntaxError)) {
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        cpk_error("-e: %s", line ? line : "error");
        free(line);
        return CPK_EXIT_USAGE;
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *msg = value ? PyObject_GetAttrString(value, "msg") : NULL;
    PyObject *lineno = value ? PyObject_GetAttrString(value, "lineno") : NULL;
    PyObject *offset = value ? PyObject_GetAttrString(value, "offset") : NULL;
    PyErr_Clear();
    const char *m = msg && PyUnicode_Check(msg) ? PyUnicode_AsUTF8(msg) : NULL;
    if (m == NULL) {
        PyErr_Clear();
        m = "invalid syntax";
    }
    long l = lineno && PyLong_Check(lineno) ? PyLong_AsLong(lineno) : -1;
    long c = offset && PyLong_Check(offset) ? PyLong_AsLong(offset) : -1;
    PyErr_Clear();
    const char *tname = ((PyTypeObject *)type)->tp_name;
    if (l > 0 && c > 0)
        cpk_error("-e: %s: %s (line %ld, column %ld)", tname, m, l, c);
    else if (l > 0)
        cpk_error("-e: %s: %s (line %ld)", tname, m, l);
    else
        cpk_error("-e: %s: %s", tname, m);
    Py_XDECREF(msg);
    Py_XDECREF(lineno);
    Py_XDECREF(offset);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return CPK_EXIT_USAGE;
}

/* Running the code raised: its traceback (the -e lines shown from
 * linecache), then the one-line summary. */
static int
run_failed(void)
{
    cpk_host_exit_if_interrupted(NULL);
    char *line = cpk_host_exception_line();
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL && value != NULL)
        PyException_SetTraceback(value, tb);
    /* traceback.print_exception reads the -e lines from linecache (the
     * C printer, PyErr_Display, reads only files). Neither exits on
     * SystemExit as PyErr_Print would: it is an error like any other. */
    if (type != NULL) {
        PyObject *tbmod = PyImport_ImportModule("traceback");
        PyObject *r = tbmod ? PyObject_CallMethod(
                                  tbmod, "print_exception", "OOO", type,
                                  value ? value : Py_None,
                                  tb ? tb : Py_None)
                            : NULL;
        if (r == NULL) {
            cpk_host_exit_if_interrupted(NULL);
            PyErr_Clear();
            PyErr_Display(type, value, tb);
        }
        Py_XDECREF(r);
        Py_XDECREF(tbmod);
    }
    PyObject *err = PySys_GetObject("stderr"); /* borrowed */
    if (err != NULL && err != Py_None) {
        Py_INCREF(err);
        PyObject *r = PyObject_CallMethod(err, "flush", NULL);
        Py_XDECREF(r);
        Py_DECREF(err);
    }
    PyErr_Clear();
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    cpk_error("-e: %s", line ? line : "error");
    free(line);
    return CPK_EXIT_OBJECT;
}

PyObject *
cpk_expr_eval(const char *source, int *status)
{
    PyObject *src = NULL, *filename = NULL, *ast = NULL, *tree = NULL;
    PyObject *body = NULL, *head = NULL, *expr = NULL, *compile = NULL;
    PyObject *head_code = NULL, *expr_code = NULL, *value = NULL;
    PyObject *builtins = NULL, *r = NULL, *last = NULL, *expr_type = NULL;
    PyObject *rest = NULL, *empty = NULL, *last_value = NULL;
    PyObject *globals = NULL;
    Py_ssize_t nstmt;
    int is_expr;
    *status = CPK_EXIT_OK;

    /* argv as CPython decodes it (UTF-8 mode: surrogateescape), with a
     * final newline for linecache's lines */
    size_t n = strlen(source);
    PyObject *raw = PyUnicode_DecodeUTF8(source, (Py_ssize_t)n, "strict");
    if (raw == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        /* Source is text: compile() could not take the surrogates
         * CPython's argv decoding would make of such bytes anyway. */
        Py_ssize_t at = 0;
        PyObject *exc = fetch_exception();
        if (exc == NULL || PyUnicodeDecodeError_GetStart(exc, &at) < 0)
            at = -1;
        Py_XDECREF(exc);
        PyErr_Clear();
        cpk_error("-e: EXPR is not valid UTF-8 at byte %zd", at);
        *status = CPK_EXIT_USAGE;
        return NULL;
    }
    if (raw == NULL)
        goto system_error;
    if (n > 0 && source[n - 1] == '\n')
        src = raw;
    else {
        src = PyUnicode_FromFormat("%U\n", raw);
        Py_DECREF(raw);
        if (src == NULL)
            goto system_error;
    }
    /* Each step runs Python code: none may run with an error set (a
     * user's ast.py that raises must be the error reported). */
    if ((filename = PyUnicode_FromString(CPK_EXPR_FILENAME)) == NULL ||
        (ast = PyImport_ImportModule("ast")) == NULL ||
        (builtins = PyImport_ImportModule("builtins")) == NULL ||
        (compile = PyObject_GetAttrString(builtins, "compile")) == NULL ||
        register_source(src, filename) < 0)
        goto system_error;

    tree = PyObject_CallMethod(ast, "parse", "OO", src, filename);
    if (tree == NULL) {
        *status = compile_failed();
        goto done;
    }
    body = PyObject_GetAttrString(tree, "body");
    if (body == NULL || !PyList_Check(body))
        goto system_error;
    nstmt = PyList_GET_SIZE(body);
    if (nstmt > 0)
        last = Py_NewRef(PyList_GET_ITEM(body, nstmt - 1));
    expr_type = PyObject_GetAttrString(ast, "Expr");
    if (expr_type == NULL)
        goto system_error;
    is_expr = last != NULL ? PyObject_IsInstance(last, expr_type) : 0;
    if (is_expr < 0)
        goto system_error;
    if (!is_expr) {
        if (last == NULL)
            cpk_error("-e: no statement: EXPR must end with the value to "
                      "pickle");
        else {
            PyObject *ln = PyObject_GetAttrString(last, "lineno");
            long l = ln && PyLong_Check(ln) ? PyLong_AsLong(ln) : -1;
            Py_XDECREF(ln);
            PyErr_Clear();
            cpk_error("-e: the last statement (%s, line %ld) is no "
                      "expression: end EXPR with the value to pickle",
                      Py_TYPE(last)->tp_name, l);
        }
        *status = CPK_EXIT_USAGE;
        goto done;
    }
    /* Module(body[:-1]) and Expression(body[-1].value): the nodes keep
     * their positions in the whole source. */
    rest = PyList_GetSlice(body, 0, nstmt - 1);
    empty = rest ? PyList_New(0) : NULL;
    if (empty != NULL)
        head = PyObject_CallMethod(ast, "Module", "OO", rest, empty);
    last_value = head ? PyObject_GetAttrString(last, "value") : NULL;
    if (last_value != NULL)
        expr = PyObject_CallMethod(ast, "Expression", "(O)", last_value);
    if (head == NULL || expr == NULL)
        goto system_error;
    head_code = PyObject_CallFunction(compile, "OOs", head, filename, "exec");
    if (head_code != NULL)
        expr_code = PyObject_CallFunction(compile, "OOs", expr, filename,
                                          "eval");
    if (head_code == NULL || expr_code == NULL) {
        *status = compile_failed();
        goto done;
    }

    {
        PyObject *main_mod = PyImport_AddModule("__main__"); /* borrowed */
        globals = main_mod ? Py_XNewRef(PyModule_GetDict(main_mod)) : NULL;
    }
    if (globals == NULL)
        goto system_error;
    r = PyEval_EvalCode(head_code, globals, globals);
    if (r != NULL)
        value = PyEval_EvalCode(expr_code, globals, globals);
    if (value == NULL)
        *status = run_failed();
    goto done;

system_error:
    cpk_host_exit_if_interrupted(NULL);
    {
        char *line = PyErr_Occurred() ? cpk_host_exception_line() : NULL;
        PyErr_Clear();
        cpk_error("-e: %s", line ? line : "error");
        free(line);
    }
    *status = CPK_EXIT_SYSTEM;
done:
    Py_XDECREF(r);
    Py_XDECREF(globals);
    Py_XDECREF(last);
    Py_XDECREF(expr_type);
    Py_XDECREF(rest);
    Py_XDECREF(empty);
    Py_XDECREF(last_value);
    Py_XDECREF(src);
    Py_XDECREF(filename);
    Py_XDECREF(ast);
    Py_XDECREF(builtins);
    Py_XDECREF(compile);
    Py_XDECREF(tree);
    Py_XDECREF(body);
    Py_XDECREF(head);
    Py_XDECREF(expr);
    Py_XDECREF(head_code);
    Py_XDECREF(expr_code);
    if (value == NULL && *status == CPK_EXIT_OK)
        *status = CPK_EXIT_SYSTEM;
    return value;
}
