/* progress.h - the progress line of cloudpickle-load --map on standard
 * error: records done, records per second and, when the input is a
 * regular file, percent and time left. On a terminal it is one line
 * redrawn in place (at most 5 times a second); asked for (--progress)
 * when standard error is no terminal, it is a line a second. The last
 * state stays on screen when the run ends.
 */
#ifndef CPK_CLI_MAP_PROGRESS_H
#define CPK_CLI_MAP_PROGRESS_H

#include <stdint.h>
#include <time.h>

typedef struct {
    int on;
    int tty;
    int shown;          /* something was drawn */
    int visible;        /* an unfinished line is on the terminal */
    uint64_t total;     /* input size in bytes, 0 when unknown */
    struct timespec start;
    struct timespec last;
} cpk_progress;

/* mode: 1 on, 0 off, -1 when standard error is a terminal. */
void cpk_progress_init(cpk_progress *p, int mode, uint64_t total);

/* `records` done and `bytes` of input consumed by them; drawn when it is
 * time to (or always with `final`, which ends the line). */
void cpk_progress_update(cpk_progress *p, uint64_t records, uint64_t bytes,
                         int final);

/* Before other text goes to the terminal: erase the line (the next
 * update draws it again). cpk_error does it itself from init on. */
void cpk_progress_clear(cpk_progress *p);

/* The run is over: cpk_error no longer erases the line. */
void cpk_progress_done(cpk_progress *p);

#endif
