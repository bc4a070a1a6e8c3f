/* test_beyond_typing.c - issue 12: typing.NewType, ParamSpec and
 * TypeVarTuple made in a script go by value, one object per tracker id
 * (the scenario tests/beyond/typing_forms.py, in a fresh process); TypeVar
 * keeps infer_variance (3.12) and default (3.13); importable ones and the
 * stock formats go by name as before; _make_typeparam and _make_newtype
 * refuse hostile arguments. */
#include "support.h"

#include <stdio.h>
#include <unistd.h>

TestSuite(beyond_typing, .init = cpk_py_start, .fini = cpk_py_stop);

/* ParamSpec is 3.10's, TypeVarTuple and Unpack 3.11's. */
#if PY_VERSION_HEX < 0x030B0000
#define REQUIRE_311() cr_skip_test("TypeVarTuple needs Python 3.11")
#else
#define REQUIRE_311() ((void)0)
#endif

Test(beyond_typing, forms_keep_identity_across_loads_and_work)
{
    REQUIRE_311();
    cpk_beyond("typing_forms");
}

/* On every Python a NewType of a script works after loading; on 3.9,
 * where NewType makes a function, it goes by value as any function does
 * (without the one-object-per-id identity). */
Test(beyond_typing, newtype_on_every_python)
{
    cpk_py("import ccloudpickle as cp, sys, typing\n"
           "UserId = typing.NewType('UserId', int)\n"
           "d = cp.dumps(UserId)\n"
           "assert (b'_make_newtype' in d) == (sys.version_info >= (3, 10))\n");
    cpk_fresh_protos("typing.NewType('UserId', int)",
                     "assert obj(3) == 3 and obj.__supertype__ is int\n"
                     "assert obj.__name__ == 'UserId'\n");
}

Test(beyond_typing, fresh_process_gets_names_and_options)
{
    REQUIRE_311();
    cpk_py_file("_forms.py");
    cpk_fresh_protos("[UserId, BaseId, P, Ts, Base]",
                     "import typing\n"
                     "UserId, BaseId, P, Ts, Base = obj\n"
                     "assert UserId(3) == 3 and UserId.__supertype__ is int\n"
                     "assert BaseId.__supertype__ is Base\n"
                     "assert P.__bound__ is Base and P.__covariant__\n"
                     "assert not P.__contravariant__\n"
                     "assert isinstance(Ts, typing.TypeVarTuple)\n");
}

/* Loading into the process that pickled them gives the originals back;
 * the same object gives the same bytes. */
Test(beyond_typing, original_process_and_determinism)
{
    REQUIRE_311();
    cpk_py_file("_forms.py", "original_process_and_determinism.py");
}

/* Importable forms (here in a module of tests/fixtures made for the test)
 * go by name. */
Test(beyond_typing, importable_forms_by_reference)
{
    REQUIRE_311();
    char dir[64], path[128];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/tforms_mod.py", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f != NULL);
    fputs("import typing\n"
          "UserId = typing.NewType('UserId', int)\n"
          "P = typing.ParamSpec('P')\n"
          "Ts = typing.TypeVarTuple('Ts')\n",
          f);
    fclose(f);
    char code[512];
    snprintf(code, sizeof(code),
             "import sys, ccloudpickle as cp\n"
             "sys.path.insert(0, %s%s%s)\n"
             "import tforms_mod as m\n"
             "for o in (m.UserId, m.P, m.Ts):\n"
             "    d = cp.dumps(o)\n"
             "    assert b'_make_' not in d and b'tforms_mod' in d, d\n"
             "    assert cp.loads(d) is o\n",
             "'", dir, "'");
    cpk_py(code);
}

/* Stock loaders have no reconstructor for these: the compat formats go by
 * name, as before (loading needs the defining module). */
Test(beyond_typing, compat_formats_by_name)
{
    REQUIRE_311();
    cpk_py_file("_forms.py", "compat_formats_by_name.py");
}

/* A plain TypeVar keeps today's _make_typevar; one with 3.12's
 * infer_variance or 3.13's default goes by _make_typeparam and keeps
 * them. */
Test(beyond_typing, typevar_options_of_newer_pythons)
{
    REQUIRE_311();
    cpk_py_file("_forms.py", "typevar_options_of_newer_pythons.py");
    cpk_fresh("cp.dumps([typing.TypeVar('I', infer_variance=True)] "
              "if sys.version_info >= (3, 12) else [])",
              "assert all(t.__infer_variance__ for t in obj)\n");
    cpk_fresh("cp.dumps([typing.TypeVar('D', default=int), "
              "typing.ParamSpec('PD', default=[int, str]), "
              "typing.TypeVarTuple('TD', default=typing.Unpack[tuple[int]])] "
              "if sys.version_info >= (3, 13) else [])",
              "import typing\n"
              "if obj:\n"
              "    D, PD, TD = obj\n"
              "    assert D.__default__ is int\n"
              "    assert PD.__default__ == [int, str], PD.__default__\n"
              "    assert TD.__default__ == typing.Unpack[tuple[int]]\n");
}

/* The reconstructors parse untrusted input: each bad argument raises,
 * when called and when a crafted pickle calls it. */
static const struct {
    const char *call, *exc, *frag;
} bad[] = {
    {"cp._make_typeparam('ParamSpec', 'P', (), {})",
     "ReconstructorTypeError", "takes exactly 5 arguments (4 given)"},
    {"cp._make_typeparam(1, 'P', (), {}, None)", "ReconstructorTypeError",
     "argument 1 (kind) must be str, not int"},
    {"cp._make_typeparam('Generic', 'P', (), {}, None)",
     "ReconstructorValueError",
     "argument 1 (kind) must be 'TypeVar', 'ParamSpec' or 'TypeVarTuple'"},
    {"cp._make_typeparam('ParamSpec', b'P', (), {}, None)",
     "ReconstructorTypeError", "argument 2 (name) must be str, not bytes"},
    {"cp._make_typeparam('ParamSpec', 'P', (int,), {}, None)",
     "ReconstructorValueError",
     "argument 3 (constraints) must be empty for a ParamSpec"},
    {"cp._make_typeparam('TypeVar', 'T', [int], {}, None)",
     "ReconstructorTypeError",
     "argument 3 (constraints) must be tuple, not list"},
    {"cp._make_typeparam('ParamSpec', 'P', (), [], None)",
     "ReconstructorTypeError", "argument 4 (options) must be dict, not list"},
    {"cp._make_typeparam('ParamSpec', 'P', (), {1: 2}, None)",
     "ReconstructorTypeError", "argument 4 (options) keys must be str"},
    {"cp._make_typeparam('TypeVarTuple', 'Ts', (), {'bound': int}, None)",
     "ReconstructorValueError",
     "argument 4 (options) has 'bound', which TypeVarTuple does not take"},
    {"cp._make_typeparam('TypeVar', 'T', (), {'name': 'x'}, None)",
     "ReconstructorValueError", "has 'name', which TypeVar does not take"},
    {"cp._make_typeparam('TypeVar', 'T', (), {'covariant': 1}, None)",
     "ReconstructorTypeError", "argument 4 (options) value must be bool"},
    {"cp._make_typeparam('TypeVar', 'T', (), {}, 5)",
     "ReconstructorTypeError",
     "argument 5 (tracker_id) must be str or None, not int"},
    {"cp._make_newtype('U', int, '__main__')", "ReconstructorTypeError",
     "takes exactly 4 arguments (3 given)"},
    {"cp._make_newtype(None, int, '__main__', None)",
     "ReconstructorTypeError", "argument 1 (qualname) must be str, not None"},
    {"cp._make_newtype('U', int, 3, None)", "ReconstructorTypeError",
     "argument 3 (module) must be str or None, not int"},
    {"cp._make_newtype('U', int, 'm', b'id')", "ReconstructorTypeError",
     "argument 4 (tracker_id) must be str or None, not bytes"},
};

Test(beyond_typing, hostile_arguments_raise)
{
    REQUIRE_311();
    char code[1024];
    const char *forms = cpk_py_text("_forms.py");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(code, sizeof(code), "%s%s\n", forms, bad[i].call);
        cpk_py_raises(code, bad[i].exc, bad[i].frag);
        /* The same call from a crafted pickle: R(f, args), args made
         * from the call's own argument list. */
        const char *open = strchr(bad[i].call, '(');
        snprintf(code, sizeof(code),
                 "%sargs = (lambda *a: a)(%s\n"
                 "cp.loads(cp.dumps(R(%.*s, args)))\n",
                 forms, open + 1, (int)(open - bad[i].call), bad[i].call);
        cpk_py_raises(code, bad[i].exc, bad[i].frag);
    }
}

/* The report of cloudpickle-load (describe mode) runs nothing and names
 * the reconstructors as ccloudpickle's own. */
Test(beyond_typing, describe_mode)
{
    REQUIRE_311();
    char dir[64], path[128];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/forms.pkl", dir);
    cpk_python_to_file(path,
                       "import sys, typing, ccloudpickle as cp\n"
                       "U = typing.NewType('U', int)\n"
                       "P = typing.ParamSpec('P')\n"
                       "sys.stdout.buffer.write(cp.dumps([U, P]))\n");
    const char *argv[] = {CPK_LOAD, path, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_expect(strstr(p.out, "ccloudpickle._make_newtype    ccloudpickle "
                            "reconstructor") != NULL &&
                  strstr(p.out, "ccloudpickle._make_typeparam  ccloudpickle "
                                "reconstructor") != NULL,
              "%s", p.out);
    cpk_proc_free(&p);
    const char *strict[] = {CPK_LOAD, "--strict", path, NULL};
    cpk_spawn(&p, strict, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}
