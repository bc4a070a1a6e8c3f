/* mapdask.h - cloudpickle-load --map --dask ADDRESS: the records' calls
 * run on a dask distributed cluster (python/_ccloudpickle_dask.py moves
 * them), everything else as for -j N: the records are cut (records.c)
 * and decoded, and every result, error and verdict rendered (mapwork.c)
 * here, then written in input order by map.c's sink.
 *
 * How: each batch of records goes through the function's stand-in, which
 * only keeps the arguments mapwork.c makes of each record (a record
 * refused there keeps its refusal); the arguments go to the cluster as
 * one task; when the oldest task is done, its outcomes go through
 * mapwork.c again, the stand-in now giving back each remote result (or
 * raising the remote exception with its traceback), so a result is
 * encoded and a failure reported exactly as in this process. At most
 * `window` tasks are in flight; a task holds some 50 ms of work (measured
 * on the workers), so cheap records travel in large batches.
 */
#ifndef CPK_CLI_MAP_MAPDASK_H
#define CPK_CLI_MAP_MAPDASK_H

#include <stddef.h>

#include "map/mapwork.h"
#include "map/pool.h"
#include "map/records.h"

typedef struct {
    const char *address;       /* --dask: URL, HOST:PORT, local[:N]; or
                                  NULL: not this back end */
    int window;                /* --window; 0: 3 per worker thread */
    const void *pickle;        /* the function's pickle, as loaded */
    size_t pickle_len;
    PyObject *runner;          /* _ccloudpickle_dask.Runner, once open */
} cpk_mapdask;

/* Connect (or start the local cluster), check every worker and send the
 * pickle: 0, or the exit status after the message (2: distributed is
 * not importable or ADDRESS is malformed; 4: a worker cannot import
 * ccloudpickle or load the function; 5: the cluster cannot be reached or
 * started). Exits by SIGINT on Ctrl-C (after `on_interrupt`). */
int cpk_mapdask_open(cpk_mapdask *d, void (*on_interrupt)(void));

/* Run the records of `rd` on the cluster; the contract of cpk_pool_run
 * (pool.h). Cancels what is in flight when it stops early. */
int cpk_mapdask_run(cpk_mapdask *d, cpk_records *rd, cpk_mapwork *w,
                    const cpk_sink *sink, int *read_rc, int *read_errno);

/* Disconnect, stop a local cluster; keeps a pending exception. */
void cpk_mapdask_close(cpk_mapdask *d);

#endif
