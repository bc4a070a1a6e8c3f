/* test_fuzz_regressions.c - inputs that tests/fuzz/fuzz_loads.c found
 * crashing ccloudpickle.loads, replayed through ccloudpickle.loads: each
 * must now end in a clean exception (tests/fuzz/regressions/README says
 * what each one is), and the defect behind it is checked on its own. */
#include "support.h"

#include <string.h>

TestSuite(fuzz_regressions, .init = cpk_py_start, .fini = cpk_py_stop);

#define REGRESSIONS CPK_SOURCE_DIR "/tests/fuzz/regressions/"

Test(fuzz_regressions, code_counts_overflow_pickle)
{
    /* Found by fuzz_loads: SIGBUS when the pickle called the function;
     * the second file is the same input minimised. */
    cpk_py("CPK_SOURCE_DIR = '" CPK_SOURCE_DIR "'\n"
           "REGRESSIONS = '" REGRESSIONS "'\n");
    cpk_py_file("code_counts_overflow_pickle.py");
}

Test(fuzz_regressions, code_with_overflowing_counts_is_refused_everywhere)
{
    cpk_py_file("_bad_counts.py",
                "code_with_overflowing_counts_is_refused_everywhere.py");
}

/* The same counts on a code object nested in another's constants (the
 * code of an inner function, called once the outer one makes it) are
 * refused too, by every reconstructor taking code. */
Test(fuzz_regressions, nested_code_with_overflowing_counts_is_refused)
{
    cpk_py_file("_bad_counts.py",
                "nested_code_with_overflowing_counts_is_refused.py");
}

Test(fuzz_regressions, consistent_counts_still_load)
{
    /* Every kind of parameter, and the largest counts a real signature
     * has here: the check counts star-args, star-star-kwargs and
     * keyword-only parameters. */
    cpk_py_file("consistent_counts_still_load.py");
}

Test(fuzz_regressions, code_ending_inside_inline_caches)
{
    /* Found by fuzz_loads (with FUZZ_LOADS_DUMPS=1 and CPython's debug
     * allocator): 3.11's co_code, used by our globals scan and by marshal,
     * wrote past its copy of bytecode that stops inside the inline caches
     * of its last instruction: heap corruption, then crashes far away. */
    cpk_py("REGRESSIONS = '" REGRESSIONS "'\n");
    cpk_py_file("code_ending_inside_inline_caches.py");
}

/* Python `code` in a child under CPython's debug allocator, which reports
 * any write past a block ("OUCH"): it must exit 0 with no such report. */
static void
run_under_debug_allocator(const char *code)
{
    const char *argv[] = {CPK_PYTHON, "-c", code, NULL};
    const char *env[] = {"PYTHONMALLOC=debug",
                         "PYTHONPATH=" CPK_BUILD_DIR, NULL};
    cpk_spawn_opts o = {0};
    o.argv = argv;
    o.env = env;
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.err, "OUCH") == NULL, "%s", p.err);
    cpk_proc_free(&p);
}

Test(fuzz_regressions, co_code_overflow_replayed_under_debug_allocator)
{
    /* The second input of that kind (a cloudpickle-format function whose
     * code types.CodeType made), replayed where CPython's debug hooks
     * report any write past a block: loading refuses it, nothing is
     * written out of bounds, and pickling what loads is safe. */
    const char *code =
        "import ccloudpickle, pickle, sys\n"
        "with open('" REGRESSIONS "co-code-overflow-on-dump.pkl', 'rb') as f:\n"
        "    data = f.read()\n"
        "try:\n"
        "    obj = ccloudpickle.loads(data)\n"
        "except Exception as e:\n"
        "    # Elsewhere any clean exception will do (3.9 has no\n"
        "    # dataclass Field.kw_only for this fuzzed state).\n"
        "    if sys.version_info[:2] == (3, 11):\n"
        "        assert isinstance(e, pickle.UnpicklingError), e\n"
        "        assert 'inline caches' in str(e), e\n"
        "else:\n"
        "    # Other versions read this format's 3.11 bytecode as they\n"
        "    # would any: only 3.11 has the defect checked for here.\n"
        "    assert sys.version_info[:2] != (3, 11), 'loaded'\n";
    run_under_debug_allocator(code);
}

Test(fuzz_regressions, culprit_search_refuses_corrupt_code)
{
    /* The culprit search (diagnose) walks a function's globals, and so
     * its bytecode: it read co_code of code ending inside the inline
     * caches before the pickler's own check, and wrote past the copy
     * (found by make sanitize's debug allocator). Replayed in a child
     * under PYTHONMALLOC=debug, which reports any such write, with the
     * search on and off: a clean PicklingError either way. */
    const char *code =
        "import ccloudpickle, pickle, sys, types\n"
        "if sys.version_info[:2] != (3, 11):\n"
        "    sys.exit(0)\n"
        "def f(a, b):\n"
        "    return a + b\n"
        "good = f.__code__.co_code\n"
        "bad = good[:6] + good[10:12] + bytes([9, 0]) + good[6:8]\n"
        "badcode = f.__code__.replace(co_code=bad)\n"
        "def outer():\n"
        "    return lambda: 0\n"
        "nested = outer.__code__.replace(co_consts=tuple(\n"
        "    badcode if isinstance(c, types.CodeType) else c\n"
        "    for c in outer.__code__.co_consts))\n"
        "for code in (badcode, nested):\n"
        "    fn = types.FunctionType(code, {})\n"
        "    for obj in (fn, [1, {'k': fn}]):\n"
        "        for diagnose in (True, False):\n"
        "            try:\n"
        "                ccloudpickle.dumps(obj, diagnose=diagnose)\n"
        "            except pickle.PicklingError as e:\n"
        "                assert 'inline caches' in str(e), e\n"
        "            else:\n"
        "                raise AssertionError('pickled %r' % (obj,))\n"
        "print('refused all')\n";
    run_under_debug_allocator(code);
}
