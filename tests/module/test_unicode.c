/* test_unicode.c - non-ASCII text in what the module pickles by value:
 * identifiers (functions, parameters, classes, enum members, globals),
 * docstrings, string constants, dict keys, and a module of such a name,
 * each loaded in a fresh interpreter where the defining code is absent.
 * (The programs' locale handling is tested in the test_cli_* files.) */
#include "support.h"

TestSuite(unicode, .init = cpk_py_start, .fini = cpk_py_stop);

Test(unicode, identifiers_docs_and_constants)
{
    cpk_py_file("identifiers_docs_and_constants.py");
    cpk_fresh_protos("(café, Größe, Farbe, data)",
                     cpk_py_text("identifiers_docs_and_constants_fresh.py"));
}

Test(unicode, module_with_a_non_ascii_name_by_value)
{
    cpk_py_file("module_with_a_non_ascii_name_by_value.py");
    cpk_fresh("data",
              "assert obj(21) == 42\n"
              "assert obj.__module__ == 'módulo_ü'\n"
              "assert obj.__globals__['Ω'] == 2\n");
}
