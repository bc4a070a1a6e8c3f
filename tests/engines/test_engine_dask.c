/* test_engine_dask.c - Dask's processes scheduler with ccloudpickle as its
 * task serializer, against Debian's python3-dask.
 *
 * tests/engines/dask_processes.py runs a graph of lambdas, closures and a
 * class of __main__ on two spawned workers, with func_dumps/func_loads
 * given through dask.config.set (and scheduler="processes") or to
 * dask.multiprocessing.get; stock cloudpickle is made to raise in the
 * driver, so the results prove ccloudpickle carried both ways (the class
 * comes back as the same class). No worker is left afterwards. */
#include "engine_run.h"

Test(engine_dask, processes_scheduler_config, .timeout = 600)
{
    cpk_require("dask");
    const char *args[] = {"config", NULL};
    const char *oks[] = {"graph-config", "default-is-stock", NULL};
    cpk_engine_check("dask_processes.py", args, NULL, oks, 1);
}

Test(engine_dask, multiprocessing_get, .timeout = 600)
{
    cpk_require("dask");
    const char *args[] = {"get", NULL};
    const char *oks[] = {"graph-get", "default-is-stock", NULL};
    cpk_engine_check("dask_processes.py", args, NULL, oks, 1);
}
