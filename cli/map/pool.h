/* pool.h - cloudpickle-load --map -j N: N worker processes forked after
 * the function was loaded (so it is loaded once, and each worker has it
 * without unpickling), fed batches of records through pipes; results
 * come back out of order and are handed to the sink in input order.
 *
 * Bounded: each worker has at most two batches in flight, a batch is at
 * most a few hundred KiB of records, so the memory used does not grow
 * with the input. The batch size adapts to the cost of a record (about
 * 10 ms of work per batch): cheap records travel in large batches, slow
 * ones one by one, which keeps workers busy with uneven costs. A partial
 * batch is sent at once when no more input is ready, so a slow producer
 * sees its results promptly.
 *
 * Workers ignore SIGINT (the program stops them), die with the program
 * (PR_SET_PDEATHSIG), and exit when their input pipe closes. A worker
 * that dies or exits while it holds records is reported, after the
 * results before them were written, with the records it held.
 */
#ifndef CPK_CLI_MAP_POOL_H
#define CPK_CLI_MAP_POOL_H

#include "map/mapwork.h"
#include "map/records.h"

/* Where results go, in input order (map.c). */
typedef struct {
    void *ctx;
    /* One batch's results, and the input consumed up to its last record:
     * 0 to go on, 1 when the run stops here (a record that ends it, a
     * failed write: ctx knows), -1 with an exception (SIGINT while
     * writing). */
    int (*emit)(void *ctx, const cpk_results *res, uint64_t end);
    /* Before the pool waits: write what is buffered. 0, 1 to stop, or -1
     * with an exception. */
    int (*flush)(void *ctx);
} cpk_sink;

enum {
    CPK_RUN_DONE = 0,    /* the input ended, every result emitted */
    CPK_RUN_STOPPED = 1, /* the sink stopped the run */
    CPK_RUN_INPUT = 2,   /* the reader failed at the next record (*read_rc:
                            CPK_READ_TOO_BIG, CPK_READ_BAD, or -1 with
                            *read_errno); every record before emitted */
    CPK_RUN_WORKER = 3,  /* a worker died: said on stderr */
    CPK_RUN_ERROR = -1,  /* a Python exception (KeyboardInterrupt) */
};

/* Run `jobs` (>= 2) workers over the records of `rd`. `keep_fds`: the
 * descriptors the workers must not hold (the output), `nkeep` of them.
 * Every worker is gone when this returns. */
int cpk_pool_run(int jobs, cpk_records *rd, cpk_mapwork *w,
                 const cpk_sink *sink, const int *close_fds, int nclose,
                 int *read_rc, int *read_errno);

#endif
