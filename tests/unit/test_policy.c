/* test_policy.c - the import policy in C (src/scan/policy.h): which patterns
 * are accepted and which refused, how they match, the verdict of
 * restricted and deny-only policies on each kind of import, the static
 * check of a whole report, and the find_class lookup set built from it.
 * No Python: imports are built by hand or scanned from literal pickles.
 * The Python API (loads(allow=, deny=)) is tests/module/test_load_policy.c. */
#include <stdio.h>
#include <string.h>

#include "scan/pkscan.h"
#include "scan/policy.h"

#include <criterion/criterion.h>

static pkscan_str S(const char *s)
{
    return (pkscan_str){s, s ? strlen(s) : 0};
}

/* An import of `module`.`name` with pkscan's classification. */
static pkscan_import imp(const char *module, const char *name,
                         pkscan_category cat, int dangerous)
{
    pkscan_import i;
    memset(&i, 0, sizeof i);
    i.module = S(module);
    i.name = S(name);
    i.via = PKSCAN_VIA_STACK_GLOBAL;
    i.category = cat;
    i.dangerous = dangerous;
    i.reason = dangerous ? "runs commands" : NULL;
    return i;
}

static cpk_policy *policy(const char *const *allow, const char *const *deny)
{
    cpk_policy *p = cpk_policy_new();
    cr_assert(p != NULL);
    const char *why = NULL;
    for (size_t i = 0; allow && allow[i]; i++)
        cr_assert(cpk_policy_add(p, 1, allow[i], &why) == 0,
                  "allow %s: %s", allow[i], why);
    for (size_t i = 0; deny && deny[i]; i++)
        cr_assert(cpk_policy_add(p, 0, deny[i], &why) == 0,
                  "deny %s: %s", deny[i], why);
    return p;
}

Test(policy, patterns_accepted)
{
    static const char *const ok[] = {
        "os", "os.system", "numpy.*", "mypkg*", "*", "a.b.c.d", "_x.y_2",
        "m\xc3\xb3" "dulo.f", "Outer.Inner.method", "a.b*", NULL};
    for (size_t i = 0; ok[i]; i++) {
        cpk_policy *p = cpk_policy_new();
        const char *why = NULL;
        cr_expect(cpk_policy_add(p, i % 2, ok[i], &why) == 0,
                  "'%s' refused: %s", ok[i], why);
        cr_expect(cpk_policy_active(p), "'%s': policy not active", ok[i]);
        cpk_policy_free(p);
    }
}

Test(policy, patterns_refused)
{
    static const struct {
        const char *pattern, *why;
    } bad[] = {
        {"", "empty"},
        {"*os", "only allowed at the end"},
        {"os*.path", "only allowed at the end"},
        {"**", "only allowed at the end"},
        {"os system", "whitespace"},
        {" os", "whitespace"},
        {"os\t", "whitespace"},
        {"os..path", "empty component"},
        {".os", "empty component"},
        {"os.", "empty component"},
        {".*", "empty component"},
        {"os..*", "empty component"},
        {"os/system", "not a dotted name"},
        {"ab\xff", "not valid UTF-8"},
        {"\xc3", "not valid UTF-8"},
        {"a\xc3.b", "not valid UTF-8"},
        {"\xc0\xafos", "not valid UTF-8"},
        {"\xed\xa0\x80", "not valid UTF-8"},
        {"\xf4\x90\x80\x80", "not valid UTF-8"},
        {"\x80os", "not valid UTF-8"},
        {"os\xe2\x80*", "not valid UTF-8"},
        {"os:system", "not a dotted name"},
        {"os-x", "not a dotted name"},
        {"1os", "starts with a digit"},
        {"os.2", "starts with a digit"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int allow = 0; allow <= 1; allow++) {
            cpk_policy *p = cpk_policy_new();
            const char *why = NULL;
            cr_expect(cpk_policy_add(p, allow, bad[i].pattern, &why) == -1,
                      "'%s' accepted", bad[i].pattern);
            cr_expect(why != NULL && strstr(why, bad[i].why) != NULL,
                      "'%s': reason '%s', expected '%s'", bad[i].pattern,
                      why ? why : "(null)", bad[i].why);
            /* a refused rule adds nothing */
            cr_expect(!cpk_policy_active(p), "'%s' made the policy active",
                      bad[i].pattern);
            cpk_policy_free(p);
        }
    }
}

/* Does the single deny rule `pattern` match module.name? */
static int deny_matches(const char *pattern, const char *module,
                        const char *name)
{
    const char *const deny[] = {pattern, NULL};
    cpk_policy *p = policy(NULL, deny);
    pkscan_import i = imp(module, name, PKSCAN_CAT_PLAIN, 0);
    int r = !cpk_policy_permits(p, &i);
    cpk_policy_free(p);
    return r;
}

Test(policy, matching)
{
    static const struct {
        const char *pattern, *module, *name;
        int match;
    } cases[] = {
        /* a module: its names, itself, its submodules; not a longer name */
        {"os", "os", "system", 1},
        {"os", "os", "", 1},
        {"os", "os.path", "join", 1},
        {"os", "osx", "f", 0},
        {"os", "posix", "system", 0},
        {"os", "xos", "f", 0},
        /* a name: itself and paths through it, not a longer name */
        {"os.system", "os", "system", 1},
        {"os.system", "os", "system.__call__", 1},
        {"os.system", "os", "systems", 0},
        {"os.system", "os", "getcwd", 0},
        {"os.system", "os", "", 0},
        {"mymod.Outer.Inner", "mymod", "Outer.Inner", 1},
        {"mymod.Outer", "mymod", "Outer.Inner", 1},
        {"mymod.Outer.Inner", "mymod", "Outer", 0},
        /* the split between module and name does not matter */
        {"a.b.c", "a.b", "c", 1},
        {"a.b.c", "a", "b.c", 1},
        /* wildcards: a prefix of the dotted path */
        {"numpy.*", "numpy", "array", 1},
        {"numpy.*", "numpy.linalg", "norm", 1},
        {"numpy.*", "numpy", "", 1},
        {"numpy.*", "numpyx", "f", 0},
        {"numpy.*", "num", "py", 0},
        {"mypkg*", "mypkg", "f", 1},
        {"mypkg*", "mypkg2", "f", 1},
        {"mypkg*", "mypkg", "", 1},
        {"mypkg*", "mypk", "f", 0},
        {"os.sys*", "os", "system", 1},
        {"os.sys*", "os", "getcwd", 0},
        {"*", "anything", "at.all", 1},
        /* the matched names are the mapped ones: __builtin__ is not
         * builtins */
        {"__builtin__", "builtins", "eval", 0},
        /* deny: also a tail of a dotted name, from any component but the
         * last (find_class reaches uuid.os.system through uuid.os) */
        {"os", "uuid", "os.system", 1},
        {"os.system", "uuid", "os.system", 1},
        {"os", "dataclasses", "inspect.os.system", 1},
        {"inspect.os", "dataclasses", "inspect.os.system", 1},
        {"system", "uuid", "os.system", 0},
        {"os", "uuid", "os", 0},
        {"os", "mymod", "osx.f", 0},
        {"os*", "mymod", "osx.f", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect(deny_matches(cases[i].pattern, cases[i].module,
                               cases[i].name) == cases[i].match,
                  "'%s' vs %s.%s: expected %s", cases[i].pattern,
                  cases[i].module, cases[i].name,
                  cases[i].match ? "a match" : "no match");
}

Test(policy, empty_policy_permits_everything)
{
    cpk_policy *p = cpk_policy_new();
    cr_assert(!cpk_policy_active(p));
    pkscan_import i = imp("posix", "system", PKSCAN_CAT_OTHER, 1);
    cr_expect(cpk_policy_permits(p, &i));
    i.via = PKSCAN_VIA_EXT;
    cr_expect(cpk_policy_permits(p, &i));
    cpk_policy_free(p);
}

Test(policy, restricted_without_allow_rules)
{
    cpk_policy *p = cpk_policy_new();
    cpk_policy_restrict(p);
    cr_assert(cpk_policy_active(p));
    pkscan_import ok[] = {
        imp("ccloudpickle", "_function_new", PKSCAN_CAT_CCLOUDPICKLE, 0),
        imp("cloudpickle.cloudpickle", "_make_function",
            PKSCAN_CAT_CLOUDPICKLE, 0),
        imp("builtins", "set", PKSCAN_CAT_PLAIN, 0),
        imp("math", "", PKSCAN_CAT_PLAIN, 0),
        /* a path of dunders is exempt */
        imp("enum", "Enum.__new__", PKSCAN_CAT_PLAIN, 0),
        imp("builtins", "object.__new__", PKSCAN_CAT_PLAIN, 0),
        imp("builtins", "object.__init__.__call__", PKSCAN_CAT_PLAIN, 0),
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_expect(cpk_policy_permits(p, &ok[i]), "%s.%s refused",
                  ok[i].module.s, ok[i].name.s);
    pkscan_import no[] = {
        imp("posix", "system", PKSCAN_CAT_OTHER, 1),
        imp("mymod", "f", PKSCAN_CAT_OTHER, 0),
        /* plain modules, but attribute paths that may leave them through
         * a module attribute: not exempt */
        imp("dataclasses", "inspect.os.system", PKSCAN_CAT_PLAIN, 0),
        imp("collections", "OrderedDict.fromkeys", PKSCAN_CAT_PLAIN, 0),
        imp("enum", "Enum.__new__.x", PKSCAN_CAT_PLAIN, 0),
        imp("enum", "Enum.__x", PKSCAN_CAT_PLAIN, 0),
        /* a reconstructor or plain name that is dangerous all the same */
        imp("ccloudpickle", "_import", PKSCAN_CAT_CCLOUDPICKLE, 1),
        imp("builtins", "getattr", PKSCAN_CAT_PLAIN, 1),
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        cr_expect(!cpk_policy_permits(p, &no[i]), "%s.%s permitted",
                  no[i].module.s, no[i].name.s);
    cpk_policy_free(p);
}

Test(policy, allow_rules)
{
    const char *const allow[] = {"mymod.*", "posix.getcwd", NULL};
    cpk_policy *p = policy(allow, NULL);
    pkscan_import ok[] = {
        imp("mymod", "f", PKSCAN_CAT_OTHER, 0),
        imp("mymod.sub", "g", PKSCAN_CAT_OTHER, 0),
        /* an allow rule permits even what pkscan calls dangerous */
        imp("posix", "getcwd", PKSCAN_CAT_OTHER, 1),
        /* reconstructors and plain data need no rule */
        imp("ccloudpickle", "subimport", PKSCAN_CAT_CCLOUDPICKLE, 0),
        imp("collections", "OrderedDict", PKSCAN_CAT_PLAIN, 0),
        /* an allow rule covers attribute paths */
        imp("mymod", "Outer.Inner.method", PKSCAN_CAT_OTHER, 0),
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_expect(cpk_policy_permits(p, &ok[i]), "%s.%s refused",
                  ok[i].module.s, ok[i].name.s);
    pkscan_import no[] = {
        imp("posix", "system", PKSCAN_CAT_OTHER, 1),
        imp("mymodx", "f", PKSCAN_CAT_OTHER, 0),
        imp("othermod", "f", PKSCAN_CAT_OTHER, 0),
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        cr_expect(!cpk_policy_permits(p, &no[i]), "%s.%s permitted",
                  no[i].module.s, no[i].name.s);
    cpk_policy_free(p);
}

Test(policy, deny_only)
{
    const char *const deny[] = {"os", "posix", NULL};
    cpk_policy *p = policy(NULL, deny);
    pkscan_import no[] = {
        imp("posix", "system", PKSCAN_CAT_OTHER, 1),
        imp("os", "", PKSCAN_CAT_OTHER, 0),
        imp("os.path", "join", PKSCAN_CAT_OTHER, 0),
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        cr_expect(!cpk_policy_permits(p, &no[i]), "%s.%s permitted",
                  no[i].module.s, no[i].name.s);
    /* not restricted: anything not denied passes unless dangerous */
    pkscan_import ok[] = {
        imp("mymod", "f", PKSCAN_CAT_OTHER, 0),
        imp("builtins", "set", PKSCAN_CAT_PLAIN, 0),
        imp("mymod", "Outer.Inner.method", PKSCAN_CAT_OTHER, 0),
        imp("enum", "Enum.__new__", PKSCAN_CAT_PLAIN, 0),
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_expect(cpk_policy_permits(p, &ok[i]), "%s.%s refused",
                  ok[i].module.s, ok[i].name.s);
    cpk_policy_free(p);
}

/* Deny rules name what they deny; what pkscan calls dangerous reaches
 * names no deny rule can foresee (a computed getattr, import_module, a
 * nested unpickler, code objects), so any active policy refuses it unless
 * an allow rule names it. */
Test(policy, deny_only_refuses_dangerous_imports)
{
    const char *const deny[] = {"os", "posix", NULL};
    cpk_policy *p = policy(NULL, deny);
    pkscan_import no[] = {
        imp("subprocess", "call", PKSCAN_CAT_OTHER, 1),
        imp("builtins", "getattr", PKSCAN_CAT_OTHER, 1),
        imp("builtins", "__import__", PKSCAN_CAT_OTHER, 1),
        imp("builtins", "eval", PKSCAN_CAT_OTHER, 1),
        imp("importlib", "import_module", PKSCAN_CAT_OTHER, 1),
        imp("operator", "attrgetter", PKSCAN_CAT_OTHER, 1),
        imp("operator", "methodcaller", PKSCAN_CAT_OTHER, 1),
        imp("pickle", "loads", PKSCAN_CAT_OTHER, 1),
        imp("_pickle", "loads", PKSCAN_CAT_OTHER, 1),
        imp("marshal", "loads", PKSCAN_CAT_OTHER, 1),
        imp("types", "FunctionType", PKSCAN_CAT_OTHER, 1),
        imp("types", "CodeType", PKSCAN_CAT_OTHER, 1),
        imp("ccloudpickle", "_import", PKSCAN_CAT_CCLOUDPICKLE, 1),
        /* unpicklers pkscan does not flag: the nested pickle is never
         * scanned */
        imp("ccloudpickle", "_loads_exact", PKSCAN_CAT_OTHER, 0),
        imp("cloudpickle", "loads", PKSCAN_CAT_OTHER, 0),
        imp("cloudpickle.cloudpickle", "load", PKSCAN_CAT_OTHER, 0),
        imp("cloudpickle.cloudpickle_fast", "Unpickler", PKSCAN_CAT_OTHER,
            0),
        imp("dill", "loads", PKSCAN_CAT_OTHER, 0),
        imp("dill._dill", "_load", PKSCAN_CAT_OTHER, 0),
        /* a private attribute on the way: `import os as _os` */
        imp("tempfile", "_os.system", PKSCAN_CAT_OTHER, 0),
        imp("importlib._bootstrap_external", "_os.system",
            PKSCAN_CAT_OTHER, 0),
        imp("mymod", "Outer._hidden.f", PKSCAN_CAT_OTHER, 0),
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        cr_expect(!cpk_policy_permits(p, &no[i]), "%s.%s permitted",
                  no[i].module.s, no[i].name.s);
    /* the last component may be private; dunders on the way are fine */
    pkscan_import ok[] = {
        imp("mymod", "_f", PKSCAN_CAT_OTHER, 0),
        imp("mymod", "Outer._f", PKSCAN_CAT_OTHER, 0),
        imp("mymod", "K.__new__.__call__", PKSCAN_CAT_OTHER, 0),
        imp("cloudpickle", "dumps", PKSCAN_CAT_OTHER, 0),
        imp("cloudpickle.cloudpickle", "_make_function",
            PKSCAN_CAT_CLOUDPICKLE, 0),
        imp("dillx", "loads", PKSCAN_CAT_OTHER, 0),
        imp("ccloudpickle", "_loads_exactly", PKSCAN_CAT_OTHER, 0),
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_expect(cpk_policy_permits(p, &ok[i]), "%s.%s refused",
                  ok[i].module.s, ok[i].name.s);
    cpk_policy_free(p);
}

/* An allow rule lets a dangerous import through only when it names it:
 * without `*`, or with a `*` after the module's whole first component. */
Test(policy, dangerous_imports_need_an_allow_rule_naming_them)
{
    static const struct {
        const char *allow, *module, *name;
        int permitted;
    } cases[] = {
        {"*", "posix", "system", 0},
        {"p*", "posix", "system", 0},
        {"posi*", "posix", "system", 0},
        {"posix*", "posix", "system", 1},
        {"posix.*", "posix", "system", 1},
        {"posix", "posix", "system", 1},
        {"posix.system", "posix", "system", 1},
        {"posix.sys*", "posix", "system", 1},
        {"posix.getcwd", "posix", "system", 0},
        {"importlib.*", "importlib", "import_module", 1},
        {"importlib.*", "importlib.util", "find_spec", 1},
        {"imp*", "importlib", "import_module", 0},
        {"builtins.eval", "builtins", "eval", 1},
        {"builtins.ev*", "builtins", "eval", 1},
        {"*", "tempfile", "_os.system", 0},
        {"tempfile", "tempfile", "_os.system", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int deny = 0; deny < 2; deny++) {
            /* restricted, and restricted with an unrelated deny rule */
            const char *const allow[] = {cases[i].allow, NULL};
            const char *const den[] = {"unrelated", NULL};
            cpk_policy *p = policy(allow, deny ? den : NULL);
            int dangerous = cases[i].name[0] != '_';
            pkscan_import m = imp(cases[i].module, cases[i].name,
                                  PKSCAN_CAT_OTHER, dangerous);
            cr_expect(cpk_policy_permits(p, &m) == cases[i].permitted,
                      "allow %s: %s.%s %s", cases[i].allow, cases[i].module,
                      cases[i].name,
                      cases[i].permitted ? "refused" : "permitted");
            cpk_policy_free(p);
        }
    }
    /* `*` still permits what is not dangerous */
    const char *const all[] = {"*", NULL};
    cpk_policy *p = policy(all, NULL);
    pkscan_import m = imp("mymod", "f", PKSCAN_CAT_OTHER, 0);
    cr_expect(cpk_policy_permits(p, &m));
    cpk_policy_free(p);
}

/* Lengths near SIZE_MAX (a report no scan can make, built by hand; the
 * names are never read) must make the set fail, not wrap its size and
 * copy past a small buffer. */
Test(policy, lookup_set_size_cannot_wrap)
{
    const size_t q = ((size_t)-1) / 4;
    pkscan_import ims[3];
    ims[0] = imp("m", "n", PKSCAN_CAT_OTHER, 0);
    ims[0].module.len = q;
    ims[0].name.len = q - 1;
    ims[1] = ims[0];
    ims[1].name.len = q;
    ims[2] = ims[0];
    ims[2].module.len = 5; /* the sum wraps to 1 without a guard */
    ims[2].name.len = 0;
    pkscan_report r;
    memset(&r, 0, sizeof r);
    r.imports = ims;
    r.n_imports = 3;
    cpk_policy *p = cpk_policy_new(); /* inactive: permits all three */
    cr_expect(cpk_policy_names_new(p, &r) == NULL);
    cpk_policy_free(p);
}

Test(policy, deny_wins_over_allow)
{
    const char *const allow[] = {"mymod.*", "builtins.set", NULL};
    const char *const deny[] = {"mymod.secret", "builtins", NULL};
    cpk_policy *p = policy(allow, deny);
    pkscan_import a = imp("mymod", "f", PKSCAN_CAT_OTHER, 0);
    pkscan_import b = imp("mymod", "secret", PKSCAN_CAT_OTHER, 0);
    pkscan_import c = imp("builtins", "set", PKSCAN_CAT_PLAIN, 0);
    pkscan_import d = imp("ccloudpickle", "_make_cell",
                          PKSCAN_CAT_CCLOUDPICKLE, 0);
    cr_expect(cpk_policy_permits(p, &a));
    cr_expect(!cpk_policy_permits(p, &b), "denied name permitted by allow");
    cr_expect(!cpk_policy_permits(p, &c), "deny lost to an allow rule");
    cr_expect(!cpk_policy_permits(p, &c) && cpk_policy_permits(p, &d));
    cpk_policy_free(p);
}

Test(policy, unknown_names_refused_when_active)
{
    const char *const deny[] = {"nothing_here", NULL};
    cpk_policy *p = policy(NULL, deny);
    pkscan_import e = imp("m", "n", PKSCAN_CAT_OTHER, 1);
    e.via = PKSCAN_VIA_EXT;
    e.module = S(NULL);
    e.name = S(NULL);
    e.ext_code = 42;
    pkscan_import d = e;
    d.via = PKSCAN_VIA_DYNAMIC;
    pkscan_import cut = imp("m", NULL, PKSCAN_CAT_OTHER, 0);
    cr_expect(!cpk_policy_permits(p, &e), "EXT permitted");
    cr_expect(!cpk_policy_permits(p, &d), "dynamic name permitted");
    cr_expect(!cpk_policy_permits(p, &cut), "unknown name permitted");
    /* even `*` cannot allow a name nobody knows */
    const char *const all[] = {"*", NULL};
    cpk_policy *q = policy(all, NULL);
    cr_expect(!cpk_policy_permits(q, &e));
    cr_expect(!cpk_policy_permits(q, &d));
    cpk_policy_free(q);
    cpk_policy_free(p);
}

/* Protocol 0: GLOBAL os system, GLOBAL __builtin__ set (mapped), GLOBAL
 * copy_reg _reconstructor. */
static const char p0_pickle[] =
    "(cos\nsystem\n"
    "c__builtin__\nset\n"
    "ccopy_reg\n_reconstructor\n"
    "cmymod\nf\n"
    "t.";

Test(policy, static_check_lists_every_refusal_in_order)
{
    pkscan_report *r = pkscan_scan(p0_pickle, sizeof p0_pickle - 1, 0);
    cr_assert(r != NULL && r->status == PKSCAN_OK, "%s",
              r ? r->error : "NULL");
    cr_assert(r->n_imports == 4);
    cpk_policy *p = cpk_policy_new();
    cpk_policy_restrict(p);
    size_t idx[8];
    size_t n = cpk_policy_check(p, r, idx, 8);
    cr_expect(n == 2, "%zu refused", n);
    cr_expect(idx[0] == 0 && idx[1] == 3, "refused %zu, %zu", idx[0], idx[1]);
    /* cap: the count stays exact */
    cr_expect(cpk_policy_check(p, r, idx, 1) == 2 && idx[0] == 0);
    cr_expect(cpk_policy_check(p, r, NULL, 0) == 2);
    const char *why;
    cr_assert(cpk_policy_add(p, 1, "mymod.f", &why) == 0);
    n = cpk_policy_check(p, r, idx, 8);
    cr_expect(n == 1 && idx[0] == 0);
    cr_assert(cpk_policy_add(p, 0, "copyreg", &why) == 0);
    n = cpk_policy_check(p, r, idx, 8);
    cr_expect(n == 2 && idx[0] == 0 && idx[1] == 2);
    cpk_policy_free(p);
    /* an inactive policy refuses nothing */
    p = cpk_policy_new();
    cr_expect(cpk_policy_check(p, r, idx, 8) == 0);
    cpk_policy_free(p);
    pkscan_free(r);
}

/* copy_reg, Python 2's name of copyreg, is plain only where fix_imports
 * maps it (below protocol 3): from protocol 3 on, or with fix_imports
 * off, CPython imports a module literally named copy_reg, which can be
 * any file on sys.path (the current directory first). */
Test(policy, copy_reg_is_plain_only_where_it_is_mapped)
{
    static const char *const shapes[] = {
        "ccopy_reg\n_reconstructor\n.",             /* protocol 0 */
        "\x80\x02" "ccopy_reg\n_reconstructor\n.", /* protocol 2 */
        "\x80\x03" "ccopy_reg\n_reconstructor\n.", /* protocol 3 */
        "\x80\x05\x8c\x08" "copy_reg\x8c\x0e" "_reconstructor\x93.",
    };
    for (int i = 0; i < 4; i++) {
        for (int fix = 0; fix < 2; fix++) {
            pkscan_report *r =
                pkscan_scan(shapes[i], strlen(shapes[i]),
                            fix ? 0 : PKSCAN_NO_FIX_IMPORTS);
            cr_assert(r != NULL && r->status == PKSCAN_OK, "%s",
                      r ? r->error : "NULL");
            cr_assert_eq(r->n_imports, 1);
            int mapped = fix && i < 2;
            cr_expect_eq(r->imports[0].category,
                         mapped ? PKSCAN_CAT_PLAIN : PKSCAN_CAT_OTHER,
                         "shape %d, fix_imports %d", i, fix);
            cpk_policy *p = cpk_policy_new();
            cpk_policy_restrict(p);
            cr_expect_eq(cpk_policy_check(p, r, NULL, 0), mapped ? 0 : 1,
                         "shape %d, fix_imports %d", i, fix);
            cr_expect_eq(pkscan_strict_violation(r), !mapped);
            cpk_policy_free(p);
            pkscan_free(r);
        }
    }
}

/* Public names of plain modules that are not plain: enum.global_enum
 * writes an enum's members into the namespace of the module its
 * __module__ names (os.getcwd replaced by a member); the rest are names
 * those modules import from elsewhere. Their neighbours stay plain. */
Test(policy, public_names_that_are_not_plain)
{
    static const char *const names[][3] = {
        {"enum", "global_enum", "other"},
        {"enum", "reduce", "other"},
        {"enum", "MappingProxyType", "other"},
        {"enum", "bin", "other"},
        {"collections.abc", "FunctionType", "other"},
        {"collections.abc", "mappingproxy", "other"},
        {"_collections_abc", "mappingproxy", "other"},
        {"enum", "Enum", "plain"},
        {"enum", "unique", "plain"},
        {"collections.abc", "Mapping", "plain"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char pk[128];
        int n = snprintf(pk, sizeof pk, "c%s\n%s\n.", names[i][0],
                         names[i][1]);
        pkscan_report *r = pkscan_scan(pk, (size_t)n, 0);
        cr_assert(r != NULL && r->status == PKSCAN_OK, "%s",
                  r ? r->error : "NULL");
        cr_assert_eq(r->n_imports, 1);
        int plain = strcmp(names[i][2], "plain") == 0;
        cr_expect_eq(r->imports[0].category,
                     plain ? PKSCAN_CAT_PLAIN : PKSCAN_CAT_OTHER, "%s.%s",
                     names[i][0], names[i][1]);
        cr_expect_eq(pkscan_strict_violation(r), !plain, "%s.%s",
                     names[i][0], names[i][1]);
        pkscan_free(r);
    }
}

Test(policy, lookup_set_has_both_spellings_of_permitted_imports)
{
    pkscan_report *r = pkscan_scan(p0_pickle, sizeof p0_pickle - 1, 0);
    cr_assert(r != NULL && r->status == PKSCAN_OK);
    const char *const allow[] = {"mymod", NULL};
    cpk_policy *p = policy(allow, NULL);
    cpk_policy_names *set = cpk_policy_names_new(p, r);
    cr_assert(set != NULL);
    pkscan_free(r); /* the set keeps its own copy */
#define HAS(m, n) cpk_policy_names_has(set, m, strlen(m), n, strlen(n))
    cr_expect(HAS("__builtin__", "set"), "as written");
    cr_expect(HAS("builtins", "set"), "as mapped");
    cr_expect(HAS("copy_reg", "_reconstructor"));
    cr_expect(HAS("copyreg", "_reconstructor"));
    cr_expect(HAS("mymod", "f"));
    /* refused by the policy: not in the set */
    cr_expect(!HAS("os", "system"));
    /* never seen by the scan */
    cr_expect(!HAS("mymod", "g"));
    cr_expect(!HAS("mymod", "f.x"));
    cr_expect(!HAS("builtins", "eval"));
    cr_expect(!HAS("mymod", ""));
    cr_expect(!HAS("", ""));
    /* lengths count, not NUL terminators */
    cr_expect(!cpk_policy_names_has(set, "mymod\0x", 7, "f", 1));
    cr_expect(cpk_policy_names_has(set, "mymodx", 5, "fy", 1));
#undef HAS
    cpk_policy_names_free(set);
    cpk_policy_free(p);
}

Test(policy, lookup_set_of_fix_imports_off)
{
    pkscan_report *r = pkscan_scan(p0_pickle, sizeof p0_pickle - 1,
                                   PKSCAN_NO_FIX_IMPORTS);
    cr_assert(r != NULL && r->status == PKSCAN_OK);
    cpk_policy *p = cpk_policy_new();
    cpk_policy_restrict(p);
    cpk_policy_names *set = cpk_policy_names_new(p, r);
    cr_assert(set != NULL);
    /* unmapped, __builtin__.set is not plain data (no such module) */
    cr_expect(!cpk_policy_names_has(set, "__builtin__", 11, "set", 3));
    cr_expect(!cpk_policy_names_has(set, "builtins", 8, "set", 3));
    cpk_policy_names_free(set);
    cpk_policy_free(p);
    pkscan_free(r);
}

Test(policy, empty_report_gives_empty_set)
{
    pkscan_report *r = pkscan_scan("N.", 2, 0);
    cr_assert(r != NULL && r->status == PKSCAN_OK && r->n_imports == 0);
    cpk_policy *p = cpk_policy_new();
    cpk_policy_restrict(p);
    cr_expect(cpk_policy_check(p, r, NULL, 0) == 0);
    cpk_policy_names *set = cpk_policy_names_new(p, r);
    cr_assert(set != NULL);
    cr_expect(!cpk_policy_names_has(set, "builtins", 8, "set", 3));
    cpk_policy_names_free(set);
    cpk_policy_free(p);
    pkscan_free(r);
}
