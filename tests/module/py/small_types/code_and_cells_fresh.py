import types
code, full, empty = obj
assert types.FunctionType(code, {})(1) == 2
assert full.cell_contents == 5
try:
    empty.cell_contents
    raise AssertionError('cell not empty')
except ValueError:
    pass
