T = typing.TypeVar('T', int, str)
assert b'_make_typevar' in cp.dumps(T)
made = []
if sys.version_info >= (3, 12):
    made.append(typing.TypeVar('I', infer_variance=True))
if sys.version_info >= (3, 13):
    made.append(typing.TypeVar('D', default=int))
    made.append(typing.ParamSpec('PD', default=[int, str]))
    made.append(typing.TypeVarTuple('TD', default=typing.Unpack[tuple[int]]))
for o in made:
    assert b'_make_typeparam' in cp.dumps(o)
