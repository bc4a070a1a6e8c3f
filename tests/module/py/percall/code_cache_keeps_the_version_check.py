import ccloudpickle as cp, marshal, sys, importlib.util
def f(x):
    return x + 1
cp.loads(cp.dumps(f))
magic = int.from_bytes(importlib.util.MAGIC_NUMBER, 'little')
code = marshal.dumps(f.__code__)
cp._code_unmarshal('3.11', magic, code)
cp._code_unmarshal('9.99', magic + 1, code)
