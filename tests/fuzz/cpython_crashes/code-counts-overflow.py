# CPython 3.11: code.replace() (and types.CodeType, marshal.loads) accept
# argument counts whose sum overflows int in _PyCode_Validate's
# "co_varnames is too small" check; calling the function then reads far
# past its frame (SIGSEGV/SIGBUS in the call's argument set-up).
import types
def f(self, item):
    return item
c = f.__code__.replace(co_argcount=2002738946, co_posonlyargcount=1919639909,
                       co_kwonlyargcount=1600087653)
print("accepted:", c.co_argcount, c.co_kwonlyargcount, c.co_nlocals)
types.FunctionType(c, {})(1, 2)
