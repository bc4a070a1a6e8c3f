/* test_cov_scan_codever.c - the static scan's account of a function's
 * code when _code_unmarshal's python_version argument is not a str: the
 * version then comes from the bytecode magic (src/scan/marshal_scan.h's
 * table), 3.12 for 3.12's magic; a magic no release had leaves it
 * unknown. The load itself refuses such an argument. */
#include <stdlib.h>
#include <string.h>

#include "scan/pkscan.h"
#include "support.h"

TestSuite(cov_scan_codever, .init = cpk_py_start, .fini = cpk_py_stop);

/* f's pickle with python_version replaced by the int 5 (same length:
 * BININT1 5, then two pushes and pops) and the magic by `magic`. */
#define REWRITE(magic)                                                        \
    "(lambda: (lambda data, old: data.replace(b'\\x8c\\x043.11',"             \
    " b'K\\x05N0N0').replace(old, b'J' + (" magic ").to_bytes(2, 'little')"   \
    " + b'\\r\\n'))(__import__('ccloudpickle').dumps(f),"                     \
    " b'J' + __import__('importlib.util').util.MAGIC_NUMBER))()"

static pkscan_report *scan_f(const char *magic_expr)
{
    char expr[600];
    snprintf(expr, sizeof expr, REWRITE("%s"), magic_expr);
    size_t n;
    char *data = cpk_py_bytes(expr, &n);
    pkscan_report *r = pkscan_scan(data, n, 0);
    free(data);
    cr_assert(r != NULL);
    cr_assert(r->status == PKSCAN_OK, "%s", r->error ? r->error : "");
    cr_assert(r->n_functions == 1, "%zu functions", r->n_functions);
    return r;
}

static int str_is(pkscan_str s, const char *lit)
{
    return s.s != NULL && s.len == strlen(lit) && memcmp(s.s, lit, s.len) == 0;
}

Test(cov_scan_codever, version_from_the_magic)
{
    if (PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000)
        cr_skip_test("the pickle is rewritten from 3.11's bytes");
    cpk_py("def f(a):\n"
           "    return a + 1\n");
    pkscan_report *r = scan_f("3531");
    const pkscan_function *fn = &r->functions[0];
    cr_expect(fn->magic == 3531, "magic %ld", fn->magic);
    cr_expect(str_is(fn->python_version, "3.12"), "version %.*s",
              (int)fn->python_version.len, fn->python_version.s);
    cr_expect(str_is(fn->name, "f"));
    pkscan_free(r);
    r = scan_f("1");
    fn = &r->functions[0];
    cr_expect(fn->magic == 1, "magic %ld", fn->magic);
    cr_expect(fn->python_version.s == NULL, "version %.*s",
              (int)fn->python_version.len, fn->python_version.s);
    pkscan_free(r);
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(" REWRITE("3531") ")\n",
                  "ReconstructorTypeError",
                  "argument 1 (python_version) must be str, not int");
}
