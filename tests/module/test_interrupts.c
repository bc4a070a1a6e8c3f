/* test_interrupts.c - errors raised by user code while pickling or
 * loading reach the caller unchanged: KeyboardInterrupt and SystemExit
 * are never swallowed by the lookups that ignore ordinary errors (as
 * cloudpickle's `except Exception` does), errors of __bool__ propagate,
 * and the cyclic GC is left as the user last set it, whatever happened
 * during the load. */
#include "support.h"

TestSuite(interrupts, .init = cpk_py_start, .fini = cpk_py_stop);

/* Run `body` (which must raise) and check the exception is `exc` with the
 * message 'from user code'. */
#define EXPECT(exc, body)                                                    \
    "try:\n" body "    raise AssertionError('nothing raised')\n"             \
    "except " exc " as e:\n"                                                 \
    "    assert e.args == ('from user code',), e.args\n"

Test(interrupts, module_getattr_interrupt_in_whichmodule)
{
    /* A function whose __module__ is None makes the pickler search every
     * module; one of them has a __getattr__ interrupted by Ctrl-C. */
    cpk_py("import ccloudpickle as cp, sys, types\n"
           "m = types.ModuleType('cpk_kbi_mod')\n"
           "def __getattr__(name):\n"
           "    raise KeyboardInterrupt('from user code')\n"
           "m.__getattr__ = __getattr__\n"
           "sys.modules['cpk_kbi_mod'] = m\n"
           "def f():\n"
           "    return 1\n"
           "f.__module__ = None\n"
           EXPECT("KeyboardInterrupt", "    cp.dumps(f)\n")
           /* Ordinary errors there are ignored, as cloudpickle ignores
            * them: the function pickles by value. */
           "def __getattr__(name):\n"
           "    raise ValueError('ignored')\n"
           "m.__getattr__ = __getattr__\n"
           "assert cp.loads(cp.dumps(f))() == 1\n"
           "def __getattr__(name):\n"
           "    raise SystemExit('from user code')\n"
           "m.__getattr__ = __getattr__\n"
           EXPECT("SystemExit", "    cp.dumps(f)\n"));
}

Test(interrupts, module_attribute_interrupt_in_lookup)
{
    /* The function names a module where the lookup of its qualname is
     * interrupted. */
    cpk_py("import ccloudpickle as cp, sys, types\n"
           "m = types.ModuleType('cpk_kbi_mod2')\n"
           "def __getattr__(name):\n"
           "    raise KeyboardInterrupt('from user code')\n"
           "m.__getattr__ = __getattr__\n"
           "sys.modules['cpk_kbi_mod2'] = m\n"
           "def g():\n"
           "    return 2\n"
           "g.__module__ = 'cpk_kbi_mod2'\n"
           EXPECT("KeyboardInterrupt", "    cp.dumps(g)\n")
           "class C:\n"
           "    pass\n"
           "C.__module__ = 'cpk_kbi_mod2'\n"
           EXPECT("KeyboardInterrupt", "    cp.dumps(C)\n"));
}

Test(interrupts, dunder_module_interrupt)
{
    cpk_py("import ccloudpickle as cp\n"
           "class Meta(type):\n"
           "    @property\n"
           "    def __module__(cls):\n"
           "        raise KeyboardInterrupt('from user code')\n"
           "class C(metaclass=Meta):\n"
           "    pass\n"
           EXPECT("KeyboardInterrupt", "    cp.dumps(C)\n"));
}

Test(interrupts, package_truth_errors_propagate)
{
    /* `x.__package__` is tested for truth (cloudpickle:
     * `hasattr(x, '__package__') and x.__package__`): its errors are the
     * caller's, not a SystemError. */
    cpk_py("import ccloudpickle as cp, sys, types\n"
           "class Bad:\n"
           "    def __bool__(self):\n"
           "        raise ValueError('from user code')\n"
           "m = types.ModuleType('cpk_badpkg')\n"
           "m.__package__ = Bad()\n"
           "sys.modules['cpk_badpkg'] = m\n"
           "def f():\n"
           "    return m\n"
           EXPECT("ValueError", "    cp.dumps(f)\n")
           EXPECT("ValueError", "    cp.dumps(f, compat='cloudpickle')\n")
           "class Interrupting:\n"
           "    def __bool__(self):\n"
           "        raise KeyboardInterrupt('from user code')\n"
           "m.__package__ = Interrupting()\n"
           EXPECT("KeyboardInterrupt", "    cp.dumps(f)\n")
           /* A plain falsy or truthy __package__ still pickles. */
           "m.__package__ = ''\n"
           "assert cp.loads(cp.dumps(f))() is m\n");
}

Test(interrupts, module_name_lookup_interrupt)
{
    /* A module whose __dict__ lookup of '__name__' meets a colliding key
     * whose __eq__ is interrupted at its n-th call, for each n: wherever
     * the pickler looks the name up, the interrupt reaches the caller
     * (cpk_module_name: 3.9's PyModule_GetNameObject turned it into
     * SystemError). */
    cpk_py_file("module_name_lookup_interrupt.py");
}

Test(interrupts, reduce_interrupt_propagates_unchanged)
{
    cpk_py("import ccloudpickle as cp, io, gc\n"
           "class Stop:\n"
           "    def __reduce__(self):\n"
           "        raise KeyboardInterrupt('from user code')\n"
           "y = 1\n"
           EXPECT("KeyboardInterrupt", "    cp.dumps([lambda: y, Stop()])\n")
           EXPECT("KeyboardInterrupt", "    cp.Pickler(io.BytesIO()).dump({'k': Stop()})\n")
           EXPECT("KeyboardInterrupt", "    cp.dumps(Stop(), compat='cloudpickle')\n")
           /* _find_unpicklable does not swallow it either. */
           EXPECT("KeyboardInterrupt", "    cp._find_unpicklable([Stop()])\n")
           "class Exit:\n"
           "    def __reduce__(self):\n"
           "        raise SystemExit('from user code')\n"
           EXPECT("SystemExit", "    cp._find_unpicklable([Exit()])\n")
           "assert gc.isenabled()\n");
}

Test(interrupts, gc_disable_during_load_stands)
{
    cpk_py_file("_gc_classes.py", "gc_disable_during_load_stands.py");
}

Test(interrupts, gc_enable_during_load_stands)
{
    cpk_py_file("_gc_classes.py", "gc_enable_during_load_stands.py");
}

Test(interrupts, gc_state_and_threshold_restored)
{
    cpk_py_file("_gc_classes.py", "gc_state_and_threshold_restored.py");
}

Test(interrupts, setstate_interrupt_propagates_and_keeps_gc_state)
{
    cpk_py_file("_gc_classes.py",
                "setstate_interrupt_propagates_and_keeps_gc_state.py");
}

/* Two loads start together while the first one's pause is being set up
 * (an import hook in Python lets the other thread in): the second joins
 * the pause, and the user's threshold comes back after both. */
Test(interrupts, concurrent_first_pauses_restore_the_threshold)
{
    cpk_py_file("concurrent_first_pauses_restore_the_threshold.py");
}

/* MemoryError is never taken for "not found": from the class tracker of a
 * cloudpickle module, and from a lazily resolved module's attributes. */
Test(interrupts, memory_error_propagates_from_tracker_and_lazy_lookups)
{
    cpk_py_file("memory_error_propagates_from_tracker_and_lazy_lookups.py");
}

/* A gc.get_threshold that fails when a paused load ends: its error is
 * reported, and the threshold saved before the load comes back all the
 * same (automatic collection does not stay off). */
Test(interrupts, unreadable_threshold_after_a_load_is_restored)
{
    cpk_py_file("unreadable_threshold_after_a_load_is_restored.py");
}
