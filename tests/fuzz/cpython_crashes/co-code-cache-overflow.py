# CPython 3.11: co_code (PyCode_GetCode -> deopt_code) writes one CACHE
# code unit per inline cache of each instruction into its copy of the
# bytecode, past the end of the copy when the bytecode stops inside the
# caches of its last instruction. code.replace, types.CodeType and
# marshal.loads all accept such bytecode. Run with PYTHONMALLOC=debug to
# see the overflow reported ("bad trailing pad byte"); without the debug
# hooks it corrupts the heap silently.
def f(a, b):
    return a + b
good = f.__code__.co_code  # RESUME, LOAD_FAST, LOAD_FAST, BINARY_OP, CACHE, RETURN_VALUE
bad = good[:6] + good[10:12] + bytes([9, 0]) + good[6:8]  # ..., RETURN_VALUE, NOP, BINARY_OP
c = f.__code__.replace(co_code=bad)
for _ in range(3):
    c.co_code  # each copy is written one unit past its end
print("survived (the overflow went unnoticed)")
