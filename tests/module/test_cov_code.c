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

/* Makes the next table build take the opcode-module path; `real` keeps
 * the true magic for restoring it. */
#define FAKE_MAGIC                                                            \
    "import importlib._bootstrap_external as ext, sys\n"                      \
    "real = ext._RAW_MAGIC_NUMBER\n"                                          \
    "ext._RAW_MAGIC_NUMBER = real ^ 0x7\n"

Test(cov_code, tables_from_opcode_module_accept_warm_code)
{
    if (PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000)
        cr_skip_test("the inline-cache tables exist on 3.11 only");
    cpk_py(FAKE_MAGIC
           "import ccloudpickle, pickle, types\n"
           "class P:\n"
           "    def __init__(self):\n"
           "        self.x = 3\n"
           "K = 5\n"
           "def warm(n):\n"
           "    p = P()\n"
           "    t = 0\n"
           "    for i in range(n):\n"
           "        t += p.x * K + len((i,)) + [i][0]\n"
           "    return t\n"
           "for _ in range(200):\n"
           "    warm(20)\n"
           "# The first pickle builds the tables from opcode: specialised\n"
           "# instructions must map to their base (with its caches), or a\n"
           "# warm function reads as ending inside its caches.\n"
           "data = ccloudpickle.dumps(warm)\n"
           "ext._RAW_MAGIC_NUMBER = real\n"
           "data = ccloudpickle.dumps(warm)\n"
           "assert ccloudpickle.loads(data)(20) == warm(20)\n"
           "# The same tables still find code whose last instruction lost\n"
           "# its cache (BINARY_OP then its CACHE unit, moved last).\n"
           "def f(a, b):\n"
           "    return a + b\n"
           "good = f.__code__.co_code\n"
           "assert len(good) == 12 and good[6] == 122, good\n"
           "bad = good[:6] + good[10:12] + bytes([9, 0]) + good[6:8]\n"
           "badfn = types.FunctionType(f.__code__.replace(co_code=bad), {})\n"
           "try:\n"
           "    ccloudpickle.dumps(badfn)\n"
           "except pickle.PicklingError as e:\n"
           "    assert \"code 'f'\" in str(e) and 'inline caches' in str(e), e\n"
           "else:\n"
           "    raise AssertionError('pickled code ending in its caches')\n"
           "assert ccloudpickle.loads(ccloudpickle.dumps(f))(2, 3) == 5\n");
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
             FAKE_MAGIC "import ccloudpickle, opcode\n"
                        "%s\n"
                        "def f(a):\n"
                        "    return a + 1\n"
                        "ccloudpickle.dumps(f)\n",
             c->setup);
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
    cpk_py(FAKE_MAGIC
           "import ccloudpickle, opcode\n"
           "s = {'NO_SUCH_BASE': list(v) for v in\n"
           "     opcode._specializations.values()}\n"
           "opcode._specializations = s\n"
           "def f(a):\n"
           "    return [a][0] + 1\n"
           "data = ccloudpickle.dumps(f)\n"
           "ext._RAW_MAGIC_NUMBER = real\n"
           "assert ccloudpickle.loads(ccloudpickle.dumps(f))(4) == 5\n");
}
