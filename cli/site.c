/* site.c - site.py's start-up work for the programs, in C (site.h); the
 * interpreter's configuration is host.c's. Paths are file-system bytes
 * here (UTF-8 mode: str is their surrogateescape decoding). */
#include "site.h"

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    const char *str;          /* a str, */
    const char *const *list;  /* or a list of str; both NULL: None */
} cpk_site_value;

typedef struct {
    const char *key;
    cpk_site_value value;
} cpk_site_attr;

typedef struct {
    const char *name; /* in builtins */
    const char *cls;  /* in _sitebuiltins */
    cpk_site_attr attrs[5];
} cpk_site_builtin;

/* cpk_site_dirs, cpk_site_dirs_venv, cpk_site_builtins,
 * CPK_SITE_SKIPS_DOT_PTH, CPK_SITE_DROPS_BOM */
#include "site_layout.h"

/* Paths --------------------------------------------------------------- */

/* posixpath.normpath of s into out (PATH_MAX); 0, or -1 if too long. */
static int
normpath(const char *s, char *out)
{
    size_t slashes = 0;
    if (s[0] == '/')
        slashes = s[1] == '/' && s[2] != '/' ? 2 : 1;
    size_t len = slashes;
    memset(out, '/', slashes);
    size_t starts[PATH_MAX / 2], n = 0; /* where each kept component starts */
    const char *p = s;
    while (*p != '\0') {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        size_t clen = e ? (size_t)(e - p) : strlen(p);
        if (clen == 0)
            break;
        int dot = clen == 1 && p[0] == '.';
        int dotdot = clen == 2 && p[0] == '.' && p[1] == '.';
        if (dot) {
            /* dropped */
        }
        else if (dotdot && n > 0 &&
                 !(len - starts[n - 1] == 2 &&
                   strncmp(out + starts[n - 1], "..", 2) == 0)) {
            len = starts[--n];
            len -= n > 0; /* the separator before it */
        }
        else if (!dotdot || slashes == 0) {
            size_t need = len + (n > 0) + clen;
            if (need >= PATH_MAX || n == sizeof(starts) / sizeof(starts[0]))
                return -1;
            if (n > 0)
                out[len++] = '/';
            starts[n++] = len;
            memcpy(out + len, p, clen);
            len += clen;
        }
        /* else: ".." at the root stays the root */
        p += clen;
    }
    if (len == 0)
        out[len++] = '.';
    out[len] = '\0';
    return 0;
}

/* os.path.abspath(os.path.join(dir, name)) (dir NULL: the current
 * directory) into out (PATH_MAX); 0, or -1. */
static int
abspath(const char *dir, const char *name, char *out)
{
    char joined[PATH_MAX], cwd[PATH_MAX];
    if (name[0] != '/') {
        if (dir == NULL || dir[0] != '/') {
            if (getcwd(cwd, sizeof(cwd)) == NULL)
                return -1;
            if (dir != NULL && dir[0] != '\0') {
                char both[PATH_MAX];
                if (snprintf(both, sizeof(both), "%s/%s", cwd, dir) >=
                    (int)sizeof(both))
                    return -1;
                strcpy(cwd, both);
            }
            dir = cwd;
        }
        size_t dl = strlen(dir);
        if (snprintf(joined, sizeof(joined), "%s%s%s", dir,
                     dl > 0 && dir[dl - 1] == '/' ? "" : "/",
                     name) >= (int)sizeof(joined))
            return -1;
        name = joined;
    }
    return normpath(name, out);
}

/* posixpath.dirname, in place. */
static void
dirname_of(char *p)
{
    char *slash = strrchr(p, '/');
    if (slash == NULL) {
        p[0] = '\0';
        return;
    }
    slash[1] = '\0';
    /* head.rstrip('/') unless it is all slashes */
    size_t len = strlen(p);
    size_t i = len;
    while (i > 0 && p[i - 1] == '/')
        i--;
    if (i > 0)
        p[i] = '\0';
}

static int
is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int
is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The whole file, NUL-terminated, in a malloc'd buffer (*len bytes
 * before the NUL); NULL if it cannot be read. */
static char *
read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *more = cap < (SIZE_MAX / 2) ? realloc(buf, cap * 2) : NULL;
        if (more == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = more;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (buf == NULL || bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The next line of text[*at, len) as TextIOWrapper's universal newlines
 * split it (\n, \r\n or \r ends a line), without its end; NULL at the
 * end. The line may hold NUL bytes: *linelen is its length. */
static const char *
next_line(const char *text, size_t len, size_t *at, size_t *linelen)
{
    if (*at >= len)
        return NULL;
    const char *line = text + *at;
    size_t i = *at;
    while (i < len && text[i] != '\n' && text[i] != '\r')
        i++;
    *linelen = i - *at;
    if (i < len && text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')
        i++;
    *at = i + 1;
    return line;
}

/* str.strip()'s ASCII whitespace. */
static int
is_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* sys.path and the normalised entries on it ---------------------------- */

typedef struct {
    PyObject *path;    /* sys.path */
    PyObject *known;   /* set of str: site.py's known_paths */
    PyObject *pending; /* list of (sitedir, name): .pth files with import
                        * lines, in the order site.py would exec them */
} site_state;

static PyObject *
fs_str(const char *p)
{
    return PyUnicode_DecodeFSDefault(p);
}

/* Add normalised dir to sys.path unless known; 0 or -1. */
static int
path_append(site_state *s, const char *dir)
{
    PyObject *str = fs_str(dir);
    if (str == NULL)
        return -1;
    int r = PySet_Contains(s->known, str);
    if (r == 0)
        r = PyList_Append(s->path, str) < 0 || PySet_Add(s->known, str) < 0
                ? -1
                : 0;
    Py_DECREF(str);
    return r < 0 ? -1 : 0;
}

/* site.addpackage: the path lines of sitedir/name; the file is queued for
 * its import lines. */
static int
add_package(site_state *s, const char *sitedir, const char *name)
{
    char full[PATH_MAX];
    struct stat st;
    if (snprintf(full, sizeof(full), "%s/%s", sitedir, name) >=
            (int)sizeof(full) ||
        lstat(full, &st) != 0)
        return 0;
    size_t len, at = 0, n;
    char *text = read_file(full, &len);
    if (text == NULL)
        return 0;
    if (CPK_SITE_DROPS_BOM && len >= 3 &&
        memcmp(text, "\xef\xbb\xbf", 3) == 0)
        at = 3; /* decoded as utf-8-sig */
    int imports = 0, rc = 0;
    const char *line;
    while (rc == 0 && (line = next_line(text, len, &at, &n)) != NULL) {
        size_t end = n;
        while (end > 0 && is_space(line[end - 1]))
            end--;
        if (n == 0 || line[0] == '#' || end == 0)
            continue;
        if (n >= 7 && strncmp(line, "import", 6) == 0 &&
            (line[6] == ' ' || line[6] == '\t')) {
            imports = 1;
            continue;
        }
        char dir[PATH_MAX], norm[PATH_MAX];
        if (end >= sizeof(dir) || memchr(line, '\0', end) != NULL)
            continue; /* os.path.exists says no */
        memcpy(dir, line, end);
        dir[end] = '\0';
        struct stat dst;
        if (abspath(sitedir, dir, norm) == 0 && stat(norm, &dst) == 0)
            rc = path_append(s, norm);
    }
    free(text);
    if (rc == 0 && imports) {
        PyObject *item = Py_BuildValue("(NN)", fs_str(sitedir), fs_str(name));
        rc = item == NULL || PyList_Append(s->pending, item) < 0 ? -1 : 0;
        Py_XDECREF(item);
    }
    return rc;
}

static int
by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* site.addsitedir for an existing directory. */
static int
add_site_dir(site_state *s, const char *sitedir)
{
    char dir[PATH_MAX];
    if (abspath(NULL, sitedir, dir) < 0)
        return 0;
    if (path_append(s, dir) < 0)
        return -1;
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if ((CPK_SITE_SKIPS_DOT_PTH && e->d_name[0] == '.') || len < 4 ||
            strcmp(e->d_name + len - 4, ".pth") != 0)
            continue;
        if (n == cap) {
            char **more = realloc(names, (cap = cap ? cap * 2 : 8) *
                                             sizeof(*names));
            if (more == NULL) {
                rc = -1;
                break;
            }
            names = more;
        }
        if ((names[n] = strdup(e->d_name)) == NULL) {
            rc = -1;
            break;
        }
        n++;
    }
    closedir(d);
    if (rc == 0)
        qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0)
            rc = add_package(s, dir, names[i]);
        free(names[i]);
    }
    free(names);
    if (rc < 0 && !PyErr_Occurred())
        PyErr_NoMemory();
    return rc;
}

/* 1 if sys.prefix is not sys.base_prefix (Debian's getsitepackages asks
 * this of every prefix it is given), 0, or -1. */
static int
is_virtual(void)
{
    PyObject *p = PySys_GetObject("prefix");           /* borrowed */
    PyObject *base = PySys_GetObject("base_prefix");   /* borrowed */
    if (p == NULL || base == NULL)
        return 0;
    int r = PyObject_RichCompareBool(p, base, Py_NE);
    if (r == 0 && PySys_GetObject("real_prefix") != NULL)
        r = 1;
    return r;
}

/* site.addsitepackages(known_paths, prefixes) for prefixes in a list of
 * str. */
static int
add_site_packages(site_state *s, PyObject *prefixes)
{
    int virtual = is_virtual();
    if (virtual < 0)
        return -1;
    const char *const *suffixes = virtual ? cpk_site_dirs_venv
                                          : cpk_site_dirs;
    PyObject *seen = PySet_New(NULL);
    if (seen == NULL)
        return -1;
    int rc = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < PyList_GET_SIZE(prefixes); i++) {
        PyObject *prefix = PyList_GET_ITEM(prefixes, i);
        if (!PyUnicode_Check(prefix) || PyUnicode_GET_LENGTH(prefix) == 0)
            continue;
        int dup = PySet_Contains(seen, prefix);
        if (dup != 0 || PySet_Add(seen, prefix) < 0) {
            rc = dup < 0 ? -1 : rc;
            continue;
        }
        PyObject *bytes = PyUnicode_EncodeFSDefault(prefix);
        if (bytes == NULL) {
            rc = -1;
            break;
        }
        const char *p = PyBytes_AS_STRING(bytes);
        size_t plen = strlen(p);
        /* os.path.join(prefix, "lib", ...): one separator */
        int trailing = plen > 0 && p[plen - 1] == '/';
        for (const char *const *sfx = suffixes; rc == 0 && *sfx; sfx++) {
            char dir[PATH_MAX];
            if (snprintf(dir, sizeof(dir), "%s%s", p, *sfx + trailing) <
                    (int)sizeof(dir) &&
                is_dir(dir))
                rc = add_site_dir(s, dir);
        }
        Py_DECREF(bytes);
    }
    Py_DECREF(seen);
    return rc;
}

/* site.venv(): 1 and prefixes made [venv] (+ the old ones when it
 * includes the system site-packages) if sys.executable is a virtual
 * environment's, else 0; -1 on error. */
static int
use_venv(site_state *s, PyObject **prefixes)
{
    if (PySys_SetObject("_home", Py_None) < 0)
        return -1;
    PyObject *exe = PySys_GetObject("executable"); /* borrowed */
    PyObject *bytes = exe && PyUnicode_Check(exe)
                          ? PyUnicode_EncodeFSDefault(exe)
                          : PyBytes_FromString("");
    if (bytes == NULL)
        return -1;
    char exe_dir[PATH_MAX], prefix[PATH_MAX], cfg[PATH_MAX];
    int bad = abspath(NULL, PyBytes_AS_STRING(bytes), exe_dir) < 0;
    Py_DECREF(bytes);
    if (bad)
        return 0;
    dirname_of(exe_dir);
    strcpy(prefix, exe_dir);
    dirname_of(prefix);
    if (!(snprintf(cfg, sizeof(cfg), "%s/pyvenv.cfg", exe_dir) <
              (int)sizeof(cfg) &&
          is_file(cfg)) &&
        !(snprintf(cfg, sizeof(cfg), "%s/pyvenv.cfg", prefix) <
              (int)sizeof(cfg) &&
          is_file(cfg)))
        return 0;

    size_t len, at = 0, n;
    char *text = read_file(cfg, &len);
    if (text == NULL) /* site.py would fail; go on without it */
        return 0;
    int system_site = 1, rc = 0;
    const char *line;
    while (rc == 0 && (line = next_line(text, len, &at, &n)) != NULL) {
        const char *eq = memchr(line, '=', n);
        if (eq == NULL)
            continue;
        const char *k = line, *ke = eq, *v = eq + 1, *ve = line + n;
        while (k < ke && is_space(*k))
            k++;
        while (ke > k && is_space(ke[-1]))
            ke--;
        while (v < ve && is_space(*v))
            v++;
        while (ve > v && is_space(ve[-1]))
            ve--;
        if ((size_t)(ke - k) == 28 &&
            strncasecmp(k, "include-system-site-packages", 28) == 0)
            system_site = ve - v == 4 && strncasecmp(v, "true", 4) == 0;
        else if (ke - k == 4 && strncasecmp(k, "home", 4) == 0) {
            PyObject *home = PyUnicode_DecodeUTF8(v, ve - v,
                                                  "surrogateescape");
            rc = home == NULL || PySys_SetObject("_home", home) < 0 ? -1
                                                                     : 0;
            Py_XDECREF(home);
        }
    }
    free(text);
    if (rc < 0)
        return -1;

    PyObject *venv = fs_str(prefix);
    PyObject *first = venv ? PyList_New(0) : NULL;
    if (first == NULL || PyList_Append(first, venv) < 0 ||
        PySys_SetObject("prefix", venv) < 0 ||
        PySys_SetObject("exec_prefix", venv) < 0 ||
        add_site_packages(s, first) < 0 ||
        (system_site ? PyList_Insert(*prefixes, 0, venv) < 0
                     : PyList_SetSlice(*prefixes, 0,
                                       PyList_GET_SIZE(*prefixes), first) <
                           0)) {
        Py_XDECREF(first);
        Py_XDECREF(venv);
        return -1;
    }
    Py_DECREF(first);
    Py_DECREF(venv);
    return 1;
}

/* The builtins ------------------------------------------------------- */

static PyObject *
value_of(const cpk_site_value *v)
{
    if (v->str != NULL)
        return PyUnicode_FromString(v->str);
    if (v->list == NULL)
        Py_RETURN_NONE;
    PyObject *list = PyList_New(0);
    for (const char *const *p = v->list; list != NULL && *p != NULL; p++) {
        PyObject *s = PyUnicode_FromString(*p);
        if (s == NULL || PyList_Append(list, s) < 0)
            Py_CLEAR(list);
        Py_XDECREF(s);
    }
    return list;
}

/* builtins.quit, exit, copyright, credits, license, help: instances of
 * _sitebuiltins' classes with the attributes site.py gives them, made
 * without calling __init__ (_Printer's imports os). */
static int
set_builtins(void)
{
    PyObject *mod = PyImport_ImportModule("_sitebuiltins");
    PyObject *builtins = mod ? PyImport_ImportModule("builtins") : NULL;
    PyObject *empty = builtins ? PyTuple_New(0) : NULL;
    int rc = empty ? 0 : -1;
    for (const cpk_site_builtin *b = cpk_site_builtins; rc == 0 && b->name;
         b++) {
        PyObject *cls = PyObject_GetAttrString(mod, b->cls);
        PyObject *obj = NULL;
        if (cls != NULL && PyType_Check(cls))
            obj = ((PyTypeObject *)cls)->tp_new((PyTypeObject *)cls, empty,
                                                NULL);
        else if (cls != NULL)
            PyErr_Format(PyExc_TypeError, "_sitebuiltins.%s is no class",
                         b->cls);
        for (const cpk_site_attr *a = b->attrs; obj != NULL && a->key; a++) {
            PyObject *v = value_of(&a->value);
            if (v == NULL || PyObject_SetAttrString(obj, a->key, v) < 0)
                Py_CLEAR(obj);
            Py_XDECREF(v);
        }
        if (obj == NULL || PyObject_SetAttrString(builtins, b->name, obj) < 0)
            rc = -1;
        Py_XDECREF(obj);
        Py_XDECREF(cls);
    }
    Py_XDECREF(empty);
    Py_XDECREF(builtins);
    Py_XDECREF(mod);
    return rc;
}

/* The deferred part: a finder at the end of sys.meta_path ------------- */

typedef struct {
    PyObject_HEAD
    PyObject *pending;   /* list of (sitedir, name) for site.addpackage */
    PyObject *site_path; /* frozenset: the sys.path entries site.py left */
    int customize;       /* site.execsitecustomize() still to run */
} deferred;

/* An ordinary failure of the deferred code is reported on standard
 * error, as site.py reports its own, and start-up goes on; 0. Anything
 * else (KeyboardInterrupt, SystemExit) stays set: -1. */
static int
report(void)
{
    if (!PyErr_ExceptionMatches(PyExc_Exception))
        return -1;
    PyErr_Print();
    return 0;
}

static int
in_site_path(deferred *self, PyObject *entry)
{
    int r = PySet_Contains(self->site_path, entry);
    if (r < 0)
        PyErr_Clear(); /* unhashable: not one of site.py's */
    return r > 0;
}

/* Narrow sys.path (in place) to the entries site.py had when it ran the
 * .pth lines: the current directory, -P and PYTHONPATH entries, and what
 * user code added since, are left out, so that a stale .pth or a missing
 * sitecustomize cannot pick up a module from the current directory. The
 * full list comes back (new reference; None if sys.path is no list). */
static PyObject *
narrow_path(deferred *self)
{
    PyObject *path = PySys_GetObject("path"); /* borrowed */
    if (path == NULL || !PyList_Check(path))
        Py_RETURN_NONE;
    PyObject *saved = PyList_GetSlice(path, 0, PyList_GET_SIZE(path));
    PyObject *view = saved ? PyList_New(0) : NULL;
    for (Py_ssize_t i = 0; view && i < PyList_GET_SIZE(saved); i++) {
        PyObject *entry = PyList_GET_ITEM(saved, i);
        if (in_site_path(self, entry) && PyList_Append(view, entry) < 0)
            Py_CLEAR(view);
    }
    if (view == NULL ||
        PyList_SetSlice(path, 0, PyList_GET_SIZE(path), view) < 0)
        Py_CLEAR(saved);
    Py_XDECREF(view);
    return saved;
}

/* Put back what narrow_path left out, each where it was, with the
 * entries the .pth lines left in place of site.py's. */
static int
widen_path(deferred *self, PyObject *saved)
{
    PyObject *path = PySys_GetObject("path"); /* borrowed */
    if (saved == Py_None || path == NULL || !PyList_Check(path))
        return 0;
    PyObject *after = PyList_GetSlice(path, 0, PyList_GET_SIZE(path));
    PyObject *full = after ? PyList_New(0) : NULL;
    int placed = 0, rc = full ? 0 : -1;
    for (Py_ssize_t i = 0; rc == 0 && i < PyList_GET_SIZE(saved); i++) {
        PyObject *entry = PyList_GET_ITEM(saved, i);
        if (!in_site_path(self, entry))
            rc = PyList_Append(full, entry);
        else if (!placed) {
            rc = PyList_SetSlice(full, PyList_GET_SIZE(full),
                                 PyList_GET_SIZE(full), after);
            placed = 1;
        }
    }
    if (rc == 0 && !placed)
        rc = PyList_SetSlice(full, PyList_GET_SIZE(full),
                             PyList_GET_SIZE(full), after);
    if (rc == 0)
        rc = PyList_SetSlice(path, 0, PyList_GET_SIZE(path), full);
    Py_XDECREF(full);
    Py_XDECREF(after);
    return rc;
}

/* site.addpackage for each queued .pth file (its import lines; its path
 * lines are known already), then site.execsitecustomize(). */
static int
run_site_code(PyObject *pending, int customize)
{
    PyObject *site = PyImport_ImportModule("site");
    PyObject *makepath = site ? PyObject_GetAttrString(site, "makepath")
                              : NULL;
    PyObject *known = makepath ? PySet_New(NULL) : NULL;
    PyObject *path = PySys_GetObject("path"); /* borrowed */
    PyObject *copy = known && path && PyList_Check(path)
                         ? PyList_GetSlice(path, 0, PyList_GET_SIZE(path))
                         : NULL;
    for (Py_ssize_t i = 0; copy && i < PyList_GET_SIZE(copy); i++) {
        PyObject *made = PyObject_CallOneArg(makepath,
                                             PyList_GET_ITEM(copy, i));
        if (made != NULL && PyTuple_Check(made) && PyTuple_GET_SIZE(made) == 2)
            PySet_Add(known, PyTuple_GET_ITEM(made, 1));
        Py_XDECREF(made);
        PyErr_Clear();
    }
    Py_XDECREF(copy);
    int rc = known ? 0 : report();
    for (Py_ssize_t i = 0; known && rc == 0 && i < PyList_GET_SIZE(pending);
         i++) {
        PyObject *item = PyList_GET_ITEM(pending, i);
        PyObject *r = PyObject_CallMethod(site, "addpackage", "OOO",
                                          PyTuple_GET_ITEM(item, 0),
                                          PyTuple_GET_ITEM(item, 1), known);
        if (r == NULL)
            rc = report();
        Py_XDECREF(r);
    }
    if (known && rc == 0 && customize) {
        PyObject *r = PyObject_CallMethod(site, "execsitecustomize", NULL);
        if (r == NULL)
            rc = report();
        Py_XDECREF(r);
    }
    Py_XDECREF(known);
    Py_XDECREF(makepath);
    Py_XDECREF(site);
    return rc;
}

/* Run what was deferred, once: on site.py's sys.path (narrow_path), with
 * sys.stdout pointed at sys.stderr (standard output is the programs'). */
static int
run_deferred(deferred *self)
{
    PyObject *pending = self->pending;
    int customize = self->customize;
    self->pending = NULL;
    self->customize = 0;
    if (pending == NULL || (PyList_GET_SIZE(pending) == 0 && !customize)) {
        Py_XDECREF(pending);
        return 0;
    }
    PyObject *out = PySys_GetObject("stdout"); /* borrowed */
    PyObject *err = PySys_GetObject("stderr"); /* borrowed */
    Py_XINCREF(out);
    Py_XINCREF(err);
    int swapped = out != NULL && err != NULL && err != Py_None &&
                  PySys_SetObject("stdout", err) == 0;
    PyErr_Clear();

    int rc = -1;
    PyObject *saved = narrow_path(self);
    if (saved != NULL) {
        rc = run_site_code(pending, customize);
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (widen_path(self, saved) < 0) {
            /* sys.path as the .pth lines left it: keep their error */
            if (type != NULL)
                PyErr_Clear();
            else
                rc = -1;
        }
        if (type != NULL)
            PyErr_Restore(type, value, tb);
        Py_DECREF(saved);
    }
    Py_DECREF(pending);

    if (swapped && PySys_GetObject("stdout") == err) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PySys_SetObject("stdout", out);
        PyErr_Restore(type, value, tb);
    }
    Py_XDECREF(out);
    Py_XDECREF(err);
    return rc;
}

/* find_spec(fullname, path=None, target=None): leave sys.meta_path, run
 * what was deferred, then ask the finders there are now. */
static PyObject *
Deferred_find_spec(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"fullname", "path", "target", NULL};
    PyObject *name, *path = Py_None, *target = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:find_spec", kwlist,
                                     &name, &path, &target))
        return NULL;
    PyObject *meta = PySys_GetObject("meta_path"); /* borrowed */
    if (meta != NULL && PyList_Check(meta)) {
        for (Py_ssize_t i = PyList_GET_SIZE(meta) - 1; i >= 0; i--)
            if (PyList_GET_ITEM(meta, i) == self &&
                PySequence_DelItem(meta, i) < 0)
                return NULL;
    }
    if (run_deferred((deferred *)self) < 0)
        return NULL;
    meta = PySys_GetObject("meta_path");
    PyObject *finders = meta ? PySequence_List(meta) : NULL;
    if (finders == NULL)
        return NULL;
    PyObject *spec = NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(finders); i++) {
        PyObject *f = PyList_GET_ITEM(finders, i);
        if (f == self)
            continue;
        PyObject *find = PyObject_GetAttrString(f, "find_spec");
        if (find == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError))
                break;
            PyErr_Clear();
            continue;
        }
        spec = PyObject_CallFunctionObjArgs(find, name, path, target, NULL);
        Py_DECREF(find);
        if (spec != Py_None)
            break;
        Py_CLEAR(spec);
    }
    Py_DECREF(finders);
    if (spec == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return spec;
}

static int
Deferred_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(((deferred *)self)->pending);
    Py_VISIT(((deferred *)self)->site_path);
    return 0;
}

static int
Deferred_clear(PyObject *self)
{
    Py_CLEAR(((deferred *)self)->pending);
    Py_CLEAR(((deferred *)self)->site_path);
    return 0;
}

static void
Deferred_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    (void)Deferred_clear(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyMethodDef deferred_methods[] = {
    {"find_spec", (PyCFunction)(void (*)(void))Deferred_find_spec,
     METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot deferred_slots[] = {
    {Py_tp_methods, deferred_methods},
    {Py_tp_traverse, Deferred_traverse},
    {Py_tp_clear, Deferred_clear},
    {Py_tp_dealloc, Deferred_dealloc},
    {0, NULL},
};

static PyType_Spec deferred_spec = {
    .name = "cloudpickle_host.DeferredSite",
    .basicsize = sizeof(deferred),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = deferred_slots,
};

/* Append the finder holding `pending` to sys.meta_path, with sys.path
 * as it is now: as site.py leaves it. */
static int
defer(PyObject *pending)
{
    PyObject *path = PySys_GetObject("path"); /* borrowed */
    PyObject *site_path = PyFrozenSet_New(path);
    if (site_path == NULL)
        return -1;
    PyTypeObject *type = (PyTypeObject *)PyType_FromSpec(&deferred_spec);
    deferred *self = type ? PyObject_GC_New(deferred, type) : NULL;
    Py_XDECREF(type); /* the instance holds it */
    if (self == NULL) {
        Py_DECREF(site_path);
        return -1;
    }
    Py_INCREF(pending);
    self->pending = pending;
    self->site_path = site_path;
    self->customize = 1;
    PyObject_GC_Track(self);
    PyObject *meta = PySys_GetObject("meta_path"); /* borrowed */
    int rc = meta != NULL && PyList_Check(meta)
                 ? PyList_Append(meta, (PyObject *)self)
                 : 0;
    Py_DECREF(self);
    return rc;
}

/* -------------------------------------------------------------------- */

int
cpk_site_init(void)
{
    site_state s = {.path = PySys_GetObject("path")}; /* borrowed */
    if (s.path == NULL || !PyList_Check(s.path)) {
        PyErr_SetString(PyExc_RuntimeError, "sys.path is not a list");
        return -1;
    }
    Py_INCREF(s.path);
    s.known = PySet_New(NULL);
    s.pending = PyList_New(0);
    PyObject *prefixes = PyList_New(0);
    int rc = s.known && s.pending && prefixes ? 0 : -1;
    /* site.removeduppaths(): the known paths */
    for (Py_ssize_t i = 0; rc == 0 && i < PyList_GET_SIZE(s.path); i++) {
        PyObject *entry = PyList_GET_ITEM(s.path, i);
        PyObject *bytes = PyUnicode_Check(entry)
                              ? PyUnicode_EncodeFSDefault(entry)
                              : NULL;
        char norm[PATH_MAX];
        if (bytes != NULL &&
            abspath(NULL, PyBytes_AS_STRING(bytes), norm) == 0) {
            PyObject *str = fs_str(norm);
            rc = str == NULL || PySet_Add(s.known, str) < 0 ? -1 : 0;
            Py_XDECREF(str);
        }
        Py_XDECREF(bytes);
        if (rc == 0)
            PyErr_Clear();
    }
    /* site.PREFIXES, before a venv changes sys.prefix */
    const char *names[] = {"prefix", "exec_prefix"};
    for (int i = 0; rc == 0 && i < 2; i++) {
        PyObject *p = PySys_GetObject(names[i]); /* borrowed */
        rc = PyList_Append(prefixes, p ? p : Py_None);
    }
    if (rc == 0)
        rc = use_venv(&s, &prefixes) < 0 ? -1 : 0;
    if (rc == 0)
        rc = add_site_packages(&s, prefixes);
    if (rc == 0)
        rc = set_builtins();
    if (rc == 0)
        rc = defer(s.pending);
    Py_XDECREF(prefixes);
    Py_XDECREF(s.pending);
    Py_XDECREF(s.known);
    Py_DECREF(s.path);
    return rc;
}
