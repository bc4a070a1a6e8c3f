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
    cpk_py("import ccloudpickle as cp, types\n"
           "class Collide:\n"
           "    calls = fire_at = 0\n"
           "    fired = False\n"
           "    def __hash__(self):\n"
           "        return hash('__name__')\n"
           "    def __eq__(self, other):\n"
           "        Collide.calls += 1\n"
           "        if Collide.calls == Collide.fire_at:\n"
           "            Collide.fired = True\n"
           "            raise KeyboardInterrupt('from user code')\n"
           "        return False\n"
           "m = types.ModuleType('cpk_collide')\n"
           "del m.__dict__['__name__']\n"
           "m.__dict__[Collide()] = 1\n"
           "m.__dict__['__name__'] = 'cpk_collide'\n"
           "for n in range(1, 10):\n"
           "    Collide.calls, Collide.fire_at, Collide.fired = 0, n, False\n"
           "    try:\n"
           "        cp.dumps(m)\n"
           "        assert not Collide.fired, 'interrupt %d swallowed' % n\n"
           "    except KeyboardInterrupt as e:\n"
           "        assert Collide.fired and e.args == ('from user code',)\n"
           "Collide.fire_at = 0\n");
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

/* Classes defined in __main__ travel by value (the Unpickler path of
 * loads); the same classes in a module of sys.modules travel by reference
 * (the plain data path). Loads of 64 KiB and more pause the collector,
 * smaller ones do not (unpickler.c): `pads` gives both sizes. All must
 * leave the collector as the user last set it. */
#define GC_CLASSES                                                           \
    "import ccloudpickle as cp, gc, io, sys, types\n"                        \
    "src = '''\n"                                                            \
    "import gc\n"                                                            \
    "class Disables:\n"                                                      \
    "    def __setstate__(self, state):\n"                                   \
    "        gc.disable()\n"                                                 \
    "class Enables:\n"                                                       \
    "    def __setstate__(self, state):\n"                                   \
    "        gc.enable()\n"                                                  \
    "class Threshold:\n"                                                     \
    "    def __setstate__(self, state):\n"                                   \
    "        gc.set_threshold(123)\n"                                        \
    "class Interrupts:\n"                                                    \
    "    def __setstate__(self, state):\n"                                   \
    "        raise KeyboardInterrupt('from user code')\n"                    \
    "'''\n"                                                                  \
    "exec(src)\n"                                                            \
    "mod = types.ModuleType('cpk_gc_mod')\n"                                 \
    "exec(src, mod.__dict__)\n"                                              \
    "sys.modules['cpk_gc_mod'] = mod\n"                                      \
    "kinds = [globals(), mod.__dict__]\n"                                    \
    "pads = [b'', bytes(70000)]\n"                                           \
    "def pickle(ns, name, pad):\n"                                           \
    "    o = ns[name]()\n"                                                   \
    "    o.x = 1\n"                                                          \
    "    return cp.dumps([pad, o])\n"                                        \
    "def loaders(data):\n"                                                   \
    "    yield lambda: cp.loads(data)\n"                                     \
    "    yield lambda: cp.load(io.BytesIO(data))\n"                          \
    "    yield lambda: cp.Unpickler(io.BytesIO(data)).load()\n"              \
    "cases = [(k, p, l) for k in range(2) for p in range(2)\n"               \
    "         for l in range(3)]\n"                                          \
    "def run(k, name, p, l):\n"                                              \
    "    return list(loaders(pickle(kinds[k], name, pads[p])))[l]()\n"       \
    "assert b'cloudpickle' in pickle(globals(), 'Disables', b'')\n"          \
    "assert b'cloudpickle' not in pickle(mod.__dict__, 'Disables', b'')\n"

Test(interrupts, gc_disable_during_load_stands)
{
    cpk_py(GC_CLASSES
           "for case in cases:\n"
           "    gc.enable()\n"
           "    run(case[0], 'Disables', *case[1:])\n"
           "    assert not gc.isenabled(), ('gc.disable() undone', case)\n"
           "gc.enable()\n");
}

Test(interrupts, gc_enable_during_load_stands)
{
    cpk_py(GC_CLASSES
           "for case in cases:\n"
           "    gc.disable()\n"
           "    run(case[0], 'Enables', *case[1:])\n"
           "    assert gc.isenabled(), ('gc.enable() undone', case)\n"
           "gc.enable()\n");
}

Test(interrupts, gc_state_and_threshold_restored)
{
    cpk_py(GC_CLASSES
           "before = gc.get_threshold()\n"
           "for size in (10, 20000):\n"
           "    data = cp.dumps([{} for _ in range(size)])\n"
           "    for enabled in (True, False):\n"
           "        (gc.enable if enabled else gc.disable)()\n"
           "        for load in loaders(data):\n"
           "            load()\n"
           "            assert gc.isenabled() == enabled\n"
           "            assert gc.get_threshold() == before\n"
           "        for load in loaders(data[:-3]):\n"
           "            try:\n"
           "                load()\n"
           "            except Exception:\n"
           "                pass\n"
           "            assert gc.isenabled() == enabled\n"
           "            assert gc.get_threshold() == before\n"
           "gc.enable()\n"
           /* A threshold the user sets during a load stands too. */
           "for case in cases:\n"
           "    gc.set_threshold(*before)\n"
           "    run(case[0], 'Threshold', *case[1:])\n"
           "    assert gc.get_threshold()[0] == 123, (gc.get_threshold(), case)\n"
           "gc.set_threshold(*before)\n"
           /* Loads inside loads (a __setstate__ that loads). */
           "class Nested:\n"
           "    def __setstate__(self, state):\n"
           "        assert cp.loads(cp.dumps([1, bytes(70000)]))[0] == 1\n"
           "nested = Nested()\n"
           "nested.x = 1\n"
           "cp.loads(cp.dumps([nested, bytes(70000)]))\n"
           "assert gc.get_threshold() == before and gc.isenabled()\n"
           /* Automatic collection is really paused during a large load or
            * one of unknown size, and a small one is left alone. */
           "seen = []\n"
           "class Probe:\n"
           "    def __setstate__(self, state):\n"
           "        seen.append(gc.get_threshold()[0])\n"
           "probe = Probe()\n"
           "probe.x = 1\n"
           "cp.loads(cp.dumps([probe, bytes(70000)]))\n"
           "cp.load(io.BytesIO(cp.dumps(probe)))\n"
           "cp.loads(cp.dumps(probe))\n"
           "assert seen == [0, 0, before[0]], seen\n");
}

Test(interrupts, setstate_interrupt_propagates_and_keeps_gc_state)
{
    cpk_py(GC_CLASSES
           "before = gc.get_threshold()\n"
           "for case in cases:\n"
           "    for enabled in (True, False):\n"
           "        (gc.enable if enabled else gc.disable)()\n"
           "        try:\n"
           "            run(case[0], 'Interrupts', *case[1:])\n"
           "            raise AssertionError('nothing raised')\n"
           "        except KeyboardInterrupt as e:\n"
           "            assert e.args == ('from user code',)\n"
           "        assert gc.isenabled() == enabled\n"
           "        assert gc.get_threshold() == before\n"
           "gc.enable()\n");
}

/* Two loads start together while the first one's pause is being set up
 * (an import hook in Python lets the other thread in): the second joins
 * the pause, and the user's threshold comes back after both. */
Test(interrupts, concurrent_first_pauses_restore_the_threshold)
{
    cpk_py("import ccloudpickle as c, gc, threading, time, builtins\n"
           "class Slow:\n"
           "    def __setstate__(self, s):\n"
           "        time.sleep(0.3)\n"
           "big = c.dumps([[i] for i in range(20000)])\n"
           "bigslow = c.dumps([Slow()] + [[i] for i in range(20000)])\n"
           "sys_modules = __import__('sys').modules\n"
           "sys_modules.pop('gc', None)\n"
           "real_import = builtins.__import__\n"
           "def slow_import(name, *a, **k):\n"
           "    if name == 'gc' and threading.current_thread().name == 'A':\n"
           "        time.sleep(0.2)\n"
           "    return real_import(name, *a, **k)\n"
           "before = gc.get_threshold()\n"
           "builtins.__import__ = slow_import\n"
           "try:\n"
           "    ta = threading.Thread(target=lambda: c.loads(big), name='A')\n"
           "    tb = threading.Thread(target=lambda: (time.sleep(0.05),\n"
           "                                          c.loads(bigslow)), name='B')\n"
           "    ta.start(); tb.start(); ta.join(); tb.join()\n"
           "finally:\n"
           "    builtins.__import__ = real_import\n"
           "assert gc.get_threshold() == before, (gc.get_threshold(), before)\n");
}

/* MemoryError is never taken for "not found": from the class tracker of a
 * cloudpickle module, and from a lazily resolved module's attributes. */
Test(interrupts, memory_error_propagates_from_tracker_and_lazy_lookups)
{
    cpk_py("import sys, types, ccloudpickle as c\n"
           "class Tracker:\n"
           "    def get(self, key):\n"
           "        raise MemoryError('tracker')\n"
           "m = types.ModuleType('cloudpickle.cloudpickle')\n"
           "m._DYNAMIC_CLASS_TRACKER_BY_CLASS = Tracker()\n"
           "m._DYNAMIC_CLASS_TRACKER_BY_ID = Tracker()\n"
           "sys.modules['cloudpickle.cloudpickle'] = m\n"
           "C = type('C', (), {})\n"
           "try:\n"
           "    c.dumps(C)\n"
           "    raise AssertionError('tracker: MemoryError swallowed')\n"
           "except MemoryError:\n"
           "    pass\n"
           "del sys.modules['cloudpickle.cloudpickle']\n"
           "class M(types.ModuleType):\n"
           "    def __getattr__(self, n):\n"
           "        raise MemoryError('lazy')\n"
           "sys.modules['_weakrefset'] = M('_weakrefset')\n"
           "sys.modules['cpk_zzz'] = types.ModuleType('cpk_zzz')\n"
           "try:\n"
           "    c.dumps(len)\n"
           "    raise AssertionError('lazy: MemoryError swallowed')\n"
           "except MemoryError:\n"
           "    pass\n");
}

/* A gc.get_threshold that fails when a paused load ends: its error is
 * reported, and the threshold saved before the load comes back all the
 * same (automatic collection does not stay off). */
Test(interrupts, unreadable_threshold_after_a_load_is_restored)
{
    cpk_py("import ccloudpickle as cp, gc\n"
           "real = gc.get_threshold\n"
           "before = real()\n"
           "class Switch:\n"
           "    mode = 'real'\n"
           "    def __call__(self):\n"
           "        if self.mode == 'raise':\n"
           "            raise RuntimeError('boom')\n"
           "        return real()\n"
           "gc.get_threshold = Switch()\n"
           "class Flip:\n"
           "    def __reduce__(self):\n"
           "        return (exec, (\"import gc; gc.get_threshold.mode = 'raise'\",))\n"
           "data = cp.dumps([Flip(), b'x' * 100000])\n"
           "try:\n"
           "    cp.loads(data)\n"
           "    raise AssertionError('no RuntimeError')\n"
           "except RuntimeError as e:\n"
           "    assert str(e) == 'boom'\n"
           "finally:\n"
           "    gc.get_threshold = real\n"
           "assert real() == before, (real(), before)\n");
}
