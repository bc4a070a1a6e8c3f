/* test_unicode.c - non-ASCII text in what the module pickles by value:
 * identifiers (functions, parameters, classes, enum members, globals),
 * docstrings, string constants, dict keys, and a module of such a name,
 * each loaded in a fresh interpreter where the defining code is absent.
 * (The programs' locale handling is tested in the test_cli_* files.) */
#include "support.h"

TestSuite(unicode, .init = cpk_py_start, .fini = cpk_py_stop);

Test(unicode, identifiers_docs_and_constants)
{
    cpk_py("import enum\n"
           "ÉTÉ = 'été'\n"
           "def café(x, ñ=1):\n"
           "    'Döc ✓'\n"
           "    return f'{x}→{ñ}' + ÉTÉ\n"
           "class Größe:\n"
           "    'Klasse ✓'\n"
           "    π = 3.14\n"
           "    def méthode(self):\n"
           "        return 'ü' + str(self.π)\n"
           "class Farbe(enum.Enum):\n"
           "    RÖT = 'rot'\n"
           "data = {'ключ': 'значение', '😀': b'\\xff', 'z\\u0000z': '\\udcff'}\n");
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
    cpk_py("import sys, types, ccloudpickle as cp\n"
           "m = types.ModuleType('módulo_ü')\n"
           "exec('Ω = 2\\ndef größer(x):\\n    return x * Ω\\n', m.__dict__)\n"
           "sys.modules['módulo_ü'] = m\n"
           "cp.register_pickle_by_value(m)\n"
           "data = cp.dumps(m.größer)\n"
           "cp.unregister_pickle_by_value(m)\n"
           "del sys.modules['módulo_ü']\n");
    cpk_fresh("data",
              "assert obj(21) == 42\n"
              "assert obj.__module__ == 'módulo_ü'\n"
              "assert obj.__globals__['Ω'] == 2\n");
}
