/* test_policy_bypass.c - ways around loads/load(allow=, deny=) that the
 * hostile review of issue 8 found, each refused now: reflective imports
 * and nested unpicklers under a deny list (importlib, a computed getattr,
 * operator.attrgetter, pickle.loads, `import os as _os` aliases), a
 * fix_imports whose truth changes between the scan and the load, a
 * load(file) that ran before finding it could not seek back, terminal
 * escapes from the pickle in the refusal message, and the exception class
 * of the module's own refusals (PolicyError, SignatureError). The rules
 * themselves are tests/unit/test_policy.c; the API, tests/module/test_load_policy.c. */
#include "support.h"

TestSuite(policy_bypass, .init = cpk_py_start, .fini = cpk_py_stop);

/* Deny lists name modules; these reach os.system without naming it. */
Test(policy_bypass, reflection_and_nested_unpicklers_refused_by_deny_lists)
{
    cpk_py_file("_setup.py",
                "reflection_and_nested_unpicklers_refused_by_deny_lists.py");
}

/* fix_imports is read once: the scan and the load map names alike. */
Test(policy_bypass, fix_imports_evaluated_once)
{
    cpk_py_file("_setup.py", "fix_imports_evaluated_once.py");
}

/* load(file, allow=) with data after the pickle: a file that cannot be
 * put back after the pickle is refused before the pickle runs. */
Test(policy_bypass, load_file_seek_decided_before_loading)
{
    cpk_py_file("_setup.py", "load_file_seek_decided_before_loading.py");
}

/* The refusal lists the pickle's names; those that would act on a
 * terminal are shown as ascii(). */
Test(policy_bypass, refusal_message_escapes_control_and_bidi)
{
    cpk_py_file("_setup.py", "refusal_message_escapes_control_and_bidi.py");
}

/* The module's refusals have their own classes, both UnpicklingErrors;
 * nothing else raises them. */
Test(policy_bypass, policy_and_signature_errors_have_their_own_classes)
{
    cpk_py_file("_setup.py",
                "policy_and_signature_errors_have_their_own_classes.py");
}

/* The reconstructors that import or look up what their argument names,
 * given a name the pickle computes at load time (str("os"), a join):
 * the scan cannot list that import, so it calls the reconstructor
 * dangerous and every policy refuses the pickle, allow=[] as deny=.
 * _builtin_type(str("CodeType")) and (str("FunctionType")) made and ran
 * a function under allow=[] and `cloudpickle-load --strict` before. The
 * same calls with a plain str still load. */
Test(policy_bypass, names_computed_for_name_taking_reconstructors)
{
    cpk_py_file("_setup.py",
                "names_computed_for_name_taking_reconstructors.py");
}
