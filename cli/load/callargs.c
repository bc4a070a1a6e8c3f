/* callargs.c - parse --call arguments and bind them to the callable's
 * signature (the rules are in callargs.h). Integers, True, False, None and
 * strings skip the `ast` import: a call without other literals costs no
 * parsing time. The rest goes through ast.literal_eval, so a literal means
 * exactly what it means in Python. */
#include "load/callargs.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/message.h"
#include "common/pyerr.h" /* cpk_error_clearable */

#define SHOWN_MAX 60 /* bytes of an argument quoted in a message */

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

/* Rule 1 of callargs.h: the ARG must be a Python literal. */
static int
looks_literal(const char *s)
{
    if (*s != '\0' && strchr("[({'\"", *s) != NULL)
        return 1;
    if (*s == '-' || *s == '+')
        s++;
    if (*s == '.')
        s++;
    if (isdigit((unsigned char)*s))
        return 1;
    return 0;
}

/* A string prefix (b, r, u, f, or two of them) and a quote. */
static int
is_prefixed_string(const char *s)
{
    int n = 0;
    while (n < 2 && s[n] != '\0' && strchr("bBrRuUfF", s[n]) != NULL)
        n++;
    return n > 0 && (s[n] == '\'' || s[n] == '"');
}

/* An argument for a message: at most SHOWN_MAX bytes, then "...". */
#define SHOWN_FMT "'%.*s%s'"
#define SHOWN(s)                                                              \
    (int)(strlen(s) > SHOWN_MAX ? SHOWN_MAX : strlen(s)), (s),                \
        (strlen(s) > SHOWN_MAX ? "..." : "")

/* ast.literal_eval(s): new reference; NULL without an exception when s is
 * no valid literal; NULL with one that must propagate. */
static PyObject *
literal(const char *s)
{
    if (is_plain_int(s))
        return PyLong_FromString(s, NULL, 10);
    PyObject *text = PyUnicode_DecodeFSDefault(s);
    if (text == NULL)
        return NULL;
    PyObject *ast = PyImport_ImportModule("ast");
    PyObject *v = NULL;
    if (ast != NULL) {
        v = PyObject_CallMethod(ast, "literal_eval", "(O)", text);
        Py_DECREF(ast);
    }
    Py_DECREF(text);
    if (v == NULL && (PyErr_ExceptionMatches(PyExc_SyntaxError) ||
                      PyErr_ExceptionMatches(PyExc_ValueError) ||
                      PyErr_ExceptionMatches(PyExc_TypeError) ||
                      PyErr_ExceptionMatches(PyExc_RecursionError)))
        PyErr_Clear();
    return v;
}

/* The value of s by rules 1, 3, 4, 5 (new reference). NULL: either a
 * usage error, printed, with *usage set, or a Python exception. `arg` is
 * the whole argument, for messages. */
static PyObject *
value(const char *s, const char *arg, int *usage)
{
    if (looks_literal(s) || is_prefixed_string(s)) {
        PyObject *v = literal(s);
        if (v == NULL && !PyErr_Occurred()) {
            *usage = cpk_usage_error("--call argument " SHOWN_FMT ": not a "
                                     "valid Python literal",
                                     SHOWN(arg));
        }
        return v;
    }
    if (*s == '-') {
        *usage = cpk_usage_error("--call argument " SHOWN_FMT ": looks like "
                                 "an option, not a value",
                                 SHOWN(arg));
        return NULL;
    }
    if (strcmp(s, "True") == 0)
        Py_RETURN_TRUE;
    if (strcmp(s, "False") == 0)
        Py_RETURN_FALSE;
    if (strcmp(s, "None") == 0)
        Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(s);
}

/* The callable's name for messages, as UTF-8 with control characters
 * replaced, in buf: __qualname__, else __name__, else <TYPE object>.
 * Returns 0, or -1 with an exception that must propagate. */
static int
callable_name(PyObject *callable, char *buf, size_t cap)
{
    static const char *const attrs[] = {"__qualname__", "__name__"};
    snprintf(buf, cap, "<%s object>", Py_TYPE(callable)->tp_name);
    for (size_t i = 0; i < 2; i++) {
        PyObject *v = PyObject_GetAttrString(callable, attrs[i]);
        if (v == NULL) {
            if (!cpk_error_clearable())
                return -1;
            PyErr_Clear();
            continue;
        }
        const char *u = PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
        if (u != NULL)
            snprintf(buf, cap, "%s", u);
        PyErr_Clear(); /* AsUTF8 on surrogates: UnicodeEncodeError */
        Py_DECREF(v);
        if (u != NULL)
            break;
    }
    return 0;
}

/* Control characters of a message from the pickle shown as '?'; cut at
 * a character boundary to fit. */
static void
clean(char *s, size_t max)
{
    size_t n = strlen(s);
    if (n > max) {
        while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
            max--;
        s[max] = '\0';
    }
    for (; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

/* 1 if `name` (a str) is the name of a parameter in names[from:to]. */
static int
names_has(PyObject *names, Py_ssize_t from, Py_ssize_t to, PyObject *name)
{
    for (Py_ssize_t i = from; i < to; i++)
        if (PyUnicode_Compare(PyTuple_GET_ITEM(names, i), name) == 0)
            return 1;
    return 0;
}

/* Whether a plain Python function surely accepts (*args, **kwargs), from
 * its code object, as inspect.Signature.bind would answer: 1 yes; 0 not
 * sure (a problem, or not a plain function), so ask inspect. Importing
 * inspect (with ast, dis, enum, tokenize, re) costs more than the rest of
 * a whole cloudpickle-load run, and is needed only to word a refusal. */
static int
surely_binds(PyObject *callable, PyObject *args, PyObject *kwargs)
{
    if (!PyFunction_Check(callable))
        return 0;
    /* functools.wraps and explicit signatures: inspect knows better. */
    PyObject *attrs = ((PyFunctionObject *)callable)->func_dict;
    if (attrs != NULL &&
        (!PyDict_Check(attrs) ||
         PyDict_GetItemString(attrs, "__wrapped__") != NULL ||
         PyDict_GetItemString(attrs, "__signature__") != NULL)) {
        PyErr_Clear();
        return 0;
    }
    PyObject *code = PyFunction_GET_CODE(callable);
    PyObject *names = PyObject_GetAttrString(code, "co_varnames");
    if (names == NULL || !PyTuple_Check(names)) {
        Py_XDECREF(names);
        PyErr_Clear();
        return 0;
    }
    PyCodeObject *co = (PyCodeObject *)code;
    Py_ssize_t nposonly = co->co_posonlyargcount, nargs = co->co_argcount;
    Py_ssize_t nkwonly = co->co_kwonlyargcount;
    int varargs = (co->co_flags & CO_VARARGS) != 0;
    int varkw = (co->co_flags & CO_VARKEYWORDS) != 0;
    PyObject *defaults = PyFunction_GET_DEFAULTS(callable);
    PyObject *kwdefaults = PyFunction_GET_KW_DEFAULTS(callable);
    Py_ssize_t ndefaults = defaults && PyTuple_Check(defaults)
                               ? PyTuple_GET_SIZE(defaults) : 0;
    Py_ssize_t npos = PyTuple_GET_SIZE(args);
    int ok = PyTuple_GET_SIZE(names) >= nargs + nkwonly &&
             (npos <= nargs || varargs);
    /* Every keyword names a keyword parameter not given by position, or
     * goes to **kwargs (a positional-only name: ask inspect). */
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (ok && PyDict_Next(kwargs, &pos, &k, &v)) {
        if (names_has(names, 0, nposonly, k))
            ok = 0;
        else if (names_has(names, nposonly, npos < nargs ? npos : nargs, k))
            ok = 0; /* multiple values */
        else if (!varkw && !names_has(names, nposonly, nargs + nkwonly, k))
            ok = 0; /* unexpected */
    }
    /* Every parameter not given by position is given by keyword or has a
     * default. */
    for (Py_ssize_t i = npos; ok && i < nargs; i++)
        ok = i >= nargs - ndefaults ||
             PyDict_GetItemWithError(kwargs, PyTuple_GET_ITEM(names, i));
    for (Py_ssize_t i = nargs; ok && i < nargs + nkwonly; i++) {
        PyObject *n = PyTuple_GET_ITEM(names, i);
        ok = PyDict_GetItemWithError(kwargs, n) != NULL ||
             (kwdefaults != NULL && PyDict_Check(kwdefaults) &&
              PyDict_GetItemWithError(kwdefaults, n) != NULL);
    }
    Py_DECREF(names);
    PyErr_Clear();
    return ok;
}

/* inspect.signature(callable).bind(*args, **kwargs). Returns 0 (bound,
 * or no signature to check against), CPK_EXIT_USAGE after the message, or
 * -1 with an exception that must propagate. */
static int
check_binding(PyObject *callable, PyObject *args, PyObject *kwargs)
{
    if (surely_binds(callable, args, kwargs))
        return 0;
    PyObject *inspect = PyImport_ImportModule("inspect");
    if (inspect == NULL)
        return -1;
    PyObject *sig = PyObject_CallMethod(inspect, "signature", "(O)",
                                        callable);
    Py_DECREF(inspect);
    PyObject *bind = sig ? PyObject_GetAttrString(sig, "bind") : NULL;
    Py_XDECREF(sig);
    PyObject *bound = bind ? PyObject_Call(bind, args, kwargs) : NULL;
    Py_XDECREF(bind);
    if (bound != NULL) {
        Py_DECREF(bound);
        return 0;
    }
    if (!cpk_error_clearable())
        return -1;
    if (!PyErr_ExceptionMatches(PyExc_TypeError) || bind == NULL) {
        /* No signature (a builtin without one: ValueError), or one that
         * cannot be used: call unchecked, the call itself will tell. */
        PyErr_Clear();
        return 0;
    }
    char problem[512] = "the arguments do not match its signature";
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyObject *s = exc ? PyObject_Str(exc) : NULL;
    const char *u = s ? PyUnicode_AsUTF8(s) : NULL;
    if (u != NULL && *u != '\0')
        snprintf(problem, sizeof(problem), "%s", u);
    PyErr_Clear();
    Py_XDECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(exc);
    Py_XDECREF(tb);
    char name[256];
    if (callable_name(callable, name, sizeof(name)) < 0)
        return -1;
    clean(name, 100);
    clean(problem, 300);
    return cpk_usage_error("--call %s(): %s", name, problem);
}

int
cpk_callargs_build(PyObject *callable, int n, char **strs, PyObject **args,
                   PyObject **kwargs)
{
    PyObject *pos = PyList_New(0), *kw = PyDict_New();
    int usage = 0;
    *args = *kwargs = NULL;
    if (pos == NULL || kw == NULL)
        goto error;
    for (int i = 0; i < n; i++) {
        const char *s = strs[i];
        const char *eq = strchr(s, '=');
        PyObject *name = NULL, *v;
        if (eq != NULL && !looks_literal(s) && !is_prefixed_string(s)) {
            name = PyUnicode_DecodeFSDefaultAndSize(s, eq - s);
            if (name == NULL)
                goto error;
            if (!PyUnicode_IsIdentifier(name)) {
                Py_DECREF(name);
                usage = cpk_usage_error("--call argument " SHOWN_FMT ": '%.*s' "
                                        "is not a Python identifier",
                                        SHOWN(s),
                                        (int)(eq - s > SHOWN_MAX ? SHOWN_MAX
                                                                 : eq - s),
                                        s);
                goto error;
            }
            int r = PyDict_Contains(kw, name);
            if (r != 0) {
                Py_DECREF(name);
                if (r > 0)
                    usage = cpk_usage_error("--call argument " SHOWN_FMT
                                            ": keyword '%.*s' given twice",
                                            SHOWN(s), (int)(eq - s), s);
                goto error;
            }
            v = value(eq + 1, s, &usage);
        }
        else
            v = value(s, s, &usage);
        if (v == NULL) {
            Py_XDECREF(name);
            goto error;
        }
        int r = name ? PyDict_SetItem(kw, name, v) : PyList_Append(pos, v);
        Py_DECREF(v);
        Py_XDECREF(name);
        if (r < 0)
            goto error;
    }
    *args = PyList_AsTuple(pos);
    if (*args == NULL)
        goto error;
    Py_CLEAR(pos);
    usage = check_binding(callable, *args, kw);
    if (usage != 0) {
        Py_CLEAR(*args);
        goto error;
    }
    *kwargs = kw;
    return 0;
error:
    Py_XDECREF(pos);
    Py_XDECREF(kw);
    return usage != 0 ? usage : -1;
}

int
cpk_callargs_bind(PyObject *callable, PyObject *args, PyObject *kwargs)
{
    return check_binding(callable, args, kwargs);
}

/* Arguments from JSON and pickles ------------------------------------------ */

/* What a JSON value is, in JSON's words. */
static const char *
json_kind(PyObject *v)
{
    if (v == Py_None)
        return "null";
    if (PyBool_Check(v))
        return "a boolean";
    if (PyLong_Check(v) || PyFloat_Check(v))
        return "a number";
    if (PyUnicode_Check(v))
        return "a string";
    if (PyList_Check(v))
        return "an array";
    return "an object";
}

/* A Python type's name for messages, cleaned. */
static void
type_name_of(PyObject *v, char *buf, size_t cap)
{
    const char *n = Py_TYPE(v)->tp_name;
    const char *dot = strrchr(n, '.');
    snprintf(buf, cap, "%s", dot ? dot + 1 : n);
    clean(buf, 100);
}

/* The pending exception of json.loads as "MSG (line L, column C)" for a
 * JSONDecodeError, else "Type: message"; cleared. 0, or -1 when it must
 * propagate (left set). */
static int
json_error(char *buf, size_t cap)
{
    if (!cpk_error_clearable())
        return -1;
    int deep = PyErr_ExceptionMatches(PyExc_RecursionError);
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    PyObject *msg = exc ? PyObject_GetAttrString(exc, "msg") : NULL;
    PyObject *line = msg ? PyObject_GetAttrString(exc, "lineno") : NULL;
    PyObject *col = line ? PyObject_GetAttrString(exc, "colno") : NULL;
    PyErr_Clear();
    const char *m = msg && PyUnicode_Check(msg) ? PyUnicode_AsUTF8(msg) : NULL;
    PyErr_Clear();
    if (deep)
        snprintf(buf, cap, "nested too deeply");
    else if (m != NULL && line != NULL && PyLong_Check(line) && col != NULL &&
             PyLong_Check(col))
        snprintf(buf, cap, "%s (line %ld, column %ld)", m,
                 PyLong_AsLong(line), PyLong_AsLong(col));
    else {
        PyObject *s = exc ? PyObject_Str(exc) : NULL;
        const char *u = s ? PyUnicode_AsUTF8(s) : NULL;
        const char *tn = ((PyTypeObject *)type)->tp_name;
        const char *dot = strrchr(tn, '.');
        snprintf(buf, cap, "%s%s%s", dot ? dot + 1 : tn,
                 u && *u ? ": " : "", u ? u : "");
        Py_XDECREF(s);
    }
    PyErr_Clear();
    Py_XDECREF(msg);
    Py_XDECREF(line);
    Py_XDECREF(col);
    Py_XDECREF(type);
    Py_XDECREF(exc);
    Py_XDECREF(tb);
    clean(buf, 300);
    return 0;
}

int
cpk_callargs_from_json(const char *context, const char *data, size_t len,
                       PyObject **args, PyObject **kwargs)
{
    *args = *kwargs = NULL;
    PyObject *json = PyImport_ImportModule("json");
    PyObject *bytes = json ? PyBytes_FromStringAndSize(data, (Py_ssize_t)len)
                           : NULL;
    PyObject *v = bytes ? PyObject_CallMethod(json, "loads", "(O)", bytes)
                        : NULL;
    Py_XDECREF(bytes);
    Py_XDECREF(json);
    if (v == NULL) {
        char why[400];
        if (json == NULL || bytes == NULL || json_error(why, sizeof(why)) < 0)
            return -1;
        cpk_error("%s: not valid JSON: %s", context, why);
        return CPK_EXIT_INPUT;
    }
    PyObject *a = NULL, *k = NULL;
    int status = -1;
    if (PyList_Check(v)) {
        a = PyList_AsTuple(v);
        k = a ? PyDict_New() : NULL;
    }
    else if (PyDict_Check(v)) {
        Py_ssize_t pos = 0;
        PyObject *key, *val;
        while (PyDict_Next(v, &pos, &key, &val)) {
            const char *u = PyUnicode_AsUTF8(key);
            if (u == NULL)
                goto done;
            int is_args = strcmp(u, "args") == 0;
            if (!is_args && strcmp(u, "kwargs") != 0) {
                char shown[SHOWN_MAX + 4];
                snprintf(shown, sizeof(shown), "%s", u);
                clean(shown, SHOWN_MAX);
                cpk_error("%s: unexpected key \"%s\" (the object may have "
                          "\"args\" and \"kwargs\")",
                          context, shown);
                status = CPK_EXIT_INPUT;
                goto done;
            }
            if (is_args ? !PyList_Check(val) : !PyDict_Check(val)) {
                cpk_error("%s: \"%s\" must be %s, not %s", context, u,
                          is_args ? "an array" : "an object", json_kind(val));
                status = CPK_EXIT_INPUT;
                goto done;
            }
            PyObject *copy = is_args ? PyList_AsTuple(val) : PyDict_Copy(val);
            if (copy == NULL)
                goto done;
            if (is_args)
                a = copy;
            else
                k = copy;
        }
        if (a == NULL)
            a = PyTuple_New(0);
        if (k == NULL)
            k = PyDict_New();
    }
    else {
        cpk_error("%s: expected an array of arguments or an object with "
                  "\"args\" and \"kwargs\", not %s",
                  context, json_kind(v));
        status = CPK_EXIT_INPUT;
        goto done;
    }
    if (a != NULL && k != NULL) {
        *args = a;
        *kwargs = k;
        a = k = NULL;
        status = 0;
    }
done:
    Py_XDECREF(a);
    Py_XDECREF(k);
    Py_DECREF(v);
    return status;
}

int
cpk_callargs_from_value(const char *context, PyObject *v, PyObject **args,
                        PyObject **kwargs)
{
    char tn[128];
    *args = *kwargs = NULL;
    if (!PyTuple_Check(v) || PyTuple_GET_SIZE(v) != 2) {
        type_name_of(v, tn, sizeof(tn));
        if (PyTuple_Check(v))
            cpk_error("%s: expected a tuple (args, kwargs), not a tuple of "
                      "%zd items",
                      context, PyTuple_GET_SIZE(v));
        else
            cpk_error("%s: expected a tuple (args, kwargs), not %s", context,
                      tn);
        return CPK_EXIT_INPUT;
    }
    PyObject *a = PyTuple_GET_ITEM(v, 0), *k = PyTuple_GET_ITEM(v, 1);
    if (!PyTuple_Check(a) && !PyList_Check(a)) {
        type_name_of(a, tn, sizeof(tn));
        cpk_error("%s: args must be a tuple or a list, not %s", context, tn);
        return CPK_EXIT_INPUT;
    }
    if (!PyDict_Check(k)) {
        type_name_of(k, tn, sizeof(tn));
        cpk_error("%s: kwargs must be a dict, not %s", context, tn);
        return CPK_EXIT_INPUT;
    }
    /* Fresh plain containers: the items as they are, no Python code run
     * (a subclass's methods are not called). */
    PyObject *pos = PyTuple_Check(a) ? PyTuple_GetSlice(a, 0, PY_SSIZE_T_MAX)
                                     : PyList_AsTuple(a);
    PyObject *kw = pos ? PyDict_New() : NULL;
    if (kw == NULL) {
        Py_XDECREF(pos);
        return -1;
    }
    Py_ssize_t i = 0;
    PyObject *key, *val;
    while (PyDict_Next(k, &i, &key, &val)) {
        /* exact: hashing and comparing them runs no Python code */
        if (!PyUnicode_CheckExact(key)) {
            type_name_of(key, tn, sizeof(tn));
            cpk_error("%s: kwargs keys must be str, not %s", context, tn);
            Py_DECREF(pos);
            Py_DECREF(kw);
            return CPK_EXIT_INPUT;
        }
        Py_INCREF(key);
        Py_INCREF(val);
        int rc = PyDict_SetItem(kw, key, val);
        Py_DECREF(key);
        Py_DECREF(val);
        if (rc < 0) {
            Py_DECREF(pos);
            Py_DECREF(kw);
            return -1;
        }
    }
    *args = pos;
    *kwargs = kw;
    return 0;
}
