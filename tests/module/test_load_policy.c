/* test_load_policy.c - the import policy of the Python API:
 * loads/load/_loads_exact(..., allow=[...], deny=[...]). A refused pickle
 * is refused before a single opcode runs (marker files prove nothing
 * ran), with every refused import listed; what the policy permits loads
 * (ccloudpickle's and stock cloudpickle's pickles under allow=[]); the
 * Unpickler's find_class refuses any lookup the static check did not
 * permit; two threads with different policies do not meet. The C rules
 * themselves are tests/unit/test_policy.c. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h" /* CPK_UNPICKLER_EXT */
#include "scan/pkscan.h"
#include "scan/policy.h"
#include "support.h"

TestSuite(load_policy, .init = cpk_py_start, .fini = cpk_py_stop);

Test(load_policy, os_system_refused_before_anything_runs)
{
    cpk_py_file("_evil_setup.py", "os_system_refused_before_anything_runs.py");
}

Test(load_policy, every_refused_import_is_listed)
{
    cpk_py_file("_evil_setup.py", "every_refused_import_is_listed.py");
}

Test(load_policy, function_using_math_loads_restricted)
{
    /* pkscan counts subimport("math") as plain data */
    cpk_py_file("function_using_math_loads_restricted.py");
}

Test(load_policy, by_value_objects_load_restricted)
{
    cpk_py_file("by_value_objects_load_restricted.py");
}

Test(load_policy, stock_cloudpickle_2_2_loads_restricted)
{
    struct stat st;
    if (strcmp(CPK_PYTHON, "/usr/bin/python3") != 0 ||
        stat("/usr/lib/python3/dist-packages/cloudpickle", &st) != 0)
        cr_skip_test("Debian's cloudpickle 2.2 is for /usr/bin/python3");
    cpk_proc p;
    cpk_python(&p, cpk_py_text("stock_cloudpickle_2_2_loads_restricted.py"),
               NULL, 0);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "ok\n");
    cpk_proc_free(&p);
}

Test(load_policy, allow_patterns)
{
    cpk_py_file("allow_patterns.py");
}

Test(load_policy, deny_patterns_and_deny_wins)
{
    cpk_py_file("deny_patterns_and_deny_wins.py");
}

Test(load_policy, bad_patterns_refused)
{
    cpk_py_file("bad_patterns_refused.py");
}

Test(load_policy, malformed_pickle_refused_at_byte)
{
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(b'\\x80\\x05\\x95\\x10', allow=[])\n",
                  "UnpicklingError", "at byte 2");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(b'(\\xff.', deny=['os'])\n",
                  "UnpicklingError", "at byte 1");
    /* a memo index no pickler writes: refused in the scan, no huge
     * allocation */
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(b'\\x80\\x05N\\x94j\\x00\\x00\\x00\\x10.', "
                  "allow=[])\n",
                  "UnpicklingError", "at byte ");
    /* loads ignores data after STOP, as pickle.loads does; _loads_exact
     * refuses it before loading */
    cpk_py_file("malformed_pickle_refused_at_byte.py");
}

Test(load_policy, ext_opcodes_refused)
{
    cpk_py_file("_evil_setup.py", "ext_opcodes_refused.py");
}

Test(load_policy, fix_imports_false_is_modelled)
{
    cpk_py_file("fix_imports_false_is_modelled.py");
}

Test(load_policy, bytes_like_data)
{
    cpk_py_file("bytes_like_data.py");
    cpk_py_raises("import ccloudpickle as cp\ncp.loads('text', allow=[])\n",
                  "TypeError", "Can't load pickle from unicode string");
}

Test(load_policy, load_from_files)
{
    cpk_py_file("_evil_setup.py", "load_from_files.py");
}

/* find_class of an Unpickler holding a policy's lookup set: only the
 * lookups the static scan listed and the policy permitted run; anything
 * else, even plain data, is refused. This is what makes a disagreement
 * between the scan and the load a refusal. */
Test(load_policy, find_class_refuses_what_the_scan_did_not_permit)
{
    cpk_py("import ccloudpickle as cp, io, collections\n"
           "u = cp.Unpickler(io.BytesIO(b''))\n"
           /* protocol 2 with Python 2 spellings, and one refused name */
           "scanned = (b'\\x80\\x02(ccollections\\nOrderedDict\\n'\n"
           "           b'c__builtin__\\nset\\ncposix\\nsystem\\n'\n"
           "           b'cccloudpickle\\n_make_cell\\nt.')\n");
    size_t n;
    char *data = cpk_py_bytes("scanned", &n);
    pkscan_report *r = pkscan_scan(data, n, 0);
    free(data);
    cr_assert(r != NULL && r->status == PKSCAN_OK);
    cpk_policy *p = cpk_policy_new();
    const char *why;
    cr_assert(cpk_policy_add(p, 0, "posix", &why) == 0);
    cpk_policy_names *names = cpk_policy_names_new(p, r);
    cr_assert(names != NULL);
    cpk_policy_free(p);
    pkscan_free(r);
    PyObject *u = PyDict_GetItemString(
        PyModule_GetDict(PyImport_AddModule("__main__")), "u");
    cr_assert(u != NULL);
    CPK_UNPICKLER_EXT(u)->policy_names = names; /* u frees it */
    cpk_py_file("find_class_refuses_what_the_scan_did_not_permit.py");
}

/* Two threads load the same pickle at once under different policies,
 * each load pausing in the middle (time.sleep runs as one of its
 * reductions) so the other's lookups happen meanwhile: each sees only
 * its own policy. */
Test(load_policy, concurrent_loads_keep_their_own_policy, .timeout = 120)
{
    cpk_py_file("concurrent_loads_keep_their_own_policy.py");
}

Test(load_policy, docstrings_name_the_options)
{
    cpk_py("import ccloudpickle as cp\n"
           "for f in (cp.loads, cp.load):\n"
           "    assert 'allow=None, deny=None' in f.__text_signature__\n"
           "    assert 'UnpicklingError' in f.__doc__\n");
}

/* Protocol 4 find_class resolves dotted names by attribute lookup, and
 * pkscan classifies by the module: `dataclasses` + `inspect.os.system` is
 * os.system reached through plain modules. Neither that, nor a module
 * object in hand, nor a getattr chain from one gets past a policy. */
Test(load_policy, attribute_paths_out_of_a_module_refused)
{
    cpk_py_file("_evil_setup.py",
                "attribute_paths_out_of_a_module_refused.py");
}

/* A signed pickle is verified first, then its pickle gets the policy of
 * the same call: a correctly signed os.system pickle is still refused by
 * allow=[] or deny=, from bytes and from a file; a permitted one loads. */
Test(load_policy, signed_pickles_get_the_policy_too)
{
    cpk_py_file("_evil_setup.py", "signed_pickles_get_the_policy_too.py");
}

/* Code carried by value that the load itself runs is refused by any
 * active policy, whatever the patterns: a by-value function the pickle
 * calls, an instance of a by-value class with a __setstate__ (a plain
 * dumps of it). Without a policy both load and run. */
Test(load_policy, code_the_load_runs_is_refused_by_any_policy)
{
    cpk_py_file("_evil_setup.py",
                "code_the_load_runs_is_refused_by_any_policy.py");
}

/* One name written two ways (protocol 2: exceptions.Exception and
 * __builtin__.Exception) is permitted statically and by find_class. */
Test(load_policy, every_written_spelling_is_permitted_at_load)
{
    cpk_py("import ccloudpickle as cp\n"
           "d = (b'\\x80\\x02(cexceptions\\nException\\n'\n"
           "     b'c__builtin__\\nException\\nt.')\n"
           "assert cp.loads(d, allow=[]) == (Exception, Exception)\n");
}

/* A chain of containers linked top-down through the memo, deeper than
 * cloudpickle-load accepts, is refused before the load (freeing a deep
 * deque chain overflows CPython's C stack). */
Test(load_policy, deep_memo_chains_are_refused)
{
    cpk_py_file("deep_memo_chains_are_refused.py");
}

/* Review i11f: the policy reads protocol 0-2 strings as their bytes, the
 * load decodes them with `encoding`: an escaping codec made "\x72unpy"
 * import runpy past deny=['runpy']. Under a policy only encodings that
 * keep ASCII bytes as they are load; others are refused before anything
 * runs. Without a policy every encoding still loads. */
Test(load_policy, encodings_that_respell_names_refused)
{
    cpk_py_file("encodings_that_respell_names_refused.py");
}
