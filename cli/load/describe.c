/* describe.c - the text form of cloudpickle-load's static report
 * (describe.h); the JSON form is describe_json.c, the escaping
 * safetext.c. One "key  value" line each, as the live report (report.c),
 * with indented items under each section. */
#include "load/describe.h"

#include <patchlevel.h> /* PY_MAJOR_VERSION, PY_MINOR_VERSION */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/safetext.h"
#include "common/scancheck.h"
#include "map/signed.h" /* cpk_signed_key_id */
#include "scan/envelope.h" /* cpk_envelope */
#include "scan/pkscan.h" /* pkscan_report */

#define STR(x) #x
#define XSTR(x) STR(x)

const char *
cpk_describe_python(void)
{
    return XSTR(PY_MAJOR_VERSION) "." XSTR(PY_MINOR_VERSION);
}

int
cpk_describe_other_python(const pkscan_function *f)
{
    const char *v = f->python_version.s;
    if (v == NULL || strncmp(v, "3.", 2) != 0 ||
        strspn(v + 2, "0123456789") != strlen(v + 2) || v[2] == '\0')
        return 0;
    return strcmp(v, cpk_describe_python()) != 0;
}

char *
cpk_describe_signature(const pkscan_function *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m == NULL)
        return NULL;
    if (f->name.s != NULL)
        fwrite(f->name.s, 1, f->name.len, m);
    else
        fputc('?', m);
    fputc('(', m);
    size_t npos = 0;
    for (size_t i = 0; i < f->n_params; i++)
        npos += f->params[i].kind <= PKSCAN_PARAM_REGULAR;
    size_t first_default = f->n_defaults > 0 && (size_t)f->n_defaults <= npos
                               ? npos - (size_t)f->n_defaults
                               : npos;
    int star = 0;
    size_t pos = 0;
    for (size_t i = 0; i < f->n_params; i++) {
        const pkscan_param *p = &f->params[i];
        if (i > 0)
            fputs(", ", m);
        if (p->kind == PKSCAN_PARAM_KWONLY && !star) {
            fputs("*, ", m);
            star = 1;
        }
        if (p->kind == PKSCAN_PARAM_VARARGS) {
            fputc('*', m);
            star = 1;
        }
        else if (p->kind == PKSCAN_PARAM_VARKW)
            fputs("**", m);
        fwrite(p->name.s ? p->name.s : "?", 1,
               p->name.s ? p->name.len : 1, m);
        if (p->kind <= PKSCAN_PARAM_REGULAR && pos++ >= first_default)
            fputs("=...", m);
        if (p->kind == PKSCAN_PARAM_POSONLY &&
            (i + 1 == f->n_params ||
             f->params[i + 1].kind != PKSCAN_PARAM_POSONLY))
            fputs(", /", m);
    }
    fputc(')', m);
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void
put(FILE *out, pkscan_str s)
{
    cpk_put_safe(out, s.s, s.len);
}

/* A list of names on one line: "a, b, c", or "(none)". */
static void
put_list(FILE *out, const pkscan_str *v, size_t n)
{
    if (n == 0)
        fputs("(none)", out);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            fputs(", ", out);
        put(out, v[i]);
    }
}

static const char *
category_text(const pkscan_import *im)
{
    switch (im->category) {
    case PKSCAN_CAT_CCLOUDPICKLE:
        return "ccloudpickle reconstructor";
    case PKSCAN_CAT_CLOUDPICKLE:
        return "cloudpickle reconstructor";
    case PKSCAN_CAT_PLAIN:
        return "plain data";
    default:
        return "other";
    }
}

static const char *
via_text(pkscan_via v)
{
    switch (v) {
    case PKSCAN_VIA_GETATTR:
        return ", by getattr";
    case PKSCAN_VIA_BUILTIN_TYPE:
        return ", looked up by a reconstructor";
    case PKSCAN_VIA_SUBIMPORT:
        return ", module imported by a reconstructor";
    case PKSCAN_VIA_INST:
        return ", instance created by INST";
    default:
        return "";
    }
}

static void
imports_section(FILE *out, const pkscan_report *r)
{
    fprintf(out, "imports    %zu", r->n_imports);
    if (r->n_dangerous > 0)
        fprintf(out, ", %zu DANGEROUS", r->n_dangerous);
    if (r->n_other > 0)
        fprintf(out, ", %zu outside reconstructors and plain data",
                r->n_other);
    fputc('\n', out);
    /* names in a column as wide as the longest (up to a point) */
    int width = 0;
    for (size_t i = 0; i < r->n_imports; i++) {
        char full[512];
        cpk_scan_import_name(&r->imports[i], full, sizeof(full));
        int w = (int)strlen(full);
        if (w > width)
            width = w > 44 ? 44 : w;
    }
    for (size_t i = 0; i < r->n_imports; i++) {
        const pkscan_import *im = &r->imports[i];
        char full[512];
        cpk_scan_import_name(im, full, sizeof(full));
        fprintf(out, "  %s %-*s  ", im->dangerous ? "!" : " ", width, full);
        if (im->dangerous)
            fprintf(out, "DANGEROUS: %s", im->reason);
        else
            fputs(category_text(im), out);
        fputs(via_text(im->via), out);
        if (im->written_module.s != NULL || im->written_name.s != NULL) {
            fputs(", written ", out);
            put(out, im->written_module.s ? im->written_module
                                          : im->module);
            fputc('.', out);
            put(out, im->written_name.s ? im->written_name : im->name);
        }
        fprintf(out, " (byte %zu", im->offset);
        if (im->count > 1)
            fprintf(out, ", %zu times", im->count);
        fputs(")\n", out);
    }
}

/* Imports that name an object or module of their own: not reconstructors,
 * not what a reconstructor looks up for itself. */
static void
by_name_section(FILE *out, const pkscan_report *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_imports; i++) {
        const pkscan_import *im = &r->imports[i];
        if (im->category == PKSCAN_CAT_CCLOUDPICKLE ||
            im->category == PKSCAN_CAT_CLOUDPICKLE ||
            im->via == PKSCAN_VIA_BUILTIN_TYPE)
            continue;
        char full[512];
        cpk_scan_import_name(im, full, sizeof(full));
        fprintf(out, "%s%s", n++ == 0 ? "by name    " : ", ", full);
    }
    if (n > 0)
        fputc('\n', out);
}

static void
function_section(FILE *out, const pkscan_function *f)
{
    fputs("function   ", out);
    put(out, f->qualname.s ? f->qualname : f->name);
    fprintf(out, " (byte %zu, %s layout)\n", f->offset,
            f->layout == PKSCAN_FN_CCLOUDPICKLE ? "ccloudpickle"
                                                : "cloudpickle");
    fputs("  module     ", out);
    put(out, f->module);
    fputs("\n  source     ", out);
    put(out, f->filename);
    if (f->firstlineno >= 0)
        fprintf(out, ", line %ld", f->firstlineno);
    fputc('\n', out);
    if (f->code_known) {
        char *sig = cpk_describe_signature(f);
        fputs("  signature  ", out);
        cpk_put_safe(out, sig, sig ? strlen(sig) : 0);
        fputc('\n', out);
        free(sig);
    }
    else
        fputs("  signature  unknown (code not read)\n", out);
    fputs("  python     ", out);
    if (f->python_version.s != NULL)
        put(out, f->python_version);
    else
        fputs("unknown", out);
    if (f->magic >= 0)
        fprintf(out, " (bytecode magic %ld)", f->magic);
    if (cpk_describe_other_python(f))
        fprintf(out, "; this program runs %s: --load and --call would %s",
                cpk_describe_python(),
                f->portable == 1 ? "compile its source" : "refuse it");
    /* Only a portable pickle's code says (pkscan_function.portable). */
    if (f->portable == 1)
        fputs("\n  portable   yes", out);
    else if (f->portable == 0) {
        fputs("\n  portable   no: ", out);
        put(out, f->portable_why);
    }
    fputs("\n  globals    ", out);
    put_list(out, f->globals, f->n_globals);
    fputs("\n  closure    ", out);
    put_list(out, f->freevars, f->n_freevars);
    fputs("\n  defaults   ", out);
    if (f->n_defaults >= 0)
        fprintf(out, "%ld positional", f->n_defaults);
    else
        fputs("unknown positional", out);
    if (f->n_kwdefaults >= 0)
        fprintf(out, ", %ld keyword-only\n", f->n_kwdefaults);
    else
        fputs(", unknown keyword-only\n", out);
}

static void
class_section(FILE *out, const pkscan_class *c)
{
    fputs(c->is_enum ? "enum       " : "class      ", out);
    put(out, c->qualname.s ? c->qualname : c->name);
    fprintf(out, " (byte %zu, %s layout)\n", c->offset,
            c->from_cloudpickle ? "cloudpickle" : "ccloudpickle");
    fputs("  module     ", out);
    put(out, c->module);
    fputs("\n  bases      ", out);
    put_list(out, c->bases, c->n_bases);
    fputs("\n  methods    ", out);
    put_list(out, c->methods, c->n_methods);
    fputc('\n', out);
    if (c->is_enum) {
        fputs("  members    ", out);
        put_list(out, c->members, c->n_members);
        fputc('\n', out);
    }
}

/* Code carried by value that the load itself runs (pkscan_load_call):
 * one line each, marked like a dangerous import. */
static void
load_calls_section(FILE *out, const pkscan_report *r)
{
    if (r->n_load_calls == 0)
        return;
    fprintf(out, "load runs  code carried by value, at %zu place%s\n",
            r->n_load_calls, r->n_load_calls == 1 ? "" : "s");
    for (size_t i = 0; i < r->n_load_calls; i++) {
        const pkscan_load_call *c = &r->load_calls[i];
        fprintf(out, "  ! %s: ", c->reason);
        if (c->name.s != NULL)
            put(out, c->name);
        else
            fputc('?', out);
        fprintf(out, " (byte %zu)\n", c->offset);
    }
}

/* Writes and calls outside the closed world (pkscan_state_write): one
 * line each, its text; a count line for those past the list. */
static void
state_section(FILE *out, const pkscan_report *r)
{
    if (r->n_state_total == 0)
        return;
    fprintf(out, "state      %zu write%s or call%s the scan cannot vouch "
                 "for",
            r->n_state_total, r->n_state_total == 1 ? "" : "s",
            r->n_state_total == 1 ? "" : "s");
    if (r->n_state_vouchable > 0)
        fprintf(out, ", %zu an --allow rule naming the callable may "
                     "admit",
                r->n_state_vouchable);
    fputc('\n', out);
    for (size_t i = 0; i < r->n_state_writes; i++) {
        /* printable ASCII already (pkscan_state_write.text) */
        const char *t = r->state_writes[i].text;
        fprintf(out, "  ! %s\n", t ? t : "?");
    }
    if (r->n_state_total > r->n_state_writes)
        fprintf(out, "  ! %zu more writes or calls than the report "
                     "lists\n",
                r->n_state_total - r->n_state_writes);
}

/* The header of a signed envelope; byte offsets below count from the
 * start of the pickle inside. */
static void
signed_section(FILE *out, const cpk_signed_input *sig)
{
    const cpk_envelope *e = &sig->env;
    char id[17];
    cpk_signed_key_id(e, id);
    fprintf(out, "signed     %s\n",
            sig->verified ? "yes, signature verified"
                          : "yes, NOT VERIFIED (no key given: --verify "
                            "KEYFILE)");
    fprintf(out, "  format     %u\n", e->format_version);
    fputs("  tool       ccloudpickle ", out);
    cpk_put_safe(out, e->tool_version, strlen(e->tool_version));
    fprintf(out, "\n  python     %u.%u.%u (bytecode magic %u)\n", e->py_major,
            e->py_minor, e->py_micro, e->bytecode_magic);
    fprintf(out, "  protocol   %d\n", e->protocol);
    fprintf(out, "  key id     %s\n", id);
    fprintf(out, "  pickle     %zu bytes at byte %zu (offsets below count "
                 "from there)\n",
            e->pickle_len, e->header_len);
}

void
cpk_describe_text(FILE *out, const pkscan_report *r, const char *name,
                  const cpk_signed_input *sig)
{
    fputs("file       ", out);
    cpk_put_safe(out, name, strlen(name));
    fputc('\n', out);
    if (sig != NULL && sig->is_signed)
        signed_section(out, sig);
    fputs("pickle     ", out);
    fprintf(out, "%zu byte%s, ", r->size, r->size == 1 ? "" : "s");
    if (r->protocol >= 0)
        fprintf(out, "protocol %d", r->protocol);
    else
        fprintf(out, "no PROTO opcode (protocol %d opcodes)",
                r->min_protocol);
    fprintf(out, ", %zu opcodes\n", r->n_opcodes);
    if (r->result_call > 0 && r->result_call <= r->n_load_calls) {
        /* not an "instance": what code carried by value returned */
        fputs("result     result of calling ", out);
        const pkscan_load_call *c = &r->load_calls[r->result_call - 1];
        if (c->name.s != NULL)
            put(out, c->name);
        else
            fputs("a function", out);
        fputs(" carried by value\n", out);
    }
    else
        fprintf(out, "result     %s\n",
                r->result_kind ? r->result_kind : "?");
    if (r->n_buffers > 0)
        fprintf(out, "buffers    %zu out-of-band (a load needs them "
                     "passed as buffers=)\n",
                r->n_buffers);
    imports_section(out, r);
    by_name_section(out, r);
    for (size_t i = 0; i < r->n_functions; i++)
        function_section(out, &r->functions[i]);
    for (size_t i = 0; i < r->n_classes; i++)
        class_section(out, &r->classes[i]);
    load_calls_section(out, r);
    state_section(out, r);
    if (r->truncated)
        fputs("truncated  the report is capped: some items or names are "
              "left out (the counts of dangerous and other imports are "
              "exact)\n",
              out);
    fputs("verdict    ", out);
    if (r->n_dangerous > 0)
        fputs("DANGEROUS: loading it would import what can run commands "
              "or code\n",
              out);
    else if (r->n_other > 0)
        fputs("names outside reconstructors and plain data: loading runs "
              "their code\n",
              out);
    else if (r->n_load_calls > 0)
        fputs("LOADING RUNS CODE carried by value (see \"load runs\"); "
              "its imports are reconstructors and plain data\n",
              out);
    else if (r->n_state_total > 0)
        fputs("LOADING WRITES OR CALLS what the scan cannot vouch for (see "
              "\"state\"); its imports are reconstructors and plain data\n",
              out);
    else
        fputs("only reconstructors and plain data; a function still runs "
              "when called\n",
              out);
}
