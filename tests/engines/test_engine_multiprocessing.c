/* test_engine_multiprocessing.c - ccloudpickle.install_multiprocessing()
 * and ccloudpickle.wrap() against the real multiprocessing and
 * concurrent.futures, for the fork, spawn and forkserver start methods.
 *
 * The drivers (tests/engines/multiprocessing_*.py) first show that plain
 * multiprocessing refuses the lambdas, closures and __main__ classes they
 * then send through Pool.map/apply_async, Queue, Pipe and
 * ProcessPoolExecutor, and get back (instances of the parent's class,
 * closures made by workers). The edges driver: the pool initializer alone,
 * multiprocessing's own reducers after install (a Connection through a
 * Queue, register()), install_multiprocessing(False), wrap() with plain
 * pickle and a Pool without install, wrap() refusing what it cannot
 * pickle with the object's name. */
#include "engine_run.h"

static const char *const roundtrip_oks[] = {
    "plain-refuses", "pool-map-lambda", "pool-apply-async-closure",
    "pool-class-instances-back", "pool-class-identity", "pool-closure-back",
    "pool-children-installed", "pool-initializer", "queue", "pipe",
    "process-pool-executor", NULL};

static const char *const edges_oks[] = {
    "initializer-only", "wrap-plain-pickle-and-pool", "wrap-decorator",
    "wrap-refuses-unpicklable", "own-reducers-connection",
    "own-reducers-register", "uninstall", NULL};

static void
roundtrip(const char *method)
{
    const char *args[] = {method, NULL};
    cpk_engine_check("multiprocessing_roundtrip.py", args, NULL,
                     roundtrip_oks, 2);
}

static void
edges(const char *method)
{
    const char *args[] = {method, NULL};
    cpk_engine_check("multiprocessing_edges.py", args, NULL, edges_oks, 2);
}

Test(engine_multiprocessing, roundtrip_fork, .timeout = 600)
{
    roundtrip("fork");
}

Test(engine_multiprocessing, roundtrip_spawn, .timeout = 600)
{
    roundtrip("spawn");
}

Test(engine_multiprocessing, roundtrip_forkserver, .timeout = 600)
{
    roundtrip("forkserver");
}

Test(engine_multiprocessing, edges_fork, .timeout = 600)
{
    edges("fork");
}

Test(engine_multiprocessing, edges_spawn, .timeout = 600)
{
    edges("spawn");
}

Test(engine_multiprocessing, edges_forkserver, .timeout = 600)
{
    edges("forkserver");
}

/* In-process: wrap() forwards attributes and keeps callability; install
 * is idempotent and undone; a wrapped wrapper is the same wrapper. */
Test(engine_multiprocessing, wrap_and_install_in_process, .init = cpk_py_start,
     .fini = cpk_py_stop)
{
    cpk_py_file("wrap_and_install_in_process.py");
    cpk_py_raises("import ccloudpickle, pickle\n"
                  "pickle.dumps(ccloudpickle.wrap((x for x in [])))\n",
                  "PicklingError", "ccloudpickle.wrap: cannot pickle");
}
