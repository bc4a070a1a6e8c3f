/* dumpreport.c - the --report of cloudpickle-dump (dumpreport.h): the
 * parts carried by value with the bytes each takes (pkscan_part), their
 * names, source files and imports, all from one static scan
 * (src/scan/pkscan.c, PKSCAN_SPANS) of the bytes written, printed as one
 * table. */
#include "dump/dumpreport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pyerr.h"     /* cpk_error_clear_if_clearable */
#include "common/safetext.h"    /* cpk_put_safe */
#include "common/scancheck.h"   /* cpk_scan_import_name */
#include "scan/envelope.h"      /* cpk_envelope_parse: the pickle inside --sign's */
#include "scan/pkscan.h"        /* parts and their bytes, names, sources, imports */
#include "scan/pycompat_scan.h" /* CPK_PY_SCAN_FLAGS */

#define NAME_WIDTH 40 /* the name column, at most */

typedef struct {
    const pkscan_part *part;
    size_t index;        /* in the report's parts */
    const char *kind;
    char *name;          /* malloc'd, escaped: module.qualname */
    char *source;        /* malloc'd, escaped; NULL: unknown */
} row;

/* p[0, n) escaped (safetext.h), as a malloc'd string; NULL when out of
 * memory. */
static char *
escaped(const char *p, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m == NULL)
        return NULL;
    cpk_put_safe(m, p, n);
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static char *
joined(pkscan_str module, pkscan_str qualname)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m == NULL)
        return NULL;
    if (module.s != NULL) {
        cpk_put_safe(m, module.s, module.len);
        fputc('.', m);
    }
    cpk_put_safe(m, qualname.s, qualname.len);
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* sys.modules[name].__file__ as a malloc'd escaped string, *file = NULL
 * when there is none. Returns 0, or -1 with an exception to propagate. */
static int
module_file(const char *name, size_t len, char **file)
{
    *file = NULL;
    PyObject *modules = PySys_GetObject("modules"); /* borrowed */
    PyObject *key = PyUnicode_DecodeUTF8(name, (Py_ssize_t)len,
                                         "surrogateescape");
    if (key == NULL || modules == NULL) {
        Py_XDECREF(key);
        return key == NULL ? cpk_error_clear_if_clearable() : 0;
    }
    Py_INCREF(modules);
    PyObject *mod = PyObject_GetItem(modules, key);
    Py_DECREF(modules);
    Py_DECREF(key);
    if (mod == NULL)
        return cpk_error_clear_if_clearable();
    PyObject *f = PyObject_GetAttrString(mod, "__file__");
    Py_DECREF(mod);
    if (f == NULL)
        return cpk_error_clear_if_clearable();
    int rc = 0;
    if (PyUnicode_Check(f)) {
        PyObject *b = PyUnicode_AsEncodedString(f, "utf-8",
                                                "surrogateescape");
        if (b == NULL)
            rc = cpk_error_clear_if_clearable();
        else {
            *file = escaped(PyBytes_AS_STRING(b),
                            (size_t)PyBytes_GET_SIZE(b));
            Py_DECREF(b);
        }
    }
    Py_DECREF(f);
    return rc;
}

/* The source file of a class: its module's file in this process, or
 * `main_file` for __main__. (Not its methods' files: a dataclass's come
 * from "<string>" and dataclasses.py.) */
static int
class_source(const pkscan_class *c, const char *main_file, char **source)
{
    *source = NULL;
    if (c == NULL || c->module.s == NULL)
        return 0;
    if (module_file(c->module.s, c->module.len, source) < 0)
        return -1;
    if (*source == NULL && main_file != NULL &&
        c->module.len == 8 && memcmp(c->module.s, "__main__", 8) == 0)
        *source = strdup(main_file);
    return 0;
}

static int
fill_row(const pkscan_report *r, size_t i, const char *main_file, row *w)
{
    const pkscan_part *p = &r->parts[i];
    w->part = p;
    w->index = i;
    w->name = NULL;
    w->source = NULL;
    switch (p->kind) {
    case PKSCAN_PART_FUNCTION: {
        w->kind = "function";
        const pkscan_function *f = &r->functions[p->index];
        if (f != NULL)
            w->name = joined(f->module,
                             f->qualname.s ? f->qualname : f->name);
        if (f != NULL && f->filename.s != NULL) {
            char *file = escaped(f->filename.s, f->filename.len);
            if (file != NULL && f->firstlineno > 0 &&
                asprintf(&w->source, "%s, line %ld", file,
                         f->firstlineno) < 0)
                w->source = NULL;
            else if (file != NULL && f->firstlineno <= 0) {
                w->source = file;
                file = NULL;
            }
            free(file);
        }
        return 0;
    }
    case PKSCAN_PART_CLASS:
    case PKSCAN_PART_ENUM: {
        w->kind = p->kind == PKSCAN_PART_ENUM ? "enum" : "class";
        const pkscan_class *c = &r->classes[p->index];
        if (c != NULL)
            w->name = joined(c->module, c->qualname.s ? c->qualname
                                                      : c->name);
        return class_source(c, main_file, &w->source);
    }
    case PKSCAN_PART_MODULE:
        w->kind = "module";
        if (p->name.s != NULL) {
            w->name = escaped(p->name.s, p->name.len);
            return module_file(p->name.s, p->name.len, &w->source);
        }
        return 0;
    }
    return 0;
}

/* A portable pickle's functions (pkscan_function.portable): which carry
 * their source, and why the others do not. Nothing for other pickles. */
static void
portable_section(FILE *out, const pkscan_report *r)
{
    size_t n = 0, yes = 0;
    for (size_t i = 0; i < r->n_functions; i++) {
        n += r->functions[i].portable >= 0;
        yes += r->functions[i].portable == 1;
    }
    if (n == 0)
        return;
    if (n == 1)
        fprintf(out, "portable   %zu of 1 function carries its source\n",
                yes);
    else
        fprintf(out, "portable   %zu of %zu functions carry their source\n",
                yes, n);
    for (size_t i = 0; i < r->n_functions; i++) {
        const pkscan_function *f = &r->functions[i];
        if (f->portable < 0)
            continue;
        char *name = joined(f->module, f->qualname.s ? f->qualname : f->name);
        fprintf(out, "  %-3s  %s", f->portable ? "yes" : "no",
                name ? name : "?");
        free(name);
        if (!f->portable) {
            fputs(": ", out);
            cpk_put_safe(out, f->portable_why.s, f->portable_why.len);
        }
        fputc('\n', out);
    }
}

static int
by_own(const void *x, const void *y)
{
    const row *a = x, *b = y;
    if (a->part->own != b->part->own)
        return a->part->own > b->part->own ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static void
by_reference(FILE *out, const pkscan_report *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_imports; i++) {
        const pkscan_import *im = &r->imports[i];
        n += im->category != PKSCAN_CAT_CCLOUDPICKLE &&
             im->category != PKSCAN_CAT_CLOUDPICKLE &&
             im->via != PKSCAN_VIA_BUILTIN_TYPE;
    }
    fprintf(out, "by ref     %zu import%s\n", n, n == 1 ? "" : "s");
    for (size_t i = 0; i < r->n_imports; i++) {
        const pkscan_import *im = &r->imports[i];
        if (im->category == PKSCAN_CAT_CCLOUDPICKLE ||
            im->category == PKSCAN_CAT_CLOUDPICKLE ||
            im->via == PKSCAN_VIA_BUILTIN_TYPE)
            continue;
        char full[512];
        cpk_scan_import_name(im, full, sizeof(full));
        fprintf(out, "  %-8s %s\n",
                im->via == PKSCAN_VIA_SUBIMPORT ? "module" : "name", full);
    }
}

int
cpk_dump_report(FILE *out, const unsigned char *written, size_t len,
                const char *what, const char *target, const char *main_file)
{
    const unsigned char *pickle = written;
    size_t plen = len;
    cpk_envelope env;
    int is_signed = cpk_envelope_is_signed(written, len);
    if (is_signed &&
        cpk_envelope_parse(written, len, &env, NULL) == CPK_ENV_OK) {
        pickle = env.pickle;
        plen = env.pickle_len;
    }
    pkscan_report *r = pkscan_scan(pickle, plen,
                                   CPK_PY_SCAN_FLAGS | PKSCAN_SPANS);
    int measured = r != NULL && r->status == PKSCAN_OK;
    size_t nparts = measured ? r->n_parts : 0;
    row *rows = nparts > 0 ? calloc(nparts, sizeof(row)) : NULL;
    int rc = 0;

    fputs("report     ", out);
    cpk_put_safe(out, what, strlen(what));
    fputs(" written to ", out);
    if (strcmp(target, "-") == 0)
        fputs("standard output\n", out);
    else {
        cpk_put_safe(out, target, strlen(target));
        fputc('\n', out);
    }
    if (is_signed && pickle != written)
        fprintf(out, "written    %zu bytes: a signed envelope, the pickle "
                     "is the %zu bytes at byte %zu (offsets count from "
                     "there)\n",
                len, plen, env.header_len);
    fprintf(out, "pickle     %zu bytes", plen);
    if (r != NULL && r->status == PKSCAN_OK && r->protocol >= 0)
        fprintf(out, ", protocol %d", r->protocol);
    fputc('\n', out);
    if (!measured || (nparts > 0 && rows == NULL)) {
        /* Not expected of a pickle this program just wrote. */
        fprintf(out, "by value   not measured: %s at byte %zu\n",
                r != NULL && r->status != PKSCAN_OK ? r->error
                                                    : "out of memory",
                r != NULL && r->status != PKSCAN_OK ? r->error_offset : 0);
        goto done;
    }
    for (size_t i = 0; i < nparts && rc == 0; i++)
        rc = fill_row(r, i, main_file, &rows[i]);
    if (rc < 0)
        goto done;
    if (nparts > 0)
        qsort(rows, nparts, sizeof(row), by_own);
    fprintf(out, "by value   %zu bytes in %zu part%s (\"own\": what the part "
                 "adds, largest first; \"bytes\": with the parts built "
                 "inside it)\n",
            r->by_value, nparts, nparts == 1 ? "" : "s");
    int width = 4;
    for (size_t i = 0; i < nparts; i++) {
        int w = rows[i].name ? (int)strlen(rows[i].name) : 1;
        if (w > width)
            width = w > NAME_WIDTH ? NAME_WIDTH : w;
    }
    if (nparts > 0)
        fprintf(out, "  %9s %9s  %-8s  %-*s  %s\n", "own", "bytes", "kind",
                width, "name", "source");
    for (size_t i = 0; i < nparts; i++) {
        const row *w = &rows[i];
        fprintf(out, "  %9zu %9zu  %-8s  %-*s  %s", w->part->own,
                w->part->bytes, w->kind, width, w->name ? w->name : "?",
                w->source ? w->source : "unknown");
        if (w->part->parent >= 0) {
            const char *in = "?";
            for (size_t j = 0; j < nparts; j++)
                if (rows[j].index == (size_t)w->part->parent && rows[j].name)
                    in = rows[j].name;
            fprintf(out, " (inside %s)", in);
        }
        fputc('\n', out);
    }
    fprintf(out, "other      %zu byte%s (protocol, frames, references, "
                 "data outside the parts)\n",
            plen - r->by_value, plen - r->by_value == 1 ? "" : "s");
    by_reference(out, r);
    portable_section(out, r);
    if (r->truncated)
        fputs("truncated  the scan is capped: some names are left out\n",
              out);
done:
    if (rows != NULL)
        for (size_t i = 0; i < nparts; i++) {
            free(rows[i].name);
            free(rows[i].source);
        }
    free(rows);
    pkscan_free(r);
    fflush(out);
    return rc;
}
