/* cloudpickle-load - describe a pickle written by ccloudpickle or
 * cloudpickle without loading it, or load it and describe or call the
 * object.
 *
 *     cloudpickle-load [options] [FILE|-]            static report
 *     cloudpickle-load [options] --load [FILE|-]     live report
 *     cloudpickle-load [options] --call FILE|- [-- ARG... NAME=VALUE...]
 *     cloudpickle-load [options] --call --args-json FILE|- FILE|-
 *
 * Options and exit statuses: man/cloudpickle-load.1. The input is read
 * and scanned by scancheck.c (with src/scan/pkscan.c) before anything else:
 * malformed input and, with --strict, unwanted imports are refused there.
 * The static report (describe.c, describe_json.c) needs no interpreter and
 * starts none. --load's live report is report.c's; --call arguments are
 * parsed by callargs.c (from argv, --args-json or --args-pickle, whose
 * pickle is read and scanned as the main one is), the result encoded by
 * callio.c; the interpreter is host.c's, a --result-file output.c's.
 *
 * Standard output is the program's output: the report, or with --call
 * what the called function prints and then its result (repr() by
 * default), in that order. A pickled result on standard output is all it
 * carries: the function's prints then go to standard error. What runs
 * while the pickle is loaded (imports of the modules it names) prints to
 * standard error.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytebuf.h" /* the result of --call */
#include "load/callargs.h"
#include "map/callio.h"
#include "ccloudpickle.h"
#include "load/describe.h"
#include "common/host.h"
#include "common/input.h"
#include "common/keyfile.h"
#include "map/map.h"
#include "map/mapmerge.h" /* --merge */
#include "common/message.h"
#include "common/output.h"
#include "scan/pkscan.h" /* pkscan_report */
#include "scan/policy.h"
#include "common/pycompat.h" /* Py_NewRef before 3.10 */
#include "map/records.h" /* --in: cpk_in_format */
#include "load/report.h"
#include "common/safetext.h"
#include "common/scancheck.h"
#include "map/signed.h"
#include "common/stdopts.h" /* -h, -V */

enum {
    OPT_CALL = 256, /* long-only options: above any char */
    OPT_MAX_SIZE,
    OPT_JSON,
    OPT_LOAD,
    OPT_STRICT,
    OPT_VERIFY,
    OPT_ALLOW,
    OPT_DENY,
    OPT_MAX_SCAN,
    OPT_MAP,
    OPT_INPUT,
    OPT_IN,
    OPT_KWARGS,
    OPT_PROGRESS,
    OPT_NO_PROGRESS,
    OPT_KEEP_GOING,
    OPT_SHARD,
    OPT_WITH_INDEX,
    OPT_MERGE,
    OPT_ARGS_JSON,
    OPT_ARGS_PICKLE,
    OPT_RESULT,
    OPT_RESULT_FILE,
    OPT_ERROR_JSON,
    OPT_DASK,
    OPT_WINDOW,
};

static const struct option longopts[] = {
    {"call", no_argument, NULL, OPT_CALL},
    {"json", no_argument, NULL, OPT_JSON},
    {"load", no_argument, NULL, OPT_LOAD},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"verify", required_argument, NULL, OPT_VERIFY},
    {"allow", required_argument, NULL, OPT_ALLOW},
    {"deny", required_argument, NULL, OPT_DENY},
    {"max-size", required_argument, NULL, OPT_MAX_SIZE},
    {"max-scan-memory", required_argument, NULL, OPT_MAX_SCAN},
    {"map", no_argument, NULL, OPT_MAP},
    {"input", required_argument, NULL, OPT_INPUT},
    {"in", required_argument, NULL, OPT_IN},
    {"kwargs", no_argument, NULL, OPT_KWARGS},
    {"jobs", required_argument, NULL, 'j'},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"with-index", no_argument, NULL, OPT_WITH_INDEX},
    {"merge", no_argument, NULL, OPT_MERGE},
    {"args-json", required_argument, NULL, OPT_ARGS_JSON},
    {"args-pickle", required_argument, NULL, OPT_ARGS_PICKLE},
    {"result", required_argument, NULL, OPT_RESULT},
    {"result-file", required_argument, NULL, OPT_RESULT_FILE},
    {"error-json", no_argument, NULL, OPT_ERROR_JSON},
    {"dask", required_argument, NULL, OPT_DASK},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"force", no_argument, NULL, 'f'},
    {"path", required_argument, NULL, 'P'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

typedef struct {
    int call;
    int load;   /* --load: the live report (unpickles) */
    int json;   /* --json: the static report as JSON */
    int strict;
    const char *file; /* "-" for standard input */
    const char *name; /* for messages: FILE or "standard input" */
    char **args;
    int nargs;
    const char **paths;
    int npaths;
    size_t max_size; /* refuse longer input */
    size_t max_scan; /* memory the static scan may hold */
    const char *verify;     /* key file: --verify, else the environment's */
    const char *key_source; /* "--verify" or "CLOUDPICKLE_VERIFY_KEY" */
    unsigned char *key;     /* its key, read before anything else */
    size_t keylen;
    const char **allow;     /* --allow patterns, in order */
    int nallow;
    const char **deny;      /* --deny patterns */
    int ndeny;
    cpk_policy *policy;     /* both, as one rule set */
    int map;                /* --map */
    const char *input;      /* --input, or "-" */
    cpk_in_format in;       /* --in */
    int kwargs;             /* --kwargs */
    int jobs;               /* -j; 0: one per processor */
    int progress;           /* -1 auto, 0 --no-progress, 1 --progress */
    int keep_going;         /* --keep-going */
    const char *shard;      /* --shard I/N as given, or NULL ... */
    uint64_t shard_i, shard_n; /* ... and its numbers */
    int with_index;         /* --with-index */
    int merge;              /* --merge: merge shards' outputs */
    const char *dask;       /* --dask ADDRESS, or NULL */
    int window;             /* --window; 0: the default */
    int result_set;         /* --result was given */
    /* --call's input and output */
    const char *args_json;   /* --args-json FILE|-, or NULL */
    const char *args_pickle; /* --args-pickle FILE|-, or NULL */
    char *args_name;         /* "--args-json FILE" for messages (malloc'd) */
    cpk_result_format result; /* --result, CPK_RESULT_REPR by default */
    const char *result_file; /* --result-file FILE; NULL: standard output */
    int error_json;          /* --error-json: an exception as one JSON line */
    int force;               /* -f: a pickled result even to a terminal */
} options;

static void
options_free(options *o)
{
    free(o->paths);
    free(o->allow);
    free(o->deny);
    cpk_policy_free(o->policy);
    cpk_keyfile_free(o->key, o->keylen);
    free(o->args_name);
}

static void
usage(void)
{
    printf("Usage: %s [OPTION]... [FILE]\n"
           "  or:  %s [OPTION]... --load [FILE]\n"
           "  or:  %s [OPTION]... --call FILE [-- ARG... NAME=VALUE...]\n"
           "  or:  %s [OPTION]... --call --args-json=JSONFILE FILE\n"
           "  or:  %s [OPTION]... --map FILE [--input=RECORDS]\n"
           "  or:  %s --merge SHARD-OUTPUT...\n"
           "Describe a pickle written by ccloudpickle or cloudpickle (from "
           "FILE, or standard\ninput when FILE is - or absent) without "
           "loading it: what it imports (dangerous\nnames flagged), the "
           "functions and classes it carries. Or load it and describe\n"
           "the object (--load), call it (--call), or call it once per "
           "record of a stream\n(--map).\n"
           "\n"
           "      --json           print the report as one JSON document\n"
           "      --verify=KEYFILE check the signature of a signed pickle "
           "with the key in\n"
           "                       KEYFILE before anything else; refuse "
           "unsigned input\n"
           "                       (CLOUDPICKLE_VERIFY_KEY=KEYFILE in the "
           "environment is\n"
           "                       --verify for every run)\n"
           "      --allow=PATTERN  permit only reconstructors, plain data and "
           "what PATTERN\n"
           "                       (module, module.name, prefix*) names "
           "(repeatable)\n"
           "      --deny=PATTERN   refuse what PATTERN names (repeatable; "
           "wins over --allow)\n"
           "      --strict         refuse (exit 3) a pickle importing a "
           "dangerous name or\n"
           "                       anything but reconstructors and plain "
           "data\n"
           "      --load           load the pickle (this runs code it "
           "carries) and describe\n"
           "                       the object\n"
           "      --call           load the pickle, call the object with "
           "the ARGs and print\n"
           "                       the result (repr() unless --result says "
           "otherwise); an\n"
           "                       ARG starting with [ ( { a quote or a "
           "digit must be a\n"
           "                       Python literal, NAME=VALUE passes a "
           "keyword, other ARGs\n"
           "                       are strings (see the man page)\n"
           "      --args-json=FILE the arguments of --call from FILE (- for "
           "standard input)\n"
           "                       instead of ARGs: a JSON array, or an "
           "object with \"args\"\n"
           "                       (an array) and \"kwargs\" (an object)\n"
           "      --args-pickle=FILE\n"
           "                       the arguments of --call from a pickled "
           "(args, kwargs)\n"
           "                       tuple, checked and loaded as the pickle "
           "is (--strict,\n"
           "                       --allow, --deny, --verify apply)\n"
           "      --result=FORMAT  write the result of --call as repr "
           "(default), json (one\n"
           "                       line of strict JSON), pickle, or none\n"
           "      --result-file=FILE\n"
           "                       write the result to FILE (atomically) "
           "instead of\n"
           "                       standard output\n"
           "      --error-json     an exception of the called function as "
           "one JSON object\n"
           "                       (type, message, traceback) on stderr "
           "instead of the\n"
           "                       traceback\n"
           "  -f, --force          write a pickled result even to a "
           "terminal\n"
           "      --map            load the pickle and call the object once "
           "per record read\n"
           "                       from standard input (or --input), one "
           "result per record,\n"
           "                       in input order (--result json by "
           "default): a JSON array\n"
           "                       is spread as arguments, any other value "
           "is the argument\n"
           "      --input=FILE     read the records of --map from FILE\n"
           "      --in=FORMAT      records are json (JSON Lines, the "
           "default) or pickle (a\n"
           "                       stream of pickles; a tuple is spread as "
           "arguments)\n"
           "      --kwargs         a JSON object (a dict) record is passed "
           "as keywords\n"
           "      --dask=ADDRESS   run the calls on the dask cluster at "
           "ADDRESS\n"
           "                       (tcp://HOST:PORT), or on a local one of N "
           "worker\n"
           "                       processes (local[:N])\n"
           "      --window=N       with --dask: at most N batches of "
           "records in flight\n"
           "                       (default 3 per worker thread)\n"
           "  -j, --jobs=N         run the records in N worker processes "
           "(0: one per\n"
           "                       processor; default 1, in this "
           "process)\n"
           "      --keep-going     write an error record for a failing "
           "record and go on\n"
           "                       (exit 1 at the end) instead of "
           "stopping\n"
           "      --shard=I/N      process only the records whose number "
           "less 1 is I modulo N\n"
           "                       (0 <= I < N): one input for a job "
           "array\n"
           "      --with-index     write each result of --map (--result "
           "json) as [N,RESULT],\n"
           "                       N its record number\n"
           "      --merge          merge the --with-index outputs of shards "
           "given as files\n"
           "                       into the output of the unsharded run\n"
           "      --progress       show progress on stderr even when it is "
           "no terminal\n"
           "      --no-progress    never show progress\n"
           "      --max-size=SIZE  refuse input longer than SIZE bytes (K, M, "
           "G, T suffixes,\n"
           "                       powers of 1024; default 1G)\n"
           "      --max-scan-memory=SIZE\n"
           "                       refuse input whose check needs more "
           "than SIZE bytes of\n"
           "                       memory (same suffixes; default: the "
           "memory available,\n"
           "                       at least 2G)\n"
           "  -P, --path=DIR       also search DIR for modules (repeatable; "
           "the current\n"
           "                       directory is searched last unless given "
           "here)\n"
           "  -h, --help           show this help and exit\n"
           "  -V, --version        show the version and exit\n"
           "\n"
           "Exit status: 0 success, 1 the called function raised (traceback "
           "on stderr),\n2 usage error, 3 bad input (not a pickle, "
           "truncated, wrong Python version,\nrefused by --strict, "
           "arguments that are not valid JSON), 4 the pickle needs a\n"
           "module or object that cannot be loaded, or the result cannot be "
           "written in\nthe --result format, 5 the output could not be "
           "written. A called function's\nSystemExit(n) exits with n.\n"
           "\nLoading a pickle runs code it carries: only --load or --call "
           "pickles from\nsources you trust. Without them nothing is "
           "loaded or run.\n",
           cpk_prog, cpk_prog, cpk_prog, cpk_prog, cpk_prog, cpk_prog);
}

/* The checks of --call's input and output options, after getopt: 0 or
 * the usage error's exit status. */
static int
call_io_options(options *o)
{
    const char *src = o->args_json ? "--args-json" : "--args-pickle";
    const char *src_file = o->args_json ? o->args_json : o->args_pickle;
    if (o->args_json != NULL && o->args_pickle != NULL)
        return cpk_usage_error("--args-json and --args-pickle are mutually "
                               "exclusive");
    if (src_file != NULL) {
        if (o->nargs > 0)
            return cpk_usage_error("%s and arguments after FILE ('%s') are "
                                   "mutually exclusive",
                                   src, o->args[0]);
        if (strcmp(src_file, "-") == 0 && strcmp(o->file, "-") == 0)
            return cpk_usage_error("the pickle and %s cannot both come "
                                   "from standard input",
                                   src);
        if (o->args_pickle != NULL && strcmp(src_file, "-") == 0 &&
            isatty(STDIN_FILENO))
            return cpk_usage_error("--args-pickle: refusing to read a "
                                   "pickle from a terminal (give a FILE or "
                                   "a pipe)");
        if (asprintf(&o->args_name, "%s %s", src, src_file) < 0) {
            o->args_name = NULL;
            cpk_error("out of memory");
            return CPK_EXIT_SYSTEM;
        }
    }
    if (o->result_file != NULL && strcmp(o->result_file, "-") == 0)
        o->result_file = NULL;
    if (o->result_file != NULL && o->result == CPK_RESULT_NONE)
        return cpk_usage_error("--result-file has nothing to write with "
                               "--result none");
    /* Checked while fd 1 is still the standard output: a name of the file
     * it is means standard output, terminal refusal included (as for
     * cloudpickle-dump -o). */
    if (o->result_file != NULL) {
        int e = cpk_output_check(o->result_file);
        if (e == CPK_OUTPUT_IS_STDOUT)
            o->result_file = NULL;
        else if (e == EISDIR) {
            cpk_error("%s: is a directory", o->result_file);
            return CPK_EXIT_SYSTEM;
        }
        else if (e != 0) {
            cpk_error("%s: cannot create a file next to it: %s",
                      o->result_file, strerror(e));
            return CPK_EXIT_SYSTEM;
        }
    }
    if ((o->call || o->map) && o->result == CPK_RESULT_PICKLE &&
        o->result_file == NULL &&
        !o->force && isatty(STDOUT_FILENO))
        return cpk_usage_error("refusing to write a pickle to a terminal "
                               "(use --result-file FILE, a pipe, or -f)");
    return 0;
}

/* "I/N" with 0 <= I < N, both decimal: 0, or -1. */
static int
parse_shard(const char *arg, uint64_t *i, uint64_t *n)
{
    const char *p = arg;
    uint64_t v[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        if (*p < '0' || *p > '9')
            return -1;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (v[k] > (UINT64_MAX - 9) / 10)
                return -1;
            v[k] = v[k] * 10 + (uint64_t)(*p - '0');
        }
        if (*p != (k == 0 ? '/' : '\0'))
            return -1;
        p++;
    }
    if (v[1] == 0 || v[0] >= v[1])
        return -1;
    *i = v[0];
    *n = v[1];
    return 0;
}

/* A group helper's return for an option not of its group. */
#define NOT_IN_GROUP (-1)

/* The defaults and the option arrays: 0, or CPK_EXIT_SYSTEM. */
static int
options_init(int argc, options *o)
{
    memset(o, 0, sizeof(*o));
    o->max_size = CPK_INPUT_LIMIT;
    o->max_scan = pkscan_default_limit();
    o->input = "-";
    o->jobs = 1;
    o->progress = -1;
    o->paths = calloc((size_t)argc, sizeof(char *));
    o->allow = calloc((size_t)argc, sizeof(char *));
    o->deny = calloc((size_t)argc, sizeof(char *));
    o->policy = cpk_policy_new();
    if (o->paths == NULL || o->allow == NULL || o->deny == NULL ||
        o->policy == NULL) {
        cpk_error("out of memory");
        return CPK_EXIT_SYSTEM;
    }
    return 0;
}

/* One option of --map's (and --merge): 0, the usage error's exit status,
 * or NOT_IN_GROUP. */
static int
map_option(int c, options *o)
{
    switch (c) {
    case OPT_MAP:
        o->map = 1;
        break;
    case OPT_INPUT:
        o->input = optarg;
        break;
    case OPT_IN:
        if (strcmp(optarg, "json") == 0)
            o->in = CPK_IN_JSON;
        else if (strcmp(optarg, "pickle") == 0)
            o->in = CPK_IN_PICKLE;
        else
            return cpk_usage_error("invalid format '%s' for --in (json "
                                   "or pickle)",
                                   optarg);
        break;
    case OPT_KWARGS:
        o->kwargs = 1;
        break;
    case 'j': {
        char *end;
        errno = 0;
        long n = strtol(optarg, &end, 10);
        if (errno != 0 || end == optarg || *end != '\0' || n < 0 ||
            n > 256)
            return cpk_usage_error("invalid number of jobs '%s' for -j "
                                   "(0 to 256; 0: one per processor)",
                                   optarg);
        o->jobs = (int)n;
        break;
    }
    case OPT_PROGRESS:
    case OPT_NO_PROGRESS:
        o->progress = c == OPT_PROGRESS;
        break;
    case OPT_DASK:
        if (*optarg == '\0')
            return cpk_usage_error("--dask needs an address "
                                   "(tcp://HOST:PORT, or local[:N])");
        o->dask = optarg;
        break;
    case OPT_WINDOW: {
        char *end;
        errno = 0;
        long n = strtol(optarg, &end, 10);
        if (errno != 0 || end == optarg || *end != '\0' || n < 1 ||
            n > 100000)
            return cpk_usage_error("invalid window '%s' for --window "
                                   "(1 to 100000)",
                                   optarg);
        o->window = (int)n;
        break;
    }
    case OPT_KEEP_GOING:
        o->keep_going = 1;
        break;
    case OPT_SHARD:
        if (parse_shard(optarg, &o->shard_i, &o->shard_n) < 0)
            return cpk_usage_error("invalid shard '%s' for --shard "
                                   "(I/N: shard I of N, 0 <= I < N)",
                                   optarg);
        o->shard = optarg;
        break;
    case OPT_WITH_INDEX:
        o->with_index = 1;
        break;
    case OPT_MERGE:
        o->merge = 1;
        break;
    default:
        return NOT_IN_GROUP;
    }
    return 0;
}

/* One option of --call's input and output (--result and the like are
 * --map's too): 0, the usage error's exit status, or NOT_IN_GROUP.
 * *call_only is the first option only --call takes. */
static int
call_option(int c, options *o, const char **call_only)
{
    switch (c) {
    case OPT_ARGS_JSON:
        o->args_json = optarg;
        *call_only = *call_only ? *call_only : "--args-json";
        break;
    case OPT_ARGS_PICKLE:
        o->args_pickle = optarg;
        *call_only = *call_only ? *call_only : "--args-pickle";
        break;
    case OPT_RESULT:
        if (cpk_result_format_parse(optarg, &o->result) < 0)
            return cpk_usage_error("invalid --result '%s' (repr, json, "
                                   "pickle or none)",
                                   optarg);
        o->result_set = 1;
        break;
    case OPT_RESULT_FILE:
        o->result_file = optarg;
        break;
    case OPT_ERROR_JSON:
        o->error_json = 1;
        break;
    case 'f':
        o->force = 1;
        break;
    default:
        return NOT_IN_GROUP;
    }
    return 0;
}

/* Any other option, an unknown one included: 0, or an exit status (-h
 * and -V exit here). */
static int
other_option(int c, char **argv, options *o)
{
    switch (c) {
    case OPT_CALL:
        o->call = 1;
        break;
    case OPT_LOAD:
        o->load = 1;
        break;
    case OPT_JSON:
        o->json = 1;
        break;
    case OPT_STRICT:
        o->strict = 1;
        break;
    case OPT_VERIFY:
        o->verify = optarg;
        o->key_source = "--verify";
        break;
    case OPT_ALLOW:
    case OPT_DENY: {
        const char *why = NULL;
        if (cpk_policy_add(o->policy, c == OPT_ALLOW, optarg, &why) < 0)
            return cpk_usage_error("invalid pattern '%s' for --%s: %s",
                                   optarg,
                                   c == OPT_ALLOW ? "allow" : "deny",
                                   why ? why : "out of memory");
        if (c == OPT_ALLOW)
            o->allow[o->nallow++] = optarg;
        else
            o->deny[o->ndeny++] = optarg;
        break;
    }
    case OPT_MAX_SIZE:
        if (cpk_parse_size(optarg, &o->max_size) < 0 || o->max_size == 0)
            return cpk_usage_error("invalid size '%s' for --max-size "
                                   "(bytes, or with a K, M, G or T "
                                   "suffix)",
                                   optarg);
        break;
    case OPT_MAX_SCAN:
        if (cpk_parse_size(optarg, &o->max_scan) < 0 || o->max_scan == 0)
            return cpk_usage_error("invalid size '%s' for "
                                   "--max-scan-memory (bytes, or with a "
                                   "K, M, G or T suffix)",
                                   optarg);
        break;
    case 'P':
        o->paths[o->npaths++] = optarg;
        break;
    case 'h':
        cpk_stdopts_help(usage);
    case 'V':
        cpk_stdopts_version();
    default:
        return cpk_option_error(c, argv, longopts);
    }
    return 0;
}

/* The checks of --merge, after getopt, and its files: 0 or the usage
 * error's exit status. */
static int
merge_options(int argc, char **argv, options *o)
{
    if (o->map || o->call || o->load || o->json)
        return cpk_usage_error("--merge takes only the files of "
                               "--with-index runs");
    /* Never ignored: a --result-file left unwritten would look like
     * the merge's output (merged output goes to standard output). */
    const char *no =
        o->result_file              ? "--result-file"
        : o->result_set             ? "--result"
        : o->error_json             ? "--error-json"
        : strcmp(o->input, "-") != 0 ? "--input"
        : o->keep_going             ? "--keep-going"
        : o->shard                  ? "--shard"
        : o->with_index             ? "--with-index"
        : o->dask                   ? "--dask"
        : o->jobs != 1              ? "-j"
                                    : NULL;
    if (no != NULL)
        return cpk_usage_error("%s cannot be combined with --merge%s",
                               no, o->result_file
                                       ? " (it writes on standard "
                                         "output)"
                                       : "");
    if (optind >= argc)
        return cpk_usage_error("--merge needs the files to merge");
    o->args = argv + optind;
    o->nargs = argc - optind;
    return 0;
}

/* The checks of which options go with which mode (--call, --load, --map,
 * the static report), after getopt, and the defaults that depend on the
 * mode: 0 or the usage error's exit status. */
static int
mode_options(options *o)
{
    if (o->call && o->load)
        return cpk_usage_error("--load and --call are mutually exclusive");
    if (o->map && (o->call || o->load))
        return cpk_usage_error("--%s and --map are mutually exclusive",
                               o->call ? "call" : "load");
    if (o->json && o->map)
        return cpk_usage_error("--json is for the static report; it cannot "
                               "be combined with --map");
    if (!o->map) {
        const char *only =
            strcmp(o->input, "-") != 0 ? "--input"
            : o->in != CPK_IN_JSON     ? "--in"
            : o->kwargs                ? "--kwargs"
            : o->jobs != 1             ? "-j"
            : o->progress >= 0         ? (o->progress ? "--progress"
                                                      : "--no-progress")
            : o->keep_going            ? "--keep-going"
            : o->shard                 ? "--shard"
            : o->with_index            ? "--with-index"
            : o->dask                  ? "--dask"
                                       : NULL;
        if (only != NULL)
            return cpk_usage_error("%s is for --map", only);
    }
    if (!o->map && !o->call) {
        const char *only = o->result_set        ? "--result"
                           : o->result_file     ? "--result-file"
                           : o->error_json      ? "--error-json"
                           : o->force           ? "--force"
                                                : NULL;
        if (only != NULL)
            return cpk_usage_error("%s is for --call and --map", only);
    }
    if (o->window != 0 && o->dask == NULL)
        return cpk_usage_error("--window is for --dask");
    if (o->dask != NULL && o->jobs != 1)
        return cpk_usage_error("-j and --dask are mutually exclusive (the "
                               "cluster's workers run the records)");
    if (o->map && !o->result_set)
        o->result = CPK_RESULT_JSON; /* JSON Lines in, JSON Lines out */
    if (o->with_index && o->result != CPK_RESULT_JSON)
        return cpk_usage_error("--with-index is for --result json");
    if (o->jobs == 0)
        o->jobs = cpk_map_default_jobs();
    if (o->json && (o->call || o->load))
        return cpk_usage_error("--json is for the static report; it cannot "
                               "be combined with --%s",
                               o->call ? "call" : "load");
    return 0;
}

/* FILE and the arguments after it, and the checks of where the pickle
 * and the records come from: 0 or the usage error's exit status. */
static int
operand_options(int argc, char **argv, options *o, const char *call_only)
{
    o->file = optind < argc ? argv[optind++] : "-";
    o->args = argv + optind;
    o->nargs = argc - optind;
    if (o->nargs > 0 && !o->call)
        return cpk_usage_error("unexpected argument '%s' (arguments are for "
                               "--call)",
                               o->args[0]);
    o->name = strcmp(o->file, "-") == 0 ? "standard input" : o->file;
    if (o->map && strcmp(o->file, "-") == 0 && strcmp(o->input, "-") == 0)
        return cpk_usage_error("the pickle and the records cannot both come "
                               "from standard input (give the pickle as "
                               "FILE, or the records with --input)");
    if (o->map && o->in == CPK_IN_PICKLE && strcmp(o->input, "-") == 0 &&
        isatty(STDIN_FILENO))
        return cpk_usage_error("refusing to read pickled records from a "
                               "terminal");
    if (strcmp(o->file, "-") == 0 && isatty(STDIN_FILENO))
        return cpk_usage_error("refusing to read a pickle from a terminal "
                               "(give a FILE or a pipe)");
    if (call_only != NULL && !o->call)
        return cpk_usage_error("%s is for --call", call_only);
    return 0;
}

/* The verification key, read before the input: 0 or CPK_EXIT_USAGE. */
static int
read_verify_key(options *o)
{
    /* CLOUDPICKLE_VERIFY_KEY makes verification mandatory, --verify names
     * the key itself. A refused key file is a usage error, as for
     * cloudpickle-dump --sign. */
    const char *env_key = getenv("CLOUDPICKLE_VERIFY_KEY");
    if (o->verify == NULL && env_key != NULL && *env_key != '\0') {
        o->verify = env_key;
        o->key_source = "CLOUDPICKLE_VERIFY_KEY";
    }
    if (o->verify != NULL) {
        char why[256];
        if (cpk_keyfile_read(o->verify, &o->key, &o->keylen, why,
                             sizeof(why)) < 0) {
            cpk_error("%s: %s", o->verify, why);
            return CPK_EXIT_USAGE;
        }
    }
    return 0;
}

static int
parse_options(int argc, char **argv, options *o)
{
    int bad = options_init(argc, o);
    if (bad != 0)
        return bad;
    int c;
    const char *call_only = NULL; /* the first option only --call takes */
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":fj:P:hV", longopts, NULL)) != -1) {
        bad = map_option(c, o);
        if (bad == NOT_IN_GROUP)
            bad = call_option(c, o, &call_only);
        if (bad == NOT_IN_GROUP)
            bad = other_option(c, argv, o);
        if (bad != 0)
            return bad;
    }
    if (o->merge)
        return merge_options(argc, argv, o);
    bad = mode_options(o);
    if (bad == 0)
        bad = operand_options(argc, argv, o, call_only);
    if (bad == 0)
        bad = call_io_options(o);
    if (bad != 0)
        return bad;
    /* Usage errors before the input is read. */
    bad = cpk_host_check_paths(o->npaths, o->paths);
    if (bad != 0)
        return bad;
    return read_verify_key(o);
}

/* Did the pending exception come from bytes that are no valid pickle (or
 * not one for this version), rather than from the objects it names? The
 * scan refused the malformed ones already; these are what only CPython
 * finds out by looking things up (an EXT code copyreg lacks, a
 * reconstructor this version lacks, code of another Python). All of those
 * are raised by C code: an exception with a traceback went through
 * Python code the pickle ran (a function carried by value, a
 * __setstate__), which may raise any class with any message, so it is
 * never taken for bad input. */
static int
malformed(PyObject *type, PyObject *tb, const char *line)
{
    if (tb != NULL)
        return 0;
    PyObject *pickle = PyImport_ImportModule("_pickle");
    PyObject *unpickling_error =
        pickle ? PyObject_GetAttrString(pickle, "UnpicklingError") : NULL;
    PyErr_Clear();
    int bad =
        PyErr_GivenExceptionMatches(type, PyExc_EOFError) ||
        PyErr_GivenExceptionMatches(type, PyExc_UnicodeDecodeError) ||
        (unpickling_error != NULL &&
         PyErr_GivenExceptionMatches(type, unpickling_error)) ||
        (PyErr_GivenExceptionMatches(type, PyExc_ValueError) && line &&
         (strstr(line, "unsupported pickle protocol") ||
          /* EXT1/2/4 naming a code copyreg does not have */
          strncmp(line, "ValueError: unregistered extension code ", 40) ==
              0)) ||
        /* unpickler.c's own_name(): a reconstructor this version lacks. */
        (PyErr_GivenExceptionMatches(type, PyExc_AttributeError) && line &&
         strstr(line, "written by a newer version?"));
    Py_XDECREF(unpickling_error);
    Py_XDECREF(pickle);
    return bad;
}

/* 1 if `type` is ccloudpickle.PolicyError (or a subclass): the import
 * policy's own refusal (src/engine/loadpolicy.c). */
static int
policy_error(PyObject *type)
{
    PyObject *cpk = PyImport_ImportModule("ccloudpickle");
    PyObject *cls = cpk ? PyObject_GetAttrString(cpk, "PolicyError") : NULL;
    PyErr_Clear();
    int r = cls != NULL && PyErr_GivenExceptionMatches(type, cls);
    Py_XDECREF(cls);
    Py_XDECREF(cpk);
    return r;
}

/* Map a failed load of the input `name` to a message and exit status. */
static int
load_failed(const options *o, const char *name)
{
    cpk_host_exit_if_interrupted(NULL);
    char *line = cpk_host_exception_line();
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    int status = CPK_EXIT_OBJECT;
    const char *what = "cannot load";
    const char *detail = line ? line : "error";
    char venv[PATH_MAX + 200] = "";
    if (malformed(type, tb, line)) {
        status = CPK_EXIT_INPUT;
        /* A code object of another Python: the pickle is fine, this
         * interpreter is not the one for it. */
        what = line && strstr(line, "compiled by Python") ? "bad pickle"
               /* find_class under --allow/--deny (loadpolicy.c): known
                * by its class, raised by C code (malformed() checked) */
               : (o->nallow > 0 || o->ndeny > 0) && policy_error(type)
                   ? "refused by --allow/--deny"
                   : "not a valid pickle";
        /* "UnpicklingError: msg" says no more than "not a valid pickle:
         * msg", nor does the AttributeError of a missing reconstructor. */
        const char *colon = strstr(detail, ": ");
        if (colon != NULL &&
            (strncmp(detail, "UnpicklingError:", 16) == 0 ||
             strncmp(detail, "PolicyError:", 12) == 0 ||
             strncmp(detail, "SignatureError:", 15) == 0 ||
             strncmp(detail, "AttributeError:", 15) == 0))
            detail = colon + 2;
    }
    else if (PyErr_GivenExceptionMatches(type, PyExc_ImportError)) {
        what = "cannot load, a module is missing";
        if (cpk_host_venv_note() != NULL)
            snprintf(venv, sizeof(venv), " (ignored %s; run "
                     "'deactivate')",
                     cpk_host_venv_note());
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    /* the detail is the pickle's to choose (an exception its code raised,
     * an attribute name it spelled): escaped as the report's text is */
    char *safe = NULL;
    size_t safe_len = 0;
    FILE *mem = open_memstream(&safe, &safe_len);
    if (mem != NULL) {
        cpk_put_safe(mem, detail, strlen(detail));
        if (fclose(mem) != 0) {
            free(safe);
            safe = NULL;
        }
    }
    cpk_error("%s: %s: %s%s", name, what, safe ? safe : "error", venv);
    free(safe);
    free(line);
    return status;
}

/* Exit status for a SystemExit raised by the called function, printing its
 * message if it has one, as the interpreter would. */
static int
system_exit_status(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *code = value ? PyObject_GetAttrString(value, "code") : NULL;
    int status = CPK_EXIT_RAISED;
    if (code == NULL || code == Py_None)
        status = CPK_EXIT_OK;
    else if (PyLong_Check(code)) {
        /* As _Py_HandleSystemExit: the code as a C long, truncated to
         * int; one past a long (OverflowError) is -1, status 255. */
        long v = PyLong_AsLong(code);
        if (v == -1 && PyErr_Occurred())
            PyErr_Clear();
        status = (int)v & 0xff;
    }
    else {
        PyObject *s = PyObject_Str(code);
        const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
        if (msg != NULL)
            fprintf(stderr, "%s\n", msg);
        Py_XDECREF(s);
    }
    PyErr_Clear();
    Py_XDECREF(code);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return status;
}

/* One line for a failed write to standard output, whose unwritten rest is
 * then dropped (no "Exception ignored" from Python's flush at exit). */
static int
stdout_failed(void)
{
    cpk_host_exit_if_interrupted(NULL);
    /* A closed pipe: die by SIGPIPE, quietly, as a filter does (Python
     * keeps SIGPIPE ignored). */
    if (PyErr_ExceptionMatches(PyExc_BrokenPipeError) ||
        cpk_host_stdout_broken(STDOUT_FILENO))
        cpk_die_by_signal(SIGPIPE);
    char *line = cpk_host_exception_line();
    PyErr_Clear();
    cpk_error("standard output: %s", line ? line : "error");
    free(line);
    cpk_host_stdout_discard();
    return CPK_EXIT_SYSTEM;
}

/* Flush sys.stdout: 0, or -1 with the exception set. */
static int
flush_stdout(void)
{
    PyObject *out = PySys_GetObject("stdout"); /* borrowed */
    if (out == NULL || out == Py_None)
        return 0;
    Py_INCREF(out);
    PyObject *r = PyObject_CallMethod(out, "flush", NULL);
    Py_DECREF(out);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* --result-file's temp file, removed when the program ends otherwise
 * than by committing it (output.h). */
static cpk_output result_out;
static int result_open; /* result_out holds a temp file */

static void
abort_result(void)
{
    if (result_open)
        cpk_output_abort(&result_out);
    result_open = 0;
}

/* Write the encoded result to sys.stdout, the writer the called function
 * printed to, after what it printed (flushed first): its bytes through
 * sys.stdout.buffer, or as text (surrogateescape) when a replaced
 * sys.stdout has none. */
static int
print_result(const cpk_bytebuf *b)
{
    PyObject *out = PySys_GetObject("stdout"); /* borrowed */
    if (out == NULL || out == Py_None) {
        cpk_error("no sys.stdout to print the result to");
        return CPK_EXIT_SYSTEM;
    }
    Py_INCREF(out);
    PyObject *target = NULL, *data = NULL, *r = NULL;
    if (flush_stdout() < 0)
        goto done;
    target = PyObject_GetAttrString(out, "buffer");
    if (target != NULL && target != Py_None)
        data = PyBytes_FromStringAndSize(b->data, (Py_ssize_t)b->len);
    else if (target != NULL || PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        Py_XSETREF(target, Py_NewRef(out));
        data = PyUnicode_DecodeUTF8(b->data, (Py_ssize_t)b->len,
                                    "surrogateescape");
    }
    r = data ? PyObject_CallMethod(target, "write", "(O)", data) : NULL;
    if (r != NULL) {
        Py_DECREF(r);
        r = PyObject_CallMethod(target, "flush", NULL);
    }
done:
    Py_XDECREF(data);
    Py_XDECREF(target);
    Py_DECREF(out);
    if (r == NULL)
        return stdout_failed();
    Py_DECREF(r);
    return CPK_EXIT_OK;
}

/* A pickled result on the private standard output (host.h), as
 * cloudpickle-dump writes its pickle. */
static int
write_private_stdout(const cpk_bytebuf *b)
{
    int fd = cpk_host_stdout_take();
    int e = fd < 0 ? EBADF : cpk_write_all(fd, b->data, b->len);
    if (fd >= 0 && close(fd) != 0 && e == 0)
        e = errno;
    if (e == EPIPE)
        cpk_die_by_signal(SIGPIPE); /* quietly, as a filter does */
    if (e != 0) {
        cpk_error("standard output: %s", strerror(e));
        return CPK_EXIT_SYSTEM;
    }
    return CPK_EXIT_OK;
}

/* The result into --result-file's temp file, then the rename. */
static int
write_result_file(const options *o, const cpk_bytebuf *b)
{
    int e = cpk_write_all(result_out.fd, b->data, b->len);
    if (e != 0) {
        abort_result();
        cpk_error("%s: %s", o->result_file, strerror(e));
        return CPK_EXIT_SYSTEM;
    }
    const char *what = "write";
    e = cpk_output_commit(&result_out, &what);
    result_open = 0; /* in place, or removed */
    if (e == EINTR && PyErr_Occurred())
        cpk_host_exit_if_interrupted(NULL);
    if (e != 0) {
        cpk_error("%s: %s: %s", o->result_file, what, strerror(e));
        return CPK_EXIT_SYSTEM;
    }
    return CPK_EXIT_OK;
}

/* The pending exception of the called function as one JSON object line
 * on standard error (--error-json), after what it wrote there. */
static void
print_error_json(void)
{
    PyObject *err = PySys_GetObject("stderr"); /* borrowed */
    if (err != NULL && err != Py_None) {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        Py_INCREF(err);
        PyObject *r = PyObject_CallMethod(err, "flush", NULL);
        Py_DECREF(err);
        Py_XDECREF(r);
        PyErr_Clear(); /* standard error is secondary output */
        PyErr_Restore(t, v, tb);
    }
    PyObject *info = cpk_error_info(0);
    cpk_bytebuf b = {0};
    if (info == NULL || cpk_error_info_json(info, &b) < 0) {
        Py_XDECREF(info);
        cpk_host_exit_if_interrupted(abort_result);
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        cpk_error("cannot describe the exception: %s", line ? line : "error");
        free(line);
        cpk_bytebuf_release(&b);
        return;
    }
    Py_DECREF(info);
    fflush(stderr);
    fwrite(b.data, 1, b.len, stderr);
    fflush(stderr);
    cpk_bytebuf_release(&b);
}

/* The called function raised: its exit status, after the traceback (or
 * the --error-json record) on standard error. */
static int
call_raised(const options *o)
{
    cpk_host_exit_if_interrupted(abort_result);
    abort_result();
    /* The function's own print hit the closed standard output. */
    if (PyErr_ExceptionMatches(PyExc_BrokenPipeError) &&
        cpk_host_stdout_broken(STDOUT_FILENO))
        cpk_die_by_signal(SIGPIPE);
    /* Before PyErr_Print, which would exit the process on it. */
    int status;
    if (PyErr_ExceptionMatches(PyExc_SystemExit)) {
        status = system_exit_status();
        /* Success would leave an older --result-file standing as if it
         * were this call's result. */
        if (status == CPK_EXIT_OK && o->result_file != NULL) {
            cpk_error("%s: not written: the function exited with status 0 "
                      "(SystemExit) without returning a result",
                      o->result_file);
            status = CPK_EXIT_RAISED;
        }
    }
    else {
        if (o->error_json)
            print_error_json();
        else
            PyErr_Print();
        status = CPK_EXIT_RAISED;
    }
    /* What the function printed before it raised. */
    if (flush_stdout() < 0) {
        int st = stdout_failed();
        if (status == CPK_EXIT_OK)
            status = st;
    }
    return status;
}

/* The positional and keyword arguments of the call, from argv,
 * --args-json (the bytes in `args_in`) or --args-pickle (the loaded
 * `args_obj`), bound to the callable's signature. 0, or an exit status
 * after the message. */
static int
call_arguments(PyObject *obj, const options *o, const cpk_input *args_in,
               PyObject *args_obj, PyObject **args, PyObject **kwargs)
{
    int bad;
    if (o->args_json != NULL || o->args_pickle != NULL) {
        bad = o->args_json
                  ? cpk_callargs_from_json(o->args_name, args_in->data,
                                           args_in->len, args, kwargs)
                  : cpk_callargs_from_value(o->args_name, args_obj, args,
                                            kwargs);
        if (bad == 0) {
            bad = cpk_callargs_bind(obj, *args, *kwargs);
            if (bad != 0) {
                Py_CLEAR(*args);
                Py_CLEAR(*kwargs);
            }
        }
    }
    else
        bad = cpk_callargs_build(obj, o->nargs, o->args, args, kwargs);
    if (bad > 0)
        return bad; /* printed */
    if (bad < 0) {
        cpk_host_exit_if_interrupted(NULL);
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        int usage = cpk_usage_error("%s", line ? line : "bad argument");
        free(line);
        return usage;
    }
    return 0;
}

static int
call(PyObject *obj, const options *o, const cpk_input *args_in,
     PyObject *args_obj)
{
    if (!PyCallable_Check(obj)) {
        cpk_error("%s: cannot call an object of type %s", o->name,
                  Py_TYPE(obj)->tp_name);
        return CPK_EXIT_INPUT;
    }
    PyObject *args, *kwargs;
    int status = call_arguments(obj, o, args_in, args_obj, &args, &kwargs);
    if (status != 0)
        return status;
    /* What the result needs (json's encoder, ccloudpickle.dumps) and
     * where it goes, before anything runs. */
    cpk_encoder *enc = cpk_encoder_new(o->result);
    if (enc == NULL) {
        Py_DECREF(args);
        Py_DECREF(kwargs);
        cpk_host_exit_if_interrupted(NULL);
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        cpk_error("cannot prepare the result's encoding: %s",
                  line ? line : "error");
        free(line);
        return CPK_EXIT_SYSTEM;
    }
    int e = o->result_file ? cpk_output_open(&result_out, o->result_file)
                           : 0;
    if (e != 0) {
        cpk_error("%s: cannot create a file next to it: %s", o->result_file,
                  strerror(e));
        status = CPK_EXIT_SYSTEM;
        goto done;
    }
    result_open = o->result_file != NULL;
    /* The function prints to standard output, unless a pickled result is
     * all standard output carries. */
    int pickle_out = o->result == CPK_RESULT_PICKLE && !o->result_file;
    if (!pickle_out && cpk_host_stdout_restore() < 0) {
        abort_result();
        status = stdout_failed();
        goto done;
    }
    PyObject *result = PyObject_Call(obj, args, kwargs);
    if (result == NULL) {
        status = call_raised(o);
        goto done;
    }
    cpk_bytebuf b = {0};
    char *why = NULL;
    int rc = cpk_encode_result(enc, result, &b, &why);
    Py_DECREF(result);
    if (rc < 0 && PyErr_ExceptionMatches(PyExc_SystemExit)) {
        /* The result's own code (a __repr__) asked to exit: as from the
         * function itself. */
        status = call_raised(o);
    }
    else if (rc != 0) {
        cpk_host_exit_if_interrupted(abort_result);
        abort_result();
        char *line = rc < 0 ? cpk_host_exception_line() : NULL;
        PyErr_Clear();
        cpk_error("%s: %s%s", o->name,
                  rc > 0 ? "" : "cannot encode the result: ",
                  rc > 0 ? (why ? why : "cannot encode the result")
                         : (line ? line : "error"));
        free(line);
        free(why);
        status = CPK_EXIT_OBJECT;
    }
    else if (pickle_out)
        status = write_private_stdout(&b);
    else if (o->result_file == NULL)
        status = print_result(&b);
    else if (flush_stdout() < 0) {
        /* What the function printed comes first: a closed standard
         * output ends the run before the file is in place. */
        abort_result();
        status = stdout_failed();
    }
    else
        status = write_result_file(o, &b);
    cpk_bytebuf_release(&b);
done:
    cpk_encoder_free(enc);
    Py_DECREF(args);
    Py_DECREF(kwargs);
    return status;
}

/* The report, on the private standard output (host.h): what repr()
 * or a property of the object prints meanwhile goes to standard error. */
static int
describe(PyObject *obj, const options *o, const cpk_signed_input *sig)
{
    int fd = cpk_host_stdout_take();
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (out == NULL) {
        cpk_error("standard output: %s", strerror(fd >= 0 ? errno : EBADF));
        return CPK_EXIT_SYSTEM;
    }
    int status = CPK_EXIT_OK;
    if (cpk_report(out, obj, (const char *)sig->pickle, sig->pickle_len) <
        0) {
        /* A repr() or signature that raised: one line, never
         * PyErr_Print (which would exit on SystemExit). */
        cpk_host_exit_if_interrupted(NULL);
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        cpk_error("%s: cannot describe the object: %s", o->name,
                  line ? line : "error");
        free(line);
        status = CPK_EXIT_OBJECT;
    }
    errno = 0;
    int failed = ferror(out);
    int flush_errno = 0;
    if (fflush(out) != 0 || failed) {
        flush_errno = errno;
        failed = 1;
        /* A closed pipe: die by SIGPIPE, quietly, as a filter does. */
        if (errno == EPIPE || cpk_host_stdout_broken(fileno(out)))
            cpk_die_by_signal(SIGPIPE);
    }
    errno = flush_errno;
    if (fclose(out) != 0 || failed) {
        if (status == CPK_EXIT_OK)
            cpk_error("standard output: %s",
                      strerror(errno != 0 ? errno : EIO));
        status = status == CPK_EXIT_OK ? CPK_EXIT_SYSTEM : status;
    }
    return status;
}

/* The keyword arguments of _loads_exact: verify_key (the key's bytes,
 * for a signed input: the module checks it again, and the bytecode
 * magic), allow and deny (the patterns as str, decoded as Python decodes
 * argv). New reference, or NULL with an exception set. */
static PyObject *
load_kwargs(const options *o, const cpk_signed_input *sig)
{
    PyObject *kw = PyDict_New();
    if (kw == NULL)
        return NULL;
    if (sig->is_signed) {
        PyObject *k = PyBytes_FromStringAndSize((const char *)o->key,
                                                (Py_ssize_t)o->keylen);
        if (k == NULL || PyDict_SetItemString(kw, "verify_key", k) < 0) {
            Py_XDECREF(k);
            goto error;
        }
        Py_DECREF(k);
    }
    for (int which = 0; which < 2; which++) {
        int n = which ? o->ndeny : o->nallow;
        const char **pats = which ? o->deny : o->allow;
        if (n == 0)
            continue;
        PyObject *list = PyList_New(n);
        if (list == NULL)
            goto error;
        for (int i = 0; i < n; i++) {
            PyObject *p = PyUnicode_DecodeFSDefault(pats[i]);
            if (p == NULL) {
                Py_DECREF(list);
                goto error;
            }
            PyList_SET_ITEM(list, i, p);
        }
        int rc = PyDict_SetItemString(kw, which ? "deny" : "allow", list);
        Py_DECREF(list);
        if (rc < 0)
            goto error;
    }
    return kw;
error:
    Py_DECREF(kw);
    return NULL;
}

/* --map: the object as a filter over the records (map.c). */
static int
map(PyObject *obj, const options *o, const cpk_signed_input *sig)
{
    if (!PyCallable_Check(obj)) {
        cpk_error("%s: cannot call an object of type %s", o->name,
                  Py_TYPE(obj)->tp_name);
        return CPK_EXIT_INPUT;
    }
    /* Pickled records are checked and loaded as the pickle was
     * (mapwork.c): under the same policy and, with a key in force, each
     * one signed with that key. */
    cpk_signed_input records = {.is_signed = o->key != NULL};
    PyObject *kw = o->in == CPK_IN_PICKLE ? load_kwargs(o, &records)
                                          : NULL;
    if (o->in == CPK_IN_PICKLE && kw == NULL) {
        cpk_host_exit_if_interrupted(NULL);
        PyErr_Print();
        return CPK_EXIT_SYSTEM;
    }
    cpk_map_options mo = {
        .work = {
            .fn = obj,
            .in = o->in,
            .kwargs = o->kwargs,
            .keep_going = o->keep_going,
            .error_json = o->error_json,
            .with_index = o->with_index,
            .result = o->result,
            .strict = o->strict,
            .policy = o->policy,
            .loads_kwargs = kw,
            .key = o->key,
            .keylen = o->keylen,
            .key_source = o->key_source,
            .max_scan = o->max_scan,
            .input_name = strcmp(o->input, "-") == 0 ? "standard input"
                                                     : o->input,
        },
        .input = o->input,
        .result_file = o->result_file,
        .jobs = o->jobs,
        .progress = o->progress,
        .max_record = o->max_size,
        .shard_i = o->shard_i,
        .shard_n = o->shard_n,
        .dask = {
            .address = o->dask,
            .window = o->window,
            .pickle = sig->pickle,
            .pickle_len = sig->pickle_len,
        },
    };
    int status = cpk_map_run(&mo);
    Py_XDECREF(kw);
    return status;
}

/* _loads_exact of the pickle in `sig` with the policy of the options
 * (load_kwargs). Unsigned, it is loaded without a copy (mapped or not:
 * cpk_loads_input), under --allow/--deny with the lookups `*names`
 * permits (made by check_pickle from its scan; taken, *names is set to
 * NULL) instead of a second scan. New reference, or NULL with the
 * exception set. */
static PyObject *
load_pickle(PyObject *cpk, const options *o, const cpk_input *in,
            const cpk_signed_input *sig, cpk_policy_names **names)
{
    /* The bytes read, lent to Python without a copy; main() frees them
     * only after finalization. */
    if (!sig->is_signed && o->nallow == 0 && o->ndeny == 0)
        return cpk_loads_input(cpk, in->data, in->len, in->mapped,
                               in->mapped ? in->fd : -1);
    PyObject *kw = load_kwargs(o, sig);
    if (kw == NULL)
        return NULL;
    if (!sig->is_signed && *names != NULL) {
        cpk_policy_names *n = *names;
        *names = NULL;
        /* borrowed from kw, which outlives the call */
        PyObject *obj = cpk_loads_input_prechecked(
            cpk, in->data, in->len, n, PyDict_GetItemString(kw, "allow"),
            PyDict_GetItemString(kw, "deny"));
        Py_DECREF(kw);
        return obj;
    }
    PyObject *data = PyMemoryView_FromMemory(in->data, (Py_ssize_t)in->len,
                                             PyBUF_READ);
    PyObject *fn = data ? PyObject_GetAttrString(cpk, "_loads_exact") : NULL;
    PyObject *args = fn ? PyTuple_Pack(1, data) : NULL;
    PyObject *obj = args ? PyObject_Call(fn, args, kw) : NULL;
    Py_XDECREF(args);
    Py_XDECREF(fn);
    Py_XDECREF(kw);
    Py_XDECREF(data);
    return obj;
}

static int
run(const options *o, const cpk_input *in, const cpk_signed_input *sig,
    cpk_policy_names **names, const cpk_input *args_in,
    const cpk_signed_input *args_sig, cpk_policy_names **args_names)
{
    PyObject *cpk = cpk_host_import(CPK_MODULE_NAME);
    if (cpk == NULL) {
        cpk_host_exit_if_interrupted(NULL);
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        cpk_error("cannot import ccloudpickle: %s", line ? line : "error");
        free(line);
        return CPK_EXIT_SYSTEM;
    }
    PyObject *obj = load_pickle(cpk, o, in, sig, names);
    if (obj == NULL) {
        Py_DECREF(cpk);
        return load_failed(o, o->name);
    }
    /* The arguments' pickle, untrusted as the first: scanned and checked
     * (main), loaded with the same policy. */
    PyObject *args_obj = NULL;
    if (o->args_pickle != NULL) {
        args_obj = load_pickle(cpk, o, args_in, args_sig, args_names);
        if (args_obj == NULL) {
            Py_DECREF(cpk);
            Py_DECREF(obj);
            return load_failed(o, o->args_name);
        }
    }
    Py_DECREF(cpk);
    if (cpk_host_venv_note() != NULL)
        cpk_error("warning: ignored %s; run 'deactivate'",
                  cpk_host_venv_note());
    int status;
    if (o->map)
        status = map(obj, o, sig);
    else if (o->call)
        status = call(obj, o, args_in, args_obj);
    else
        status = describe(obj, o, sig);
    Py_XDECREF(args_obj);
    Py_DECREF(obj);
    return status;
}

/* The static report on standard output (no interpreter is running: fd 1
 * is the real one, and SIGPIPE kills quietly as it does any filter). */
static int
describe_static(const options *o, const pkscan_report *r,
                const cpk_signed_input *sig)
{
    if (o->json)
        cpk_describe_json(stdout, r, o->file, sig);
    else
        cpk_describe_text(stdout, r, o->name, sig);
    errno = 0;
    int failed = ferror(stdout);
    if (fflush(stdout) != 0 || failed) {
        /* A closed pipe, with SIGPIPE ignored by whoever started us: die
         * by it all the same, quietly, as a filter does. */
        if (errno == EPIPE || cpk_host_stdout_broken(STDOUT_FILENO))
            cpk_die_by_signal(SIGPIPE);
        cpk_error("standard output: %s", strerror(errno ? errno : EIO));
        return CPK_EXIT_SYSTEM;
    }
    return CPK_EXIT_OK;
}

/* Read the pickle input `path` (`name` for messages) and refuse it before
 * anything runs: its signature, the scan, --strict, --allow/--deny.
 * Returns 0 with the report in *scan (and, for an unsigned pickle to be
 * loaded under --allow/--deny, the lookups it permits in *names), or an
 * exit status after the message; the caller frees *in, *scan and *names
 * either way. */
static int
check_pickle(const options *o, const char *path, const char *name,
             cpk_input *in, cpk_signed_input *sig, pkscan_report **scan,
             cpk_policy_names **names)
{
    *scan = NULL;
    *names = NULL;
    /* Mapped, not copied, when nothing checked depends on the bytes
     * staying what they were: a rewrite of the file between the check
     * and the load would pass a signature, --strict or a policy by. What
     * is only checked for being well formed (crash safety) may be
     * mapped: whoever can rewrite the file can make us run anything
     * anyway. Not for --map, whose pickle goes on to its workers. */
    int map = o->key == NULL && !o->strict && o->nallow == 0 &&
              o->ndeny == 0 && !o->map;
    int status = cpk_scan_read_map(path, name, o->max_size, o->max_scan,
                                   o->key ? o->key_source : NULL, map, in);
    if (status != 0)
        return status;
    const cpk_load_checks checks = {
        .key = o->key,
        .keylen = o->keylen,
        .key_source = o->key_source,
        .loadable = o->call || o->load || o->map,
        .strict = o->strict,
        .policy = o->policy,
        .max_scan = o->max_scan,
    };
    status = cpk_signed_check(name, (const unsigned char *)in->data,
                              in->len, &checks, sig, scan);
    /* An unsigned pickle to be loaded under --allow/--deny: the lookups
     * this scan permits, so that the load does not scan it again. The
     * bytes are a private copy: what was scanned is what is loaded. */
    if (status == 0 && checks.loadable && !sig->is_signed &&
        (o->nallow > 0 || o->ndeny > 0) && !in->mapped && *scan != NULL) {
        *names = cpk_policy_names_new(o->policy, *scan);
        if (*names == NULL) {
            cpk_error("out of memory");
            return CPK_EXIT_SYSTEM;
        }
    }
    return status;
}

/* Read --args-json's input, bounded by --max-size as the pickle is. 0, or
 * CPK_EXIT_INPUT after the message; the caller frees *in either way. */
static int
read_json(const options *o, cpk_input *in)
{
    int e = cpk_read_input(o->args_json, o->max_size, in, NULL, NULL);
    if (e == 0)
        return 0;
    char limit[32], size[32];
    cpk_format_size(o->max_size, limit, sizeof(limit));
    if (e == CPK_INPUT_TOO_BIG && in->size > 0) {
        cpk_format_size(in->size, size, sizeof(size));
        cpk_error("%s: %s, more than the %s limit (raise it with "
                  "--max-size)",
                  o->args_name, size, limit);
    }
    else if (e == CPK_INPUT_TOO_BIG)
        cpk_error("%s: more than the %s limit (raise it with --max-size)",
                  o->args_name, limit);
    else
        cpk_error("%s: %s", o->args_name, strerror(e));
    return CPK_EXIT_INPUT;
}

int
main(int argc, char **argv)
{
    cpk_message_init(argv[0]);
    cpk_output_init(); /* before any Python thread exists */
    options o;
    int status = parse_options(argc, argv, &o);
    if (status == 0 && o.merge) {
        status = cpk_map_merge((const char *const *)o.args, o.nargs, stdout);
        if (fclose(stdout) != 0 && status == 0) {
            cpk_error("standard output: %s", strerror(errno));
            status = CPK_EXIT_SYSTEM;
        }
    }
    if (status != 0 || o.merge) {
        options_free(&o);
        return status;
    }
    /* Everything that refuses the input runs here, before Python starts:
     * read, the signature, the scan, --strict, --allow/--deny; for the
     * arguments' pickle too. */
    cpk_input in, args_in = {0};
    cpk_signed_input sig, args_sig = {0};
    pkscan_report *scan = NULL;
    cpk_policy_names *names = NULL, *args_names = NULL;
    status = check_pickle(&o, o.file, o.name, &in, &sig, &scan, &names);
    if (status == 0 && !o.call && !o.load && !o.map)
        status = describe_static(&o, scan, &sig);
    pkscan_free(scan);
    scan = NULL;
    /* The scan touched the pages of a mapped input: out of memory until
     * the load reads them once more, a window at a time. */
    cpk_input_release(&in);
    if (status == 0 && o.args_pickle != NULL) {
        status = check_pickle(&o, o.args_pickle, o.args_name, &args_in,
                              &args_sig, &scan, &args_names);
        pkscan_free(scan);
        cpk_input_release(&args_in);
    }
    else if (status == 0 && o.args_json != NULL)
        status = read_json(&o, &args_in);
    if (status != 0 || (!o.call && !o.load && !o.map)) {
        cpk_policy_names_free(names);
        cpk_policy_names_free(args_names);
        options_free(&o);
        cpk_input_free(&in);
        cpk_input_free(&args_in);
        return status;
    }
    /* sys.argv is what the called function sees: the file and its args. */
    char **py_argv = calloc((size_t)o.nargs + 1, sizeof(char *));
    if (py_argv == NULL) {
        cpk_error("out of memory");
        cpk_policy_names_free(names);
        cpk_policy_names_free(args_names);
        cpk_input_free(&in);
        options_free(&o);
        return CPK_EXIT_SYSTEM;
    }
    py_argv[0] = (char *)o.file;
    for (int i = 0; i < o.nargs; i++)
        py_argv[i + 1] = o.args[i];
    cpk_host_config cfg = {
        .argc = o.nargs + 1,
        .argv = py_argv,
        .npaths = o.npaths,
        .paths = o.paths,
        .cwd_last = 1,
        .venv_optional = 1,
    };
    status = cpk_host_start(&cfg);
    if (status == 0) {
        status = cpk_host_finish(run(&o, &in, &sig, &names, &args_in,
                                     &args_sig, &args_names));
        cpk_output_rewatch();
    }
    cpk_policy_names_free(names);
    cpk_policy_names_free(args_names);
    cpk_input_free(&in);
    cpk_input_free(&args_in);
    free(py_argv);
    options_free(&o);
    return status;
}
