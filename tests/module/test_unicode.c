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
                     "f, G, F, d = obj\n"
                     "assert f('a') == 'a→1été' and f('a', ñ=2) == 'a→2été'\n"
                     "assert f.__name__ == 'café' and f.__doc__ == 'Döc ✓'\n"
                     "assert G().méthode() == 'ü3.14' and G.__doc__ == 'Klasse ✓'\n"
                     "assert G.__qualname__ == 'Größe'\n"
                     "assert F.RÖT.value == 'rot' and F['RÖT'] is F.RÖT\n"
                     "assert d == {'ключ': 'значение', '😀': b'\\xff',\n"
                     "             'z\\u0000z': '\\udcff'}\n");
}

Test(unicode, module_with_a_non_ascii_name_by_value)
{
    cpk_py_file("module_with_a_non_ascii_name_by_value.py");
    cpk_fresh("data",
              "assert obj(21) == 42\n"
              "assert obj.__module__ == 'módulo_ü'\n"
              "assert obj.__globals__['Ω'] == 2\n");
}
