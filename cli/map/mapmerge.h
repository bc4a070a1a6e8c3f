/* mapmerge.h - cloudpickle-load --merge: the outputs of the shards of one
 * --map run (--shard I/N --with-index) merged back into the output of the
 * unsharded run, byte for byte.
 *
 * Each shard's output holds one line per record, [N,RESULT], N rising
 * (--with-index, map.c); the merge takes the lines of all shards in the
 * order of N and writes RESULT alone, in streaming (memory bounded by the
 * longest line, whatever the number of records), so it needs neither sort
 * nor a locale. A record number found in two files, or out of order in
 * one, is refused: shard outputs of different runs, or of an unsharded
 * run, cannot be mixed silently. Nothing here calls Python.
 */
#ifndef CPK_CLI_MAP_MAPMERGE_H
#define CPK_CLI_MAP_MAPMERGE_H

#include <stdio.h>

/* Merge the files (nfiles >= 1; "-" is standard input) onto `out`: the
 * exit status, every message printed (3 for input that is not such
 * output, 5 when `out` cannot be written). */
int cpk_map_merge(const char *const *files, int nfiles, FILE *out);

#endif
