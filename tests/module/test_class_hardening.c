/* test_class_hardening.c - classes by value at the edges: static types
 * that cannot be found by name, typing's special classes (TypedDict,
 * NamedTuple, Generic, Protocol), namespaces with keys that are not
 * strings, one tracker id per class under threads, errors of user code
 * (KeyboardInterrupt, a failing __bool__) that must propagate. */
#include "support.h"

TestSuite(class_hardening, .init = cpk_py_start, .fini = cpk_py_stop);

Test(class_hardening, static_type_not_found_by_name_is_refused)
{
    /* 3.12+: such a type's tp_dict is NULL (a crash when read); 3.11:
     * it was rebuilt as a new class that only looks like it. */
    cpk_py_file("static_type_not_found_by_name_is_refused.py");
}

Test(class_hardening, typing_classes_by_value)
{
    cpk_py_file("_typing_classes.py");
    /* In this process first (the originals come back), then fresh. */
    cpk_py_file("typing_classes_by_value.py", "_typing_check.py");
    cpk_fresh_protos("[Movie, Partial, Sub, Point, Box, Closable, Plain, "
                     "Checked, Row]",
                     cpk_py_text("_typing_check.py"));
}

Test(class_hardening, typing_classes_one_at_a_time)
{
    /* Each alone: nothing else in the pickle makes its bases first. */
    cpk_py_file("_typing_classes.py");
    cpk_fresh("__import__('ccloudpickle').dumps(Movie)",
              "assert obj(title='t', year=3) == {'title': 't', 'year': 3}\n"
              "assert obj.__required_keys__ == {'title', 'year'}\n");
    cpk_fresh("__import__('ccloudpickle').dumps(Partial)",
              "assert obj.__total__ is False and obj() == {}\n");
    cpk_fresh("__import__('ccloudpickle').dumps(Point)",
              "assert obj(2, 3).norm1() == 5\n");
    cpk_fresh("__import__('ccloudpickle').dumps(Closable)",
              "import io\n"
              "assert isinstance(io.StringIO(), obj)\n");
}

Test(class_hardening, namespace_keys_that_are_not_strings)
{
    cpk_py_file("namespace_keys_that_are_not_strings.py");
    cpk_fresh_protos("C",
                     "assert obj.__dict__[1] == 'one'\n"
                     "assert obj.__dict__[(2, 'x')] == 'two'\n"
                     "assert obj.a == 1 and obj().f() == 2\n"
                     "assert [k for k in obj.__dict__ if not isinstance(k, "
                     "str)] == [1, (2, 'x')]\n");
}

Test(class_hardening, failing_bool_of_a_file_propagates)
{
    /* The file reducer tests `closed` and `isatty()` for truth: an error
     * there is the error raised, not a SystemError. */
    cpk_py_file("failing_bool_of_a_file_propagates.py");
}

/* A stand-in for stock cloudpickle whose class tracker raises `exc`. */
#define FAKE_CLOUDPICKLE(exc)                                                \
    "import sys, types\n"                                                    \
    "class Tracker:\n"                                                       \
    "    def get(self, key, default=None):\n"                                \
    "        raise " exc "\n"                                                \
    "fake = types.ModuleType('cloudpickle.cloudpickle')\n"                   \
    "fake._DYNAMIC_CLASS_TRACKER_BY_CLASS = Tracker()\n"                     \
    "fake._DYNAMIC_CLASS_TRACKER_BY_ID = Tracker()\n"                        \
    "sys.modules['cloudpickle.cloudpickle'] = fake\n"

Test(class_hardening, tracker_lets_keyboard_interrupt_through)
{
    cpk_py(FAKE_CLOUDPICKLE("KeyboardInterrupt") "import ccloudpickle\n"
           "class K:\n"
           "    pass\n"
           "try:\n"
           "    ccloudpickle.dumps(K)\n"
           "except KeyboardInterrupt:\n"
           "    pass\n"
           "else:\n"
           "    raise AssertionError('KeyboardInterrupt swallowed')\n");
}

Test(class_hardening, tracker_ignores_errors_of_cloudpickle)
{
    /* What cloudpickle's `except Exception` would ignore is ignored. */
    cpk_py(FAKE_CLOUDPICKLE("ValueError('no')") "import ccloudpickle\n"
           "class K:\n"
           "    pass\n"
           "assert ccloudpickle.loads(ccloudpickle.dumps(K)) is K\n");
}

/* Threads pickling one fresh class at the same moment: one tracker id,
 * so one class when all their pickles are loaded in another process. */
Test(class_hardening, one_tracker_id_per_class_under_threads, .timeout = 900)
{
    cpk_py_file("one_tracker_id_per_class_under_threads.py");
    cpk_fresh("data",
              "import pickle, ccloudpickle\n"
              "runs = pickle.loads(obj) if isinstance(obj, bytes) else obj\n"
              "for i, out in enumerate(runs):\n"
              "    classes = [ccloudpickle.loads(b) for b in out]\n"
              "    assert all(c is classes[0] for c in classes), i\n"
              "    assert ccloudpickle.loads(out[0]).v == i\n");
}

/* A fresh /usr/bin/python3-like interpreter with Python's debug allocator,
 * which poisons freed memory: a use of a freed object crashes there. */
static void
debug_malloc_run(const char *code)
{
    const char *argv[] = {CPK_PYTHON, "-c", code, NULL};
    const char *env[] = {"PYTHONPATH=" CPK_BUILD_DIR ":" CPK_FIXTURES,
                         "PYTHONMALLOC=debug", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", NULL, 0, env);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* A non-str key in a base class whose hash collides with a name's: its
 * __eq__ runs during the lookup of that name and replaces the value being
 * pickled. The value is held: the pickle has the value the class had. */
Test(class_hardening, class_value_replaced_during_a_lookup)
{
    debug_malloc_run(
        "import ccloudpickle as cp\n"
        "class Payload:\n"
        "    def __reduce__(self):\n"
        "        return (str, ('payload',))\n"
        "class Evil:\n"
        "    armed = False\n"
        "    def __hash__(self):\n"
        "        return hash('foo')\n"
        "    def __eq__(self, other):\n"
        "        if Evil.armed:\n"
        "            Evil.armed = False\n"
        "            C.foo = None\n"
        "        return False\n"
        "Base = type('Base', (), {Evil(): 1})\n"
        "C = type('C', (Base,), {'foo': Payload()})\n"
        "Evil.armed = True\n"
        "D = cp.loads(cp.dumps(C))\n"
        "assert D.__dict__.get('foo') in ('payload', None), D.__dict__\n");
}

/* An enum member's attribute whose key is a str subclass with a __hash__
 * that empties the member's __dict__: not shipped (only exact str names
 * are attributes an __init__ sets), and nothing freed is used (3.9/3.10
 * hash a key before taking references to it). */
Test(class_hardening, enum_member_attribute_key_clearing_the_dict)
{
    debug_malloc_run(
        "import ccloudpickle as cp, enum\n"
        "armed = [False]\n"
        "class K(str):\n"
        "    def __hash__(self):\n"
        "        if armed[0]:\n"
        "            armed[0] = False\n"
        "            E.A.__dict__.clear()\n"
        "        return str.__hash__(self)\n"
        "    __eq__ = str.__eq__\n"
        "class E(enum.Enum):\n"
        "    A = 1\n"
        "E.A.__dict__[K('zz_extra')] = object()\n"
        "armed[0] = True\n"
        "F = cp.loads(cp.dumps(E))\n"
        "assert F.A.value == 1\n");
}

/* A heap type of a C module whose module is not imported (itemgetter is
 * operator.itemgetter, made by _operator): pickled by name, so the load
 * imports operator, never rebuilt by value (a copy without its C layout
 * failed to load). 3.10+ marks such types immutable. */
Test(class_hardening, c_heap_type_of_an_unimported_module_goes_by_name)
{
    cpk_py_file("c_heap_type_of_an_unimported_module_goes_by_name.py");
    cpk_fresh("__import__('ccloudpickle').dumps("
              "__import__('_operator').itemgetter(1))",
              "assert obj([5, 6]) == 6, obj\n");
}
