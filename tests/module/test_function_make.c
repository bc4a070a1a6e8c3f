/* test_function_make.c - a function whose state cannot lead back to it is
 * written as one call, _function_make(code, globals, ncells, state); any
 * other keeps _function_new then _function_fill, which memoizes the
 * function before its state (recursion through globals, closures,
 * defaults, attributes, modules by value). Both load, with ours and with
 * plain pickle, and behave the same. */
#include "support.h"

TestSuite(function_make, .init = cpk_py_start, .fini = cpk_py_stop);

Test(function_make, task_closure_is_one_call)
{
    /* numbers, strings, a module found by name, builtin types and
     * functions, containers of them: the engines' task closure */
    cpk_py_file("_prelude.py", "task_closure_is_one_call.py");
}

Test(function_make, recursion_keeps_the_split_form)
{
    cpk_py_file("_prelude.py", "recursion_keeps_the_split_form.py");
}

Test(function_make, what_may_lead_back_keeps_the_split_form)
{
    cpk_py_file("_prelude.py", "what_may_lead_back_keeps_the_split_form.py");
}

Test(function_make, budget_bounds_the_walk)
{
    /* more than 64 objects to visit: the split form, which is always
     * right; at most: one call */
    cpk_py_file("_prelude.py", "budget_bounds_the_walk.py");
}

Test(function_make, pickles_are_deterministic_and_scanned)
{
    /* the same dump twice: the same bytes; the loader's policy sees the
     * import its state makes */
    cpk_py_file("_prelude.py", "pickles_are_deterministic_and_scanned.py");
}

Test(function_make, closures_of_one_def_share_their_globals)
{
    /* the globals subset of 200 closures is written once; each still
     * loads with its own cells; different values are never shared */
    cpk_py_file("_prelude.py", "closures_of_one_def_share_their_globals.py");
}

/* Closures of one def met again reuse the subset they read without
 * making it again, only while every global they read is still the very
 * object it was: a __reduce__ between them that rebinds one gives the
 * next closures a subset of their own, one that registers a module among
 * them by value gives them the split form. */
Test(function_make, same_def_reread_when_globals_change_mid_dump)
{
    cpk_py_file("_prelude.py",
                "same_def_reread_when_globals_change_mid_dump.py");
}

/* Code run by a lookup in __globals__ (a colliding key's __eq__) while the
 * last subset is compared may clear the memo, and with it the last
 * subset: the comparison keeps what it compared (review i11g: this
 * crashed). The memo is cleared at the first lookup after the first
 * closure is written: the second closure's comparison. Protocol 2 numbers
 * memo entries in the pickle (BINPUT), so a memo cleared mid-dump still
 * gives a pickle that loads; from protocol 4 MEMOIZE numbers them by
 * count, and a clear before a BINGET desyncs CPython's own pickler. */
Test(function_make, same_def_survives_clear_memo_during_lookup)
{
    cpk_py_file("_prelude.py",
                "same_def_survives_clear_memo_during_lookup.py");
}

Test(function_make, globals_still_being_written_are_never_shared)
{
    /* a's globals reach, through the class X they hold, a method with the
     * same globals in another module: sharing a's dict, still empty while
     * X is written, would leave X out of the method's module */
    cpk_py_file("_prelude.py",
                "globals_still_being_written_are_never_shared.py");
    /* where X's class is new (this process would give back m2.X) */
    cpk_fresh("ccloudpickle.dumps(m1.a)", "X = obj()\n"
                                          "assert X().meth() is X\n");
}

Test(function_make, user_hooks_keep_the_split_form)
{
    /* what ccloudpickle would write by name, the user's reducer writes
     * with functions inside: no one-call form, no shared globals */
    cpk_py_file("_prelude.py", "user_hooks_keep_the_split_form.py");
}

Test(function_make, shared_globals_checked_again_after_clear_memo)
{
    /* the subset kept from a first dump holds a module that a second dump
     * must write by value (registered meanwhile), whose hook function has
     * the same globals: no sharing of a dict still being written */
    cpk_py_file("_prelude.py",
                "shared_globals_checked_again_after_clear_memo.py");
}

/* The code goes inline, as _code_unmarshal's (python_version, magic,
 * data), where the loader's code cache keeps what it reads: closures of
 * one def still load with one code object. Larger code is written as a
 * code object, memoized once, for the same reason. */
Test(function_make, code_inline_while_the_loader_keeps_it)
{
    cpk_py_file("_prelude.py", "code_inline_while_the_loader_keeps_it.py");
}
