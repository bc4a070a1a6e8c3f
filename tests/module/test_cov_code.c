/* test_cov_code.c - the 3.11 bytecode tables that the "ends on an
 * instruction boundary" check reads, when the interpreter's bytecode
 * magic is not the one opcode311.h was made for (a pre-release): the
 * tables are then built from the opcode module, and an opcode module of
 * an unexpected shape is refused. The magic is what
 * PyImport_GetMagicNumber reads, importlib's _RAW_MAGIC_NUMBER; the
 * tables are built once per process (Criterion forks one per test). */
#include "support.h"

#include <criterion/parameterized.h>

TestSuite(cov_code, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_code, tables_from_opcode_module_accept_warm_code)
{
    if (PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000)
        cr_skip_test("the inline-cache tables exist on 3.11 only");
    cpk_py_file("_fake_magic.py",
                "tables_from_opcode_module_accept_warm_code.py");
}

/* Each case replaces one opcode attribute before the first pickle of a
 * function; the table build must fail with `exc` saying `frag`, and pickle
 * nothing. */
typedef struct {
    char setup[400];
    char exc[32];
    char frag[80];
} bad_opcode;

static bad_opcode bad_opcodes[] = {
    {"opcode._inline_cache_entries = opcode._inline_cache_entries[:10]",
     "RuntimeError", "opcode has no tables of the expected shape"},
    {"opcode.opname = tuple(opcode.opname)",
     "RuntimeError", "opcode has no tables of the expected shape"},
    {"opcode.opmap = list(opcode.opmap.items())",
     "RuntimeError", "opcode has no tables of the expected shape"},
    {"opcode._specialized_instructions = "
     "tuple(opcode._specialized_instructions)",
     "RuntimeError", "opcode has no tables of the expected shape"},
    {"opcode._specializations = list(opcode._specializations.items())",
     "RuntimeError", "opcode has no tables of the expected shape"},
    {"e = list(opcode._inline_cache_entries); e[5] = 256\n"
     "opcode._inline_cache_entries = e",
     "RuntimeError", "bad opcode._inline_cache_entries"},
    {"e = list(opcode._inline_cache_entries); e[5] = -1\n"
     "opcode._inline_cache_entries = e",
     "RuntimeError", "bad opcode._inline_cache_entries"},
    {"e = list(opcode._inline_cache_entries); e[5] = 'x'\n"
     "opcode._inline_cache_entries = e",
     "TypeError", ""},
    {"del opcode._specializations", "AttributeError", "_specializations"},
    {"del opcode._inline_cache_entries", "AttributeError",
     "_inline_cache_entries"},
    {"s = dict(opcode._specializations)\n"
     "s['BINARY_OP'] = 7\n"
     "opcode._specializations = s",
     "TypeError", ""},
};

ParameterizedTestParameters(cov_code, opcode_module_of_another_shape)
{
    return cr_make_param_array(bad_opcode, bad_opcodes,
                               sizeof bad_opcodes / sizeof bad_opcodes[0]);
}

ParameterizedTest(bad_opcode *c, cov_code, opcode_module_of_another_shape)
{
    if (PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000)
        cr_skip_test("the inline-cache tables exist on 3.11 only");
    char code[1024];
    snprintf(code, sizeof code,
             "%simport ccloudpickle, opcode\n"
             "%s\n"
             "def f(a):\n"
             "    return a + 1\n"
             "ccloudpickle.dumps(f)\n",
             cpk_py_text("_fake_magic.py"), c->setup);
    cpk_py_raises(code, c->exc, c->frag[0] ? c->frag : NULL);
}

Test(cov_code, opcode_family_naming_unknown_base_keeps_identity)
{
    if (PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000)
        cr_skip_test("the inline-cache tables exist on 3.11 only");
    /* A family whose base opcode is not in opmap leaves its specialised
     * instructions mapped to themselves (no caches): a function that was
     * never run (no specialised instructions) still pickles, and its
     * copy runs. */
    cpk_py_file("_fake_magic.py",
                "opcode_family_naming_unknown_base_keeps_identity.py");
}
