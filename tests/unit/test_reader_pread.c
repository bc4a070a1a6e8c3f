/* test_reader_pread.c - the mapped reader of cloudpickle-load's load
 * (cpk_loads_input, src/core/memio.c) given its file: a payload of a
 * window (1 MiB) or more is read from the file with pread(2), the rest of
 * the pickle from the mapping. The values are pickle.loads' (bytes and
 * bytearrays of odd sizes, a window exactly and a byte either side, each
 * starting mid-window), with the file or without it; a large payload's
 * tail is the file's even where the mapping says otherwise (a different
 * file is passed: this is how the test sees which path a byte took);
 * and the mapping's resident pages stay a few windows, not the input.
 * (A file that shrinks under the read: tests/cli/test_cli_input_once.c,
 * where the program's SIGBUS guard lives.) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ccloudpickle.h"
#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_py_start();
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(reader_window, .init = setup, .fini = cpk_py_stop, .timeout = 120);

typedef struct {
    int fd;
    char *map;
    size_t len;
} mapped_file;

/* dir/name holding the bytes of the Python expression `expr`, open and
 * mapped as cloudpickle-load maps its input. */
static mapped_file
map_file(const char *name, const char *expr)
{
    size_t len;
    char *data = cpk_py_bytes(expr, &len);
    char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL && fwrite(data, 1, len, f) == len && fclose(f) == 0);
    free(data);
    mapped_file m = {open(path, O_RDONLY | O_CLOEXEC), NULL, len};
    cr_assert(m.fd >= 0);
    m.map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, m.fd, 0);
    cr_assert(m.map != MAP_FAILED);
    return m;
}

static void
unmap_file(mapped_file *m)
{
    munmap(m->map, m->len);
    close(m->fd);
}

/* cpk_loads_input of `m`'s mapping, reading large payloads from `fd`,
 * bound to `name` in __main__. */
static void
load_as(const char *name, const mapped_file *m, int fd)
{
    PyObject *module = PyImport_ImportModule(CPK_MODULE_NAME);
    cr_assert(module != NULL);
    PyObject *obj = cpk_loads_input(module, m->map, m->len, 1, fd);
    if (obj == NULL)
        PyErr_Print();
    cr_assert(obj != NULL);
    cr_assert(PyObject_SetAttrString(PyImport_AddModule("__main__"), name,
                                     obj) == 0);
    Py_DECREF(obj);
    Py_DECREF(module);
}

/* The resident KiB of the mapping at `addr` (/proc/self/smaps). */
static long
mapping_rss_kib(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    cr_assert(f != NULL);
    char line[512];
    int in = 0;
    long rss = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') &&
            strchr(line, ':') != NULL && line[0] != ' ') {
            in = (unsigned long)addr >= lo && (unsigned long)addr < hi;
            continue;
        }
        if (in && sscanf(line, "Rss: %ld kB", &rss) == 1)
            break;
    }
    fclose(f);
    cr_assert(rss >= 0, "no mapping at %p in /proc/self/smaps", addr);
    return rss;
}

Test(reader_window, pread_payloads_load_as_pickle_loads)
{
    cpk_py("import hashlib, pickle\n"
           "def blob(n, seed):\n"
           "    b = hashlib.sha256(seed.to_bytes(4, 'little')).digest()\n"
           "    return (b * (n // 32 + 1))[:n]\n"
           "W = 1 << 20\n"
           "want = (blob(5 * W + 12345, 1), bytearray(blob(3 * W + 7, 2)),\n"
           "        blob(100, 3), blob(W, 4), bytearray(blob(W - 1, 5)),\n"
           "        blob(W + 1, 6), [bytearray(blob(7 * W + 4093, 7))],\n"
           "        {'k': blob(2 * W + 1, 8)}, blob(3, 9))\n"
           "data = pickle.dumps(want, 5)\n");
    mapped_file m = map_file("pay.pkl", "data");
    load_as("got", &m, m.fd);
    load_as("got_mapped", &m, -1);
    unmap_file(&m);
    cpk_py("assert got == want\n"
           "assert [type(x) for x in got] == [type(x) for x in want]\n"
           "assert type(got[6][0]) is bytearray\n"
           "assert got_mapped == want\n");
}

/* Map one pickle and pass another file, the same but for its payloads'
 * bytes: a payload under a window is all the mapping's; a large one ends
 * with the file's bytes (its head may be the mapping's: what the
 * unpickler had in the window it peeked, before its readinto). */
Test(reader_window, a_large_payload_is_read_from_the_file)
{
    cpk_py("import pickle\n"
           "W = 1 << 20\n"
           "def made(c):\n"
           "    return (c[0:1] * 1000, c[1:2] * (3 * W + 11),\n"
           "            bytearray(c[2:3] * (2 * W + 5)), c[3:4] * (W - 1))\n"
           "mapped = pickle.dumps(made(b'abcd'), 5)\n"
           "other = pickle.dumps(made(b'wxyz'), 5)\n"
           "assert len(mapped) == len(other)\n");
    mapped_file m = map_file("mapped.pkl", "mapped");
    mapped_file o = map_file("other.pkl", "other");
    load_as("got", &m, o.fd);
    unmap_file(&m);
    unmap_file(&o);
    cpk_py("import re\n"
           "assert got[0] == b'a' * 1000 and got[3] == b'd' * (W - 1)\n"
           "assert re.fullmatch(rb'b*x+', got[1]), got[1][:16]\n"
           "assert got[1].count(b'x') > 2 * W\n"
           "assert type(got[2]) is bytearray\n"
           "assert re.fullmatch(rb'c*y+', bytes(got[2]))\n"
           "assert got[2].count(b'y') > W\n");
}

/* A 64 MiB payload read into its object leaves the mapping a few windows
 * resident, not the input. */
Test(reader_window, the_mapping_stays_a_few_windows)
{
    cpk_py("import pickle\n"
           "big = pickle.dumps(bytes(range(251)) * (256 << 10), 5)\n");
    mapped_file m = map_file("big.pkl", "big");
    /* the pages the file's write left in the page cache are not ours:
     * the mapping starts untouched */
    cr_assert(mapping_rss_kib(m.map) <= 4);
    load_as("got", &m, m.fd);
    long rss = mapping_rss_kib(m.map);
    cr_log_info("mapping resident after the load: %ld KiB of %zu KiB", rss,
                m.len >> 10);
    cr_assert(rss <= 4 << 10, "the mapping keeps %ld KiB resident", rss);
    unmap_file(&m);
    cpk_py("assert got == bytes(range(251)) * (256 << 10)\n"
           "del got\n");
}
