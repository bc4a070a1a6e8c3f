/* test_reconstructors.c - the callables pickles name (doc/FORMAT.md, and
 * cloudpickle's _make_function and _function_setstate) parse untrusted
 * input: every one, given the wrong number of arguments, arguments of the
 * wrong type, or of the wrong length (a closure that does not match the
 * code's free variables), raises an exception that names it, both when
 * called and when a crafted pickle calls it, and never crashes; given what
 * our pickles hold, each still works. */
#include "support.h"

#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>

TestSuite(reconstructors, .init = cpk_py_start, .fini = cpk_py_stop);

#define TE "ReconstructorTypeError"
#define VE "ReconstructorValueError"

/* One bad call: cp.<name>(*<args>) raises <exc> whose message holds
 * <frag>. */
struct bad_call {
    char name[40];
    char args[96];
    char exc[32];
    char frag[128];
};

static struct bad_call bad_calls[] = {
    /* _function_make(code, globals, ncells, state): _function_new's
     * checks then _function_fill's, under its own name */
    {"_function_make", "(code0, {}, None)", TE,
     "_function_make() takes at least 4 arguments (3 given)"},
    {"_function_make", "(code0, {}, None, {}, ('m',))", VE,
     "_function_make() argument 5 (modules) must hold (name, module name) "
     "pairs: 1 items"},
    {"_function_make", "(code0, {}, None, {}, ('m', 1))", TE,
     "_function_make() argument 5 (modules) item 1 must be str, not int"},
    {"_function_make", "(code0, {}, None, [])", TE,
     "_function_make() argument 4 (state) must be dict, not list"},
    {"_function_make", "(1, {}, None, {})", TE,
     "_function_make() argument 1 (code) must be code or a tuple "
     "(python_version, magic, data), not int"},
    /* the code inline: _code_unmarshal's arguments, checked as it does */
    {"_function_make", "((ver, magic), {}, None, {})", TE,
     "_code_unmarshal() takes exactly 3 arguments (2 given)"},
    {"_function_make", "((ver, magic, 'x'), {}, None, {})", TE,
     "_code_unmarshal() argument 3 (data) must be bytes, not str"},
    {"_function_make", "((ver, magic, b'\\xff'), {}, None, {})",
     "UnpicklingError", "corrupt code object in pickle"},
    {"_function_make", "(('2.7', 62211, b''), {}, None, {})",
     "UnpicklingError", "Python 2.7"},
    {"_function_make", "(('3', magic, marshal.dumps(1)), {}, None, {})",
     "UnpicklingError", "corrupt code object in pickle: not code"},
    {"_function_make", "((ver, magic, marshal.dumps(code1)), {}, None, {})",
     VE, "_function_make() argument 3 (ncells) must be 1, the number of "},
    {"_function_make", "(code1, {}, None, {})", VE,
     "_function_make() argument 3 (ncells) must be 1, the number of free "},
    {"_function_make", "(code0, {}, None, {1: 2})", TE,
     "_function_make() argument 4 (state) keys must be str, not int"},
    {"_function_make", "(code1, {}, 1, {'__closure__': (1, 2)})", VE,
     "_function_make() state['__closure__'] must hold 1 value, one per "
     "cell of the function, not 2"},
    {"_function_make", "(code0, {}, None, {'__globals__': 1})", TE,
     "_function_make() state['__globals__'] must be dict, not int"},
    /* _function_new(code, globals, ncells) */
    {"_function_new", "(code0, {})", TE,
     "_function_new() takes exactly 3 arguments (2 given)"},
    {"_function_new", "(code0, {}, None, 1)", TE,
     "_function_new() takes exactly 3 arguments (4 given)"},
    {"_function_new", "(1, {}, None)", TE,
     "_function_new() argument 1 (code) must be code, not int"},
    {"_function_new", "(code0, [], None)", TE,
     "_function_new() argument 2 (globals) must be dict, not list"},
    {"_function_new", "(code0, {}, 'x')", TE,
     "_function_new() argument 3 (ncells) must be int or None, not str"},
    {"_function_new", "(code1, {}, None)", VE,
     "_function_new() argument 3 (ncells) must be 1, the number of free "
     "variables of code 'inner', not None"},
    {"_function_new", "(code1, {}, 0)", VE,
     "_function_new() argument 3 (ncells) must be 1, the number of free "
     "variables of code 'inner', not 0"},
    {"_function_new", "(code1, {}, 2)", VE, "(ncells) must be 1, "},
    {"_function_new", "(code1, {}, -1)", VE, "(ncells) must be 1, "},
    {"_function_new", "(code1, {}, 10**30)", VE, "(ncells) must be 1, "},
    {"_function_new", "(code0, {}, 1)", VE,
     "_function_new() argument 3 (ncells) must be None or 0, "},
    /* _function_fill(func, state) */
    {"_function_fill", "(fn0,)", TE,
     "_function_fill() takes exactly 2 arguments (1 given)"},
    {"_function_fill", "(1, {})", TE,
     "_function_fill() argument 1 (func) must be function, not int"},
    {"_function_fill", "(len, {})", TE,
     "argument 1 (func) must be function, not builtin_function_or_method"},
    {"_function_fill", "(fn0, [])", TE,
     "_function_fill() argument 2 (state) must be dict, not list"},
    {"_function_fill", "(fn0, {1: 2})", TE,
     "_function_fill() argument 2 (state) keys must be str, not int"},
    {"_function_fill", "(fn0, {'__globals__': 1})", TE,
     "_function_fill() state['__globals__'] must be dict, not int"},
    {"_function_fill", "(fn1, {'__closure__': [5]})", TE,
     "_function_fill() state['__closure__'] must be tuple, not list"},
    {"_function_fill", "(fn1, {'__closure__': ()})", VE,
     "_function_fill() state['__closure__'] must hold 1 value, one per cell "
     "of the function, not 0"},
    {"_function_fill", "(fn1, {'__closure__': (1, 2)})", VE,
     "state['__closure__'] must hold 1 value, one per cell of the function, "
     "not 2"},
    {"_function_fill", "(fn0, {'__closure__': (1,)})", VE,
     "state['__closure__'] must hold 0 values, one per cell of the "
     "function, not 1"},
    {"_function_fill", "(fn0, {'__dict__': 1})", TE,
     "_function_fill() state['__dict__'] must be dict, not int"},
    {"_function_fill", "(fn0, {'__submodules__': 1})", TE,
     "state['__submodules__'] must be list or tuple, not int"},
    {"_function_fill", "(fn0, {'__defaults__': 1})", "TypeError",
     "__defaults__ must be set to a tuple"},
    /* _code_unmarshal(python_version, magic, data) */
    {"_code_unmarshal", "(ver, magic)", TE,
     "_code_unmarshal() takes exactly 3 arguments (2 given)"},
    {"_code_unmarshal", "(3.11, magic, b'')", TE,
     "_code_unmarshal() argument 1 (python_version) must be str, not float"},
    {"_code_unmarshal", "(ver, '1', b'')", TE,
     "_code_unmarshal() argument 2 (magic) must be int, not str"},
    {"_code_unmarshal", "(ver, magic, 'nope')", TE,
     "_code_unmarshal() argument 3 (data) must be bytes, not str"},
    {"_code_unmarshal", "(ver, magic, b'\\xff')", "UnpicklingError",
     "corrupt code object in pickle"},
    {"_code_unmarshal", "(ver, magic, marshal.dumps(1))", "UnpicklingError",
     "corrupt code object in pickle: not code"},
    /* _code_new(python_version, magic, fields) */
    {"_code_new", "(ver, magic, (), 1)", TE,
     "_code_new() takes exactly 3 arguments (4 given)"},
    {"_code_new", "(ver, magic, [])", TE,
     "_code_new() argument 3 (fields) must be tuple, not list"},
    {"_code_new", "(ver, None, ())", TE,
     "_code_new() argument 2 (magic) must be int, not None"},
    {"_code_new", "(ver, magic, ())", "TypeError", ""},
    /* _make_cell(value), _make_empty_cell() */
    {"_make_cell", "(1, 2)", TE,
     "_make_cell() takes at most 1 argument (2 given)"},
    {"_make_empty_cell", "(1,)", TE,
     "_make_empty_cell() takes no arguments (1 given)"},
    /* subimport(name), dynamic_subimport(name, vars) */
    {"subimport", "()", TE, "subimport() takes exactly 1 argument (0 given)"},
    {"subimport", "(1,)", TE,
     "subimport() argument 1 (name) must be str, not int"},
    {"subimport", "('no_such_module_xy',)", "ModuleNotFoundError",
     "no_such_module_xy"},
    {"dynamic_subimport", "('m',)", TE,
     "dynamic_subimport() takes exactly 2 arguments (1 given)"},
    {"dynamic_subimport", "(b'm', {})", TE,
     "dynamic_subimport() argument 1 (name) must be str, not bytes"},
    {"dynamic_subimport", "('m', [('a', 1)])", TE,
     "dynamic_subimport() argument 2 (vars) must be dict, not list"},
    /* _builtin_type(name) */
    {"_builtin_type", "()", TE,
     "_builtin_type() takes exactly 1 argument (0 given)"},
    {"_builtin_type", "(1,)", TE,
     "_builtin_type() argument 1 (name) must be str, not int"},
    {"_builtin_type", "('nope',)", VE,
     "_builtin_type() argument 1 (name) must name a class of the types "
     "module, not 'nope'"},
    {"_builtin_type", "('new_class',)", VE,
     "must name a class of the types module, not 'new_class'"},
    /* _make_skeleton_class(metaclass, name, bases, type_kwargs,
     * tracker_id, extra) */
    {"_make_skeleton_class", "(type, 'K', (), {}, None)", TE,
     "_make_skeleton_class() takes exactly 6 arguments (5 given)"},
    {"_make_skeleton_class", "(int, 'K', (), {}, None, None)", TE,
     "_make_skeleton_class() argument 1 (metaclass) must be a metaclass "
     "(subclass of type), not class int"},
    {"_make_skeleton_class", "(1, 'K', (), {}, None, None)", TE,
     "argument 1 (metaclass) must be a metaclass (subclass of type), not "
     "int"},
    {"_make_skeleton_class", "(type, 1, (), {}, None, None)", TE,
     "_make_skeleton_class() argument 2 (name) must be str, not int"},
    {"_make_skeleton_class", "(type, 'K', [], {}, None, None)", TE,
     "_make_skeleton_class() argument 3 (bases) must be tuple, not list"},
    {"_make_skeleton_class", "(type, 'K', (1,), {}, None, None)", TE,
     "_make_skeleton_class() argument 3 (bases) item 0 must be a class, "
     "not int"},
    {"_make_skeleton_class", "(type, 'K', (), [], None, None)", TE,
     "_make_skeleton_class() argument 4 (type_kwargs) must be dict, not "
     "list"},
    {"_make_skeleton_class", "(type, 'K', (), {}, 1, None)", TE,
     "_make_skeleton_class() argument 5 (tracker_id) must be str or None, "
     "not int"},
    /* _make_skeleton_enum(bases, name, qualname, members, module,
     * tracker_id, extra) */
    {"_make_skeleton_enum", "((enum.Enum,), 'E', 'E', {}, 'm', None)", TE,
     "_make_skeleton_enum() takes exactly 7 arguments (6 given)"},
    {"_make_skeleton_enum", "([enum.Enum], 'E', 'E', {}, 'm', None, None)",
     TE, "_make_skeleton_enum() argument 1 (bases) must be tuple, not list"},
    {"_make_skeleton_enum", "((), 'E', 'E', {}, 'm', None, None)", VE,
     "_make_skeleton_enum() argument 1 (bases) must not be empty"},
    {"_make_skeleton_enum", "((1,), 'E', 'E', {}, 'm', None, None)", TE,
     "_make_skeleton_enum() argument 1 (bases) item 0 must be a class, not "
     "int"},
    {"_make_skeleton_enum", "((enum.Enum,), 1, 'E', {}, 'm', None, None)",
     TE, "_make_skeleton_enum() argument 2 (name) must be str, not int"},
    {"_make_skeleton_enum", "((enum.Enum,), 'E', 1, {}, 'm', None, None)",
     TE, "_make_skeleton_enum() argument 3 (qualname) must be str, not int"},
    {"_make_skeleton_enum", "((enum.Enum,), 'E', 'E', [], 'm', None, None)",
     TE, "_make_skeleton_enum() argument 4 (members) must be dict, not list"},
    {"_make_skeleton_enum", "((enum.Enum,), 'E', 'E', {}, 1, None, None)", TE,
     "_make_skeleton_enum() argument 5 (module) must be str or None, not "
     "int"},
    {"_make_skeleton_enum", "((enum.Enum,), 'E', 'E', {}, 'm', 1, None)", TE,
     "_make_skeleton_enum() argument 6 (tracker_id) must be str or None, "
     "not int"},
    /* _class_setstate(cls, (state, slotstate)) */
    {"_class_setstate", "(C,)", TE,
     "_class_setstate() takes exactly 2 arguments (1 given)"},
    {"_class_setstate", "(1, ({}, {}))", TE,
     "_class_setstate() argument 1 (cls) must be a class, not int"},
    {"_class_setstate", "(C, 'x')", TE,
     "_class_setstate() argument 2 (state) must be tuple, not str"},
    {"_class_setstate", "(C, ({},))", VE,
     "_class_setstate() argument 2 (state) must be a (state, slotstate) "
     "pair, not a tuple of 1"},
    {"_class_setstate", "(C, ({}, None))", TE,
     "_class_setstate() argument 2 (state) item 1 must be dict, not None"},
    {"_class_setstate", "(C, ({}, {1: 2}))", TE,
     "_class_setstate() argument 2 (state) key must be str, not int"},
    {"_class_setstate", "(C, ({'_abc_impl': 1}, {}))", TE,
     "_class_setstate() state['_abc_impl'] must be list or tuple, not int"},
    {"_class_setstate", "(C, ({'_cpk_member_attrs': 1}, {}))", TE,
     "state['_cpk_member_attrs'] must be dict, not int"},
    {"_class_setstate", "(C, ({'_cpk_member_attrs': {'a': 1}}, {}))", TE,
     "state['_cpk_member_attrs'] value must be dict, not int"},
    {"_class_setstate", "(C, ({'_cpk_member_attrs': {'a': {2: 3}}}, {}))",
     TE, "state['_cpk_member_attrs'] attribute name must be str, not int"},
    /* _make_typevar(name, bound, constraints, covariant, contravariant,
     * tracker_id) */
    {"_make_typevar", "('T', None, (), False, False)", TE,
     "_make_typevar() takes exactly 6 arguments (5 given)"},
    {"_make_typevar", "(1, None, (), False, False, None)", TE,
     "_make_typevar() argument 1 (name) must be str, not int"},
    {"_make_typevar", "('T', None, [int, str], False, False, None)", TE,
     "_make_typevar() argument 3 (constraints) must be tuple, not list"},
    {"_make_typevar", "('T', None, (), 1, False, None)", TE,
     "_make_typevar() argument 4 (covariant) must be bool, not int"},
    {"_make_typevar", "('T', None, (), False, 'no', None)", TE,
     "_make_typevar() argument 5 (contravariant) must be bool, not str"},
    {"_make_typevar", "('T', None, (), False, False, 1)", TE,
     "_make_typevar() argument 6 (tracker_id) must be str or None, not int"},
    /* _make_dict_keys/values/items(x, is_ordered=False) */
    {"_make_dict_keys", "()", TE,
     "_make_dict_keys() takes at least 1 argument (0 given)"},
    {"_make_dict_keys", "([1], True, 3)", TE,
     "_make_dict_keys() takes at most 2 arguments (3 given)"},
    {"_make_dict_keys", "(1,)", TE,
     "_make_dict_keys() argument 1 (keys) must be list or tuple, not int"},
    {"_make_dict_keys", "([1], 1)", TE,
     "_make_dict_keys() argument 2 (is_ordered) must be bool, not int"},
    {"_make_dict_values", "({1: 2},)", TE,
     "_make_dict_values() argument 1 (values) must be list or tuple, not "
     "dict"},
    {"_make_dict_items", "([(1, 2)],)", TE,
     "_make_dict_items() argument 1 (mapping) must be dict, not list"},
    {"_make_dict_items", "({}, 'yes')", TE,
     "_make_dict_items() argument 2 (is_ordered) must be bool, not str"},
    /* _file_reconstructor(stringio) */
    {"_file_reconstructor", "()", TE,
     "_file_reconstructor() takes exactly 1 argument (0 given)"},
    {"_file_reconstructor", "('text',)", TE,
     "_file_reconstructor() argument 1 (file) must be io.StringIO, not str"},
    /* _get_dataclass_field_type_sentinel(name) */
    {"_get_dataclass_field_type_sentinel", "()", TE,
     "_get_dataclass_field_type_sentinel() takes exactly 1 argument"},
    {"_get_dataclass_field_type_sentinel", "(1,)", TE,
     "argument 1 (name) must be str, not int"},
    {"_get_dataclass_field_type_sentinel", "('MISSING',)", VE,
     "_get_dataclass_field_type_sentinel() argument 1 (name) must be "
     "'_FIELD', '_FIELD_CLASSVAR' or '_FIELD_INITVAR', not 'MISSING'"},
    /* cloudpickle's _make_function(code, globals, name, argdefs, closure) */
    {"_make_function", "(code0, {}, None, None)", TE,
     "_make_function() takes exactly 5 arguments (4 given)"},
    {"_make_function", "(1, {}, None, None, None)", TE,
     "_make_function() argument 1 (code) must be code, not int"},
    {"_make_function", "(code0, None, None, None, None)", TE,
     "_make_function() argument 2 (globals) must be dict, not None"},
    {"_make_function", "(code0, {}, 1, None, None)", TE,
     "_make_function() argument 3 (name) must be str or None, not int"},
    {"_make_function", "(code0, {}, None, [1], None)", TE,
     "_make_function() argument 4 (argdefs) must be tuple or None, not list"},
    {"_make_function", "(code1, {}, None, None, [cell])", TE,
     "_make_function() argument 5 (closure) must be tuple or None, not "
     "list"},
    {"_make_function", "(code1, {}, None, None, None)", VE,
     "_make_function() argument 5 (closure) must hold 1 cell, one per free "
     "variable of code 'inner', not None"},
    {"_make_function", "(code1, {}, None, None, ())", VE,
     "argument 5 (closure) must hold 1 cell, one per free variable of code "
     "'inner', not 0"},
    {"_make_function", "(code1, {}, None, None, (cell, cell))", VE,
     "argument 5 (closure) must hold 1 cell, one per free variable of code "
     "'inner', not 2"},
    {"_make_function", "(code0, {}, None, None, (cell,))", VE,
     "argument 5 (closure) must hold 0 cells, one per free variable of "
     "code '<lambda>', not 1"},
    {"_make_function", "(code1, {}, None, None, (1,))", TE,
     "_make_function() argument 5 (closure) item 0 must be cell, not int"},
    /* cloudpickle's _function_setstate(func, (state, slotstate)) */
    {"_function_setstate", "(fn0,)", TE,
     "_function_setstate() takes exactly 2 arguments (1 given)"},
    {"_function_setstate", "(1, ({}, {}))", TE,
     "_function_setstate() argument 1 (func) must be function, not int"},
    {"_function_setstate", "(fn0, {})", TE,
     "_function_setstate() argument 2 (state) must be tuple, not dict"},
    {"_function_setstate", "(fn0, ({},))", VE,
     "_function_setstate() argument 2 (state) must be a (state, slotstate) "
     "pair, not a tuple of 1"},
    {"_function_setstate", "(fn0, (1, {}))", TE,
     "_function_setstate() argument 2 (state) item 0 must be dict or None, "
     "not int"},
    {"_function_setstate", "(fn0, ({}, None))", TE,
     "_function_setstate() argument 2 (state) item 1 must be dict, not "
     "None"},
    {"_function_setstate", "(fn0, ({}, {1: 2}))", TE,
     "_function_setstate() argument 2 (state) slotstate key must be str, "
     "not int"},
    {"_function_setstate", "(fn0, ({}, {'__globals__': 1}))", TE,
     "_function_setstate() slotstate['__globals__'] must be dict, not int"},
    {"_function_setstate", "(fn1, ({}, {'__closure__': [cell]}))", TE,
     "slotstate['__closure__'] must be tuple or None, not list"},
    {"_function_setstate", "(fn1, ({}, {'__closure__': ()}))", VE,
     "_function_setstate() slotstate['__closure__'] must hold 1 cell, one "
     "per cell of the function, not 0"},
    {"_function_setstate", "(fn0, ({}, {'__closure__': (cell,)}))", VE,
     "slotstate['__closure__'] must hold 0 cells, one per cell of the "
     "function, not 1"},
    {"_function_setstate", "(fn1, ({}, {'__closure__': (1,)}))", TE,
     "_function_setstate() slotstate['__closure__'] item 0 must be cell, "
     "not int"},
    {"_function_setstate", "(fn0, ({}, {'_cloudpickle_submodules': 1}))", TE,
     "slotstate['_cloudpickle_submodules'] must be list or tuple, not int"},
};

#define NBAD (sizeof(bad_calls) / sizeof(bad_calls[0]))

static void
run_bad(const struct bad_call *c, int pickled)
{
    char code[2048];
    const char *prelude = cpk_py_text("_prelude.py");
    if (pickled)
        /* The call a crafted pickle makes on load (REDUCE). */
        snprintf(code, sizeof(code),
                 "%sdata = cp.dumps(R(cp.%s, %s))\n"
                 "cp.loads(data)\n",
                 prelude, c->name, c->args);
    else
        snprintf(code, sizeof(code), "%scp.%s(*%s)\n", prelude, c->name,
                 c->args);
    cpk_py_raises(code, c->exc, c->frag[0] ? c->frag : NULL);
}

ParameterizedTestParameters(reconstructors, bad_call_raises)
{
    return cr_make_param_array(struct bad_call, bad_calls, NBAD);
}

ParameterizedTest(struct bad_call *c, reconstructors, bad_call_raises)
{
    run_bad(c, 0);
}

ParameterizedTestParameters(reconstructors, bad_pickle_raises)
{
    return cr_make_param_array(struct bad_call, bad_calls, NBAD);
}

ParameterizedTest(struct bad_call *c, reconstructors, bad_pickle_raises)
{
    run_bad(c, 1);
}

/* The table covers every reconstructor of doc/FORMAT.md and compat.c. */
Test(reconstructors, table_covers_every_reconstructor)
{
    const char *names[] = {
        "_function_new", "_function_fill", "_function_make",
        "_code_unmarshal", "_code_new",
        "_make_cell", "_make_empty_cell", "subimport", "dynamic_subimport",
        "_builtin_type", "_make_skeleton_class", "_make_skeleton_enum",
        "_class_setstate", "_make_typevar", "_make_dict_keys",
        "_make_dict_values", "_make_dict_items", "_file_reconstructor",
        "_get_dataclass_field_type_sentinel", "_make_function",
        "_function_setstate"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        int seen = 0;
        for (size_t j = 0; j < NBAD; j++)
            seen |= strcmp(bad_calls[j].name, names[i]) == 0;
        cr_expect(seen, "no bad call of %s in the table", names[i]);
    }
}

/* The errors are what types.FunctionType raises (TypeError, ValueError)
 * and UnpicklingError: an invalid pickle. */
Test(reconstructors, errors_are_type_value_and_unpickling_errors)
{
    cpk_py_file("errors_are_type_value_and_unpickling_errors.py");
}

/* Before the checks, these loaded and the call segfaulted. */
Test(reconstructors, closure_mismatch_never_reaches_a_call)
{
    static const char *const cases[][3] = {
        {"R(cp._function_new, (code1, {}, None))", VE, "(ncells) must be 1"},
        {"R(cp._function_new, (code1, {}, 0))", VE, "(ncells) must be 1"},
        {"R(cp._make_function, (code1, {}, None, None, None))", VE,
         "(closure) must hold 1 cell"},
        {"R(cp._make_function, (code1, {}, None, None, ()))", VE,
         "(closure) must hold 1 cell"},
        {"R(cp._make_function, (code1, {}, None, None, (1,)))", TE,
         "(closure) item 0 must be cell"},
    };
    const char *prelude = cpk_py_text("_prelude.py");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char code[2048];
        snprintf(code, sizeof(code),
                 "%sf = cp.loads(cp.dumps(%s))\n"
                 "f()\n",
                 prelude, cases[i][0]);
        cpk_py_raises(code, cases[i][1], cases[i][2]);
    }
}

/* A function whose closure is longer than its code's free variables. */
Test(reconstructors, closure_too_long_is_refused)
{
    cpk_py_raises(cpk_py_text("_prelude.py", "closure_too_long_is_refused.py"),
                  VE, "(ncells) must be 1");
    cpk_py_raises(
        cpk_py_text("_prelude.py", "closure_too_long_is_refused_2.py"), VE,
        "(closure) must hold 1 cell");
}

/* Hostile state cannot free what a reconstructor is still using: a key
 * whose __eq__ empties the state dict while it is being applied. */
Test(reconstructors, state_changed_while_applied)
{
    cpk_py_file("_prelude.py", "state_changed_while_applied.py");
}

/* What our pickles and cloudpickle's hold still works. */
Test(reconstructors, valid_calls_work)
{
    cpk_py_file("_prelude.py", "valid_calls_work.py");
}

/* cloudpickle-load refuses such a pickle as bad input (exit 3), naming
 * the reconstructor. */
Test(reconstructors, cli_refuses_a_crafted_pickle)
{
    size_t len;
    cpk_py_file("_prelude.py", "cli_refuses_a_crafted_pickle.py");
    char *data = cpk_py_bytes("data", &len);
    char dir[64], path[128];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/bad.pkl", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL && fwrite(data, 1, len, f) == len && fclose(f) == 0);
    free(data);
    cpk_proc p;
    const char *argv[] = {CPK_LOAD, "--load", path, NULL};
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert(strstr(p.err, "_function_new() argument 3 (ncells) must be 1")
                  != NULL,
              "stderr: %s", p.err);
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

/* cloudpickle's _function_setstate on a function without cells, given an
 * empty closure: nothing to fill (it dereferenced the missing closure). */
Test(reconstructors, function_setstate_empty_closure_of_a_cellless_function)
{
    cpk_py_file("function_setstate_empty_closure_of_a_cellless_function.py");
}

/* A magic number no int of C holds is another version's, not an
 * OverflowError. */
Test(reconstructors, huge_magic_is_a_version_mismatch)
{
    cpk_py_raises("import ccloudpickle as c, sys\n"
                  "c._code_unmarshal('%d.%d' % sys.version_info[:2], 2**70,"
                  " b'')\n",
                  "UnpicklingError", "bytecode version");
}
