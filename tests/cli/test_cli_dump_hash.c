/* test_cli_dump_hash.c - cloudpickle-dump --hash: the SHA-256 of the exact
 * bytes written (the envelope with --sign) on standard error as sha256sum
 * prints it (`HEX  FILE`, `-` for standard output, names escaped), which
 * `sha256sum -c` accepts; the same dump twice gives the same hash (the
 * determinism the man page documents, and its exception: classes by value
 * carry a per-process tracker id); nothing when the dump fails. */
#include <ftw.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/h.py", dir);
    cpk_write_file(path,
                   "import math\n"
                   "SCALE = 3\n"
                   "def helper(x):\n"
                   "    return x * SCALE\n"
                   "def f(a, b=('x', 1.5)):\n"
                   "    return helper(a) + math.floor(b[1]) +\\\n"
                   "        (a in {'alpha', 'beta', 'gamma', 'delta'})\n"
                   "class C:\n"
                   "    def m(self):\n"
                   "        return 1\n"
                   "import threading\n"
                   "LOCK = threading.local()\n"
                   "def locked():\n"
                   "    return LOCK\n");
}

static int
remove_entry(const char *path, const struct stat *sb, int flag,
             struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void
teardown(void)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(cli_dump_hash, .init = setup, .fini = teardown);

static void
dump(cpk_proc *p, const char *const *args)
{
    const char *argv[24] = {CPK_DUMP};
    int i = 1;
    for (; args[i - 1] != NULL; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

static void
sha256_hex(const void *data, size_t len, char hex[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    cr_assert(EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) == 1);
    cr_assert_eq(n, 32);
    for (unsigned int i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* The expected line for `data` written to `name`. */
static void
expect_line(const cpk_proc *p, const void *data, size_t len,
            const char *name)
{
    char hex[65], line[512];
    sha256_hex(data, len, hex);
    snprintf(line, sizeof(line), "%s  %s\n", hex, name);
    cr_assert_str_eq(p->err, line);
}

static void
file_hash_matches(const char *const *extra)
{
    char out[128];
    snprintf(out, sizeof(out), "%s/f.pkl", dir);
    const char *args[16];
    size_t n = 0;
    for (; extra[n] != NULL; n++)
        args[n] = extra[n];
    args[n] = "--hash";
    args[n + 1] = "-o";
    args[n + 2] = out;
    args[n + 3] = "h:f";
    args[n + 4] = NULL;
    cpk_proc p;
    dump(&p, args);
    cpk_assert_exit(&p, 0);
    cr_assert_eq(p.out_len, 0);
    size_t len;
    char *data = cpk_read_file(out, &len);
    cr_assert(data != NULL);
    expect_line(&p, data, len, out);
    free(data);
    cpk_proc_free(&p);

    /* to standard output: the same bytes, named "-" */
    args[n] = "--hash";
    args[n + 1] = "h:f";
    args[n + 2] = NULL;
    dump(&p, args);
    cpk_assert_exit(&p, 0);
    cr_assert(p.out_len > 0);
    expect_line(&p, p.out, p.out_len, "-");
    cpk_proc_free(&p);
}

Test(cli_dump_hash, hash_of_file_and_of_stdout)
{
    file_hash_matches((const char *[]){NULL});
    file_hash_matches((const char *[]){"-p", "2", NULL});
}

Test(cli_dump_hash, signed_the_envelope_is_hashed)
{
    char key[128];
    snprintf(key, sizeof(key), "%s/key", dir);
    cpk_proc p;
    dump(&p, (const char *[]){"--gen-key", key, NULL});
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    file_hash_matches((const char *[]){"--sign", key, NULL});
    /* and it is the envelope's hash, not the inner pickle's */
    dump(&p, (const char *[]){"--sign", key, "--hash", "h:f", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert((unsigned char)p.out[0] == 0xcf);
    expect_line(&p, p.out, p.out_len, "-");
    cpk_proc_free(&p);
}

Test(cli_dump_hash, same_dump_twice_same_hash)
{
    /* A function with globals, defaults, a set constant in its code: the
     * same bytes in two processes (each with its own hash seed). */
    cpk_proc a, b;
    dump(&a, (const char *[]){"--hash", "h:f", NULL});
    dump(&b, (const char *[]){"--hash", "h:f", NULL});
    cpk_assert_exit(&a, 0);
    cpk_assert_exit(&b, 0);
    cr_assert_str_eq(a.err, b.err);
    cr_assert(a.out_len == b.out_len && memcmp(a.out, b.out, a.out_len) == 0);
    cpk_proc_free(&a);
    cpk_proc_free(&b);
    dump(&a, (const char *[]){"--hash", "-e",
                              "import math; lambda x: math.sqrt(x)", NULL});
    dump(&b, (const char *[]){"--hash", "-e",
                              "import math; lambda x: math.sqrt(x)", NULL});
    cpk_assert_exit(&a, 0);
    cpk_assert_exit(&b, 0);
    cr_assert_str_eq(a.err, b.err);
    cpk_proc_free(&a);
    cpk_proc_free(&b);
}

Test(cli_dump_hash, class_by_value_differs_per_process)
{
    /* Documented: its tracker id is random in each process. */
    cpk_proc a, b;
    dump(&a, (const char *[]){"--hash", "h:C", NULL});
    dump(&b, (const char *[]){"--hash", "h:C", NULL});
    cpk_assert_exit(&a, 0);
    cpk_assert_exit(&b, 0);
    cr_assert_str_neq(a.err, b.err);
    cr_assert_eq(a.out_len, b.out_len);
    cpk_proc_free(&a);
    cpk_proc_free(&b);
}

Test(cli_dump_hash, sha256sum_checks_it)
{
    /* One plain name, one with a backslash (escaped as sha256sum does). */
    const char *names[] = {"plain.pkl", "we\\ird.pkl"};
    for (size_t i = 0; i < 2; i++) {
        cpk_proc p, q;
        dump(&p, (const char *[]){"--hash", "-o", names[i], "h:f", NULL});
        cpk_assert_exit(&p, 0);
        cr_assert_eq(p.err[0] == '\\', i == 1, "%s", p.err);
        char sums[128];
        snprintf(sums, sizeof(sums), "%s/sums", dir);
        cpk_write_file(sums, p.err);
        const char *argv[] = {"/usr/bin/sha256sum", "-c", "sums", NULL};
        cpk_spawn(&q, argv, dir, NULL, 0, NULL);
        cpk_assert_exit(&q, 0);
        char ok[128];
        snprintf(ok, sizeof(ok), "%s: OK\n", names[i]);
        cr_assert_str_eq(q.out, ok);
        cpk_proc_free(&q);
        cpk_proc_free(&p);
    }
}

Test(cli_dump_hash, nothing_when_the_dump_fails)
{
    cpk_proc p;
    dump(&p, (const char *[]){"--hash", "h:locked", NULL});
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err,
                     "cloudpickle-dump: h:locked: cannot pickle "
                     "h:locked.__globals__['LOCK'] (_thread._local): "
                     "TypeError: cannot pickle '_thread._local' object\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
    /* an output that cannot be written: its error, no hash */
    dump(&p, (const char *[]){"--hash", "-o", "/dev/full", "h:f", NULL});
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-dump: /dev/full: No space left on "
                            "device\n");
    cpk_proc_free(&p);
}

Test(cli_dump_hash, gen_key_refuses_it)
{
    char key[128];
    snprintf(key, sizeof(key), "%s/k", dir);
    cpk_proc p;
    dump(&p, (const char *[]){"--hash", "--gen-key", key, NULL});
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err,
                     "cloudpickle-dump: --gen-key cannot be combined with "
                     "--hash\n"
                     "Try 'cloudpickle-dump --help' for more information.\n");
    struct stat sb;
    cr_assert(stat(key, &sb) != 0);
    cpk_proc_free(&p);
}

/* libcrypto is opened on first use (cli/common/cryptolazy.c): without it the
 * dump still works, and --hash says what is missing and why. */
Test(cli_dump_hash, missing_libcrypto_is_named)
{
    char libdir[128], lib[192], out[192];
    snprintf(libdir, sizeof(libdir), "%s/nolib", dir);
    mkdir(libdir, 0755);
    snprintf(lib, sizeof(lib), "%s/libcrypto.so.3", libdir);
    cpk_write_file(lib, ""); /* not a shared object */
    snprintf(out, sizeof(out), "%s/nolib.pkl", dir);
    char env0[256];
    snprintf(env0, sizeof(env0), "LD_LIBRARY_PATH=%s", libdir);
    const char *env[] = {env0, NULL};
    const char *argv[] = {CPK_DUMP, "--hash", "-o", out, "h:f", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, env);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.err, "cloudpickle-dump: cannot load libcrypto.so.3, "
                            "which signing, verifying and --hash need: ") !=
                  NULL,
              "%s", p.err);
    cr_assert(strstr(p.err, "--hash: SHA-256 failed (libcrypto)") != NULL,
              "%s", p.err);
    struct stat sb;
    cr_assert(stat(out, &sb) == 0 && sb.st_size > 0, "no pickle written");
    cpk_proc_free(&p);
    /* Without --hash, libcrypto is never opened: nothing is said. */
    const char *plain[] = {CPK_DUMP, "-o", out, "h:f", NULL};
    cpk_spawn(&p, plain, dir, NULL, 0, env);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}
