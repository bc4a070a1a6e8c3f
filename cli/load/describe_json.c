/* describe_json.c - the JSON form of cloudpickle-load's static report
 * (describe.h); schema: doc/REPORT-JSON.md. Keys in a fixed order, one
 * document, a newline at the end. The text form is describe.c. */
#include "load/describe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/safetext.h"
#include "map/signed.h" /* cpk_signed_key_id */
#include "scan/envelope.h" /* cpk_envelope */
#include "scan/format.h" /* cpk_format_sniff: "pickle_format" */
#include "scan/pkscan.h" /* pkscan_report */

/* The version of the schema in doc/REPORT-JSON.md. */
#define CPK_REPORT_FORMAT 1

static void
jstr(FILE *out, pkscan_str s)
{
    cpk_put_json_str(out, s.s, s.len);
}

static void
jkey(FILE *out, int *first, const char *key)
{
    fprintf(out, "%s\"%s\": ", *first ? "" : ", ", key);
    *first = 0;
}

static void
jstrs(FILE *out, const pkscan_str *v, size_t n)
{
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            fputs(", ", out);
        jstr(out, v[i]);
    }
    fputc(']', out);
}

/* A count the scan may not know (-1): the number or null. */
static void
jlong(FILE *out, long v)
{
    if (v < 0)
        fputs("null", out);
    else
        fprintf(out, "%ld", v);
}

static void
jimport(FILE *out, const pkscan_import *im)
{
    int f = 1;
    int named = im->via != PKSCAN_VIA_EXT && im->via != PKSCAN_VIA_DYNAMIC;
    fputc('{', out);
    jkey(out, &f, "module");
    if (named)
        jstr(out, im->module);
    else
        fputs("null", out);
    jkey(out, &f, "name");
    if (named)
        jstr(out, im->name);
    else
        fputs("null", out);
    jkey(out, &f, "written_module");
    jstr(out, im->written_module);
    jkey(out, &f, "written_name");
    jstr(out, im->written_name);
    jkey(out, &f, "offset");
    fprintf(out, "%zu", im->offset);
    jkey(out, &f, "count");
    fprintf(out, "%zu", im->count);
    jkey(out, &f, "via");
    fprintf(out, "\"%s\"", pkscan_via_name(im->via));
    jkey(out, &f, "category");
    fprintf(out, "\"%s\"", pkscan_category_name(im->category));
    jkey(out, &f, "dangerous");
    fputs(im->dangerous ? "true" : "false", out);
    jkey(out, &f, "reason");
    cpk_put_json_str(out, im->reason, im->reason ? strlen(im->reason) : 0);
    jkey(out, &f, "ext_code");
    if (im->via == PKSCAN_VIA_EXT)
        fprintf(out, "%ld", im->ext_code);
    else
        fputs("null", out);
    jkey(out, &f, "alt_written");
    fputc('[', out);
    for (size_t i = 0; i < im->n_alt_written; i++) {
        fputs(i > 0 ? ", [" : "[", out);
        jstr(out, im->alt_written[2 * i]);
        fputs(", ", out);
        jstr(out, im->alt_written[2 * i + 1]);
        fputc(']', out);
    }
    fputc(']', out);
    fputc('}', out);
}

static void
jfunction(FILE *out, const pkscan_function *fn)
{
    int f = 1;
    fputc('{', out);
    jkey(out, &f, "layout");
    fputs(fn->layout == PKSCAN_FN_CCLOUDPICKLE ? "\"ccloudpickle\""
                                               : "\"cloudpickle\"",
          out);
    jkey(out, &f, "offset");
    fprintf(out, "%zu", fn->offset);
    jkey(out, &f, "name");
    jstr(out, fn->name);
    jkey(out, &f, "qualname");
    jstr(out, fn->qualname);
    jkey(out, &f, "module");
    jstr(out, fn->module);
    jkey(out, &f, "filename");
    jstr(out, fn->filename);
    jkey(out, &f, "firstlineno");
    jlong(out, fn->firstlineno);
    jkey(out, &f, "python_version");
    jstr(out, fn->python_version);
    jkey(out, &f, "other_python");
    fputs(cpk_describe_other_python(fn) ? "true" : "false", out);
    jkey(out, &f, "magic");
    jlong(out, fn->magic);
    jkey(out, &f, "portable");
    fputs(fn->portable == 1   ? "true"
          : fn->portable == 0 ? "false"
                              : "null",
          out);
    jkey(out, &f, "portable_why");
    jstr(out, fn->portable_why);
    jkey(out, &f, "code_known");
    fputs(fn->code_known ? "true" : "false", out);
    jkey(out, &f, "signature");
    char *sig = fn->code_known ? cpk_describe_signature(fn) : NULL;
    cpk_put_json_str(out, sig, sig ? strlen(sig) : 0);
    free(sig);
    jkey(out, &f, "params");
    fputc('[', out);
    for (size_t i = 0; i < fn->n_params; i++) {
        fputs(i > 0 ? ", {\"name\": " : "{\"name\": ", out);
        jstr(out, fn->params[i].name);
        fprintf(out, ", \"kind\": \"%s\"}",
                pkscan_param_kind_name(fn->params[i].kind));
    }
    fputc(']', out);
    jkey(out, &f, "globals");
    jstrs(out, fn->globals, fn->n_globals);
    jkey(out, &f, "freevars");
    jstrs(out, fn->freevars, fn->n_freevars);
    jkey(out, &f, "n_defaults");
    jlong(out, fn->n_defaults);
    jkey(out, &f, "n_kwdefaults");
    jlong(out, fn->n_kwdefaults);
    fputc('}', out);
}

static void
jclass(FILE *out, const pkscan_class *c)
{
    int f = 1;
    fputc('{', out);
    jkey(out, &f, "offset");
    fprintf(out, "%zu", c->offset);
    jkey(out, &f, "enum");
    fputs(c->is_enum ? "true" : "false", out);
    jkey(out, &f, "layout");
    fputs(c->from_cloudpickle ? "\"cloudpickle\"" : "\"ccloudpickle\"", out);
    jkey(out, &f, "name");
    jstr(out, c->name);
    jkey(out, &f, "qualname");
    jstr(out, c->qualname);
    jkey(out, &f, "module");
    jstr(out, c->module);
    jkey(out, &f, "bases");
    jstrs(out, c->bases, c->n_bases);
    jkey(out, &f, "methods");
    jstrs(out, c->methods, c->n_methods);
    jkey(out, &f, "members");
    jstrs(out, c->members, c->n_members);
    fputc('}', out);
}

/* A write or call outside the closed world; "opcode" is its byte (the
 * scan's opcode names are not public). */
static void
jstate(FILE *out, const pkscan_state_write *w)
{
    int f = 1;
    fputc('{', out);
    jkey(out, &f, "offset");
    fprintf(out, "%zu", w->offset);
    jkey(out, &f, "opcode");
    fprintf(out, "%d", w->opcode);
    jkey(out, &f, "kind");
    fprintf(out, "\"%s\"", pkscan_state_kind_name(w->kind));
    jkey(out, &f, "target_offset");
    fprintf(out, "%zu", w->target_offset);
    jkey(out, &f, "module");
    jstr(out, w->module);
    jkey(out, &f, "name");
    jstr(out, w->name);
    jkey(out, &f, "text");
    cpk_put_json_str(out, w->text, w->text ? strlen(w->text) : 0);
    fputc('}', out);
}

/* The signed envelope's header, or null. */
static void
jsigned(FILE *out, const cpk_signed_input *sig)
{
    if (sig == NULL || !sig->is_signed) {
        fputs("null", out);
        return;
    }
    const cpk_envelope *e = &sig->env;
    char id[17];
    cpk_signed_key_id(e, id);
    int f = 1;
    fputc('{', out);
    jkey(out, &f, "verified");
    fputs(sig->verified ? "true" : "false", out);
    jkey(out, &f, "format_version");
    fprintf(out, "%u", e->format_version);
    jkey(out, &f, "tool_version");
    cpk_put_json_str(out, e->tool_version, strlen(e->tool_version));
    jkey(out, &f, "python");
    fprintf(out, "\"%u.%u.%u\"", e->py_major, e->py_minor, e->py_micro);
    jkey(out, &f, "bytecode_magic");
    fprintf(out, "%u", e->bytecode_magic);
    jkey(out, &f, "protocol");
    fprintf(out, "%d", e->protocol);
    jkey(out, &f, "key_id");
    fprintf(out, "\"%s\"", id);
    jkey(out, &f, "header_size");
    fprintf(out, "%zu", e->header_len);
    jkey(out, &f, "pickle_size");
    fprintf(out, "%zu", e->pickle_len);
    fputc('}', out);
}

void
cpk_describe_json(FILE *out, const pkscan_report *r, const char *file,
                  const cpk_signed_input *sig)
{
    int f = 1;
    fputc('{', out);
    jkey(out, &f, "format");
    fprintf(out, "%d", CPK_REPORT_FORMAT);
    jkey(out, &f, "file");
    cpk_put_json_str(out, file, strlen(file));
    jkey(out, &f, "status");
    fputs("\"ok\"", out);
    jkey(out, &f, "signed");
    jsigned(out, sig);
    jkey(out, &f, "size");
    fprintf(out, "%zu", r->size);
    jkey(out, &f, "protocol");
    if (r->protocol >= 0)
        fprintf(out, "%d", r->protocol);
    else
        fputs("null", out);
    jkey(out, &f, "pickle_format");
    int fmt;
    if (sig != NULL && cpk_format_sniff(sig->pickle, sig->pickle_len, &fmt,
                                        NULL, 0))
        fprintf(out, "%d", fmt);
    else
        fputs("null", out);
    jkey(out, &f, "min_protocol");
    fprintf(out, "%d", r->min_protocol);
    jkey(out, &f, "opcodes");
    fprintf(out, "%zu", r->n_opcodes);
    jkey(out, &f, "frames");
    fprintf(out, "%zu", r->n_frames);
    jkey(out, &f, "buffers");
    fprintf(out, "%zu", r->n_buffers);
    jkey(out, &f, "max_depth");
    fprintf(out, "%zu", r->max_depth);
    jkey(out, &f, "result");
    cpk_put_json_str(out, r->result_kind,
                     r->result_kind ? strlen(r->result_kind) : 0);
    jkey(out, &f, "python");
    fprintf(out, "\"%s\"", cpk_describe_python());
    jkey(out, &f, "n_dangerous");
    fprintf(out, "%zu", r->n_dangerous);
    jkey(out, &f, "n_other");
    fprintf(out, "%zu", r->n_other);
    jkey(out, &f, "strict_violation");
    fputs(pkscan_strict_violation(r) ? "true" : "false", out);
    jkey(out, &f, "truncated");
    fputs(r->truncated ? "true" : "false", out);
    jkey(out, &f, "imports");
    fputc('[', out);
    for (size_t i = 0; i < r->n_imports; i++) {
        if (i > 0)
            fputs(", ", out);
        jimport(out, &r->imports[i]);
    }
    fputc(']', out);
    jkey(out, &f, "functions");
    fputc('[', out);
    for (size_t i = 0; i < r->n_functions; i++) {
        if (i > 0)
            fputs(", ", out);
        jfunction(out, &r->functions[i]);
    }
    fputc(']', out);
    jkey(out, &f, "classes");
    fputc('[', out);
    for (size_t i = 0; i < r->n_classes; i++) {
        if (i > 0)
            fputs(", ", out);
        jclass(out, &r->classes[i]);
    }
    fputc(']', out);
    jkey(out, &f, "load_calls");
    fputc('[', out);
    for (size_t i = 0; i < r->n_load_calls; i++) {
        const pkscan_load_call *c = &r->load_calls[i];
        int g = 1;
        fputs(i > 0 ? ", {" : "{", out);
        jkey(out, &g, "offset");
        fprintf(out, "%zu", c->offset);
        jkey(out, &g, "reason");
        cpk_put_json_str(out, c->reason, strlen(c->reason));
        jkey(out, &g, "name");
        jstr(out, c->name);
        jkey(out, &g, "result");
        fputs(r->result_call == i + 1 ? "true" : "false", out);
        fputc('}', out);
    }
    fputc(']', out);
    jkey(out, &f, "state_writes");
    fputc('[', out);
    for (size_t i = 0; i < r->n_state_writes; i++) {
        if (i > 0)
            fputs(", ", out);
        jstate(out, &r->state_writes[i]);
    }
    fputc(']', out);
    jkey(out, &f, "n_state");
    fprintf(out, "%zu", r->n_state_total);
    jkey(out, &f, "n_state_vouchable");
    fprintf(out, "%zu", r->n_state_vouchable);
    fputs("}\n", out);
}
