/* input.h - cloudpickle-load's input: a whole file, or standard input,
 * read into memory before the interpreter starts. */
#ifndef CPK_INPUT_H
#define CPK_INPUT_H

#include <stddef.h>

typedef struct {
    char *data;
    size_t len;
} cpk_input;

/* Read all of `path` ("-": standard input). Returns 0, or an errno value
 * (EISDIR for a directory). */
int cpk_read_input(const char *path, cpk_input *in);

void cpk_input_free(cpk_input *in);

#endif
