getattr_, (modref, name) = p.reducer_override(ref)
assert getattr_ is getattr and name == '_make_skeleton_class'
assert repr(modref) == '<reference to module '\
    'cloudpickle.cloudpickle>', repr(modref)
try:
    modref()
except TypeError as e:
    assert str(e) == 'module reference is not callable', e
else:
    raise AssertionError('called')
imp, args = p.reducer_override(modref)
assert args == ('cloudpickle.cloudpickle', None, None,
                ('__name__',)), args
