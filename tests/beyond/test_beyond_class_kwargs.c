/* test_beyond_class_kwargs.c - issue 12: class keywords (class
 * CsvReader(Reader, fmt="csv")) are recorded from the class statement and
 * passed again when the class is rebuilt, so __init_subclass__ and the
 * metaclass get them: the scenario tests/beyond/class_kwargs.py in a fresh
 * process; a library base (by name) whose registry gets the rebuilt
 * subclass; which values can be recorded and which cannot (then the
 * pickle is as before); ordinary classes and the stock formats untouched;
 * _make_skeleton_class's `extra` refused when hostile. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(beyond_class_kwargs, .init = cpk_py_start, .fini = cpk_py_stop);

Test(beyond_class_kwargs, registry_and_metaclass_keywords_after_loading)
{
    cpk_beyond("class_kwargs");
}

/* The base is a library's (by name): its registry in the fresh process
 * starts empty and gets the rebuilt class, by one __init_subclass__ call
 * made with the keyword. */
Test(beyond_class_kwargs, library_base_registers_the_rebuilt_subclass)
{
    cpk_py_file("_prelude.py",
                "library_base_registers_the_rebuilt_subclass.py");
    cpk_fresh("cp.dumps(CsvReader)",
              "from cpk_classkw_base import Reader\n"
              "assert Reader.registry == {'csv': obj}, Reader.registry\n"
              "assert Reader.calls == [('csv', 'CsvReader', False)], "
              "Reader.calls\n"
              "assert obj().parse('a,b') == ['a', 'b']\n");
}

/* Keyword values: literals, names and attributes of the defining module,
 * builtins. */
Test(beyond_class_kwargs, values_from_literals_and_module_names)
{
    cpk_py_file("_prelude.py", "values_from_literals_and_module_names.py");
    cpk_fresh("cp.dumps(A)",
              "Base = obj.__mro__[1]\n"
              "[kw] = [k for k in Base.seen if 'color' in k] or [None]\n"
              "assert kw is not None, Base.seen\n"
              "assert kw['color'] is type(kw['color']).RED\n"
              "assert kw['lim'] == 10 and kw['kind'] is int\n"
              "assert kw['d'] == {'k': [1.5, None]} and kw['t'] == (1, 'x')\n");
}

/* What cannot be known leaves the pickle as before (no keywords): no
 * source, **kwargs, a local of the enclosing function, a call. */
Test(beyond_class_kwargs, unknown_keywords_keep_todays_pickle)
{
    cpk_py_file("_prelude.py", "unknown_keywords_keep_todays_pickle.py");
}

/* Two class statements of one name: the pickled class's own keywords
 * (3.13: __firstlineno__; before: its methods' lines). */
Test(beyond_class_kwargs, redefined_class_gets_its_own_keywords)
{
    cpk_py_file("_prelude.py", "redefined_class_gets_its_own_keywords.py");
    cpk_fresh("cp.dumps([First, C])",
              "a, b = obj\n"
              "assert a is not b\n"
              "assert (a.fmt_seen, b.fmt_seen) == ('first', 'second')\n");
}

/* Ordinary classes: no look at their source (the helper is not even
 * imported), pickles as before. Stock formats: never keywords. */
Test(beyond_class_kwargs, ordinary_classes_and_stock_formats_untouched)
{
    cpk_py_file("_prelude.py",
                "ordinary_classes_and_stock_formats_untouched.py");
}

/* Under a policy: a base carried by value runs its __init_subclass__
 * during the load, refused as before; a library base's runs library code
 * an allow rule names, and the keywords reach it. */
Test(beyond_class_kwargs, load_policy)
{
    cpk_py_file("_prelude.py", "load_policy.py");
    size_t len;
    char *data = cpk_py_bytes("cp.dumps(Csv)", &len);
    cpk_proc p;
    cpk_python(&p,
               "import sys, ccloudpickle as cp\n"
               "try:\n"
               "    cp.loads(sys.stdin.buffer.read(), allow=[])\n"
               "except cp.PolicyError as e:\n"
               "    assert 'defines __init_subclass__ Base' in str(e), e\n"
               "else:\n"
               "    raise AssertionError('loaded')\n",
               data, len);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    free(data);
    data = cpk_py_bytes("cp.dumps(Tsv)", &len);
    cpk_python(&p,
               "import sys, ccloudpickle as cp\n"
               "sys.path.insert(0, '" CPK_FIXTURES "')\n"
               "c = cp.loads(sys.stdin.buffer.read(),\n"
               "             allow=['cpk_classkw_base.Reader'])\n"
               "from cpk_classkw_base import Reader\n"
               "assert Reader.registry == {'tsv': c}, Reader.registry\n",
               data, len);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    free(data);
}

/* _make_skeleton_class's `extra` comes from the pickle: each bad value
 * raises, called directly and from a crafted pickle. */
static const struct {
    const char *extra, *exc, *frag;
} bad[] = {
    {"1", "ReconstructorTypeError",
     "argument 6 (extra) must be dict, not int"},
    {"{'other': 1}", "ReconstructorValueError",
     "argument 6 (extra) has key 'other'; only 'class_kwargs' is known"},
    {"{2: {}}", "ReconstructorValueError", "argument 6 (extra) has key 2"},
    {"{'class_kwargs': [('fmt', 1)]}", "ReconstructorTypeError",
     "extra['class_kwargs'] must be dict, not list"},
    {"{'class_kwargs': {1: 2}}", "ReconstructorTypeError",
     "extra['class_kwargs'] keys must be str, not int"},
    {"{'class_kwargs': {'metaclass': type}}", "ReconstructorValueError",
     "extra['class_kwargs'] must not hold 'metaclass'"},
    /* Well-formed, but not what the class takes: the class's own error. */
    {"{'class_kwargs': {'fmt': 1}}", "TypeError",
     "X.__init_subclass__() takes no keyword arguments"},
};

Test(beyond_class_kwargs, hostile_extra_raises)
{
    char code[2048];
    const char *prelude = cpk_py_text("_prelude.py");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        for (int pickled = 0; pickled < 2; pickled++) {
            snprintf(code, sizeof(code),
                     "%sargs = (type, 'X', (), {'__module__': 'm'}, "
                     "None, %s)\n"
                     "%s\n",
                     prelude, bad[i].extra,
                     pickled ? "cp.loads(cp.dumps(R(cp._make_skeleton_class, "
                               "args)))"
                             : "cp._make_skeleton_class(*args)");
            cpk_py_raises(code, bad[i].exc, bad[i].frag);
        }
    }
}

/* A class already known under its tracker id is returned without a
 * throwaway class being made (whose __init_subclass__ would register
 * it). */
Test(beyond_class_kwargs, known_tracker_id_makes_no_class)
{
    cpk_py_file("_prelude.py", "known_tracker_id_makes_no_class.py");
}

/* A class statement in a loop: its keyword names were rebound on every
 * pass, so only literals are read back; a name is never taken at the
 * value the loop left it (csv's class would come back as json's). */
Test(beyond_class_kwargs, names_in_a_loop_are_not_read_back)
{
    cpk_py_file("_prelude.py", "names_in_a_loop_are_not_read_back.py");
}
