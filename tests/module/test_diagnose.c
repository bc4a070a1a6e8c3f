/* test_diagnose.c - the culprit search after a failed dump
 * (_find_unpicklable): it names the innermost unpicklable object even when
 * the objects it walks are made on the fly (__reduce_ex__ results) or
 * change under it (a key's __repr__ that empties the dict being walked),
 * and user interrupts reach the caller. test_api.c covers the paths. */
#include "support.h"

TestSuite(diagnose, .init = cpk_py_start, .fini = cpk_py_stop);

Test(diagnose, culprit_among_reduce_temporaries)
{
    /* Each Holder reduces to fresh objects; the culprit is one of them,
     * behind fifty that pickle. Every object tried stays alive until the
     * search ends, so no fresh object can share the id of one tried. */
    cpk_py_file("culprit_among_reduce_temporaries.py");
}

Test(diagnose, dict_changed_by_a_key_repr)
{
    cpk_py_file("dict_changed_by_a_key_repr.py");
}

Test(diagnose, reduce_ex_errors)
{
    /* An ordinary error of __reduce_ex__ just ends the walk there. */
    cpk_py("import ccloudpickle as cp\n"
           "class Opaque:\n"
           "    def __reduce_ex__(self, proto):\n"
           "        raise TypeError('no')\n"
           "path, culprit = cp._find_unpicklable({'k': Opaque()})\n"
           "assert path == \"['k']\" and type(culprit) is Opaque\n");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "class Stop:\n"
                  "    def __reduce_ex__(self, proto):\n"
                  "        raise KeyboardInterrupt('stop')\n"
                  "cp._find_unpicklable([Stop()])\n",
                  "KeyboardInterrupt", "stop");
    cpk_py_raises("import ccloudpickle as cp, threading\n"
                  "class Key:\n"
                  "    def __repr__(self):\n"
                  "        raise KeyboardInterrupt('repr')\n"
                  "cp._find_unpicklable({Key(): threading.local()})\n",
                  "KeyboardInterrupt", "repr");
}
