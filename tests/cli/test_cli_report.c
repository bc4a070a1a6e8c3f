/* test_cli_report.c - cloudpickle-load's report (cli/load/report.c) of hostile
 * objects: every attribute it reads comes from the pickle, so metaclass
 * properties of the wrong type, lookups that raise, repr() that raises or
 * returns megabytes, and names full of terminal control characters must
 * give sensible rows and exit 0, never a crash. Objects are made hostile
 * only where CPK_HOSTILE=1 (the loading side), so they can be pickled. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cli_report, .init = setup);

/* The pickle `data` made by a snippet run with the built module. R(f,
 * *args) pickles as the call f(*args) with plain pickle: a pickle of
 * builtins only. */
static char *
pickle_of(const char *code, size_t *len)
{
    static const char prologue[] =
        "import os, pickle, sys, ccloudpickle as cp\n"
        "class R:\n"
        "    def __init__(self, f, *a): self.f, self.a = f, a\n"
        "    def __reduce__(self): return (self.f, self.a)\n"
        "    def __call__(self, *a): pass\n"
        "def hostile():\n"
        "    return os.environ.get('CPK_HOSTILE') == '1'\n"
        "class Unstr(Exception):\n"
        "    def __str__(self): raise Unstr()\n";
    char full[8192];
    snprintf(full, sizeof(full), "%s%s\nsys.stdout.buffer.write(data)\n",
             prologue, code);
    cpk_proc p;
    cpk_python(&p, full, NULL, 0);
    cr_assert(p.exited && p.status == 0, "making the pickle failed:\n%s",
              p.err);
    char *data = p.out;
    *len = p.out_len;
    free(p.err);
    return data;
}

/* The report of `data` where the objects are hostile. */
static void
report(cpk_proc *p, const char *data, size_t len)
{
    const char *argv[] = {CPK_LOAD, "--load", NULL};
    const char *env[] = {"CPK_HOSTILE=1", NULL};
    cpk_spawn(p, argv, dir, data, len, env);
}

static void
assert_report(const char *code, const char *expected)
{
    size_t len;
    char *data = pickle_of(code, &len);
    cpk_proc p;
    report(&p, data, len);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    char full[4096];
    snprintf(full, sizeof(full), "%spickle     %zu bytes, protocol %d\n",
             expected, len, (unsigned char)data[1]);
    cr_assert_str_eq(p.out, full);
    cpk_proc_free(&p);
    free(data);
}

/* Issue 7: PyTuple_GET_SIZE on a __bases__ that a metaclass property made
 * an int aborted the report; ccloudpickle.loads loads it fine. */
Test(cli_report, metaclass_bases_property_returning_an_int)
{
    assert_report("meta = R(type, 'M', (type,), {'__bases__': R(property, id)})\n"
                  "data = pickle.dumps(R(meta, 'C', (), {}), protocol=2)\n",
                  "object     class C\n"
                  "bases      object\n"
                  "signature  C()\n");
}

/* __module__, __doc__ and __signature__ of the wrong type or raising; a
 * __bases__ that makes dir() fail. */
Test(cli_report, metaclass_properties_of_every_wrong_kind)
{
    assert_report("meta = R(type, 'M', (type,), {\n"
                  "    '__bases__': R(property, id),\n"
                  "    '__module__': R(property, dir),\n"
                  "    '__doc__': R(property, id),\n"
                  "    '__signature__': R(property, len),\n"
                  "    '__mro__': R(property, id)})\n"
                  "data = pickle.dumps(R(meta, 'C', (), {}), protocol=2)\n",
                  "object     class C\n"
                  "bases      object\n");
    /* A __module__ that is a class, a __doc__ that is an int. */
    assert_report("meta = R(type, 'M', (type,), {\n"
                  "    '__module__': R(property, type),\n"
                  "    '__doc__': R(property, id)})\n"
                  "data = pickle.dumps(R(meta, 'C', (), {}), protocol=2)\n",
                  "object     class C\n"
                  "module     <not a str: <class 'M'>>\n"
                  "bases      object\n"
                  "signature  C()\n");
}

/* Every attribute lookup raises; repr() raises an exception whose str()
 * raises too. */
Test(cli_report, object_whose_every_lookup_raises)
{
    assert_report("class Wall:\n"
                  "    def __getattribute__(self, name):\n"
                  "        if hostile(): raise RuntimeError(name)\n"
                  "        return object.__getattribute__(self, name)\n"
                  "    def __repr__(self): raise Unstr()\n"
                  "    def __call__(self): pass\n"
                  "data = cp.dumps(Wall())\n",
                  "object     instance of __main__.Wall\n"
                  "value      <unprintable Wall>\n");
}

Test(cli_report, huge_repr_is_cut)
{
    char expected[512];
    char xs[201];
    memset(xs, 'x', 197);
    xs[197] = '\0';
    snprintf(expected, sizeof(expected),
             "object     instance of __main__.Huge\n"
             "value      %s...\n",
             xs);
    assert_report("class Huge:\n"
                  "    def __repr__(self): return 'x' * 10**7\n"
                  "data = cp.dumps(Huge())\n",
                  expected);
}

/* A pickle cannot add rows or send escape sequences to the terminal. */
Test(cli_report, control_characters_are_escaped)
{
    assert_report("E = type('E\\x1b[31m\\nrow\\u202e', (), {\n"
                  "    '__doc__': '\\x1b]0;title\\x07 doc\\rX'})\n"
                  "data = cp.dumps(E)\n",
                  "object     class E\\x1b[31m\\x0arow\\u202e\n"
                  "module     __main__\n"
                  "bases      object\n"
                  "signature  E\\x1b[31m\\x0arow\\u202e()\n"
                  "doc        \\x1b]0;title\\x07 doc\n");
    assert_report("data = cp.dumps({'k\\x1b[2J': 'caf\\u00e9\\n'})\n",
                  "object     instance of dict\n"
                  "value      {'k\\x1b[2J': 'caf\u00e9\\n'}\n");
}

/* A function's __module__ and __doc__ can be any object. */
Test(cli_report, function_with_odd_module_doc_and_globals)
{
    assert_report("class Wall:\n"
                  "    def __repr__(self): raise Unstr()\n"
                  "    def __str__(self): raise Unstr()\n"
                  "G = Wall()\n"
                  "def f(x):\n"
                  "    return G, x\n"
                  "f.__module__ = Wall()\n"
                  "f.__doc__ = 42\n"
                  "data = cp.dumps(f)\n",
                  "object     function f\n"
                  "module     <not a str: <unprintable Wall>>\n"
                  "signature  f(x)\n"
                  "source     <string>, line 14\n"
                  "closure    none\n"
                  "globals    G = <unprintable Wall>\n");
    assert_report("def g(): pass\n"
                  "g.__module__ = 42\n"
                  "g.__qualname__ = 'q\\x1b'\n"
                  "data = cp.dumps(g)\n",
                  "object     function q\\x1b\n"
                  "module     <not a str: 42>\n"
                  "signature  g()\n"
                  "source     <string>, line 10\n"
                  "closure    none\n"
                  "globals    none\n");
}

/* inspect.signature() raising an exception whose str() raises. */
Test(cli_report, signature_that_raises)
{
    assert_report("class Sig:\n"
                  "    @property\n"
                  "    def __signature__(self):\n"
                  "        if hostile(): raise Unstr()\n"
                  "    def __call__(self): pass\n"
                  "    def __repr__(self): return 'Sig()'\n"
                  "data = cp.dumps(Sig())\n",
                  "object     instance of __main__.Sig\n"
                  "value      Sig()\n");
}

/* What `except Exception` would not catch is not swallowed: one line,
 * exit 4. */
Test(cli_report, system_exit_from_a_lookup_is_one_line_exit_4)
{
    size_t len;
    char *data = pickle_of("class Exits:\n"
                           "    def __getattribute__(self, name):\n"
                           "        if hostile(): raise SystemExit(3)\n"
                           "        return object.__getattribute__(self, name)\n"
                           "data = cp.dumps(Exits())\n",
                           &len);
    cpk_proc p;
    report(&p, data, len);
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: cannot "
                            "describe the object: SystemExit: 3\n");
    cr_assert_str_eq(p.out, "");
    cpk_proc_free(&p);
    free(data);
}
