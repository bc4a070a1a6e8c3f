/* mapwork.h - what cloudpickle-load --map does with one batch of records:
 * decode each record (JSON, or a pickle loaded under the load policy),
 * turn it into arguments, call the function, encode the result
 * (callio.h), and render what each record leaves on the output stream
 * and on standard error. The same code runs in the program itself (-j 1)
 * and in each worker process (pool.c); the order and the verdicts are
 * map.c's.
 *
 * Arguments: a JSON array (or, for pickled records, a tuple) is spread
 * as positional arguments; a JSON object (a dict) as keywords when
 * `kwargs` is set; anything else is the single argument.
 */
#ifndef CPK_CLI_MAP_MAPWORK_H
#define CPK_CLI_MAP_MAPWORK_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "common/bytebuf.h" /* cpk_bytebuf */
#include "map/callio.h"
#include "map/records.h"
#include "scan/policy.h"

/* What became of one record. */
typedef enum {
    CPK_REC_OK = 0,      /* out: the encoded result */
    CPK_REC_RAISED,      /* the function raised: err says so; out holds
                            the error record with --keep-going */
    CPK_REC_UNENCODABLE, /* the result has no form in the format: as
                            RAISED, but the run's status is 4 */
    CPK_REC_BADINPUT,    /* not valid JSON, or a pickle that cannot be
                            loaded: err says so; as RAISED (out: the
                            error record), the run's status 3 or 4 in
                            `status` */
    CPK_REC_EXIT,        /* the function raised SystemExit: as RAISED;
                            `status`: the one it names, 1 for none or 0 */
} cpk_rec_kind;

typedef struct {
    uint8_t kind;     /* cpk_rec_kind */
    int32_t status;   /* CPK_REC_BADINPUT, CPK_REC_EXIT */
    uint32_t out_len; /* bytes of out, err (in record order) */
    uint32_t err_len;
} cpk_rec_result;

/* The results of a batch, in record order. A run that stops at a record
 * (every kind but OK, unless keep_going) has no results after it. */
typedef struct {
    uint64_t first;
    size_t n;
    size_t cap;
    cpk_rec_result *rec;
    cpk_bytebuf out;
    cpk_bytebuf err;
} cpk_results;

void cpk_results_reset(cpk_results *res, uint64_t first);
void cpk_results_free(cpk_results *res);
/* Append a record result (out and err copied): 0, or -1 out of memory. */
int cpk_results_add(cpk_results *res, cpk_rec_kind kind, int status,
                    const char *out, size_t out_len, const char *err,
                    size_t err_len);
/* 1 if the record ends the run (given keep_going). */
int cpk_rec_stops(const cpk_rec_result *r, int keep_going);

typedef struct {
    PyObject *fn;            /* the function (borrowed: the caller's) */
    cpk_in_format in;
    int kwargs;              /* --kwargs */
    int keep_going;
    int error_json;
    int with_index;          /* --with-index: each line [N,RESULT] */
    cpk_result_format result;
    int strict;              /* --strict, for pickled records */
    const cpk_policy *policy;/* --allow/--deny: checked statically ... */
    PyObject *loads_kwargs;  /* ... and at load time: allow=/deny= (and
                                verify_key= with a key) for _loads_exact,
                                or NULL (borrowed) */
    const unsigned char *key; /* --verify or CLOUDPICKLE_VERIFY_KEY: every
                                pickled record must be signed with it;
                                NULL: none (a signed record is refused) */
    size_t keylen;
    const char *key_source;  /* "--verify" or "CLOUDPICKLE_VERIFY_KEY" */
    size_t max_scan;         /* --max-scan-memory */
    const char *input_name;  /* for messages: FILE or "standard input" */
    const volatile int *abandon; /* set: stop after the current record
                                    (pool.c: a forked copy); or NULL */
    int copy_status;         /* the forked copy's exit status: what
                                python3 would exit with after the call */
    /* prepared by cpk_mapwork_init */
    cpk_encoder *enc;
    PyObject *scan_once;     /* json's C scanner (JSONDecoder.scan_once) */
    PyObject *json_loads;    /* json.loads, for its error messages */
    PyObject *module;        /* ccloudpickle (cpk_loads_input) */
    PyObject *loads_exact;   /* ccloudpickle._loads_exact (signed records) */
} cpk_mapwork;

/* Prepare the decoders and the encoder: 0, or -1 with an exception. */
int cpk_mapwork_init(cpk_mapwork *w);
void cpk_mapwork_free(cpk_mapwork *w);

/* Process the records of `b` from index `from` in order into `res` (reset
 * first: res->n records done), stopping after a record that ends the run
 * or, when `budget_ns` > 0, after the record that used up that much time
 * (so that the results of slow records go out as they come). Returns 0,
 * or -1 with an exception that must end the program (KeyboardInterrupt;
 * MemoryError when even the report of it could not be made). */
int cpk_mapwork_batch(cpk_mapwork *w, const cpk_batch *b, size_t from,
                      long long budget_ns, cpk_results *res);

#endif
