/* deepstack.c - run a call on a large, lazily committed C stack of this
 * same thread, with the thread's recursion budget raised to match: how a
 * dump too deep for the default recursion limit is retried (pickler.c).
 *
 * CPython's C pickler recurses once per level of the object graph and
 * stops at the recursion limit (a C-stack guard, not a real bound of the
 * format). The retry keeps everything that identifies the caller - the
 * thread, its thread state, the GIL, contextvars, held locks - and only
 * moves the C frames to CPK_DEEP_STACK bytes of address space reserved
 * with MAP_NORESERVE: the kernel commits just the pages the dump touches
 * (some 400 bytes a level), and they are unmapped when the call returns.
 * The budget added, CPK_DEEP_HEADROOM levels, is what that stack holds
 * at CPK_DEEP_STACK / CPK_DEEP_HEADROOM bytes a level, ten times what a
 * level takes; a guard region below the stack turns a bug in that
 * estimate into a crash at a known place rather than silent corruption.
 */
#include "engine/deepstack.h"
#include "common/pycompat.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#define CPK_DEEP_SUPPORTED 1
#include <stdint.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
/* Valgrind is told of the stack switch where its header is installed
 * (Debian's valgrind package); a build without it runs the same code,
 * valgrind then reports the switch as a stack overflow. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef VALGRIND_STACK_REGISTER
#define VALGRIND_STACK_REGISTER(lo, hi) 0u
#define VALGRIND_STACK_DEREGISTER(id) ((void)(id))
#endif
#else
#define CPK_DEEP_SUPPORTED 0
#endif

/* ASan keeps its own idea of where the current stack is: each switch is
 * announced (compiler-rt's common_interface_defs.h). */
#if defined(__SANITIZE_ADDRESS__)
#define CPK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CPK_ASAN 1
#endif
#endif
#ifdef CPK_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom,
                                    size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save,
                                     const void **bottom_old,
                                     size_t *size_old);
#endif

/* Levels added to the budget. Instrumented (ASan) frames are larger, but
 * the frames of a level are CPython's save() and its helpers: 4 KB a
 * level leaves them room even in an instrumented libpython. */
#define CPK_DEEP_HEADROOM 500000

/* 2 GiB of address space, committed only as touched: 4 KB a level
 * (measured: a linked list of instances takes some 400 bytes a level). */
#define CPK_DEEP_STACK ((size_t)2 << 30)
#define CPK_DEEP_GUARD ((size_t)64 << 10)

int
cpk_deep_headroom(void)
{
    return CPK_DEEP_SUPPORTED ? CPK_DEEP_HEADROOM : 0;
}

#if CPK_DEEP_SUPPORTED

typedef struct {
    cpk_deep_fn fn;
    void *arg;
    PyObject *result;
    ucontext_t caller, callee;
    char *stack; /* usable part, above the guard */
    size_t size;
#ifdef CPK_ASAN
    void *fake_caller;
    const void *caller_bottom;
    size_t caller_size;
#endif
} deep_call;

/* makecontext passes ints only: the pointer travels as two halves. */
static void
trampoline(unsigned int hi, unsigned int lo)
{
    deep_call *c = (deep_call *)(((uintptr_t)hi << 32) | (uintptr_t)lo);
#ifdef CPK_ASAN
    __sanitizer_finish_switch_fiber(NULL, &c->caller_bottom,
                                    &c->caller_size);
#endif
    c->result = c->fn(c->arg);
#ifdef CPK_ASAN
    /* NULL: this stack is left for good, its fake frames may go. */
    __sanitizer_start_switch_fiber(NULL, c->caller_bottom, c->caller_size);
#endif
    swapcontext(&c->callee, &c->caller);
}

/* The thread's recursion budget, raised by `n` levels (negative: lowered
 * back); each CPython keeps it differently (cpk_py_recursion_headroom_add).
 * Raising it as an offset, rather than setting it, keeps
 * sys.setrecursionlimit() during the call exact: 3.11 recomputes the
 * remainder from the depth, which the offset shifts by the same amount. */
static void
add_headroom(PyThreadState *ts, int n)
{
    cpk_py_recursion_headroom_add(ts, n);
}

PyObject *
cpk_deep_call(cpk_deep_fn fn, void *arg, int *ran)
{
    *ran = 0;
    size_t total = CPK_DEEP_STACK + CPK_DEEP_GUARD;
    char *base = mmap(NULL, total, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                      -1, 0);
    if (base == MAP_FAILED)
        return NULL; /* no such address space (strict overcommit?) */
    if (mprotect(base, CPK_DEEP_GUARD, PROT_NONE) < 0) {
        munmap(base, total);
        return NULL;
    }
    deep_call c = {.fn = fn, .arg = arg};
    c.stack = base + CPK_DEEP_GUARD;
    c.size = CPK_DEEP_STACK;
    if (getcontext(&c.callee) < 0) {
        munmap(base, total);
        return NULL;
    }
    c.callee.uc_stack.ss_sp = c.stack;
    c.callee.uc_stack.ss_size = c.size;
    c.callee.uc_link = NULL; /* the trampoline switches back itself */
    uintptr_t p = (uintptr_t)&c;
    makecontext(&c.callee, (void (*)(void))trampoline, 2,
                (unsigned int)(p >> 32), (unsigned int)(p & 0xffffffffu));
    unsigned vg = VALGRIND_STACK_REGISTER(c.stack, c.stack + c.size);
    PyThreadState *ts = PyThreadState_Get();
    add_headroom(ts, CPK_DEEP_HEADROOM);
    *ran = 1;
#ifdef CPK_ASAN
    __sanitizer_start_switch_fiber(&c.fake_caller, c.stack, c.size);
#endif
    swapcontext(&c.caller, &c.callee);
#ifdef CPK_ASAN
    __sanitizer_finish_switch_fiber(c.fake_caller, NULL, NULL);
#endif
    /* The same thread state: the call ran on this thread. */
    add_headroom(ts, -CPK_DEEP_HEADROOM);
    VALGRIND_STACK_DEREGISTER(vg);
    (void)vg;
    munmap(base, total);
    return c.result;
}

#else

PyObject *
cpk_deep_call(cpk_deep_fn fn, void *arg, int *ran)
{
    (void)fn;
    (void)arg;
    *ran = 0;
    return NULL;
}

#endif
