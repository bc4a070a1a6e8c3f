/* test_cov_scan_refusals.c - the static inspector (src/scan/pkscan.h) on
 * hand-made pickles at the less travelled edges of its opcode reader:
 * each malformed one is refused with the right status, reason and
 * offset, and CPython's own unpickler refuses the same bytes (so the scan
 * does not invent refusals); the escapes of the protocol 0 string opcodes
 * decode to the names CPython's find_class is asked for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan/pkscan.h"
#include "support.h"

#include <criterion/parameterized.h>

TestSuite(cov_scan_refusals, .init = cpk_py_start, .fini = cpk_py_stop);

/* DBL_MAX + half an ulp, the smallest decimal a float overflows at. */
#define DBL_BOUND                                                             \
    "1797693134862315807937289714053034150799341327100378269361737789"        \
    "8044496829276475094664901797758720709633028641669288791094655554"        \
    "7851940402630657488671505820681908902000708383676273854845817711"        \
    "5317644757302700698555713669596228429148198608349364752927190741"        \
    "68444365510704342711559699508093042880177904174497792"

typedef struct {
    char name[40];
    char data[400];
    size_t len;            /* 0: strlen(data) */
    pkscan_status status;
    size_t offset;         /* error_offset */
    char scan_frag[64];    /* in r->error */
    char py_exc[24];       /* what pickle.loads raises ... */
    char py_frag[64];      /* ... saying this */
} refusal;

static refusal refusals[] = {
    {"dict_list_key", "(]]d.", 0, PKSCAN_ERR_TYPE, 3,
     "unhashable type: 'list'", "TypeError", "unhashable type: 'list'"},
    {"additems_list", "\x80\x04\x8f(]\x90.", 0, PKSCAN_ERR_TYPE, 5,
     "unhashable type: 'list'", "TypeError", "unhashable type: 'list'"},
    {"put_negative", "Np-1\n.", 0, PKSCAN_ERR_MEMO, 1,
     "negative PUT argument", "ValueError", "negative PUT argument"},
    {"get_too_large", "Np0\ng99999999999999999999\n.", 0, PKSCAN_ERR_MEMO,
     4, "Python int too large to convert to C ssize_t", "OverflowError",
     "Python int too large to convert to C ssize_t"},
    {"put_too_large", "Np99999999999999999999\n.", 0, PKSCAN_ERR_MEMO, 1,
     "Python int too large to convert to C ssize_t", "OverflowError",
     "Python int too large to convert to C ssize_t"},
    {"string_unquoted", "S'abc\n.", 0, PKSCAN_ERR_VALUE, 0,
     "the STRING opcode argument must be quoted", "UnpicklingError",
     "the STRING opcode argument must be quoted"},
    {"string_one_quote", "S'\n.", 0, PKSCAN_ERR_VALUE, 0,
     "the STRING opcode argument must be quoted", "UnpicklingError",
     "the STRING opcode argument must be quoted"},
    {"slot_state_int", "]NK\x05\x86" "b.", 0, PKSCAN_ERR_TYPE, 5,
     "slot state is not a dictionary", "UnpicklingError",
     "slot state is not a dictionary"},
    {"float_small_digits_big_exp", "F0.00001e314\n.", 0, PKSCAN_ERR_VALUE, 0,
     "value too large to convert to float", "OverflowError",
     "value too large to convert to float"},
    {"float_negative_big", "F-0.00000000001e320\n.", 0, PKSCAN_ERR_VALUE, 0,
     "value too large to convert to float", "OverflowError",
     "value too large to convert to float"},
    {"float_past_nul", "F1e400\0x\n.", 10, PKSCAN_ERR_VALUE, 0,
     "value too large to convert to float", "OverflowError",
     "value too large to convert to float"},
    {"float_bound_one_more_digit", "F" DBL_BOUND "0\n.", 0, PKSCAN_ERR_VALUE,
     0, "value too large to convert to float", "OverflowError",
     "value too large to convert to float"},
    {"string_trailing_backslash", "S'a\\'\n.", 0, PKSCAN_ERR_VALUE, 0,
     "Trailing \\ in string", "ValueError", "Trailing \\ in string"},
    {"string_short_hex", "S'\\x4'\n.", 0, PKSCAN_ERR_VALUE, 0,
     "invalid \\x escape at position 0", "ValueError",
     "invalid \\x escape at position 0"},
    {"unicode_out_of_range", "V\\U00110000\n.", 0, PKSCAN_ERR_VALUE, 0,
     "\\Uxxxxxxxx out of range", "UnicodeDecodeError",
     "\\Uxxxxxxxx out of range"},
    {"unicode_truncated_u", "V\\u12\n.", 0, PKSCAN_ERR_VALUE, 0,
     "truncated \\uXXXX escape", "UnicodeDecodeError",
     "truncated \\uXXXX escape"},
    {"global_module_overlong", "\x80\x03" "c\xe0\x80\x80\nx\n.", 0,
     PKSCAN_ERR_VALUE, 2, "module name is not valid UTF-8",
     "UnicodeDecodeError", "'utf-8' codec can't decode"},
    {"global_name_surrogate", "\x80\x03" "cm\n\xed\xa0\x80\n.", 0,
     PKSCAN_ERR_VALUE, 2, "global name is not valid UTF-8",
     "UnicodeDecodeError", "'utf-8' codec can't decode"},
    {"int_double_underscore", "I1__0\n.", 0, PKSCAN_ERR_VALUE, 0,
     "invalid literal for int() with base 0", "ValueError",
     "could not convert string to int"},
    {"long_double_underscore", "L1__0L\n.", 0, PKSCAN_ERR_VALUE, 0,
     "invalid literal for int() with base 0", "ValueError",
     "invalid literal for int()"},
    {"invalid_opcode", "N\xff.", 0, PKSCAN_ERR_OPCODE, 1, "invalid load key",
     "UnpicklingError", "invalid load key, '\\xff'"},
};

ParameterizedTestParameters(cov_scan_refusals, refused_like_cpython)
{
    return cr_make_param_array(refusal, refusals,
                               sizeof refusals / sizeof refusals[0]);
}

static void hex_of(const char *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", (unsigned char)p[i]);
    out[2 * n] = '\0';
}

ParameterizedTest(refusal *c, cov_scan_refusals, refused_like_cpython)
{
    size_t n = c->len ? c->len : strlen(c->data);
    pkscan_report *r = pkscan_scan(c->data, n, 0);
    cr_assert(r != NULL);
    cr_expect(r->status == c->status, "%s: status %s (%s), want %s", c->name,
              pkscan_status_name(r->status), r->error ? r->error : "",
              pkscan_status_name(c->status));
    cr_expect(r->error != NULL && strstr(r->error, c->scan_frag) != NULL,
              "%s: error %s, want it to say %s", c->name,
              r->error ? r->error : "(none)", c->scan_frag);
    cr_expect(r->error_offset == c->offset, "%s: offset %zu, want %zu",
              c->name, r->error_offset, c->offset);
    cr_expect(r->error_opcode == (unsigned char)c->data[c->offset],
              "%s: opcode %d", c->name, r->error_opcode);
    pkscan_free(r);

    char hex[2 * sizeof c->data + 1], code[1400];
    hex_of(c->data, n, hex);
    snprintf(code, sizeof code,
             "import pickle\n"
             "pickle.loads(bytes.fromhex('%s'))\n",
             hex);
    cpk_py_raises(code, c->py_exc, c->py_frag[0] ? c->py_frag : NULL);
}

/* Floats at the overflow bound that both CPython and the scan accept:
 * just below it, and zero with a huge exponent. */
Test(cov_scan_refusals, floats_below_the_bound_load)
{
    static const char *const ok[] = {
        "F0e999\n.",
        "F0.000e99999\n.",
        "F1.5\0x\n.",
    };
    static const char *const below[] = {
        "F1797693134862315807937289714053034150799341327100378269361737789"
        "8044496829276475094664901797758720709633028641669288791094655554"
        "7851940402630657488671505820681908902000708383676273854845817711"
        "5317644757302700698555713669596228429148198608349364752927190741"
        "68444365510704342711559699508093042880177904174497791\n.",
        "F0.0000017976931348623157e314\n.",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        size_t n = i == 2 ? 8 : strlen(ok[i]);
        pkscan_report *r = pkscan_scan(ok[i], n, 0);
        cr_assert(r != NULL);
        cr_expect(r->status == PKSCAN_OK, "%zu: %s", i,
                  r->error ? r->error : "");
        cr_expect(r->result_kind != NULL && strcmp(r->result_kind, "float") == 0,
                  "%zu: %s", i, r->result_kind ? r->result_kind : "(null)");
        pkscan_free(r);
    }
    for (size_t i = 0; i < sizeof below / sizeof below[0]; i++) {
        pkscan_report *r = pkscan_scan(below[i], strlen(below[i]), 0);
        cr_assert(r != NULL);
        cr_expect(r->status == PKSCAN_OK, "below %zu: %s", i,
                  r->error ? r->error : "");
        pkscan_free(r);
    }
    cpk_py("import pickle, math\n"
           "assert pickle.loads(b'F0e999\\n.') == 0.0\n"
           "assert pickle.loads(b'F0.000e99999\\n.') == 0.0\n"
           "assert pickle.loads(b'F1.5\\x00x\\n.') == 1.5\n"
           "big = pickle.loads(b'F0.0000017976931348623157e314\\n.')\n"
           "assert math.isfinite(big)\n");
}

static int str_is(pkscan_str s, const char *lit, size_t n)
{
    return s.s != NULL && s.len == n && memcmp(s.s, lit, n) == 0;
}

/* STRING's escapes (PyBytes_DecodeEscape) and UNICODE's
 * (raw-unicode-escape) decoded as CPython decodes them: STACK_GLOBAL's
 * names come out as find_class gets them. */
Test(cov_scan_refusals, escaped_names_reach_find_class_decoded)
{
    static const char data[] =
        "S'ab\\\\c\\'d\\\"e\\bf\\fg\\th\\ni\\rj\\vk\\al\\101m\\7n\\qo"
        "\\x41'\n"
        "V\\U0001f600\\u00e9\\\\u0041z\n"
        "\x93.";
    /* The decoded names, from the escapes' definitions. */
    static const char module[] =
        "ab\\c'd\"e\bf\fg\th\ni\rj\vk\al" "Am\an\\qoA";
    static const char name[] = "\xf0\x9f\x98\x80\xc3\xa9\\\\u0041z";
    pkscan_report *r = pkscan_scan(data, sizeof data - 1, 0);
    cr_assert(r != NULL);
    cr_assert(r->status == PKSCAN_OK, "%s", r->error ? r->error : "");
    cr_assert(r->n_imports == 1, "%zu imports", r->n_imports);
    cr_expect(str_is(r->imports[0].module, module, sizeof module - 1),
              "module %.*s", (int)r->imports[0].module.len,
              r->imports[0].module.s);
    cr_expect(str_is(r->imports[0].name, name, sizeof name - 1),
              "name %.*s", (int)r->imports[0].name.len, r->imports[0].name.s);
    pkscan_free(r);

    char hex[2 * sizeof data + 1], mhex[2 * sizeof module + 1],
        nhex[2 * sizeof name + 1], code[2048];
    hex_of(data, sizeof data - 1, hex);
    hex_of(module, sizeof module - 1, mhex);
    hex_of(name, sizeof name - 1, nhex);
    snprintf(code, sizeof code,
             "import io, pickle, warnings\n"
             "seen = []\n"
             "class U(pickle.Unpickler):\n"
             "    def find_class(self, m, n):\n"
             "        seen.append((m, n))\n"
             "        return 'found'\n"
             "with warnings.catch_warnings():\n"
             "    warnings.simplefilter('ignore', DeprecationWarning)\n"
             "    got = U(io.BytesIO(bytes.fromhex('%s'))).load()\n"
             "assert got == 'found'\n"
             "want = (bytes.fromhex('%s').decode(),\n"
             "        bytes.fromhex('%s').decode())\n"
             "assert seen == [want], (seen, want)\n",
             hex, mhex, nhex);
    cpk_py(code);
}
