/* test_interop.c - pickles move both ways between ccloudpickle and stock
 * cloudpickle. Stock cloudpickle's pickles (Debian's 2.2; 3.x too when
 * CPK_CLOUDPICKLE3 names a directory holding it) load with
 * ccloudpickle.loads and cloudpickle-load in a Python where cloudpickle is
 * not importable; compat="cloudpickle" pickles load with plain
 * pickle.loads in a Python that has only stock cloudpickle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define DEBIAN_PACKAGES "/usr/lib/python3/dist-packages"

#define CHECKS                                                               \
    "(add, fact, Point, p, Color, green, rw, T, mod, keys, items, logger,\n" \
    " prop, floor, cell) = obj[:15]\n"                                            \
    "assert add(1) == 12 and fact(5) == 120\n"                               \
    "assert isinstance(p, Point) and p.norm2() == 25\n"                      \
    "assert green is Color.GREEN and Color(1).name == 'RED'\n"               \
    "Perm = type(rw)\n"                                                      \
    "assert rw is Perm.RW and rw == Perm.R | Perm.W\n"                       \
    "assert T.__bound__ is Point and mod.f() == 3\n"                         \
    "assert list(keys) == ['a'] and list(items) == [('b', 2)]\n"             \
    "assert logger.name == 'x' and prop.fget(None) == 1\n"                   \
    "assert floor(1.5) == 1 and cell.cell_contents == 5\n"

#define WITHOUT_CLOUDPICKLE                                                  \
    "assert 'cloudpickle' not in sys.modules, 'cloudpickle was imported'\n"  \
    "try:\n"                                                                 \
    "    import cloudpickle\n"                                               \
    "    raise AssertionError('cloudpickle is importable here')\n"           \
    "except ImportError:\n"                                                  \
    "    pass\n"

TestSuite(interop, .init = cpk_py_start, .fini = cpk_py_stop);

/* Pickle `code`'s `obj` with stock cloudpickle found on `path` (NULL:
 * Debian's, via site-packages); checks its major version. */
static char *
stock_dumps(const char *path, const char *major, const char *code,
            size_t *len)
{
    if (path == NULL)
        cpk_require("cloudpickle");
    char full[8192];
    snprintf(full, sizeof(full),
             "import sys, cloudpickle\n"
             "assert cloudpickle.__version__.startswith('%s'), "
             "cloudpickle.__version__\n"
             "%s\n"
             "sys.stdout.buffer.write(cloudpickle.dumps(obj))\n",
             major, code);
    const char *argv[] = {CPK_PYTHON, "-c", full, NULL};
    char env_var[512];
    snprintf(env_var, sizeof(env_var), "PYTHONPATH=%s", path ? path : "");
    const char *env[] = {env_var, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", NULL, 0, env);
    cr_assert(p.exited && p.status == 0, "stock cloudpickle failed:\n%s",
              p.err);
    free(p.err);
    *len = p.out_len;
    return p.out;
}

static void
load_without_cloudpickle(const char *data, size_t len, const char *check)
{
    char code[8192];
    snprintf(code, sizeof(code),
             "import sys, ccloudpickle\n"
             "obj = ccloudpickle.loads(sys.stdin.buffer.read())\n"
             "%s%s",
             check, WITHOUT_CLOUDPICKLE);
    cpk_proc p;
    cpk_python_path(&p, CPK_BUILD_DIR, code, data, len);
    cr_assert(p.exited && p.status == 0, "loading failed:\n%s", p.err);
    cpk_proc_free(&p);
}

static const char *
cloudpickle3(void)
{
    const char *dir = cpk_stock_cloudpickle("CPK_CLOUDPICKLE3");
    return dir;
}

Test(interop, debian_cloudpickle_pickles_load_without_cloudpickle)
{
    size_t len;
    char *data = stock_dumps(NULL, "2.", cpk_py_text("_objects.py"), &len);
    load_without_cloudpickle(data, len, CHECKS);
    free(data);
}

Test(interop, cloudpickle3_pickles_load_without_cloudpickle)
{
    const char *dir = cloudpickle3();
    size_t len;
    char *data = stock_dumps(
        dir, "3.", cpk_py_text("_objects.py", "dataclass_too.py"), &len);
    load_without_cloudpickle(data, len,
                             CHECKS "import dataclasses\n"
                                    "DC = obj[-1]\n"
                                    "assert DC().a == 1\n"
                                    "f = DC.__dataclass_fields__['a']\n"
                                    "assert f._field_type is dataclasses._FIELD\n");
    free(data);
}

Test(interop, stock_class_identity_is_our_tracker)
{
    size_t len;
    char *data = stock_dumps(NULL, "2.",
                             "class C:\n"
                             "    pass\n"
                             "obj = [cloudpickle.dumps(C), cloudpickle.dumps(C())]\n",
                             &len);
    load_without_cloudpickle(
        data, len,
        "a = ccloudpickle.loads(obj[0])\n"
        "b = type(ccloudpickle.loads(obj[1]))\n"
        "assert a is b\n"
        /* Re-pickled by ccloudpickle, it keeps its identity. */
        "assert ccloudpickle.loads(ccloudpickle.dumps(a)) is a\n");
    free(data);
}

Test(interop, cloudpickle_load_reads_stock_pickles)
{
    size_t len;
    char *data = stock_dumps(NULL, "2.",
                             "def greet(name, punct='!'):\n"
                             "    '''Say hello.'''\n"
                             "    return 'hello ' + name + punct\n"
                             "obj = greet\n",
                             &len);
    const char *argv[] = {CPK_LOAD, "--call", "-", "--", "world", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", data, len, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "'hello world!'\n");
    cpk_proc_free(&p);
    const char *report[] = {CPK_LOAD, "--load", NULL};
    cpk_spawn(&p, report, "/", data, len, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "signature  greet(name, punct='!')\n") &&
                  strstr(p.out, "doc        Say hello.\n"),
              "%s", p.out);
    cpk_proc_free(&p);
    free(data);
}

/* Load `data` with plain pickle.loads where only stock cloudpickle (found
 * on `path`) is importable, and run `check`. */
static void
load_with_stock(const char *path, const char *major, const char *data,
                size_t len, const char *check)
{
    char code[8192];
    snprintf(code, sizeof(code),
             "import sys, pickle\n"
             "obj = pickle.loads(sys.stdin.buffer.read())\n"
             "import cloudpickle\n"
             "assert cloudpickle.__version__.startswith('%s')\n"
             "%s"
             "try:\n"
             "    import ccloudpickle\n"
             "    raise AssertionError('ccloudpickle is importable here')\n"
             "except ImportError:\n"
             "    pass\n",
             major, check);
    cpk_proc p;
    cpk_python_path(&p, path, code, data, len);
    cr_assert(p.exited && p.status == 0, "stock cloudpickle %s failed:\n%s",
              major, p.err);
    cpk_proc_free(&p);
}

Test(interop, compat_pickles_load_with_debian_cloudpickle)
{
    cpk_py_file("_objects.py",
                "compat_pickles_load_with_debian_cloudpickle.py");
    size_t len;
    char *data = cpk_py_bytes("data", &len);
    load_with_stock(DEBIAN_PACKAGES, "2.", data, len, CHECKS);
    free(data);
    data = cpk_py_bytes("data2", &len);
    load_with_stock(DEBIAN_PACKAGES, "2.", data, len, CHECKS);
    free(data);
}

Test(interop, compat_pickles_load_with_cloudpickle3)
{
    const char *dir = cloudpickle3();
    cpk_py_file("_objects.py", "compat_pickles_load_with_cloudpickle3.py");
    size_t len;
    char *data = cpk_py_bytes("data", &len);
    load_with_stock(dir, "3.", data, len,
                    CHECKS "import dataclasses\n"
                           "DC = obj[-1]\n"
                           "f = DC.__dataclass_fields__['a']\n"
                           "assert f._field_type is dataclasses._FIELD\n"
                           "assert DC().a == 1\n");
    free(data);
}

Test(interop, compat_from_the_command_line)
{
    const char *argv[] = {CPK_DUMP, "--compat", "cloudpickle", "jobs:scale",
                          NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, CPK_EXAMPLES, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "ccloudpickle") == NULL);
    load_with_stock(DEBIAN_PACKAGES, "2.", p.out, p.out_len,
                    "assert obj(3, factor=2) == 6\n");
    cpk_proc_free(&p);
}

Test(interop, compat_pickles_also_load_with_ccloudpickle)
{
    cpk_py_file("_objects.py",
                "compat_pickles_also_load_with_ccloudpickle.py");
    size_t len;
    char *data = cpk_py_bytes("data", &len);
    load_without_cloudpickle(data, len, CHECKS);
    free(data);
}

Test(interop, one_identity_with_stock_cloudpickle_in_process)
{
    cpk_require("cloudpickle");
    cpk_py_file("one_identity_with_stock_cloudpickle_in_process.py");
    cpk_fresh("data",
              "c1, e1, c2, e2 = [ccloudpickle.loads(d) for d in obj]\n"
              "assert c1 is c2 and e1 is e2 and e1.A is e2.A\n");
}
