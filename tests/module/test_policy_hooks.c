/* test_policy_hooks.c - code carried by value that the load would run
 * through a hook rather than a call the pickle writes, and names looked
 * up through what the scan took for plain lookups; each refused by every
 * import policy (allow=[], an allow list, a deny list) before anything
 * runs, found by the second hostile review of the policy:
 * BUILD's __setstate__ and APPENDS' extend set on an instance by an
 * earlier BUILD, a class base's __mro_entries__, _class_setstate's
 * `register`, getattr on a class by value reaching an imported base's
 * methods (pathlib's write_text), a codec named by the pickle (imports
 * encodings.<name>), pydoc.locate under a deny list. And the other side:
 * what ordinary pickles hold there still loads. */
#include "support.h"

TestSuite(policy_hooks, .init = cpk_py_start, .fini = cpk_py_stop);

/* _pickle's BUILD calls inst.__setstate__, APPENDS inst.extend: instance
 * attributes, which an earlier BUILD sets. One BUILD giving an object a
 * function (a callback attribute) is no call and still loads. */
Test(policy_hooks, build_sets_what_the_next_op_calls)
{
    cpk_py_file("_setup.py", "build_sets_what_the_next_op_calls.py");
}

/* types.resolve_bases calls a base's __mro_entries__, an instance's too:
 * refused by the scan, and the reconstructor takes classes, objects
 * whose type has the method, and functions (typing.NamedTuple) only. */
Test(policy_hooks, class_bases_mro_entries)
{
    cpk_py_file("_setup.py", "class_bases_mro_entries.py");
}

/* _class_setstate registers an ABC's virtual subclasses with
 * abc.ABCMeta.register, not with a `register` its state just set; on a
 * class that is no ABC a registry is refused. */
Test(policy_hooks, abc_register_is_abcmeta_s)
{
    cpk_py_file("_setup.py", "abc_register_is_abcmeta_s.py");
}

/* getattr(<class by value>, name) looks the name up through the bases:
 * plain only when they are classes by value or harmless builtins, or the
 * name is an enum's member. Through pathlib.PosixPath it is write_text. */
Test(policy_hooks, getattr_on_a_class_by_value_reaches_its_bases)
{
    cpk_py_file("_setup.py",
                "getattr_on_a_class_by_value_reaches_its_bases.py");
}

/* A codec is looked up by name: encodings.<name> is imported. Protocol
 * 2's bytes name latin1, which is always loaded. */
Test(policy_hooks, codec_names)
{
    cpk_py_file("_setup.py", "codec_names.py");
}

/* Under a deny list: names that import or run what their argument
 * names are dangerous, so a deny rule for os is not stepped around. */
Test(policy_hooks, importers_by_name_under_a_deny_list)
{
    cpk_py_file("_setup.py", "importers_by_name_under_a_deny_list.py");
}

/* The third review: state given to what itself has hooks of its own (a
 * class or function by value, an enum member), methods a class gets
 * from the namespace it is made with or from an enum's members, and
 * Enum's private names through getattr. */
Test(policy_hooks, objects_with_hooks_of_their_own)
{
    cpk_py_file("_setup.py", "objects_with_hooks_of_their_own.py");
}

/* The fourth review: reconstructors that wrote into what an imported
 * module owns (_module_fill of subimport("collections"), _function_fill
 * of a functools function, then called through a plain name), a
 * singledispatch register a BUILD replaced, NEWOBJ_EX's keyword
 * arguments, and hashing by reconstructors (a str subclass as tracker
 * id, dict view items). Each loads nothing and runs nothing, with or
 * without a policy. */
Test(policy_hooks, reconstructors_write_only_what_the_pickle_made)
{
    cpk_py_file("_setup.py",
                "reconstructors_write_only_what_the_pickle_made.py");
}

/* The fifth review: fills of what the pickle did not make. A
 * namedtuple's __new__ (private globals), _collections_abc's functions
 * (its __name__ is "collections.abc", another module), an imported
 * class given a state, an imported singledispatch function given
 * registrations: each refused by every policy, nothing in the process
 * changed. A singledispatch wrapper given code through its fill runs it
 * when called: the scan lists that call. */
Test(policy_hooks, fills_only_what_a_load_made)
{
    cpk_py_file("_setup.py", "fills_only_what_a_load_made.py");
}
