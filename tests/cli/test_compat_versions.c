/* test_compat_versions.c - compat= names the stock cloudpickle release that
 * will load the pickle ("cloudpickle2", "cloudpickle3", "2.2", "3.1.2",
 * ...): what ccloudpickle writes here loads with plain pickle.loads in a
 * fresh Python that has only that cloudpickle (Debian's 2.2; 3.x when
 * CPK_CLOUDPICKLE3 names a directory holding it; 2.0.0, the oldest release
 * "cloudpickle2" serves, when CPK_CLOUDPICKLE20 names one) and no
 * ccloudpickle, and behaves as the original. What no such loader can
 * rebuild is refused at dump time; bad values are refused by the Python
 * API and by cloudpickle-dump --compat alike. test_interop.c has the
 * older compat="cloudpickle" checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccloudpickle.h" /* CPK_COMPAT_VALUES, cpk_compat_valid */
#include "support.h"

#define DEBIAN_PACKAGES "/usr/lib/python3/dist-packages"

TestSuite(compat_versions, .init = cpk_py_start, .fini = cpk_py_stop);


/* Debian's cloudpickle 2.2, pure Python: any interpreter under test can
 * load with it (a path, not cpk_require: the embedded one need not have
 * it). */
static void
require_debian_cloudpickle(void)
{
    if (access(DEBIAN_PACKAGES "/cloudpickle/__init__.py", R_OK) != 0)
        cr_skip_test("no " DEBIAN_PACKAGES "/cloudpickle (Debian's "
                     "python3-cloudpickle)");
}

/* Load `data` with plain pickle.loads in a fresh Python (CPK_PYTHON -S)
 * whose path has only `path` added, where cloudpickle is release
 * `version` (a prefix) and ccloudpickle cannot be imported, then run
 * `check` on the loaded `obj`. `what` names the case in failures. */
static void
load_with_stock(const char *path, const char *version, const char *data,
                size_t len, const char *check, const char *what)
{
    char code[16384];
    int n = snprintf(
        code, sizeof(code),
        "import sys, pickle\n"
        "obj = pickle.loads(sys.stdin.buffer.read())\n"
        "import cloudpickle\n"
        "assert cloudpickle.__version__.startswith('%s'), "
        "cloudpickle.__version__\n"
        "assert 'ccloudpickle' not in sys.modules\n"
        "try:\n"
        "    import ccloudpickle\n"
        "    raise AssertionError('ccloudpickle is importable here')\n"
        "except ImportError:\n"
        "    pass\n"
        "%s",
        version, check);
    cr_assert(n > 0 && (size_t)n < sizeof(code));
    cpk_proc p;
    cpk_python_path(&p, path, code, data, len);
    cr_assert(p.exited && p.status == 0,
              "%s: loading with cloudpickle %s failed:\n%s", what, version,
              p.err);
    cpk_proc_free(&p);
}

/* The objects build_objects() made, pickled here with compat=`value` at
 * `protocol`, loaded with the cloudpickle on `path` and checked. */
static void
check_target(const char *value, int protocol, const char *path,
             const char *version)
{
    char code[256];
    snprintf(code, sizeof(code),
             "data = ccloudpickle.dumps(obj, %d, compat='%s')\n"
             "assert b'ccloudpickle' not in data\n",
             protocol, value);
    cpk_py(code);
    size_t len;
    char *data = cpk_py_bytes("data", &len);
    char what[128];
    snprintf(what, sizeof(what), "compat='%s', protocol %d", value,
             protocol);
    load_with_stock(path, version, data, len, cpk_py_text("_checks.py"),
                    what);
    free(data);
}

static void
build_objects(void)
{
    cpk_py_file("build_objects.py");
}

/* The check runs against the originals too, so it is a real one. */
Test(compat_versions, checks_hold_for_the_originals)
{
    build_objects();
    cpk_py_file("_checks.py");
}

/* Debian 12 ships 2.2: every value meant for it, and "cloudpickle2" (the
 * 2.0 layout) at protocols 5 and 2 (below 4, cloudpickle's names are
 * reached through __builtin__.__import__). */
Test(compat_versions, debian_2_2_loads_the_2x_targets)
{
    require_debian_cloudpickle();
    build_objects();
    const char *values[] = {"cloudpickle2", "2.2", "2.2.0", "2.2.1",
                            "2.1", "2.1.0", "2.0", "2.0.0"};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
        check_target(values[i], 5, DEBIAN_PACKAGES, "2.2.");
    check_target("cloudpickle2", 2, DEBIAN_PACKAGES, "2.2.");
    check_target("2.2", 2, DEBIAN_PACKAGES, "2.2.");
}

/* The 3.x values, and "cloudpickle2", which 3.x loads as well. */
Test(compat_versions, cloudpickle3_loads_the_3x_targets)
{
    const char *dir = cpk_stock_cloudpickle("CPK_CLOUDPICKLE3");
    build_objects();
    const char *values[] = {"cloudpickle", "cloudpickle3", "3.0", "3.0.0",
                            "3.1", "3.1.0", "3.1.1", "3.1.2",
                            "cloudpickle2", "2.2"};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
        check_target(values[i], 5, dir, "3.");
    check_target("cloudpickle3", 2, dir, "3.");
}

/* "cloudpickle2" serves the oldest 2.x too: 2.0 has no _make_function. */
Test(compat_versions, cloudpickle_2_0_loads_cloudpickle2)
{
    const char *dir = cpk_stock_cloudpickle("CPK_CLOUDPICKLE20");
    build_objects();
    check_target("cloudpickle2", 5, dir, "2.0.");
    check_target("2.0", 2, dir, "2.0.");
}

/* Each format names what its releases have, as they write it themselves:
 * 2.1+ call _make_function, 2.0 types.FunctionType (through
 * _builtin_type); only 3.x has _get_dataclass_field_type_sentinel, 2.x
 * pickles name the dataclasses globals. */
Test(compat_versions, each_format_names_what_its_releases_have)
{
    build_objects();
    cpk_py_file("each_format_names_what_its_releases_have.py");
}

/* The 2.x layouts load with ccloudpickle too, where cloudpickle is not
 * installed. */
Test(compat_versions, ccloudpickle_loads_the_2x_formats)
{
    build_objects();
    const char *values[] = {"cloudpickle2", "2.2"};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        char code[256];
        snprintf(code, sizeof(code),
                 "data = ccloudpickle.dumps(obj, compat='%s')\n", values[i]);
        cpk_py(code);
        size_t len;
        char *data = cpk_py_bytes("data", &len);
        cpk_proc p;
        cpk_python_path(&p, CPK_BUILD_DIR,
                        cpk_py_text("ccloudpickle_loads_the_2x_formats.py"),
                        data, len);
        cr_assert(p.exited && p.status == 0, "compat='%s':\n%s", values[i],
                  p.err);
        cpk_proc_free(&p);
        free(data);
    }
}

/* What no loader of the target can rebuild is refused when dumping, with
 * the object and the target named: a dataclasses._FIELD_BASE that is not
 * one of dataclasses' three sentinels (stock 3.x writes it and fails at
 * load, 2.x would get a copy). */
Test(compat_versions, foreign_field_sentinel_refused_at_dump)
{
    cpk_py_file("foreign_field_sentinel_refused_at_dump.py");
}

/* Values are matched exactly: no other spelling, no release ccloudpickle
 * does not know, nothing older than 2.0. dumps, dump and Pickler alike. */
Test(compat_versions, bad_values_are_refused)
{
    cpk_py_file("bad_values_are_refused.py");
}

/* cloudpickle-dump --compat takes the same values. */
static void
dump_cli(cpk_proc *p, const char *cwd, const char *const *args)
{
    const char *argv[16] = {CPK_DUMP};
    size_t n = 1;
    while (*args != NULL && n < 15)
        argv[n++] = *args++;
    argv[n] = NULL;
    cpk_spawn(p, argv, cwd, NULL, 0, NULL);
}

Test(compat_versions, cli_writes_for_the_release_it_is_given)
{
    require_debian_cloudpickle();
    const char *values[] = {"2.2", "cloudpickle2", "2.0.0"};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        const char *args[] = {"--compat", values[i], "jobs:scale", NULL};
        cpk_proc p;
        dump_cli(&p, CPK_EXAMPLES, args);
        cpk_assert_exit(&p, 0);
        load_with_stock(DEBIAN_PACKAGES, "2.2.", p.out, p.out_len,
                        "assert obj(3, factor=2) == 6\n"
                        "assert obj.__doc__ == 'Multiply x by factor.'\n",
                        values[i]);
        cpk_proc_free(&p);
    }
    /* A dataclass instance, by value, as --compat=VALUE. */
    char dir[64];
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/shapes.py", dir);
    cpk_write_file(path, "import dataclasses\n"
                         "@dataclasses.dataclass(frozen=True)\n"
                         "class Box:\n"
                         "    w: int\n"
                         "    h: int = 2\n"
                         "    def area(self):\n"
                         "        return self.w * self.h\n"
                         "box = Box(3)\n");
    const char *args[] = {"--compat=2.2", "shapes:box", NULL};
    cpk_proc p;
    dump_cli(&p, dir, args);
    cpk_assert_exit(&p, 0);
    load_with_stock(DEBIAN_PACKAGES, "2.2.", p.out, p.out_len,
                    "import dataclasses\n"
                    "assert obj.area() == 6 and type(obj).__name__ == 'Box'\n"
                    "assert [f.name for f in dataclasses.fields(obj)] == "
                    "['w', 'h']\n"
                    "assert dataclasses.astuple(obj) == (3, 2)\n"
                    "try:\n"
                    "    obj.w = 5\n"
                    "    raise AssertionError('not frozen')\n"
                    "except dataclasses.FrozenInstanceError:\n"
                    "    pass\n",
                    "--compat=2.2 shapes:box");
    cpk_proc_free(&p);
}

Test(compat_versions, cli_refuses_other_values_and_unbuildable_objects)
{
    const char *bad[] = {"1.6", "2.2.0.0", "cloudpickle4", "", "3.2",
                         "2.2rc1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *args[] = {"--compat", bad[i], "jobs:scale", NULL};
        cpk_proc p;
        dump_cli(&p, CPK_EXAMPLES, args);
        cpk_assert_exit(&p, 2);
        char want[512];
        snprintf(want, sizeof(want),
                 "cloudpickle-dump: unknown --compat format '%s' (accepted: "
                 "cloudpickle, cloudpickle2, cloudpickle3, or a cloudpickle "
                 "release: 2.0, 2.1, 2.2, 3.0, 3.1, 2.0.0, 2.1.0, 2.2.0, "
                 "2.2.1, 3.0.0, 3.1.0, 3.1.1, 3.1.2)\n"
                 "Try 'cloudpickle-dump --help' for more information.\n",
                 bad[i]);
        cr_assert_str_eq(p.err, want);
        cr_assert_eq(p.out_len, 0);
        cpk_proc_free(&p);
    }
    /* What the target cannot rebuild: exit 4, the release named. */
    char dir[64];
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/odd.py", dir);
    cpk_write_file(path, "import dataclasses\n"
                         "thing = [dataclasses._FIELD_BASE('custom')]\n");
    const char *args[] = {"--compat", "cloudpickle2", "odd:thing", NULL};
    cpk_proc p;
    dump_cli(&p, dir, args);
    cpk_assert_exit(&p, 4);
    cr_assert(strstr(p.err, "cannot pickle odd:thing[0] (_FIELD_BASE): ") &&
                  strstr(p.err, "PicklingError: Can't pickle "
                                "dataclasses._FIELD_BASE('custom') for "
                                "cloudpickle 2.0-2.2: it is not one of "
                                "dataclasses' field sentinels"),
              "%s", p.err);
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
    /* --help says what TARGET is. */
    const char *help[] = {"--help", NULL};
    dump_cli(&p, NULL, help);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "--compat=TARGET") &&
                  strstr(p.out, "cloudpickle2\n                       for "
                                "any 2.x"),
              "%s", p.out);
    cpk_proc_free(&p);
}

/* One list of values: what CPK_COMPAT_VALUES (cloudpickle-dump's message)
 * names is what cpk_compat_valid and the Python API accept, and what the
 * ValueError lists. */
Test(compat_versions, one_list_of_values)
{
    char list[512];
    snprintf(list, sizeof(list), "%s", CPK_COMPAT_VALUES);
    char code[2048];
    int n = snprintf(code, sizeof(code),
                     "import ccloudpickle as cp\n"
                     "named = set()\n");
    size_t count = 0;
    for (char *tok = strtok(list, ", :"); tok != NULL;
         tok = strtok(NULL, ", :")) {
        if (strcmp(tok, "or") == 0 || strcmp(tok, "a") == 0 ||
            strcmp(tok, "release") == 0)
            continue;
        if (strcmp(tok, "cloudpickle") == 0 && count > 0)
            continue; /* "a cloudpickle release" */
        cr_assert(cpk_compat_valid(tok), "'%s' listed, not valid", tok);
        n += snprintf(code + n, sizeof(code) - (size_t)n,
                      "named.add('%s')\n", tok);
        count++;
    }
    cr_assert_eq(count, 16);
    cr_assert(!cpk_compat_valid(NULL) && !cpk_compat_valid("") &&
              !cpk_compat_valid("2.3") && !cpk_compat_valid("cloudpickle "));
    snprintf(code + n, sizeof(code) - (size_t)n,
             "import re\n"
             "for v in named:\n"
             "    cp.dumps(1, compat=v)\n"
             "try:\n"
             "    cp.dumps(1, compat='x')\n"
             "except ValueError as e:\n"
             "    listed = set(re.findall(r\"'([^']+)'\", str(e))) - {'x'}\n"
             "assert listed == named, listed ^ named\n");
    cpk_py(code);
}
