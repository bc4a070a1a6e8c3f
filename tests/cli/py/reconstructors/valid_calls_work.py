import dataclasses, io, collections, typing
f = cp._function_new(code1, {}, 1)
assert cp._function_fill(f, {'__closure__': (5,),
                             '__globals__': {'g': 1},
                             '__dict__': {'a': 2},
                             '__submodules__': [],
                             '__defaults__': None}) is None
assert f() == 5 and f.a == 2 and f.__globals__['g'] == 1
f = cp._function_new(code1, {}, 1)
cp._function_fill(f, {'__closure__': (cp._empty_cell_value,)})
try:
    f()
    raise AssertionError('cell not empty')
except NameError:
    pass
f = cp._function_make(code1, {}, 1, {'__closure__': (5,),
                      '__globals__': {'g': 1}, '__doc__': 'd'})
assert f() == 5 and f.__globals__['g'] == 1 and f.__doc__ == 'd'
f = cp._function_make((ver, magic, marshal.dumps(code1)), {}, 1,
                      {'__closure__': (6,)})
assert f() == 6 and f.__code__ == code1
assert cp._function_new(code0, {}, None)() == 0
assert cp._function_new(code0, {}, 0)() == 0
g = cp._make_function(code1, {}, 'n', (1,), (types.CellType(3),))
assert g() == 3 and g.__name__ == 'n' and g.__defaults__ == (1,)
assert cp._make_function(code0, {}, None, None, None)() == 0
h = cp._make_function(code1, {}, None, None, (types.CellType(),))
cp._function_setstate(h, ({'d': 1}, {'__closure__': (cell,),
    '__globals__': {}, '_cloudpickle_submodules': [],
    '__qualname__': 'q'}))
assert h() == 1 and h.d == 1 and h.__qualname__ == 'q'
cp._function_setstate(fn0, (None, {'__closure__': None}))
assert cp._make_cell(4).cell_contents == 4
assert cp._make_cell(cp._empty_cell_value) is not None
assert type(cp._make_cell()) is types.CellType
assert type(cp._make_empty_cell()) is types.CellType
assert cp.subimport('os.path') is sys.modules['os.path']
m = cp.dynamic_subimport('mod_x', {'a': 1})
assert m.a == 1 and m.__name__ == 'mod_x'
assert cp._builtin_type('CellType') is types.CellType
assert cp._builtin_type('ClassType') is type
K = cp._make_skeleton_class(type, 'K', (), {'__module__': 'm'},
                            None, None)
assert K.__name__ == 'K' and K.__module__ == 'm'
T = typing.TypeVar('T')
G = cp._make_skeleton_class(type, 'G', (typing.Generic[T],), {},
                            None, None)
assert G.__orig_bases__ == (typing.Generic[T],)
assert cp._class_setstate(K, ({'x': 1}, {'y': 2})) is K
assert K.x == 1 and K.y == 2
E = cp._make_skeleton_enum((enum.Enum,), 'E', 'q.E', {'A': 1},
                           'm', None, None)
assert E.A.value == 1 and E.__qualname__ == 'q.E'
cp._class_setstate(E, ({'_cpk_member_attrs': {'A': {'z': 9}}},
                       {}))
assert E.A.z == 9
import abc
A = cp._make_skeleton_class(abc.ABCMeta, 'A', (abc.ABC,), {},
                            None, None)
cp._class_setstate(A, ({'_abc_impl': [int]}, {}))
assert issubclass(int, A)
tv = cp._make_typevar('U', None, (int, str), False, True, None)
assert tv.__constraints__ == (int, str) and tv.__contravariant__
assert list(cp._make_dict_keys([1, 2])) == [1, 2]
assert type(cp._make_dict_keys((1,), True)).__name__ == 'odict_keys'
assert list(cp._make_dict_values([3], False)) == [3]
assert list(cp._make_dict_items({1: 2}, True)) == [(1, 2)]
s = io.StringIO('x')
assert cp._file_reconstructor(s) is s
for n in ('_FIELD', '_FIELD_CLASSVAR', '_FIELD_INITVAR'):
    assert cp._get_dataclass_field_type_sentinel(n) is \
        getattr(dataclasses, n)
code = cp._code_unmarshal(ver, magic, marshal.dumps(code1))
assert code == code1
