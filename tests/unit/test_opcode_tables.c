/* test_opcode_tables.c - src/common/opcode311.h, the inline-cache sizes and the
 * specialised -> base opcode map pycompat.c uses on 3.11 instead of importing
 * opcode, equal the running 3.11's opcode module, computed as dis does;
 * and a dump or load on 3.11 no longer imports opcode. */
#include "support.h"

#include "common/opcode311.h"

TestSuite(opcode_tables, .init = cpk_py_start, .fini = cpk_py_stop);

/* The tables as a Python expression: two lists of 256 ints. */
static void
define_tables(void)
{
    char code[8192];
    size_t n = 0;
    n += (size_t)snprintf(code + n, sizeof(code) - n, "header_caches = [");
    for (int i = 0; i < 256; i++)
        n += (size_t)snprintf(code + n, sizeof(code) - n, "%d,",
                              cpk_op_caches_311[i]);
    n += (size_t)snprintf(code + n, sizeof(code) - n, "]\nheader_deopt = [");
    for (int i = 0; i < 256; i++)
        n += (size_t)snprintf(code + n, sizeof(code) - n, "%d,",
                              cpk_op_deopt_311[i]);
    snprintf(code + n, sizeof(code) - n, "]\n");
    cpk_py(code);
}

Test(opcode_tables, header_equals_the_opcode_module)
{
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
    define_tables();
    cpk_py("import opcode, dis\n"
           "assert header_caches == list(opcode._inline_cache_entries)\n"
           /* dis's own map of specialised opcodes to their bases. */
           "deopt = list(range(256))\n"
           "for name, base in dis.deoptmap.items():\n"
           "    deopt[dis._all_opmap[name]] = opcode.opmap[base]\n"
           "assert header_deopt == deopt, [(i, a, b) for i, (a, b) in\n"
           "    enumerate(zip(header_deopt, deopt)) if a != b]\n");
    cpk_py("import importlib.util\n"
           "magic = int.from_bytes(importlib.util.MAGIC_NUMBER[:2], 'little')\n"
           "assert magic == 3495, magic\n");
#else
    cr_skip_test("the tables are 3.11's");
#endif
}

Test(opcode_tables, dump_and_load_do_not_import_opcode)
{
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
    cpk_py_file("dump_and_load_do_not_import_opcode.py");
#else
    cr_skip_test("the tables are 3.11's");
#endif
}
