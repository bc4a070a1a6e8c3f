/* test_functions.c - functions by value: where they are pickled by value,
 * and everything that travels with them (code, closure, globals, defaults,
 * attributes, submodules), at protocols 2 and 5. */
#include "support.h"

TestSuite(functions, .init = cpk_py_start, .fini = cpk_py_stop);

#define PROTOS "for proto in (2, 5):\n"

Test(functions, lambda_round_trip)
{
    cpk_py("import ccloudpickle as cp\n"
           PROTOS
           "    f = cp.loads(cp.dumps(lambda x, y=2: x * y, protocol=proto))\n"
           "    assert f(3) == 6 and f(3, y=4) == 12\n"
           "    assert f.__name__ == '<lambda>'\n");
}

Test(functions, closure_values)
{
    cpk_py("import ccloudpickle as cp\n"
           "def outer(a, b):\n"
           "    def inner(x):\n"
           "        return (a, b, x)\n"
           "    return inner\n"
           PROTOS
           "    f = cp.loads(cp.dumps(outer([1], 'b'), protocol=proto))\n"
           "    assert f(3) == ([1], 'b', 3)\n"
           "    assert [c.cell_contents for c in f.__closure__] == [[1], 'b']\n"
           "    assert f.__code__.co_freevars == ('a', 'b')\n");
}

Test(functions, self_recursive_closure)
{
    cpk_py("import ccloudpickle as cp\n"
           "def make():\n"
           "    def fact(n):\n"
           "        return 1 if n <= 1 else n * fact(n - 1)\n"
           "    return fact\n"
           PROTOS
           "    f = cp.loads(cp.dumps(make(), protocol=proto))\n"
           "    assert f(6) == 720\n"
           "    assert f.__closure__[0].cell_contents is f\n");
}

Test(functions, recursive_through_globals)
{
    cpk_py("import ccloudpickle as cp\n"
           "def fib(n):\n"
           "    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
           PROTOS
           "    f = cp.loads(cp.dumps(fib, protocol=proto))\n"
           "    assert f(10) == 55 and f.__globals__['fib'] is f\n");
}

Test(functions, empty_cell_stays_empty)
{
    cpk_py("import ccloudpickle as cp\n"
           "def make():\n"
           "    if False:\n"
           "        late = 1\n"
           "    def f():\n"
           "        return late\n"
           "    return f\n"
           PROTOS
           "    f = cp.loads(cp.dumps(make(), protocol=proto))\n"
           "    try:\n"
           "        f.__closure__[0].cell_contents\n"
           "        raise AssertionError('cell is not empty')\n"
           "    except ValueError:\n"
           "        pass\n"
           "    try:\n"
           "        f()\n"
           "        raise AssertionError('no NameError')\n"
           "    except NameError as e:\n"
           "        assert 'late' in str(e)\n");
}

Test(functions, no_closure_stays_none)
{
    cpk_py("import ccloudpickle as cp\n"
           PROTOS
           "    f = cp.loads(cp.dumps(lambda: 1, protocol=proto))\n"
           "    assert f.__closure__ is None\n");
}

Test(functions, only_used_globals_travel)
{
    cpk_py("import ccloudpickle as cp\n"
           "USED = 10\n"
           "NESTED = 5\n"
           "WRITTEN = 0\n"
           "BIG = list(range(100000))\n"
           "def f(x):\n"
           "    global WRITTEN\n"
           "    WRITTEN = x\n"
           "    g = lambda: NESTED\n"
           "    return x + USED + g()\n"
           "data = cp.dumps(f)\n"
           "assert len(data) < 2000, len(data)\n"
           "g = cp.loads(data)\n"
           "assert g(1) == 16\n"
           "assert g.__globals__['WRITTEN'] == 1 and WRITTEN == 0\n"
           "assert 'BIG' not in g.__globals__\n"
           "assert {'USED', 'NESTED', 'WRITTEN'} <= set(g.__globals__)\n"
           "assert g.__globals__ is not globals()\n");
}

Test(functions, shared_globals_stay_shared)
{
    cpk_py("import ccloudpickle as cp\n"
           "COUNTER = 0\n"
           "def bump():\n"
           "    global COUNTER\n"
           "    COUNTER += 1\n"
           "def read():\n"
           "    return COUNTER\n"
           PROTOS
           "    b, r = cp.loads(cp.dumps([bump, read], protocol=proto))\n"
           "    assert b.__globals__ is r.__globals__\n"
           "    b(); b()\n"
           "    assert r() == 2 and COUNTER == 0\n"
           /* Separate dumps: separate globals, as with cloudpickle. */
           "b2 = cp.loads(cp.dumps(bump))\n"
           "r2 = cp.loads(cp.dumps(read))\n"
           "assert b2.__globals__ is not r2.__globals__\n");
}

Test(functions, shared_globals_across_dump_calls_of_one_pickler)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "X = 1\n"
           "def a(): return X\n"
           "def b(): return X\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dump(a)\n"
           "p.dump(b)\n"
           "buf.seek(0)\n"
           "u = cp.Unpickler(buf)\n"
           "a2 = u.load(); b2 = u.load()\n"
           "assert a2.__globals__ is b2.__globals__\n"
           "assert len(p.globals_ref) == 1\n");
}

Test(functions, attributes_travel)
{
    cpk_py("import ccloudpickle as cp\n"
           "def f(a, b: int = 2, *args, c: str = 'c', **kw) -> tuple:\n"
           "    'First line.\\n\\n    More.'\n"
           "    return a, b, c\n"
           "f.custom = {'k': 1}\n"
           "f.__qualname__ = 'Renamed.f'\n"
           "f.__module__ = 'somewhere'\n"
           PROTOS
           "    g = cp.loads(cp.dumps(f, protocol=proto))\n"
           "    assert g(1) == (1, 2, 'c') and g(1, 3, c='d') == (1, 3, 'd')\n"
           "    assert g.__defaults__ == (2,)\n"
           "    assert g.__kwdefaults__ == {'c': 'c'}\n"
           "    assert g.__annotations__ == {'b': int, 'c': str, 'return': tuple}\n"
           "    assert g.__doc__ == f.__doc__\n"
           "    assert g.custom == {'k': 1}\n"
           "    assert g.__qualname__ == 'Renamed.f' and g.__name__ == 'f'\n"
           "    assert g.__module__ == 'somewhere'\n");
}

Test(functions, changed_name_and_doc)
{
    cpk_py("import ccloudpickle as cp\n"
           "def f():\n"
           "    'doc'\n"
           "    return 1\n"
           "f.__name__ = 'other'\n"
           "f.__doc__ = None\n"
           "g = cp.loads(cp.dumps(f))\n"
           "assert g.__name__ == 'other' and g.__doc__ is None\n"
           "h = cp.loads(cp.dumps(lambda: 'not a docstring'))\n"
           "assert h.__doc__ is None and h() == 'not a docstring'\n");
}

Test(functions, main_functions_go_by_value)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "def f(): return 42\n"
           "data = cp.dumps(f)\n"
           "assert b'__main__' in data\n"
           "g = cp.loads(data)\n"
           "assert g is not f and g() == 42\n");
    cpk_fresh("data", "assert obj() == 42\n");
}

/* Globals read only by nested code travel with the function: a class body
 * (LOAD_NAME falls back to the module's globals), an inner function and a
 * comprehension; where the module does not exist, they still resolve. */
Test(functions, globals_of_nested_code_travel)
{
    cpk_py("import ccloudpickle as cp\n"
           "SCALE = 7\n"
           "OFFSET = 3\n"
           "ITEMS = (1, 2)\n"
           "STEP = 5\n"
           "def make():\n"
           "    class K:\n"
           "        factor = SCALE\n"
           "    def inner():\n"
           "        return OFFSET\n"
           "    return K, inner, [i * STEP for i in ITEMS]\n"
           "data = cp.dumps(make)\n");
    cpk_fresh("data",
              "K, inner, scaled = obj()\n"
              "assert K.factor == 7, K.factor\n"
              "assert inner() == 3\n"
              "assert scaled == [5, 10], scaled\n"
              "names = sorted(k for k in obj.__globals__\n"
              "               if not k.startswith('__'))\n"
              "assert names == ['ITEMS', 'OFFSET', 'SCALE', 'STEP'], \\\n"
              "    names\n");
}

Test(functions, importable_functions_go_by_reference)
{
    cpk_py("import ccloudpickle as cp, pickle, os.path\n"
           "import cpk_fixture_funcs as m\n"
           "for f in (m.triple, os.path.join, m.Point.norm):\n"
           "    data = cp.dumps(f)\n"
           "    assert data == pickle.dumps(f, protocol=5), f\n"
           "    assert cp.loads(data) is f\n");
}

Test(functions, name_not_leading_back_goes_by_value)
{
    cpk_py("import ccloudpickle as cp\n"
           "import cpk_fixture_funcs as m\n"
           "f = m.original_replaced\n"
           "data = cp.dumps(f)\n"
           "assert cp.loads(data) is not f\n"
           "assert cp.loads(data)() == 'original'\n");
}

Test(functions, nested_function_of_importable_module_by_value)
{
    cpk_py("import ccloudpickle as cp\n"
           "import cpk_fixture_funcs as m\n"
           "data = cp.dumps(m.make_adder(5))\n");
    cpk_fresh("data", "assert obj(1) == 6\n");
}

Test(functions, module_not_importable_goes_by_value)
{
    cpk_py("import ccloudpickle as cp, sys, types\n"
           "mod = types.ModuleType('made_up_module')\n"
           "exec('K = 7\\ndef f(x):\\n    return x * K\\n', mod.__dict__)\n"
           "data = cp.dumps(mod.f)\n"
           "assert cp.loads(data)(2) == 14\n"
           /* Even when a module of that name is imported later. */
           "sys.modules['made_up_module'] = types.ModuleType('made_up_module')\n"
           "assert cp.loads(cp.dumps(mod.f))(3) == 21\n"
           "del sys.modules['made_up_module']\n");
    cpk_fresh("data", "assert obj(3) == 21\n");
}

Test(functions, submodule_attribute_works_in_fresh_interpreter)
{
    cpk_py("import ccloudpickle as cp\n"
           "import concurrent.futures, xml.dom.minidom, os.path\n"
           "def f():\n"
           "    with concurrent.futures.ThreadPoolExecutor(1) as ex:\n"
           "        n = ex.submit(len, 'abc').result()\n"
           "    doc = xml.dom.minidom.parseString('<a/>')\n"
           "    return n, doc.documentElement.tagName, os.path.join('a', 'b')\n"
           "data = cp.dumps(f)\n");
    cpk_fresh("data",
              "assert 'concurrent.futures' not in sys.modules or True\n"
              "assert obj() == (3, 'a', 'a/b'), obj()\n");
}

Test(functions, submodule_through_closure)
{
    cpk_py("import ccloudpickle as cp\n"
           "import email.mime.text\n"
           "def make():\n"
           "    em = email\n"
           "    def f():\n"
           "        return em.mime.text.MIMEText('hi').get_payload()\n"
           "    return f\n"
           "data = cp.dumps(make())\n");
    cpk_fresh("data", "assert obj() == 'hi'\n");
}

/* The submodules a function's globals and cells reach are found as
 * cloudpickle finds them: a module is a package when its __package__ is
 * true, read as getattr reads it (a module subclass's property, a
 * module's own __getattr__ when its dict has none); a cell holding no
 * module, or an empty cell, adds nothing. */
Test(functions, submodules_as_getattr_sees_package)
{
    cpk_py("import ccloudpickle as cp, io, pickle, sys, types\n"
           "import email.mime.text, xml.dom.minidom\n"
           "states = []\n"
           "class Rec(pickle.Unpickler):\n"
           "    def find_class(self, m, n):\n"
           "        if n == '_function_make':\n"
           "            return lambda *a: states.append(a[3])\n"
           "        if n == '_function_fill':\n"
           "            return lambda f, st: states.append(st)\n"
           "        return super().find_class(m, n)\n"
           "def subs(f):\n"
           "    states.clear()\n"
           "    Rec(io.BytesIO(cp.dumps(f))).load()\n"
           "    assert len(states) == 1, states\n"
           "    return sorted(m.__name__\n"
           "                  for m in states[0].get('__submodules__', []))\n"
           "def mk(mod):\n"
           "    def f():\n"
           "        return mod.mime.text, mod.dom\n"
           "    return f\n"
           "def fake(name, mod):\n"
           "    sys.modules[name] = mod\n"
           "    sys.modules[name + '.dom'] = types.ModuleType(name + '.dom')\n"
           "    return mod\n"
           "assert subs(mk(email)) == ['email.mime', 'email.mime.text'], \\\n"
           "       subs(mk(email))\n"
           /* a module subclass whose __package__ is a property */
           "import importlib\n"
           "class Lazy(types.ModuleType):\n"
           "    def __reduce__(self):\n"
           "        return importlib.import_module, (self.__name__,)\n"
           "    @property\n"
           "    def __package__(self):\n"
           "        return self.__name__\n"
           "lx = fake('lz_pkg', Lazy('lz_pkg'))\n"
           "assert subs(mk(lx)) == ['lz_pkg.dom'], subs(mk(lx))\n"
           /* a plain module without __package__ in its dict: its own
            * __getattr__ answers (PEP 562) */
           "px = fake('px_pkg', types.ModuleType('px_pkg'))\n"
           "del px.__dict__['__package__']\n"
           "assert subs(mk(px)) == [], subs(mk(px))\n"
           "px.__getattr__ = lambda n: 'px' if n == '__package__' else 1/0\n"
           "assert subs(mk(px)) == ['px_pkg.dom'], subs(mk(px))\n"
           /* a module whose __package__ is false: none */
           "email_flat = types.ModuleType('email')\n"
           "email_flat.__package__ = ''\n"
           "assert subs(mk(email_flat)) == []\n"
           /* an error reading it propagates */
           "class Bad(types.ModuleType):\n"
           "    @property\n"
           "    def __package__(self):\n"
           "        raise KeyError('no package')\n"
           "try:\n"
           "    cp.dumps(mk(fake('bad_pkg', Bad('bad_pkg'))))\n"
           "except KeyError as e:\n"
           "    assert 'no package' in str(e)\n"
           "else:\n"
           "    raise AssertionError('no error')\n"
           /* an empty cell */
           "def mk_empty():\n"
           "    def f():\n"
           "        return later.dom\n"
           "    return f\n"
           "    later = 1\n"
           "assert subs(mk_empty()) == []\n");
}

Test(functions, lambda_in_fresh_interpreter_with_globals)
{
    cpk_py("import ccloudpickle as cp, math\n"
           "BASE = 100\n"
           "def helper(x): return x * 2\n"
           "data = cp.dumps(lambda x: helper(x) + BASE + math.floor(0.5))\n");
    cpk_fresh("data", "assert obj(1) == 102\n");
}

Test(functions, plain_pickle_loads_our_pickles)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "def make(n):\n"
           "    return lambda x: x + n\n"
           "assert pickle.loads(cp.dumps(make(3)))(1) == 4\n");
}

Test(functions, builtins_available_after_load)
{
    cpk_py("import ccloudpickle as cp\n"
           "f = cp.loads(cp.dumps(lambda s: len(sorted(s))))\n"
           "assert f('cba') == 3\n"
           "assert '__builtins__' in f.__globals__\n");
}

Test(functions, generators_and_coroutines_functions)
{
    cpk_py("import ccloudpickle as cp, asyncio\n"
           "def gen(n):\n"
           "    yield from range(n)\n"
           "async def co(x):\n"
           "    return x + 1\n"
           "g = cp.loads(cp.dumps(gen))\n"
           "assert list(g(3)) == [0, 1, 2]\n"
           "c = cp.loads(cp.dumps(co))\n"
           "assert asyncio.run(c(1)) == 2\n");
}

Test(functions, relative_import_inside_by_value_function)
{
    cpk_py("import ccloudpickle as cp\n"
           "import cpk_fixture_pkg\n"
           "cp.register_pickle_by_value(cpk_fixture_pkg)\n"
           "def f():\n"
           "    return 1\n"
           "import cpk_fixture_pkg.sub as sub\n"
           "g = cp.loads(cp.dumps(sub.sub_func))\n"
           "assert g() == 'pkg.sub'\n"
           "assert g.__globals__['__package__'] == 'cpk_fixture_pkg'\n"
           "assert g.__globals__['__name__'] == 'cpk_fixture_pkg.sub'\n");
}

/* globals_ref maps every distinct __globals__ a Pickler met, the first
 * one too (which a dump keeps aside until a second comes or the map is
 * read), each to the one dict its functions get after loading. */
Test(functions, globals_ref_lists_every_globals_met)
{
    cpk_py("import ccloudpickle as cp, io, types\n"
           "m1 = types.ModuleType('m1')\n"
           "m2 = types.ModuleType('m2')\n"
           "exec('def f():\\n    return 1\\n', m1.__dict__)\n"
           "exec('def g():\\n    return 2\\n', m2.__dict__)\n"
           "m1.f.__module__ = m2.g.__module__ = '__main__'\n"
           "def names(ref):\n"
           "    return sorted((k, v['__name__']) for k, v in ref.items())\n"
           "p = cp.Pickler(io.BytesIO())\n"
           "p.dump(m1.f)\n"
           "p.dump(m2.g)\n"
           "assert names(p.globals_ref) == sorted([\n"
           "    (id(m1.__dict__), 'm1'), (id(m2.__dict__), 'm2')])\n"
           "q = cp.Pickler(io.BytesIO())\n"
           "q.dump(m1.f)\n"
           "ref = q.globals_ref\n"
           "assert names(ref) == [(id(m1.__dict__), 'm1')], ref\n"
           "base = ref[id(m1.__dict__)]\n"
           "q.dump(m2.g)\n"
           "q.dump(m1.f)\n"
           "assert len(ref) == 2 and ref[id(m1.__dict__)] is base\n"
           "buf = io.BytesIO()\n"
           "r = cp.Pickler(buf)\n"
           "r.dump(m1.f)\n"
           "r.dump(m2.g)\n"
           "r.dump(m1.f)\n"
           "buf.seek(0)\n"
           "u = cp.Unpickler(buf)\n"
           "f1, g, f2 = u.load(), u.load(), u.load()\n"
           "assert f1.__globals__ is f2.__globals__\n"
           "assert g.__globals__ is not f1.__globals__\n"
           "assert (f1(), g(), f2()) == (1, 2, 1)\n");
}
