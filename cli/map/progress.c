/* progress.c - the --map progress line (progress.h). */
#include "map/progress.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "common/message.h"

/* The line on the terminal, erased before a message (message.h). */
static cpk_progress *on_screen;

static void
clear_on_screen(void)
{
    if (on_screen != NULL)
        cpk_progress_clear(on_screen);
}

void
cpk_progress_init(cpk_progress *p, int mode, uint64_t total)
{
    p->tty = isatty(STDERR_FILENO);
    p->on = mode < 0 ? p->tty : mode;
    p->shown = p->visible = 0;
    p->total = total;
    clock_gettime(CLOCK_MONOTONIC, &p->start);
    p->last = p->start;
    if (p->on && p->tty) {
        on_screen = p;
        cpk_message_before_stderr(clear_on_screen);
    }
}

void
cpk_progress_done(cpk_progress *p)
{
    if (on_screen == p) {
        on_screen = NULL;
        cpk_message_before_stderr(NULL);
    }
}

static double
seconds(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) +
           (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void
cpk_progress_update(cpk_progress *p, uint64_t records, uint64_t bytes,
                    int final)
{
    if (!p->on)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!final && seconds(&p->last, &now) < (p->tty ? 0.2 : 1.0))
        return;
    p->last = now;
    double t = seconds(&p->start, &now);
    char line[256];
    int n = snprintf(line, sizeof(line), "%s: %llu record%s, %.0f/s",
                     cpk_prog, (unsigned long long)records,
                     records == 1 ? "" : "s",
                     t > 0 ? (double)records / t : 0.0);
    if (p->total > 0 && n > 0 && (size_t)n < sizeof(line)) {
        double frac = (double)bytes / (double)p->total;
        if (frac > 1)
            frac = 1;
        n += snprintf(line + n, sizeof(line) - (size_t)n, ", %.1f%%",
                      100 * frac);
        if (!final && frac > 0 && (size_t)n < sizeof(line)) {
            long left = (long)(t / frac - t + 0.5);
            n += snprintf(line + n, sizeof(line) - (size_t)n,
                          ", %ld:%02ld left", left / 60, left % 60);
        }
    }
    if (final && (size_t)n < sizeof(line))
        snprintf(line + n, sizeof(line) - (size_t)n, " in %.1f s", t);
    /* On a terminal: redraw in place (\r, erase to the end of line). */
    if (p->tty)
        fprintf(stderr, "\r%s\033[K%s", line, final ? "\n" : "");
    else
        fprintf(stderr, "%s\n", line);
    fflush(stderr);
    p->shown = 1;
    p->visible = p->tty && !final;
}

void
cpk_progress_clear(cpk_progress *p)
{
    if (p->on && p->tty && p->visible) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->visible = 0;
    }
}
