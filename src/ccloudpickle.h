/* ccloudpickle.h - the public interface of the ccloudpickle library.
 *
 * The library is one CPython extension module, `ccloudpickle`. Programs that
 * embed Python (cli/) register it as a built-in module before starting the
 * interpreter and then use its Python-level API (dumps, loads, Pickler, ...):
 *
 *     PyImport_AppendInittab(CPK_MODULE_NAME, PyInit_ccloudpickle);
 *
 * The reconstructors a pickle references by name are a file format; they are
 * listed, with their signatures, in doc/FORMAT.md.
 */
#ifndef CCLOUDPICKLE_H
#define CCLOUDPICKLE_H

#include <Python.h>

#define CPK_MODULE_NAME "ccloudpickle"
#define CPK_VERSION "0.6.0"

/* Module init (multi-phase): returns the module definition. */
PyMODINIT_FUNC PyInit_ccloudpickle(void);

/* The values of compat= (dumps, dump, Pickler) and of cloudpickle-dump
 * --compat: the stock cloudpickle that will load the pickle. "cloudpickle"
 * is "cloudpickle3"; "cloudpickle2" is any 2.x release. */
#define CPK_COMPAT_VALUES                                                    \
    "cloudpickle, cloudpickle2, cloudpickle3, or a cloudpickle release: "    \
    "2.0, 2.1, 2.2, 3.0, 3.1, 2.0.0, 2.1.0, 2.2.0, 2.2.1, 3.0.0, 3.1.0, "     \
    "3.1.1, 3.1.2"

/* 1 if `text` is one of CPK_COMPAT_VALUES (exactly), else 0. Needs no
 * interpreter. */
int cpk_compat_valid(const char *text);

/* cloudpickle-load's load of its input: `len` bytes at `data`, loaded
 * as _loads_exact(memoryview(data)) with no other argument (a signed
 * envelope included: refused there without a key). `module` is the
 * imported ccloudpickle module (borrowed). `mapped`: `data` is a whole
 * private, read-only file mapping (MAP_PRIVATE, PROT_READ) that nothing
 * else reads meanwhile, and the load gives its pages back to the kernel
 * behind what it has read. The data must stay valid until the load
 * returns (no loaded object references it). `fd` (mapped only): the
 * mapped file, open for reading until the load returns, whose offset 0
 * is `data`: a large payload is read from it with pread(2), not copied
 * out of the mapping; -1: none. New reference, or NULL with the
 * exception set. */
PyObject *cpk_loads_input(PyObject *module, const char *data, size_t len,
                          int mapped, int fd);

/* cloudpickle-load's load of an unsigned input under --allow/--deny:
 * `len` bytes at `data` (its private copy, unchanged since it was
 * checked), loaded exactly (trailing data refused) under `names`, the
 * find_class lookups the program's own scan of these very bytes
 * (CPK_PY_SCAN_FLAGS, fix_imports on) permits under its policy, which
 * refused whatever that policy refuses (cli/common/scancheck.c): no copy
 * and no second scan. `names` is owned and freed here, whatever the
 * outcome. `allow`/`deny` (borrowed; NULL or None: not given) are the
 * lists of patterns of that policy, for loads nested in this one. New
 * reference, or NULL with the exception set. */
struct cpk_policy_names;
PyObject *cpk_loads_input_prechecked(PyObject *module, const char *data,
                                     size_t len,
                                     struct cpk_policy_names *names,
                                     PyObject *allow, PyObject *deny);

#endif
