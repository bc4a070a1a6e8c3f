/* prescan.c - the opcode walk of prescan.h. The opcode table follows
 * Lib/pickletools.py (protocols 0 to 5); argument checks follow what
 * Modules/_pickle.c does with each argument. */
#include "prescan.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How an opcode's argument is laid out. */
enum {
    A_NONE,   /* no argument */
    A_FIXED,  /* `size` bytes */
    A_LINE,   /* one line, '\n'-terminated */
    A_LINE2,  /* two lines (GLOBAL, INST) */
    A_LEN1,   /* 1-byte length, then that many bytes */
    A_LEN4,   /* 4-byte little-endian length (signed), then the bytes */
    A_LEN8,   /* 8-byte little-endian length, then the bytes */
};

/* What to check beyond the layout. */
enum {
    C_NONE,
    C_PROTO,   /* protocol number */
    C_UTF8,    /* UTF-8, surrogates allowed (_pickle's "surrogatepass") */
    C_NAMES,   /* GLOBAL/INST: two strict UTF-8 lines */
    C_INT,     /* INT, LONG: an integer literal */
    C_FLOAT,   /* FLOAT */
    C_STRING,  /* STRING: a quoted, escaped bytes literal */
    C_GET,     /* memo read: GET (decimal line), BINGET, LONG_BINGET */
    C_PUT,     /* memo write with an index: PUT, BINPUT, LONG_BINPUT */
    C_MEMOIZE, /* memo write at the next index */
    C_FRAME,   /* FRAME: its length must fit in the input */
    C_STOP,
};

typedef struct {
    const char *name; /* NULL: not an opcode */
    unsigned char arg;
    unsigned char size; /* A_FIXED */
    unsigned char check;
} opcode;

static const opcode opcodes[256] = {
    ['('] = {"MARK", A_NONE, 0, C_NONE},
    ['.'] = {"STOP", A_NONE, 0, C_STOP},
    ['0'] = {"POP", A_NONE, 0, C_NONE},
    ['1'] = {"POP_MARK", A_NONE, 0, C_NONE},
    ['2'] = {"DUP", A_NONE, 0, C_NONE},
    ['F'] = {"FLOAT", A_LINE, 0, C_FLOAT},
    ['I'] = {"INT", A_LINE, 0, C_INT},
    ['J'] = {"BININT", A_FIXED, 4, C_NONE},
    ['K'] = {"BININT1", A_FIXED, 1, C_NONE},
    ['L'] = {"LONG", A_LINE, 0, C_INT},
    ['M'] = {"BININT2", A_FIXED, 2, C_NONE},
    ['N'] = {"NONE", A_NONE, 0, C_NONE},
    ['P'] = {"PERSID", A_LINE, 0, C_NONE},
    ['Q'] = {"BINPERSID", A_NONE, 0, C_NONE},
    ['R'] = {"REDUCE", A_NONE, 0, C_NONE},
    ['S'] = {"STRING", A_LINE, 0, C_STRING},
    ['T'] = {"BINSTRING", A_LEN4, 0, C_NONE},
    ['U'] = {"SHORT_BINSTRING", A_LEN1, 0, C_NONE},
    ['V'] = {"UNICODE", A_LINE, 0, C_NONE},
    ['X'] = {"BINUNICODE", A_LEN4, 0, C_UTF8},
    ['a'] = {"APPEND", A_NONE, 0, C_NONE},
    ['b'] = {"BUILD", A_NONE, 0, C_NONE},
    ['c'] = {"GLOBAL", A_LINE2, 0, C_NAMES},
    ['d'] = {"DICT", A_NONE, 0, C_NONE},
    ['}'] = {"EMPTY_DICT", A_NONE, 0, C_NONE},
    ['e'] = {"APPENDS", A_NONE, 0, C_NONE},
    ['g'] = {"GET", A_LINE, 0, C_GET},
    ['h'] = {"BINGET", A_FIXED, 1, C_GET},
    ['i'] = {"INST", A_LINE2, 0, C_NAMES},
    ['j'] = {"LONG_BINGET", A_FIXED, 4, C_GET},
    ['l'] = {"LIST", A_NONE, 0, C_NONE},
    [']'] = {"EMPTY_LIST", A_NONE, 0, C_NONE},
    ['o'] = {"OBJ", A_NONE, 0, C_NONE},
    ['p'] = {"PUT", A_LINE, 0, C_PUT},
    ['q'] = {"BINPUT", A_FIXED, 1, C_PUT},
    ['r'] = {"LONG_BINPUT", A_FIXED, 4, C_PUT},
    ['s'] = {"SETITEM", A_NONE, 0, C_NONE},
    ['t'] = {"TUPLE", A_NONE, 0, C_NONE},
    [')'] = {"EMPTY_TUPLE", A_NONE, 0, C_NONE},
    ['u'] = {"SETITEMS", A_NONE, 0, C_NONE},
    ['G'] = {"BINFLOAT", A_FIXED, 8, C_NONE},
    [0x80] = {"PROTO", A_FIXED, 1, C_PROTO},
    [0x81] = {"NEWOBJ", A_NONE, 0, C_NONE},
    [0x82] = {"EXT1", A_FIXED, 1, C_NONE},
    [0x83] = {"EXT2", A_FIXED, 2, C_NONE},
    [0x84] = {"EXT4", A_FIXED, 4, C_NONE},
    [0x85] = {"TUPLE1", A_NONE, 0, C_NONE},
    [0x86] = {"TUPLE2", A_NONE, 0, C_NONE},
    [0x87] = {"TUPLE3", A_NONE, 0, C_NONE},
    [0x88] = {"NEWTRUE", A_NONE, 0, C_NONE},
    [0x89] = {"NEWFALSE", A_NONE, 0, C_NONE},
    [0x8a] = {"LONG1", A_LEN1, 0, C_NONE},
    [0x8b] = {"LONG4", A_LEN4, 0, C_NONE},
    ['B'] = {"BINBYTES", A_LEN4, 0, C_NONE},
    ['C'] = {"SHORT_BINBYTES", A_LEN1, 0, C_NONE},
    [0x8c] = {"SHORT_BINUNICODE", A_LEN1, 0, C_UTF8},
    [0x8d] = {"BINUNICODE8", A_LEN8, 0, C_UTF8},
    [0x8e] = {"BINBYTES8", A_LEN8, 0, C_NONE},
    [0x8f] = {"EMPTY_SET", A_NONE, 0, C_NONE},
    [0x90] = {"ADDITEMS", A_NONE, 0, C_NONE},
    [0x91] = {"FROZENSET", A_NONE, 0, C_NONE},
    [0x92] = {"NEWOBJ_EX", A_NONE, 0, C_NONE},
    [0x93] = {"STACK_GLOBAL", A_NONE, 0, C_NONE},
    [0x94] = {"MEMOIZE", A_NONE, 0, C_MEMOIZE},
    [0x95] = {"FRAME", A_FIXED, 8, C_FRAME},
    [0x96] = {"BYTEARRAY8", A_LEN8, 0, C_NONE},
    [0x97] = {"NEXT_BUFFER", A_NONE, 0, C_NONE},
    [0x98] = {"READONLY_BUFFER", A_NONE, 0, C_NONE},
};

/* pickle.HIGHEST_PROTOCOL of every supported CPython (3.9 to 3.13). */
#define CPK_HIGHEST_PROTOCOL 5

void
cpk_prescan_init(cpk_prescan *s)
{
    memset(s, 0, sizeof(*s));
}

void
cpk_prescan_free(cpk_prescan *s)
{
    free(s->memo);
    free(s->runs);
    free(s->marks);
    s->memo = NULL;
    s->runs = NULL;
    s->marks = NULL;
    s->memo_cap = s->runs_cap = s->marks_cap = 0;
}

static int
fail(cpk_prescan *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(cpk_prescan *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof(s->err), fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t
le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* Offset of the first invalid byte of the UTF-8 in p[0, n), or n. With
 * `surrogates`, encoded surrogates (ED A0..BF ..) pass, as with Python's
 * "surrogatepass" handler. */
static size_t
utf8_invalid(const unsigned char *p, size_t n, int surrogates)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t k;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf)
            k = 1;
        else if (c >= 0xe0 && c <= 0xef) {
            k = 2;
            if (c == 0xe0)
                lo = 0xa0;
            else if (c == 0xed && !surrogates)
                hi = 0x9f;
        }
        else if (c >= 0xf0 && c <= 0xf4) {
            k = 3;
            if (c == 0xf0)
                lo = 0x90;
            else if (c == 0xf4)
                hi = 0x8f;
        }
        else
            return i;
        if (n - i <= k)
            return i;
        if (p[i + 1] < lo || p[i + 1] > hi)
            return i;
        for (size_t j = 2; j <= k; j++)
            if (p[i + j] < 0x80 || p[i + j] > 0xbf)
                return i;
        i += k + 1;
    }
    return n;
}

/* Python's whitespace (Py_ISSPACE), which PyLong_FromString skips. */
static int
py_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
}

/* What strtol() and PyLong_FromString() skip around a number (GET, PUT). */
static int
blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

static void
trim(const unsigned char **p, size_t *n)
{
    while (*n > 0 && blank((*p)[*n - 1]))
        (*n)--;
    while (*n > 0 && blank(**p))
        (*p)++, (*n)--;
}

/* int(s, 0) of CPython's PyLong_FromString: blanks around, a sign, a 0x,
 * 0o or 0b prefix (then an optional '_'), digits with single underscores
 * between them; a decimal number with a leading 0 is all zeros; and at
 * most 4300 decimal digits (sys.int_info.default_max_str_digits, the
 * limit of every supported version, 3.9.14 on: isolated, nothing raises
 * it). */
#define CPK_MAX_STR_DIGITS 4300
static int
pylong_base0(const unsigned char *p, size_t n)
{
    while (n > 0 && py_space(p[n - 1]))
        n--;
    while (n > 0 && py_space(*p))
        p++, n--;
    if (n > 0 && (*p == '+' || *p == '-'))
        p++, n--;
    int base = 10;
    if (n >= 2 && p[0] == '0') {
        unsigned char c = p[1] | 0x20;
        base = c == 'x' ? 16 : c == 'o' ? 8 : c == 'b' ? 2 : 10;
        if (base != 10) {
            p += 2, n -= 2;
            if (n > 0 && *p == '_')
                p++, n--;
        }
    }
    if (n == 0 || *p == '_')
        return 0;
    size_t digits = 0;
    int nonzero = 0, leading_zero = base == 10 && *p == '0';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c == '_') {
            if (i + 1 == n || p[i + 1] == '_')
                return 0;
            continue;
        }
        int v = c >= '0' && c <= '9'   ? c - '0'
                : (c | 0x20) >= 'a' && (c | 0x20) <= 'z' ? (c | 0x20) - 'a' + 10
                                                          : 99;
        if (v >= base)
            return 0;
        nonzero |= v != 0;
        digits++;
    }
    if (leading_zero && nonzero)
        return 0;
    return base != 10 || digits <= CPK_MAX_STR_DIGITS;
}

/* INT's and LONG's argument (the line without its '\n') as _pickle.c
 * reads it. INT: strtol(s, &end, 0) reading all of it without overflow,
 * else int(s, 0). LONG: a trailing 'L' dropped, then int(s, 0). */
static int
int_literal(const unsigned char *p, size_t n, int is_long)
{
    if (n == 0)
        return 0;
    if (is_long) {
        if (p[n - 1] == 'L')
            n--;
        return pylong_base0(p, n);
    }
    char *buf = memchr(p, '\0', n) == NULL ? malloc(n + 1) : NULL;
    if (buf != NULL) {
        memcpy(buf, p, n);
        buf[n] = '\0';
        char *end;
        errno = 0;
        (void)strtol(buf, &end, 0);
        int whole = errno == 0 && *end == '\0';
        free(buf);
        if (whole)
            return 1;
    }
    return pylong_base0(p, n);
}

/* FLOAT's argument as PyOS_string_to_double reads it (no blanks, no hex,
 * no underscores: a decimal literal, inf, infinity or nan in any case,
 * with a sign): 1, 0 if it is none, -1 if it is past the largest double
 * (CPython's OverflowError). */
static int
float_literal(const unsigned char *p, size_t n)
{
    size_t i = 0;
    if (i < n && (p[i] == '+' || p[i] == '-'))
        i++;
    static const char *const words[] = {"infinity", "inf", "nan"};
    for (int w = 0; w < 3; w++) {
        size_t len = strlen(words[w]);
        if (n - i == len) {
            size_t k = 0;
            while (k < len && (p[i + k] | 0x20) == words[w][k])
                k++;
            if (k == len)
                return 1;
        }
    }
    size_t digits = 0;
    while (i < n && p[i] >= '0' && p[i] <= '9')
        i++, digits++;
    if (i < n && p[i] == '.')
        for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++)
            digits++;
    if (digits == 0)
        return 0;
    if (i < n && (p[i] | 0x20) == 'e') {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        size_t exp = 0;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++, exp++;
        if (exp == 0)
            return 0;
    }
    if (i != n)
        return 0;
    /* The grammar is strtod's too: it says whether the value overflows. */
    char *buf = malloc(n + 1);
    if (buf == NULL)
        return 1; /* leave it to Python */
    memcpy(buf, p, n);
    buf[n] = '\0';
    double d = strtod(buf, NULL);
    free(buf);
    return isinf(d) ? -1 : 1;
}

/* STRING's argument: a quoted literal whose escapes Python's
 * codecs.escape_decode accepts (\x needs two hex digits, no lone
 * trailing backslash). */
static int
string_literal(const unsigned char *p, size_t n)
{
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
        n--;
    if (n < 2 || (p[0] != '\'' && p[0] != '"') || p[n - 1] != p[0])
        return 0;
    for (size_t i = 1; i + 1 < n; i++) {
        if (p[i] != '\\')
            continue;
        if (i + 2 >= n)
            return 0;
        if (p[i + 1] == 'x') {
            for (size_t j = i + 2; j < i + 4; j++)
                if (j + 1 >= n ||
                    !((p[j] >= '0' && p[j] <= '9') ||
                      (p[j] >= 'a' && p[j] <= 'f') ||
                      (p[j] >= 'A' && p[j] <= 'F')))
                    return 0;
        }
        i++;
    }
    return 1;
}

/* A decimal memo index (GET, PUT) into *out, as PyLong_FromString(s,
 * NULL, 10) reads it (blanks, a '+', underscores between digits); 0 if
 * not one. */
static int
decimal(const unsigned char *p, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    trim(&p, &n);
    if (n > 0 && *p == '+')
        p++, n--;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '_' && i > 0 && i + 1 < n && p[i - 1] != '_')
            continue;
        if (p[i] < '0' || p[i] > '9')
            return 0;
        if (v > (UINT64_MAX - 9) / 10)
            v = UINT64_MAX; /* out of range anyway */
        else
            v = v * 10 + (uint64_t)(p[i] - '0');
    }
    *out = v;
    return 1;
}

static int
memo_defined(const cpk_prescan *s, uint64_t idx)
{
    return idx < s->memo_cap && s->memo[idx] != 0;
}

/* Grow *arr (of *cap elements of `size` bytes) to hold index `need`,
 * zero-filling the new part. 0, or -1 when out of memory. */
static int
grow(void **arr, size_t *cap, size_t size, size_t need)
{
    if (need < *cap)
        return 0;
    size_t n = *cap ? *cap : 256;
    while (n <= need)
        n *= 2;
    char *bigger = realloc(*arr, n * size);
    if (bigger == NULL)
        return -1;
    memset(bigger + *cap * size, 0, (n - *cap) * size);
    *arr = bigger;
    *cap = n;
    return 0;
}

/* Store an item of nesting `depth` at memo index idx (bounded by the
 * caller, so the array stays linear in the input). */
static int
memo_store(cpk_prescan *s, uint64_t idx, unsigned depth)
{
    if (grow((void **)&s->memo, &s->memo_cap, sizeof(*s->memo),
             (size_t)idx) < 0)
        return -1;
    if (s->memo[idx] == 0)
        s->ndefined++;
    s->memo[idx] = (unsigned short)(depth ? depth : 1);
    return 0;
}

/* The stack ------------------------------------------------------------
 *
 * Each item is only its nesting depth: 1 for a leaf (a number, a string,
 * an empty container, a global), 1 + the deepest input for what is built
 * from other items (TUPLE*, LIST, DICT, FROZENSET, REDUCE, NEWOBJ*, OBJ,
 * INST), and APPEND(S), SETITEM(S), ADDITEMS and BUILD deepen their
 * target likewise. A memo entry keeps the depth its item had when it was
 * stored. Mutation after memoization is not carried back to the memo
 * entry: what is hashed recursively in C without a recursion check
 * (tuples, frozensets) is immutable and built from the stack in one
 * opcode, so its depth is exact.
 *
 * Why 10,000: the pickler refuses to write anything nested deeper than
 * the recursion limit (1000 by default; RecursionError), so a pickle
 * nested deeper came from a raised limit or was crafted; 10 times the
 * default leaves room for the first, and hashing a tuple 10,000 deep
 * takes well under 1 MB of the 8 MB main-thread C stack, where 300,000
 * overflows it (SIGSEGV). */

/* The stack height at the topmost MARK (CPython's "fence"), or 0. */
static size_t
fence(const cpk_prescan *s)
{
    return s->nmarkruns ? s->marks[s->nmarkruns - 1].at : 0;
}

static size_t
above_fence(const cpk_prescan *s)
{
    return s->nitems - fence(s);
}

static int
push(cpk_prescan *s, unsigned depth)
{
    if (s->nruns > 0 && s->runs[s->nruns - 1].depth == depth) {
        s->runs[s->nruns - 1].count++;
        s->nitems++;
        return 0;
    }
    if (grow((void **)&s->runs, &s->runs_cap, sizeof(*s->runs), s->nruns) <
        0)
        return -1;
    s->runs[s->nruns].count = 1;
    s->runs[s->nruns].depth = (unsigned short)depth;
    s->nruns++;
    s->nitems++;
    return 0;
}

/* Pop n items (n <= s->nitems); the deepest of them, 0 if n is 0. */
static unsigned
pop_n(cpk_prescan *s, size_t n)
{
    unsigned deepest = 0;
    s->nitems -= n;
    while (n > 0) {
        cpk_prescan_run *r = &s->runs[s->nruns - 1];
        if (r->depth > deepest)
            deepest = r->depth;
        size_t k = r->count < n ? r->count : n;
        r->count -= k;
        n -= k;
        if (r->count == 0)
            s->nruns--;
    }
    return deepest;
}

static unsigned
top_depth(const cpk_prescan *s)
{
    return s->nruns ? s->runs[s->nruns - 1].depth : 1;
}

static int
mark_push(cpk_prescan *s)
{
    s->nmarks++;
    if (s->nmarkruns > 0 && s->marks[s->nmarkruns - 1].at == s->nitems) {
        s->marks[s->nmarkruns - 1].count++;
        return 0;
    }
    if (grow((void **)&s->marks, &s->marks_cap, sizeof(*s->marks),
             s->nmarkruns) < 0)
        return -1;
    s->marks[s->nmarkruns].at = s->nitems;
    s->marks[s->nmarkruns].count = 1;
    s->nmarkruns++;
    return 0;
}

static void
mark_pop(cpk_prescan *s)
{
    s->nmarks--;
    if (--s->marks[s->nmarkruns - 1].count == 0)
        s->nmarkruns--;
}

/* Pop the items above the topmost MARK and the MARK: their count in *n,
 * the deepest in *deepest. -1 when there is no MARK. */
static int
pop_to_mark(cpk_prescan *s, size_t *n, unsigned *deepest)
{
    if (s->nmarks == 0)
        return -1;
    *n = above_fence(s);
    *deepest = pop_n(s, *n);
    mark_pop(s);
    return 0;
}

/* Replace the top item's depth by the larger of it and `depth`. */
static int
deepen_top(cpk_prescan *s, unsigned depth)
{
    unsigned top = top_depth(s);
    if (depth <= top)
        return 0;
    pop_n(s, 1);
    return push(s, depth);
}

static void
opcode_name(char *buf, size_t cap, unsigned char c)
{
    if (c >= 0x21 && c < 0x7f && c != '\'')
        snprintf(buf, cap, "'%c'", c);
    else
        snprintf(buf, cap, "0x%02x", c);
}

/* Opcodes by what they do to the stack. */
static int
is_leaf(unsigned char c)
{
    return memchr("FIJKLMNPSTUVXGc])}BC", c, 20) != NULL ||
           (c >= 0x82 && c <= 0x84) || (c >= 0x88 && c <= 0x8f) ||
           c == 0x96 || c == 0x97;
}

/* Follow the opcode `c` at byte `at` on the stack (its memo index, if it
 * has one, in idx). 0, or -1 with s->err set: too deep, leftovers at STOP,
 * out of memory. An opcode that finds too few items (CPython raises
 * "unpickling stack underflow" or the like) ends the following: s->lost. */
static int
follow(cpk_prescan *s, unsigned char c, uint64_t idx, const char *name,
       size_t at)
{
    size_t n = 0;
    unsigned d = 0;
    int rc = 0;
    if (c == 0x94)
        idx = s->ndefined; /* MEMOIZE: the next index */
    if (s->lost) {
        /* Still record what the memo holds: GETs are checked. */
        if (c == 'p' || c == 'q' || c == 'r' || c == 0x94)
            rc = memo_store(s, idx, 1);
        if (c == 'p' || c == 'q' || c == 'r' || c == 0x94)
            s->nmemo_ops++;
        return rc < 0 ? fail(s, "out of memory") : 0;
    }
    /* How many items above the topmost MARK the opcode needs. */
    size_t need = 0;
    switch (c) {
    case '2': case 'Q': case 'p': case 'q': case 'r': case 0x94:
    case 0x98: case 0x85: case '.':
        need = 1;
        break;
    case 'R': case 0x81: case 0x93: case 'a': case 'b': case 0x86:
        need = 2;
        break;
    case 's': case 0x92: case 0x87:
        need = 3;
        break;
    }
    if (above_fence(s) < need) {
        s->lost = 1;
        return follow(s, c, idx, name, at);
    }
    if (is_leaf(c))
        rc = push(s, 1);
    else {
        switch (c) {
        case '(':
            rc = mark_push(s);
            break;
        case '0': /* POP: the MARK itself when it is on top */
            if (s->nmarks > 0 && fence(s) == s->nitems)
                mark_pop(s);
            else if (above_fence(s) == 0)
                s->lost = 1;
            else
                pop_n(s, 1);
            break;
        case '1': /* POP_MARK */
            if (pop_to_mark(s, &n, &d) < 0)
                s->lost = 1;
            break;
        case '2': /* DUP */
            rc = push(s, top_depth(s));
            break;
        case 'Q': /* BINPERSID */
            pop_n(s, 1);
            rc = push(s, 1);
            break;
        case 0x93: /* STACK_GLOBAL */
            pop_n(s, 2);
            rc = push(s, 1);
            break;
        case 'R': case 0x81: case 0x92: case 0x85: case 0x86: case 0x87:
            /* REDUCE, NEWOBJ, NEWOBJ_EX, TUPLE1-3: built from `need` */
            d = pop_n(s, need) + 1;
            rc = push(s, d);
            break;
        case 't': case 'l': case 'd': case 0x91: case 'i': case 'o':
            /* TUPLE, LIST, DICT, FROZENSET, INST, OBJ: from the MARK */
            if (pop_to_mark(s, &n, &d) < 0 || (c == 'o' && n == 0) ||
                (c == 'd' && n % 2 != 0)) {
                s->lost = 1;
                break;
            }
            d += 1;
            rc = push(s, d);
            break;
        case 'a': case 'b': /* APPEND, BUILD */
            d = pop_n(s, 1) + 1;
            rc = deepen_top(s, d);
            break;
        case 's': /* SETITEM */
            d = pop_n(s, 2) + 1;
            rc = deepen_top(s, d);
            break;
        case 'e': case 'u': case 0x90: /* APPENDS, SETITEMS, ADDITEMS */
            if (s->nmarks == 0 || fence(s) == 0 ||
                (c == 'u' && above_fence(s) % 2 != 0)) {
                s->lost = 1;
                break;
            }
            pop_to_mark(s, &n, &d);
            if (n > 0) {
                d += 1;
                rc = deepen_top(s, d);
            }
            break;
        case 'g': case 'h': case 'j': /* GET: checked as stored */
            d = s->memo[idx];
            rc = push(s, d);
            break;
        case 'p': case 'q': case 'r': case 0x94:
            rc = memo_store(s, idx, top_depth(s));
            s->nmemo_ops++;
            break;
        case '.':
            if (s->nmarks > 0)
                return fail(s, "STOP at byte %zu: a MARK is still open "
                            "(no pickler leaves one)", at);
            if (s->nitems != 1)
                return fail(s, "STOP at byte %zu: %zu items left on the "
                            "stack (a pickler leaves one)", at, s->nitems);
            break;
        }
    }
    if (rc < 0)
        return fail(s, "out of memory");
    if (s->lost)
        return follow(s, c, idx, name, at);
    if (d > CPK_PRESCAN_MAX_DEPTH)
        return fail(s, "nesting deeper than %d at byte %zu (%s)",
                    CPK_PRESCAN_MAX_DEPTH, at, name);
    return 0;
}

int
cpk_prescan_feed(cpk_prescan *s, const unsigned char *data, size_t len,
                 int eof)
{
    while (!s->done) {
        size_t at = s->pos;
        if (at >= len) {
            if (!eof)
                return 0;
            return fail(s, "truncated at byte %zu (no STOP opcode)", len);
        }
        const opcode *op = &opcodes[data[at]];
        if (op->name == NULL) {
            char name[8];
            opcode_name(name, sizeof(name), data[at]);
            return fail(s, "unknown opcode %s at byte %zu", name, at);
        }
        size_t p = at + 1, arg = p, arglen = 0, end;
        switch (op->arg) {
        case A_NONE:
            end = p;
            break;
        case A_FIXED:
            end = p + op->size;
            arglen = op->size;
            break;
        case A_LINE:
        case A_LINE2: {
            /* Text arguments can arrive over many reads: go on from
             * where the last call stopped looking, so that the walk stays
             * linear in the input. */
            size_t from = s->line_from > p ? s->line_from : p;
            size_t first = s->line_nl1;
            end = SIZE_MAX;
            if (op->arg == A_LINE2 && first == 0) {
                const unsigned char *nl = memchr(data + from, '\n',
                                                 len - from);
                if (nl != NULL)
                    first = s->line_nl1 = (size_t)(nl - data) + 1;
                from = nl != NULL ? first : len;
            }
            if (op->arg == A_LINE || first != 0) {
                const unsigned char *nl = memchr(data + from, '\n',
                                                 len - from);
                if (nl != NULL)
                    end = (size_t)(nl - data) + 1;
            }
            if (end != SIZE_MAX)
                arglen = end - p - 1;
            else
                s->line_from = len;
            break;
        }
        default: {
            int w = op->arg == A_LEN1 ? 1 : op->arg == A_LEN4 ? 4 : 8;
            if (len - p < (size_t)w) {
                end = SIZE_MAX;
                break;
            }
            uint64_t n = le(data + p, w);
            /* BINSTRING's and LONG4's lengths are signed in _pickle.c;
             * BINUNICODE's and BINBYTES' are not. */
            if ((data[at] == 'T' || data[at] == 0x8b) && (n & 0x80000000u))
                return fail(s, "%s at byte %zu: negative length", op->name,
                            at);
            arg = p + (size_t)w;
            if (n > SIZE_MAX - arg) {
                end = SIZE_MAX;
                break;
            }
            arglen = (size_t)n;
            end = arg + arglen;
        }
        }
        if (end == SIZE_MAX || end > len) {
            if (!eof)
                return 0;
            return fail(s, "truncated at byte %zu (in %s at byte %zu)", len,
                        op->name, at);
        }
        const unsigned char *a = data + arg;
        uint64_t idx = 0;
        switch (op->check) {
        case C_PROTO:
            if (a[0] > CPK_HIGHEST_PROTOCOL)
                return fail(s, "unsupported protocol %d at byte %zu (this "
                            "Python reads 0 to %d; written by a newer "
                            "version?)",
                            a[0], at, CPK_HIGHEST_PROTOCOL);
            break;
        case C_UTF8: {
            size_t bad = utf8_invalid(a, arglen, 1);
            if (bad < arglen)
                return fail(s, "%s at byte %zu: invalid UTF-8 at byte %zu",
                            op->name, at, arg + bad);
            break;
        }
        case C_NAMES: {
            size_t bad = utf8_invalid(a, arglen, 0);
            if (bad < arglen)
                return fail(s, "%s at byte %zu: invalid UTF-8 at byte %zu",
                            op->name, at, arg + bad);
            const unsigned char *nl = memchr(a, '\n', arglen);
            if (nl == a || arglen == (size_t)(nl - a) + 1)
                return fail(s, "%s at byte %zu: empty module or name",
                            op->name, at);
            break;
        }
        case C_INT:
            if (!int_literal(a, arglen, data[at] == 'L'))
                return fail(s, "%s at byte %zu: not an integer", op->name,
                            at);
            break;
        case C_FLOAT:
            switch (float_literal(a, arglen)) {
            case 0:
                return fail(s, "%s at byte %zu: not a number", op->name, at);
            case -1:
                return fail(s, "%s at byte %zu: number too large", op->name,
                            at);
            }
            break;
        case C_STRING:
            if (!string_literal(a, arglen))
                return fail(s, "%s at byte %zu: not a quoted string literal",
                            op->name, at);
            break;
        case C_GET:
        case C_PUT:
            if (op->arg == A_LINE) {
                if (!decimal(a, arglen, &idx))
                    return fail(s, "%s at byte %zu: memo index is not a "
                                "decimal number",
                                op->name, at);
            }
            else
                idx = le(a, op->size);
            if (op->check == C_GET) {
                if (!memo_defined(s, idx))
                    return fail(s, "%s at byte %zu: memo index %llu was "
                                "never stored",
                                op->name, at, (unsigned long long)idx);
                break;
            }
            /* A pickler writes index len(memo): within a fresh
             * pickler's pickle, at most the memo writes before it. A
             * reused pickle.Pickler numbers on across its dump() calls,
             * so a later pickle starts past what it stores itself, by
             * the size of what the earlier ones memoized, which this
             * pickle cannot show. CPython's memo is an array as long as
             * the largest index (8 bytes an entry): the index may run
             * ahead by the input's length so far, plus 256, which keeps
             * that array linear in the input (as --max-size bounds it)
             * and lets through the reused pickler's pickles up to that
             * much. */
            if (idx > (uint64_t)s->nmemo_ops + at + 256)
                return fail(s, "%s at byte %zu: memo index %llu out of "
                            "range (%zu stored before it)",
                            op->name, at, (unsigned long long)idx,
                            s->ndefined);
            break;
        case C_FRAME: {
            uint64_t n = le(a, 8);
            if (n > SIZE_MAX - end)
                return fail(s, "FRAME at byte %zu: length %llu past the end",
                            at, (unsigned long long)n);
            if (end + (size_t)n > s->need)
                s->need = end + (size_t)n;
            break;
        }
        case C_STOP:
            s->done = 1;
            break;
        }
        if (follow(s, data[at], idx, op->name, at) < 0)
            return -1;
        s->pos = end;
        s->line_from = 0;
        s->line_nl1 = 0;
    }
    if (!eof)
        return 1;
    if (s->need > len)
        return fail(s, "truncated at byte %zu (a FRAME runs to byte %zu)",
                    len, s->need);
    if (len > s->pos)
        return fail(s, "%zu byte%s of trailing data after the end of the "
                    "pickle at byte %zu",
                    len - s->pos, len - s->pos == 1 ? "" : "s", s->pos);
    return 1;
}
