/* test_scan_compat2.c - the static report (src/scan/pkscan.h, `cloudpickle-load
 * FILE`) of functions that cloudpickle 2.0, and ccloudpickle's
 * compat="cloudpickle2", build as types.FunctionType(code, globals, name,
 * argdefs, closure) reached as cloudpickle's _builtin_type("LambdaType"),
 * with _function_setstate after it (doc/FORMAT.md "Stock cloudpickle
 * versions"): described as _make_function's are (qualname, module,
 * source, signature, code version, globals, closure, defaults), in text
 * and JSON, at protocols 2 and 5; the load-call analysis treats the call
 * exactly as _make_function's (a function made and stored: nothing runs;
 * a function made and then called by the load: listed, --strict and
 * allow=[] refuse); types.FunctionType by GLOBAL / NEWOBJ / other argument
 * counts; hostile argument lists give a sane report. Stock cloudpickle 2.0
 * is emulated with Debian's 2.2 whose _dynamic_function_reduce is made to
 * write types.FunctionType where 2.2 writes _make_function (what 2.0's
 * does). Stock 2.2 pickles: test_cli_describe.c, test_scan.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan/pkscan.h"
#include "support.h"

TestSuite(scan_compat2, .init = cpk_py_start, .fini = cpk_py_stop);

static pkscan_report *
scan_py(const char *expr)
{
    size_t n;
    char *data = cpk_py_bytes(expr, &n);
    pkscan_report *r = pkscan_scan(data, n, 0);
    cr_assert(r != NULL, "pkscan_scan returned NULL");
    memset(data, 0xAA, n); /* the report must not point into the input */
    free(data);
    cr_assert(r->status == PKSCAN_OK, "%s: %s (%s) at byte %zu", expr,
              pkscan_status_name(r->status), r->error ? r->error : "",
              r->error_offset);
    return r;
}

static int
str_is(pkscan_str s, const char *lit)
{
    return s.s != NULL && s.len == strlen(lit) && memcmp(s.s, lit, s.len) == 0;
}

static int
str_same(pkscan_str a, pkscan_str b)
{
    return (a.s == NULL) == (b.s == NULL) && a.len == b.len &&
           (a.s == NULL || memcmp(a.s, b.s, a.len) == 0);
}

static const pkscan_function *
fn_named(const pkscan_report *r, const char *qualname)
{
    for (size_t i = 0; i < r->n_functions; i++)
        if (str_is(r->functions[i].qualname, qualname))
            return &r->functions[i];
    cr_assert_fail("no function %s among %zu", qualname, r->n_functions);
    return NULL;
}

static const pkscan_import *
find_import(const pkscan_report *r, const char *module, const char *name)
{
    for (size_t i = 0; i < r->n_imports; i++)
        if (str_is(r->imports[i].module, module) &&
            str_is(r->imports[i].name, name))
            return &r->imports[i];
    return NULL;
}

static void
assert_names(const pkscan_str *a, size_t n, const char *const *want,
             size_t nwant, const char *what)
{
    cr_assert_eq(n, nwant, "%s: %zu names, want %zu", what, n, nwant);
    for (size_t i = 0; i < nwant; i++) {
        int found = 0;
        for (size_t j = 0; j < n; j++)
            found |= str_is(a[j], want[i]);
        cr_assert(found, "%s: no %s", what, want[i]);
    }
}

static void
assert_params(const pkscan_function *f, const char *const *names,
              const pkscan_param_kind *kinds, size_t n)
{
    cr_assert(f->code_known, "code not read");
    cr_assert_eq(f->n_params, n, "%zu params", f->n_params);
    for (size_t i = 0; i < n; i++) {
        cr_assert(str_is(f->params[i].name, names[i]), "param %zu", i);
        cr_assert_eq(f->params[i].kind, kinds[i], "param %zu kind", i);
    }
}

/* The facts of /src/c2.py's functions, whatever format wrote them. */
static void
check_inner(const pkscan_function *f)
{
    static const char *const names[] = {"x", "y", "rest", "flag", "opts"};
    static const pkscan_param_kind kinds[] = {
        PKSCAN_PARAM_POSONLY, PKSCAN_PARAM_REGULAR, PKSCAN_PARAM_VARARGS,
        PKSCAN_PARAM_KWONLY, PKSCAN_PARAM_VARKW};
    static const char *const globals[] = {"K", "math", "helper"};
    static const char *const freevars[] = {"a", "z"};
    cr_assert_eq(f->layout, PKSCAN_FN_CLOUDPICKLE);
    cr_assert(str_is(f->name, "inner"));
    cr_assert(str_is(f->module, "__main__"));
    cr_assert(str_is(f->filename, "/src/c2.py"));
    cr_assert_eq(f->firstlineno, 7);
    cr_assert(str_is(f->python_version, "3.11+") ||
                  str_is(f->python_version, "3.8-3.10"),
              "python %s", f->python_version.s ? f->python_version.s : "?");
    assert_params(f, names, kinds, 5);
    assert_names(f->globals, f->n_globals, globals, 3, "inner globals");
    assert_names(f->freevars, f->n_freevars, freevars, 2, "inner closure");
    cr_assert_eq(f->n_defaults, 1);
    cr_assert_eq(f->n_kwdefaults, 0);
}

static void
check_lambda(const pkscan_function *f)
{
    static const char *const names[] = {"p", "q", "r"};
    static const pkscan_param_kind kinds[] = {
        PKSCAN_PARAM_REGULAR, PKSCAN_PARAM_REGULAR, PKSCAN_PARAM_REGULAR};
    cr_assert_eq(f->layout, PKSCAN_FN_CLOUDPICKLE);
    cr_assert(str_is(f->name, "<lambda>"));
    cr_assert(str_is(f->module, "__main__"));
    cr_assert(str_is(f->filename, "/src/c2.py"));
    cr_assert_eq(f->firstlineno, 10);
    assert_params(f, names, kinds, 3);
    cr_assert_eq(f->n_globals, 0);
    cr_assert_eq(f->n_freevars, 0);
    cr_assert_eq(f->n_defaults, 2);
    cr_assert_eq(f->n_kwdefaults, 0);
}

static void
check_shape(const pkscan_report *r)
{
    static const char *const methods[] = {"area", "make"};
    static const char *const area_p[] = {"self", "w", "h"};
    static const pkscan_param_kind area_k[] = {
        PKSCAN_PARAM_REGULAR, PKSCAN_PARAM_REGULAR, PKSCAN_PARAM_REGULAR};
    static const char *const make_p[] = {"cls", "n"};
    static const pkscan_param_kind make_k[] = {PKSCAN_PARAM_REGULAR,
                                               PKSCAN_PARAM_KWONLY};
    static const char *const area_g[] = {"K"};
    cr_assert_eq(r->n_classes, 1);
    cr_assert(str_is(r->classes[0].qualname, "Shape"));
    cr_assert(r->classes[0].from_cloudpickle);
    assert_names(r->classes[0].methods, r->classes[0].n_methods, methods, 2,
                 "Shape methods");
    cr_assert_eq(r->n_functions, 2);
    const pkscan_function *a = fn_named(r, "Shape.area");
    cr_assert(str_is(a->module, "__main__") && a->firstlineno == 13);
    assert_params(a, area_p, area_k, 3);
    assert_names(a->globals, a->n_globals, area_g, 1, "area globals");
    cr_assert_eq(a->n_defaults, 1);
    const pkscan_function *m = fn_named(r, "Shape.make");
    cr_assert(str_is(m->filename, "/src/c2.py") && m->firstlineno == 15);
    assert_params(m, make_p, make_k, 2);
    cr_assert_eq(m->n_defaults, 0);
    cr_assert_eq(m->n_kwdefaults, 1);
}

/* The report of a pickle that only rebuilds: cloudpickle's names, no
 * danger, nothing the load runs. */
static void
check_clean(const pkscan_report *r, const char *kind)
{
    cr_assert_str_eq(r->result_kind, kind);
    cr_assert_eq(r->n_dangerous, 0);
    cr_assert_eq(r->n_other, 0);
    cr_assert_eq(r->n_load_calls, 0, "load calls: %s",
                 r->n_load_calls ? r->load_calls[0].reason : "");
    cr_assert_eq(pkscan_strict_violation(r), 0);
    const pkscan_import *lt = find_import(r, "types", "LambdaType");
    cr_assert(lt != NULL, "no types.LambdaType import");
    cr_assert_eq(lt->via, PKSCAN_VIA_BUILTIN_TYPE);
    cr_assert_eq(lt->category, PKSCAN_CAT_CLOUDPICKLE);
    cr_assert(!lt->dangerous);
}

Test(scan_compat2, functions_lambdas_classes_at_protocols_2_and_5)
{
    cpk_py_file("_src.py");
    static const char *const protos[] = {"2", "5"};
    char expr[256];
    for (size_t i = 0; i < 2; i++) {
        snprintf(expr, sizeof(expr), "c2(outer(1, c=3), %s)", protos[i]);
        pkscan_report *r = scan_py(expr);
        check_clean(r, "function");
        /* inner and helper, from inner's globals */
        cr_assert_eq(r->n_functions, 2);
        check_inner(fn_named(r, "outer.<locals>.inner"));
        const pkscan_function *h = fn_named(r, "helper");
        cr_assert(h->firstlineno == 3 && h->n_params == 1);
        pkscan_free(r);

        snprintf(expr, sizeof(expr), "c2(lam, %s)", protos[i]);
        r = scan_py(expr);
        check_clean(r, "function");
        cr_assert_eq(r->n_functions, 1);
        check_lambda(fn_named(r, "<lambda>"));
        pkscan_free(r);

        snprintf(expr, sizeof(expr), "c2(Shape, %s)", protos[i]);
        r = scan_py(expr);
        check_clean(r, "class");
        check_shape(r);
        pkscan_free(r);
    }
}

/* Field by field, what compat="cloudpickle2" reports is what the same
 * object in 2.2's layout (_make_function) reports. */
static void
assert_same_functions(const pkscan_report *a, const pkscan_report *b)
{
    cr_assert_eq(a->n_functions, b->n_functions);
    cr_assert_str_eq(a->result_kind, b->result_kind);
    cr_assert_eq(a->n_load_calls, b->n_load_calls);
    for (size_t i = 0; i < a->n_functions; i++) {
        const pkscan_function *f = &a->functions[i], *g = &b->functions[i];
        cr_assert_eq(f->layout, g->layout);
        cr_assert(str_same(f->name, g->name) &&
                  str_same(f->qualname, g->qualname) &&
                  str_same(f->module, g->module) &&
                  str_same(f->filename, g->filename) &&
                  str_same(f->python_version, g->python_version),
                  "function %zu differs", i);
        cr_assert_eq(f->firstlineno, g->firstlineno);
        cr_assert_eq(f->magic, g->magic);
        cr_assert_eq(f->code_known, g->code_known);
        cr_assert_eq(f->n_params, g->n_params);
        for (size_t k = 0; k < f->n_params; k++)
            cr_assert(str_same(f->params[k].name, g->params[k].name) &&
                      f->params[k].kind == g->params[k].kind);
        cr_assert_eq(f->n_globals, g->n_globals);
        for (size_t k = 0; k < f->n_globals; k++)
            cr_assert(str_same(f->globals[k], g->globals[k]));
        cr_assert_eq(f->n_freevars, g->n_freevars);
        for (size_t k = 0; k < f->n_freevars; k++)
            cr_assert(str_same(f->freevars[k], g->freevars[k]));
        cr_assert_eq(f->n_defaults, g->n_defaults);
        cr_assert_eq(f->n_kwdefaults, g->n_kwdefaults);
    }
}

Test(scan_compat2, same_details_as_make_function)
{
    cpk_py_file("_src.py");
    static const char *const objs[] = {"outer(1, c=3)", "lam", "Shape",
                                       "[lam, Shape, outer(2, c=4)]"};
    char e1[256], e2[256];
    for (size_t i = 0; i < sizeof(objs) / sizeof *objs; i++)
        for (int proto = 2; proto <= 5; proto += 3) {
            snprintf(e1, sizeof(e1), "c2(%s, %d)", objs[i], proto);
            snprintf(e2, sizeof(e2),
                     "cp.dumps(%s, protocol=%d, compat='2.2')", objs[i],
                     proto);
            pkscan_report *a = scan_py(e1), *b = scan_py(e2);
            cr_assert(find_import(b, "cloudpickle.cloudpickle",
                                  "_make_function") != NULL);
            assert_same_functions(a, b);
            pkscan_free(a);
            pkscan_free(b);
        }
}

/* Stock cloudpickle 2.0 writes the same call with STACK_GLOBAL /
 * GLOBAL names, not getattr(__import__(...)): emulated with Debian's 2.2,
 * whose function reducer then writes types.FunctionType (pickled as
 * _builtin_type("LambdaType")) where it writes _make_function. */
Test(scan_compat2, stock_cloudpickle_2_0_layout)
{
    cpk_require("cloudpickle");
    cpk_py_file("_src.py", "stock_cloudpickle_2_0_layout.py");
    for (int proto = 2; proto <= 5; proto += 3) {
        char e1[128], e2[128];
        snprintf(e1, sizeof(e1), "cp20([outer(1, c=3), lam, Shape], %d)",
                 proto);
        snprintf(e2, sizeof(e2),
                 "cloudpickle.dumps([outer(1, c=3), lam, Shape], "
                 "protocol=%d)", proto);
        pkscan_report *a = scan_py(e1), *b = scan_py(e2);
        const pkscan_import *bt =
            find_import(a, "cloudpickle.cloudpickle", "_builtin_type");
        cr_assert(bt != NULL && (bt->via == PKSCAN_VIA_GLOBAL ||
                                 bt->via == PKSCAN_VIA_STACK_GLOBAL));
        cr_assert_eq(a->n_functions, 5); /* inner, helper, lam, 2 methods */
        check_inner(fn_named(a, "outer.<locals>.inner"));
        check_lambda(fn_named(a, "<lambda>"));
        cr_assert_eq(a->n_load_calls, 0);
        cr_assert_eq(pkscan_strict_violation(a), 0);
        assert_same_functions(a, b);
        pkscan_free(a);
        pkscan_free(b);
    }
}

/* A function the load makes and then calls is "calls a function carried
 * by value", as with _make_function; allow=[] refuses it, and the pickle
 * is live (it runs without a policy). A function stored as a default of
 * another is not a call. */
Test(scan_compat2, load_calls_as_make_function)
{
    cpk_py_file("_src.py", "load_calls_as_make_function.py");
    for (int proto = 2; proto <= 5; proto += 3) {
        char e1[128], e2[128];
        snprintf(e1, sizeof(e1), "c2(R(touch, (marker,)), %d)", proto);
        snprintf(e2, sizeof(e2),
                 "cp.dumps(R(touch, (marker,)), protocol=%d, compat='2.2')",
                 proto);
        pkscan_report *a = scan_py(e1), *b = scan_py(e2);
        cr_assert_eq(a->n_load_calls, 1);
        cr_assert_str_eq(a->load_calls[0].reason,
                         "calls a function carried by value");
        cr_assert(str_is(a->load_calls[0].name, "touch"));
        cr_assert_str_eq(a->result_kind, "call result");
        cr_assert_eq(a->result_call, 1);
        cr_assert_eq(pkscan_strict_violation(a), 1);
        cr_assert_eq(b->n_load_calls, 1);
        cr_assert_str_eq(b->load_calls[0].reason, a->load_calls[0].reason);
        assert_same_functions(a, b);
        pkscan_free(a);
        pkscan_free(b);

        /* a function by value as a default: stored, not called */
        snprintf(e1, sizeof(e1), "c2(wrapped, %d)", proto);
        a = scan_py(e1);
        check_clean(a, "function");
        cr_assert_eq(a->n_functions, 2);
        const pkscan_function *w = fn_named(a, "<lambda>");
        cr_assert_eq(w->n_defaults, 1);
        fn_named(a, "helper");
        pkscan_free(a);
    }
}

/* types.FunctionType reached otherwise, and with other argument counts:
 * a function wherever CPython makes one (so calling it is listed), none
 * where the call raises TypeError; never a crash, never a detail read
 * from an argument of the wrong type. */
Test(scan_compat2, function_type_hostile_calls)
{
    cpk_py_file("_src.py", "function_type_hostile_calls.py");

    /* two arguments: a function, name and module unknown but the code's */
    pkscan_report *r = scan_py("call_c2(FT, (code, {}))");
    cr_assert_eq(r->n_functions, 1);
    cr_assert_str_eq(r->result_kind, "function");
    cr_assert(str_is(r->functions[0].qualname, "body"));
    cr_assert_eq(r->functions[0].n_defaults, 0);
    cr_assert_eq(r->functions[0].module.s, NULL);
    cr_assert_eq(r->n_load_calls, 0);
    pkscan_free(r);

    /* made, then called by the load: listed as _make_function's are */
    r = scan_py("call_c2(R(FT, (code, {})), ())");
    cr_assert_eq(r->n_functions, 1);
    cr_assert_eq(r->n_load_calls, 1);
    cr_assert_str_eq(r->load_calls[0].reason,
                     "calls a function carried by value");
    cr_assert(str_is(r->load_calls[0].name, "body"));
    cr_assert_eq(pkscan_strict_violation(r), 1);
    pkscan_free(r);

    /* NEWOBJ of the class: FunctionType.__new__ makes one too */
    r = scan_py("newobj");
    cr_assert_eq(r->n_functions, 1);
    cr_assert(str_is(r->functions[0].qualname, "body"));
    pkscan_free(r);

    /* NEWOBJ_EX: its keyword arguments are not kept, so any positional
     * count up to 6 is a function, and what they may set is unknown */
    static const char *const exs[] = {"ex1", "ex2"};
    for (size_t i = 0; i < 2; i++) {
        r = scan_py(exs[i]);
        cr_assert_eq(r->n_functions, 1, "%s", exs[i]);
        cr_assert_str_eq(r->result_kind, "function");
        cr_assert(str_is(r->functions[0].qualname, "body"));
        cr_assert_eq(r->functions[0].n_defaults, -1);
        cr_assert_eq(r->functions[0].n_kwdefaults, -1);
        pkscan_free(r);
    }

    /* by GLOBAL / STACK_GLOBAL: described, and still a dangerous import */
    static const char *const named[] = {"by_global", "by_stack_global"};
    for (size_t i = 0; i < 2; i++) {
        r = scan_py(named[i]);
        cr_assert_eq(r->n_functions, 1, "%s", named[i]);
        const pkscan_function *g = &r->functions[0];
        cr_assert(str_is(g->name, "g") && str_is(g->module, "m"));
        /* co_qualname (3.11+), else the name given */
        cr_assert(str_is(g->qualname, "body") || str_is(g->qualname, "g"));
        cr_assert(str_is(g->filename, "<string>") && g->code_known);
        cr_assert_eq(g->n_defaults, 1);
        const pkscan_import *ft = find_import(r, "types", "FunctionType");
        cr_assert(ft != NULL && ft->dangerous);
        cr_assert_eq(ft->via, i ? PKSCAN_VIA_STACK_GLOBAL : PKSCAN_VIA_GLOBAL);
        cr_assert_eq(pkscan_strict_violation(r), 1);
        pkscan_free(r);
    }

    /* protocol 0 INST and protocol 1 OBJ: a function from 2 arguments,
     * none from 1 */
    static const struct {
        const char *bytes;
        size_t nfn;
    } proto0[] = {
        {"(I1\nI2\nitypes\nFunctionType\n.", 1},
        {"(ctypes\nFunctionType\nI1\nI2\no.", 1},
        {"(ctypes\nLambdaType\nI1\no.", 0},
        {"(I1\nI2\nI3\nI4\nI5\nI6\nI7\nitypes\nFunctionType\n.", 0},
    };
    for (size_t i = 0; i < sizeof(proto0) / sizeof *proto0; i++) {
        r = pkscan_scan(proto0[i].bytes, strlen(proto0[i].bytes), 0);
        cr_assert(r != NULL && r->status == PKSCAN_OK, "%zu", i);
        cr_assert_eq(r->n_functions, proto0[i].nfn, "%zu", i);
        cr_assert_str_eq(r->result_kind,
                         proto0[i].nfn ? "function" : "instance");
        cr_assert_eq(r->n_dangerous, 1);
        if (proto0[i].nfn)
            cr_assert(r->functions[0].name.s == NULL &&
                      !r->functions[0].code_known);
        pkscan_free(r);
    }

    /* wrong counts: TypeError in the load, no function */
    static const char *const none[] = {
        "call_c2(FT, ())", "call_c2(FT, (code,))",
        "call_c2(FT, (code, {}, None, None, None, None, None))",
        "call_c2(FT, (code, {}, 'n', (), None, {}, 1, 2))",
    };
    for (size_t i = 0; i < sizeof(none) / sizeof *none; i++) {
        r = scan_py(none[i]);
        cr_assert_eq(r->n_functions, 0, "%s", none[i]);
        cr_assert_str_eq(r->result_kind, "instance", "%s", none[i]);
        pkscan_free(r);
    }
    /* five arguments of the wrong types: a function (as _make_function's
     * would be), every detail unknown, nothing made up */
    r = scan_py("call_c2(FT, ('code', 1, 2, 3, 4))");
    cr_assert_eq(r->n_functions, 1);
    const pkscan_function *f = &r->functions[0];
    cr_assert(f->name.s == NULL && f->qualname.s == NULL &&
              f->module.s == NULL && f->filename.s == NULL);
    cr_assert(!f->code_known && f->n_params == 0 && f->firstlineno == -1);
    cr_assert_eq(f->n_defaults, -1);
    cr_assert_eq(f->n_globals, 0);
    pkscan_free(r);
    /* kwdefaults (3.13's sixth argument) counted */
    r = scan_py("call_c2(FT, (code, {}, 'k', (1, 2), None, {'a': 1}))");
    cr_assert_eq(r->n_functions, 1);
    cr_assert(str_is(r->functions[0].name, "k"));
    cr_assert_eq(r->functions[0].n_defaults, 2);
    cr_assert_eq(r->functions[0].n_kwdefaults, 1);
    pkscan_free(r);
    /* arguments that are not a tuple: no call CPython makes */
    size_t n;
    char *raw = cpk_py_bytes("notuple", &n);
    r = pkscan_scan(raw, n, 0);
    free(raw);
    cr_assert(r != NULL);
    cr_assert_eq(r->n_functions, 0);
    pkscan_free(r);
}

/* A code object outside the arguments of a function the pickle is seen
 * to make: a callable holding one, called by the load, may make a
 * function of it and run it (partial(_function_new, code)({}, 0)()), in
 * every format; listed, refused by allow=[], live without a policy. Code
 * objects stored, hashed or nested in co_consts are not calls. */
Test(scan_compat2, code_objects_outside_functions)
{
    cpk_py_file("_src.py", "code_objects_outside_functions.py");
    static const char *const listed[] = {"own", "c2p", "c2map"};
    for (size_t i = 0; i < 3; i++) {
        pkscan_report *r = scan_py(listed[i]);
        cr_assert(r->n_load_calls >= 1, "%s", listed[i]);
        cr_assert_eq(pkscan_strict_violation(r), 1);
        int named = 0;
        for (size_t k = 0; k < r->n_load_calls; k++)
            named |= str_is(r->load_calls[k].name, "body");
        cr_assert(named, "%s: no entry names body", listed[i]);
        pkscan_free(r);
    }
    /* _function_make takes its code as plain data: the reconstructor
     * itself is what holds code there */
    pkscan_report *r = scan_py("via_class");
    cr_assert(r->n_load_calls >= 1);
    cr_assert_eq(pkscan_strict_violation(r), 1);
    pkscan_free(r);
    r = scan_py("make");
    cr_assert(r->n_load_calls >= 1);
    cr_assert_eq(pkscan_strict_violation(r), 1);
    cr_assert_str_eq(r->load_calls[0].reason,
                     "calls what holds a code object carried by value (it "
                     "may make a function of it and run it)");
    pkscan_free(r);
    r = scan_py("own");
    cr_assert_str_eq(r->load_calls[0].reason,
                     "calls what holds a code object carried by value (it "
                     "may make a function of it and run it)");
    pkscan_free(r);
    static const char *const clean[] = {
        "c2(nested, 2)", "c2(nested, 5)", "cp.dumps(code)",
        "cp.dumps([code, {(code,): 1}, frozenset([code])])",
        "cp.dumps([code, {(code,): 1}], compat='cloudpickle2')",
        "cp.dumps(R(P, (FT, code)))",
    };
    for (size_t i = 0; i < sizeof(clean) / sizeof *clean; i++) {
        r = scan_py(clean[i]);
        cr_assert_eq(r->n_load_calls, 0, "%s: %s", clean[i],
                     r->n_load_calls ? r->load_calls[0].reason : "");
        pkscan_free(r);
    }
}

/* Every truncation and many one-byte changes of a compat="cloudpickle2"
 * pickle: never a crash, and a report that says what it found. */
Test(scan_compat2, mutated_pickles_are_scanned_safely)
{
    cpk_py_file("_src.py");
    size_t n;
    char *data = cpk_py_bytes("c2([outer(1, c=3), lam, Shape], 2)", &n);
    char *buf = malloc(n);
    cr_assert(buf != NULL);
    uint32_t seed = 12345;
    for (size_t cut = 0; cut <= n; cut++) {
        pkscan_report *r = pkscan_scan(data, cut, 0);
        cr_assert(r != NULL);
        cr_assert(cut == n ? r->status == PKSCAN_OK
                           : r->status != PKSCAN_OK);
        pkscan_free(r);
    }
    for (int k = 0; k < 20000; k++) {
        memcpy(buf, data, n);
        for (int m = 0; m < 1 + k % 3; m++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % n;
            seed = seed * 1103515245u + 12345u;
            buf[at] = (char)(seed >> 16);
        }
        pkscan_report *r = pkscan_scan(buf, n, 0);
        cr_assert(r != NULL);
        if (r->status == PKSCAN_OK) {
            cr_assert(r->result_kind != NULL);
            for (size_t i = 0; i < r->n_functions; i++) {
                const pkscan_function *f = &r->functions[i];
                cr_assert(f->offset < n);
                cr_assert(f->n_defaults >= -1 && f->n_kwdefaults >= -1);
                for (size_t j = 0; j < f->n_params; j++)
                    cr_assert(f->params[j].kind <= PKSCAN_PARAM_VARKW);
            }
        } else {
            cr_assert(r->error != NULL && r->error_offset <= n);
        }
        pkscan_free(r);
    }
    free(buf);
    free(data);
}

/* --- cloudpickle-load FILE, text and --json ------------------------------ */

static char dir[64];

static void
cli_setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cli_compat2, .init = cli_setup);

/* CPK_PYTHON writes c2(`obj`, proto) (_src.py's helper) to dir/name: the path
 * (static buffer per call, 4 in turn). */
static const char *
c2_file(const char *name, const char *obj, int proto)
{
    static char paths[4][256];
    static int next;
    char *path = paths[next++ % 4];
    char code[4096];
    snprintf(path, 256, "%s/%s", dir, name);
    snprintf(code, sizeof(code), "%ssys.stdout.buffer.write(c2(%s, %d))\n",
             cpk_py_text("_src.py"), obj, proto);
    cpk_python_to_file(path, code);
    return path;
}

static void
run_load(cpk_proc *p, const char *a1, const char *a2)
{
    const char *argv[] = {CPK_LOAD, a1, a2, NULL};
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

static void
assert_has(const cpk_proc *p, const char *text)
{
    cr_assert(strstr(p->out, text) != NULL, "missing %s in:\n%s", text,
              p->out);
}

Test(cli_compat2, text_report_at_protocols_2_and_5)
{
    for (int proto = 2; proto <= 5; proto += 3) {
        const char *path =
            c2_file("all.pkl", "[outer(1, c=3), lam, Shape]", proto);
        cpk_proc p;
        run_load(&p, path, NULL);
        cpk_assert_exit(&p, 0);
        assert_has(&p, "    types.LambdaType ");
        assert_has(&p, "function   outer.<locals>.inner (byte ");
        assert_has(&p, "cloudpickle layout)\n"
                       "  module     __main__\n"
                       "  source     /src/c2.py, line 7\n"
                       "  signature  inner(x, /, y=..., *rest, flag, "
                       "**opts)\n"
                       "  python     3.");
        assert_has(&p, "  globals    K, math, helper\n"
                       "  closure    a, z\n"
                       "  defaults   1 positional, 0 keyword-only\n");
        assert_has(&p, "function   <lambda> (byte ");
        assert_has(&p, "  source     /src/c2.py, line 10\n"
                       "  signature  <lambda>(p, q=..., r=...)\n");
        assert_has(&p, "  defaults   2 positional, 0 keyword-only\n");
        assert_has(&p, "function   Shape.area (byte ");
        assert_has(&p, "  signature  area(self, w, h=...)\n");
        assert_has(&p, "function   Shape.make (byte ");
        assert_has(&p, "  defaults   0 positional, 1 keyword-only\n");
        assert_has(&p, "class      Shape (byte ");
        assert_has(&p, "  methods    area, make\n");
        assert_has(&p, "verdict    only reconstructors and plain data");
        cr_assert(strstr(p.out, "DANGEROUS") == NULL, "%s", p.out);
        cr_assert(strstr(p.out, "load runs") == NULL, "%s", p.out);
        cpk_proc_free(&p);
        run_load(&p, "--strict", path);
        cpk_assert_exit(&p, 0);
        cpk_proc_free(&p);

        /* one function alone is the result */
        path = c2_file("lam.pkl", "lam", proto);
        run_load(&p, path, NULL);
        cpk_assert_exit(&p, 0);
        assert_has(&p, "result     function\n");
        cpk_proc_free(&p);
    }
}

Test(cli_compat2, json_report_at_protocols_2_and_5)
{
    for (int proto = 2; proto <= 5; proto += 3) {
        const char *path =
            c2_file("all.pkl", "[outer(1, c=3), lam, Shape]", proto);
        cpk_proc p;
        run_load(&p, "--json", path);
        cpk_assert_exit(&p, 0);
        cpk_proc py;
        cpk_python(&py, cpk_py_text("json_report_at_protocols_2_and_5.py"),
                   p.out, p.out_len);
        cpk_assert_exit(&py, 0);
        cpk_proc_free(&py);
        cpk_proc_free(&p);
    }
}

/* A function the load calls: listed, --strict refuses; the same in
 * JSON. */
Test(cli_compat2, strict_refuses_a_function_the_load_calls)
{
    const char *path = c2_file("call.pkl", "R(helper, (1,))", 2);
    cpk_proc p;
    run_load(&p, path, NULL);
    cpk_assert_exit(&p, 0);
    assert_has(&p, "result     result of calling helper carried by value\n");
    assert_has(&p, "  ! calls a function carried by value: helper (byte ");
    assert_has(&p, "verdict    LOADING RUNS CODE carried by value");
    cpk_proc_free(&p);
    run_load(&p, "--strict", path);
    cpk_assert_exit(&p, 3);
    cr_assert_eq(p.out_len, 0);
    cr_assert(strstr(p.err, "calls a function carried by value") != NULL,
              "%s", p.err);
    cpk_proc_free(&p);
    run_load(&p, "--json", path);
    cpk_assert_exit(&p, 0);
    cpk_proc py;
    cpk_python(&py,
               "import json, sys\n"
               "r = json.loads(sys.stdin.buffer.read().decode('utf-8'))\n"
               "assert r['strict_violation'] is True\n"
               "assert r['result'] == 'call result', r['result']\n"
               "[c] = r['load_calls']\n"
               "assert c['reason'] == 'calls a function carried by value'\n"
               "assert c['name'] == 'helper', c\n",
               p.out, p.out_len);
    cpk_assert_exit(&py, 0);
    cpk_proc_free(&py);
    cpk_proc_free(&p);
}
