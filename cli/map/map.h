/* map.h - cloudpickle-load --map: the loaded function as a filter over a
 * stream of records (man/cloudpickle-load.1, "MAP MODE").
 *
 * The input is cut into records (records.c), each record goes through the
 * function (mapwork.c) in this process, in -j worker processes
 * (pool.c) or on a dask cluster (mapdask.c), and the output is written
 * here in input order, flushed whenever the program is about to wait for
 * more input, with the
 * progress line (progress.c). What the function prints goes to standard
 * error: standard output carries only the results.
 */
#ifndef CPK_CLI_MAP_MAP_H
#define CPK_CLI_MAP_MAP_H

#include "map/mapdask.h"
#include "map/mapwork.h"

typedef struct {
    cpk_mapwork work;        /* the function, formats and policy */
    const char *input;       /* --input: FILE, or "-" (standard input) */
    const char *result_file; /* --result-file, or NULL: standard output */
    int jobs;                /* 1: in this process; more: workers */
    int progress;            /* -1: when standard error is a terminal */
    size_t max_record;       /* --max-size: the longest record */
    uint64_t shard_i, shard_n; /* --shard I/N; shard_n 0: no shards */
    cpk_mapdask dask;        /* --dask: the calls run on a cluster */
} cpk_map_options;

/* Run the map to the end of the input or the first record that stops it:
 * the exit status, every message printed. A KeyboardInterrupt (SIGINT)
 * stops the workers, removes the unfinished --result-file and kills the
 * program by SIGINT; a closed standard output (`| head -1`) ends it by
 * SIGPIPE, quietly, as any filter. Needs the interpreter; the function
 * is loaded (o->work.fn). */
int cpk_map_run(cpk_map_options *o);

/* The number of worker processes -j 0 means: one per processor this
 * process may run on. */
int cpk_map_default_jobs(void);

#endif
