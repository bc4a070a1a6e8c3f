/* test_cli_input_once.c - cloudpickle-load holds its input once: a
 * regular file loaded unsigned, without --strict or a policy, is mapped
 * and read a window at a time (cli/common/input.c, src/core/memio.c), so
 * --load of a 100 MiB bytearray peaks near pickle.load's peak; the
 * loaded value is the file's; a mapped file truncated during the load is
 * refused with one line and the input exit status, not a SIGBUS; signed
 * and --allow inputs are private copies that the same truncation does
 * not reach, and an --allow load neither copies nor scans it again. A
 * payload of a window or more is read from the file with pread(2)
 * (memio.c): its bytes are the file's whatever its size and where it
 * starts, and a file that shrinks under that read is refused as under
 * the mapping. The pickles are made by CPK_PYTHON at run time, never
 * kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cli_input_once, .init = setup, .timeout = 180);

/* dir/name, in one of a few static buffers. */
static const char *
in_dir(const char *name)
{
    static char paths[8][160];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, 160, "%s/%s", dir, name);
    return path;
}

/* Run cloudpickle-load with `args` (NULL-ended) in dir. */
static void
load(cpk_proc *p, const char *const *args)
{
    const char *argv[24] = {CPK_LOAD};
    int i = 1;
    for (; args[i - 1] != NULL && i < 23; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

Test(cli_input_once, a_100_mib_bytearray_loads_near_pickle_load_peak)
{
    unsigned long long avail = cpk_mem_available();
    if (avail < (4ULL << 30))
        cr_skip_test("needs 4 GiB of available memory, MemAvailable is "
                     "%llu MiB",
                     avail >> 20);
    const char *path = in_dir("ba.pkl");
    cpk_python_to_file(path, "import pickle, sys\n"
                             "b = bytearray(range(256)) * (400 << 10)\n"
                             "sys.stdout.buffer.write(pickle.dumps(b, 5))\n");
    const char *py[] = {
        CPK_PYTHON, "-c",
        "import pickle, sys; pickle.load(open(sys.argv[1], 'rb'))", path,
        NULL};
    cpk_proc p;
    cpk_spawn(&p, py, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    long python = p.maxrss_kib;
    cpk_proc_free(&p);

    load(&p, (const char *[]){"--load", "ba.pkl", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cr_assert(strstr(p.out, "bytearray") != NULL, "%s", p.out);
    long ours = p.maxrss_kib;
    cpk_proc_free(&p);
    cr_log_info("peak: pickle.load %ld KiB, cloudpickle-load --load %ld KiB",
                python, ours);
    cr_assert(python > 100 << 10, "pickle.load peaked at %ld KiB", python);
    cr_assert(ours * 5 < python * 6,
              "cloudpickle-load --load peaked at %ld KiB, more than 1.2x "
              "pickle.load's %ld KiB",
              ours, python);

    /* Under a policy the input is a private copy (what was checked is
     * what is loaded), but neither copied again nor scanned again: the
     * copy and the object, not 3 times the input (2.8x before). */
    load(&p, (const char *[]){"--load", "--allow", "builtins.*", "ba.pkl",
                              NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    long policed = p.maxrss_kib;
    cpk_proc_free(&p);
    cr_log_info("peak: cloudpickle-load --load --allow %ld KiB", policed);
    cr_assert(policed * 10 < python * 22,
              "cloudpickle-load --load --allow peaked at %ld KiB, more "
              "than 2.2x pickle.load's %ld KiB",
              policed, python);
}

/* The value loaded from a mapped file is the file's: a 24 MiB bytes
 * argument (24 windows, read into its object) hashes as it was made. */
Test(cli_input_once, a_mapped_payload_loads_whole)
{
    cpk_python_to_file(in_dir("sha.pkl"),
                       "import ccloudpickle, hashlib, sys\n"
                       "f = lambda b: hashlib.sha256(b).hexdigest()\n"
                       "sys.stdout.buffer.write(ccloudpickle.dumps(f))\n");
    cpk_python_to_file(in_dir("args.pkl"),
                       "import pickle, sys\n"
                       "b = bytes(range(251)) * (100 << 10)\n"
                       "sys.stdout.buffer.write(pickle.dumps(((b,), {}), 5))\n");
    cpk_proc p;
    cpk_python(&p,
               "import hashlib\n"
               "print(hashlib.sha256(bytes(range(251)) * (100 << 10))"
               ".hexdigest())\n",
               NULL, 0);
    cpk_assert_exit(&p, 0);
    char want[128];
    snprintf(want, sizeof want, "%s", p.out);
    cpk_proc_free(&p);

    load(&p, (const char *[]){"--call", "--result", "json", "sha.pkl",
                              "--args-pickle", "args.pkl", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    char quoted[160];
    snprintf(quoted, sizeof quoted, "\"%.64s\"\n", want);
    cr_assert_str_eq(p.out, quoted);
    cpk_proc_free(&p);
}

/* Payloads read with pread(2) (a window or more) are the file's bytes:
 * bytes and bytearrays of odd sizes, a window exactly, one byte under and
 * over it, each starting mid-window after another, next to small ones
 * copied from the mapping, and a 100 MiB bytes whose peak stays near
 * pickle.load's. */
static const char payloads[] =
    "import hashlib\n"
    "def made():\n"
    "    def blob(n, seed):\n"
    "        b = hashlib.sha256(seed.to_bytes(4, 'little')).digest()\n"
    "        return (b * (n // 32 + 1))[:n]\n"
    "    W = 1 << 20\n"
    "    return (blob(5 * W + 12345, 1), bytearray(blob(3 * W + 7, 2)),\n"
    "            blob(100, 3), blob(W, 4), bytearray(blob(W - 1, 5)),\n"
    "            blob(W + 1, 6), bytearray(blob(7 * W + 4093, 7)))\n";

Test(cli_input_once, pread_payloads_are_the_files_bytes)
{
    char code[2048];
    snprintf(code, sizeof code,
             "import ccloudpickle, pickle, sys\n%s"
             "def f(*a):\n"
             "    return [type(x).__name__ + ':' + str(len(x)) + ':' +\n"
             "            hashlib.sha256(x).hexdigest() for x in a]\n"
             "f.__module__ = '__main__'\n"
             "open('%s', 'wb').write(ccloudpickle.dumps(f))\n"
             "open('%s', 'wb').write(pickle.dumps((made(), {}), 5))\n"
             "import json\n"
             "print(json.dumps(f(*made()), separators=(',', ':')))\n",
             payloads, in_dir("fn.pkl"), in_dir("pay.pkl"));
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    char want[4096];
    snprintf(want, sizeof want, "%s", p.out);
    cpk_proc_free(&p);
    cr_assert(strstr(want, "bytearray:") != NULL, "%s", want);

    load(&p, (const char *[]){"--call", "--result", "json", "fn.pkl",
                              "--args-pickle", "pay.pkl", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cr_assert_str_eq(p.out, want);
    cpk_proc_free(&p);
}

Test(cli_input_once, a_100_mib_bytes_loads_near_pickle_load_peak)
{
    unsigned long long avail = cpk_mem_available();
    if (avail < (4ULL << 30))
        cr_skip_test("needs 4 GiB of available memory, MemAvailable is "
                     "%llu MiB",
                     avail >> 20);
    const char *path = in_dir("by.pkl");
    cpk_python_to_file(path, "import pickle, sys\n"
                             "b = bytes(range(251)) * (400 << 10)\n"
                             "sys.stdout.buffer.write(pickle.dumps(b, 5))\n");
    const char *py[] = {
        CPK_PYTHON, "-c",
        "import pickle, sys; pickle.load(open(sys.argv[1], 'rb'))", path,
        NULL};
    cpk_proc p;
    cpk_spawn(&p, py, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    long python = p.maxrss_kib;
    cpk_proc_free(&p);

    load(&p, (const char *[]){"--load", "by.pkl", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cr_assert(strstr(p.out, "bytes") != NULL, "%s", p.out);
    long ours = p.maxrss_kib;
    cpk_proc_free(&p);
    cr_log_info("peak: pickle.load %ld KiB, cloudpickle-load --load %ld KiB",
                python, ours);
    cr_assert(python > 100 << 10, "pickle.load peaked at %ld KiB", python);
    cr_assert(ours * 5 < python * 6,
              "cloudpickle-load --load peaked at %ld KiB, more than 1.2x "
              "pickle.load's %ld KiB",
              ours, python);
}

/* sig.pkl and args.pkl: a callable whose load truncates args.pkl to
 * `cut` bytes (functools.partial(len) with an attribute made by
 * os.truncate), and ((`payload`,), {}) (a Python expression). Signed with
 * key.bin when `sign`. */
static void
make_truncating_to(int sign, long cut, const char *payload)
{
    char code[2048];
    snprintf(code, sizeof code,
             "import ccloudpickle, functools, os, pickle\n"
             "class Cut:\n"
             "    def __reduce__(self):\n"
             "        return (os.truncate, (%s, %ld))\n"
             "f = functools.partial(len)\n"
             "f.cut = Cut()\n"
             "key = b'k' * 32\n"
             "open('%s', 'wb').write(key)\n"
             "os.chmod('key.bin', 0o600)\n"
             "kw = {'sign_key': key} if %d else {}\n"
             "open('%s', 'wb').write(ccloudpickle.dumps(f, **kw))\n"
             "a = ((%s,), {})\n"
             "open('%s', 'wb').write(ccloudpickle.dumps(a, protocol=5, "
             "**kw))\n",
             "'args.pkl'", cut, in_dir("key.bin"), sign, in_dir("cut.pkl"),
             payload, in_dir("args.pkl"));
    /* os.truncate's path is relative: the program runs in dir. */
    char full[2300];
    snprintf(full, sizeof full, "import os\nos.chdir('%s')\n%s", dir, code);
    cpk_proc p;
    cpk_python(&p, full, NULL, 0);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

static void
make_truncating(int sign)
{
    make_truncating_to(sign, 4096, "b'\\x01' * (3 << 20)");
}

/* Unsigned, no policy: args.pkl is mapped, and truncated by the load of
 * the callable before it is loaded: one line, the input exit status. */
Test(cli_input_once, a_mapped_file_truncated_while_loaded_is_refused)
{
    make_truncating(0);
    cpk_proc p;
    load(&p, (const char *[]){"--call", "cut.pkl", "--args-pickle",
                              "args.pkl", NULL});
    cr_assert(!p.signaled, "killed by signal %d; stderr:\n%s", p.sig, p.err);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err,
                     "cloudpickle-load: --args-pickle args.pkl: the file "
                     "changed while it was read\n");
    cr_assert_str_eq(p.out, "");
    cpk_proc_free(&p);
}

/* Cut in the middle of a payload read with pread(2) (a bytearray, then
 * bytes): the read comes short and the rest, from the mapping, is refused
 * the same way. */
Test(cli_input_once, a_file_cut_under_a_pread_is_refused)
{
    static const char *const payloads_cut[] = {
        "bytearray(b'\\x02' * ((9 << 20) + 3))",
        "b'\\x03' * ((9 << 20) + 5)",
    };
    for (int i = 0; i < 2; i++) {
        make_truncating_to(0, (5L << 20) + 1234, payloads_cut[i]);
        cpk_proc p;
        load(&p, (const char *[]){"--call", "cut.pkl", "--args-pickle",
                                  "args.pkl", NULL});
        cr_assert(!p.signaled, "killed by signal %d; stderr:\n%s", p.sig,
                  p.err);
        cpk_assert_exit(&p, 3);
        cr_assert_str_eq(p.err,
                         "cloudpickle-load: --args-pickle args.pkl: the file "
                         "changed while it was read\n");
        cr_assert_str_eq(p.out, "");
        cpk_proc_free(&p);
    }
}

/* Signed (--verify) and --allow inputs are private copies: the same
 * truncation leaves the arguments whole. */
Test(cli_input_once, signed_and_policy_inputs_are_copies)
{
    make_truncating(1);
    cpk_proc p;
    load(&p, (const char *[]){"--call", "--verify", "key.bin", "cut.pkl",
                              "--args-pickle", "args.pkl", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cr_assert_str_eq(p.out, "3145728\n");
    cpk_proc_free(&p);

    make_truncating(0);
    load(&p, (const char *[]){"--call", "--allow", "builtins.*", "--allow",
                              "functools.partial", "--allow", "posix.*",
                              "--allow", "os.*", "cut.pkl", "--args-pickle",
                              "args.pkl", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cr_assert_str_eq(p.out, "3145728\n");
    cpk_proc_free(&p);
}

/* --max-size applies to a mapped file as to a copied one. */
Test(cli_input_once, max_size_refuses_a_mapped_file)
{
    cpk_python_to_file(in_dir("list.pkl"),
                       "import pickle, sys\n"
                       "sys.stdout.buffer.write(pickle.dumps("
                       "list(range(1000)), 5))\n");
    cpk_proc p;
    load(&p, (const char *[]){"--load", "--max-size", "1K", "list.pkl",
                              NULL});
    cpk_assert_exit(&p, 3);
    cr_assert(strstr(p.err, "cloudpickle-load: list.pkl: ") == p.err &&
                  strstr(p.err, ", more than the 1 KiB limit (raise it "
                                "with --max-size)\n") != NULL,
              "%s", p.err);
    cpk_proc_free(&p);
}

/* --map --in pickle over big records: each is loaded where the reader
 * holds it, not copied into a batch first, so the peak stays near that
 * of a python3 loop that pickle.loads each record from the stream. */
Test(cli_input_once, big_map_records_load_near_a_pickle_load_loop,
     .timeout = 600)
{
    unsigned long long avail = cpk_mem_available();
    if (avail < (4ULL << 30))
        cr_skip_test("needs 4 GiB of available memory, MemAvailable is "
                     "%llu MiB",
                     avail >> 20);
    const char *recs = in_dir("recs.pkl");
    cpk_python_to_file(recs,
                       "import pickle, sys\n"
                       "d = {i: (str(i) if i % 11 < 2 else i)\n"
                       "     for i in range(1500000)}\n"
                       "for _ in range(4):\n"
                       "    sys.stdout.buffer.write(pickle.dumps((d,), 5))\n");
    const char *fn = in_dir("len.pkl");
    cpk_python_to_file(fn, "import pickle, sys\n"
                           "sys.stdout.buffer.write(pickle.dumps(len))\n");
    const char *py[] = {
        CPK_PYTHON, "-c",
        "import pickle, sys\n"
        "f = pickle.load(open(sys.argv[1], 'rb'))\n"
        "with open(sys.argv[2], 'rb') as s:\n"
        "    while True:\n"
        "        try:\n"
        "            rec = pickle.load(s)\n"
        "        except EOFError:\n"
        "            break\n"
        "        print(f(*rec))\n"
        "        del rec\n",
        fn, recs, NULL};
    cpk_proc p;
    cpk_spawn(&p, py, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    long python = p.maxrss_kib;
    cpk_proc_free(&p);

    load(&p, (const char *[]){"--map", "len.pkl", "--in", "pickle",
                              "--input", "recs.pkl", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cr_assert_str_eq(p.out, "1500000\n1500000\n1500000\n1500000\n");
    long ours = p.maxrss_kib;
    cpk_proc_free(&p);
    cr_log_info("peak: python3 loop %ld KiB, cloudpickle-load --map %ld KiB",
                python, ours);
    cr_assert(ours * 5 < python * 6,
              "cloudpickle-load --map peaked at %ld KiB, more than 1.2x "
              "the python3 loop's %ld KiB",
              ours, python);
}
