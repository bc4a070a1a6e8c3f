import ccloudpickle, opcode
s = {'NO_SUCH_BASE': list(v) for v in
     opcode._specializations.values()}
opcode._specializations = s
def f(a):
    return [a][0] + 1
data = ccloudpickle.dumps(f)
ext._RAW_MAGIC_NUMBER = real
assert ccloudpickle.loads(ccloudpickle.dumps(f))(4) == 5
