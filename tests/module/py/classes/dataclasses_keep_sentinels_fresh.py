import dataclasses
Config, c = obj
assert c.name == 'x' and c.tags == ['t'] and c.derived == 8
d = Config('y', seed=2)
assert d.derived == 4 and d.tags == []
f = Config.__dataclass_fields__
assert f['name']._field_type is dataclasses._FIELD
assert f['limit']._field_type is dataclasses._FIELD_CLASSVAR
assert f['seed']._field_type is dataclasses._FIELD_INITVAR
assert f['name'].default is dataclasses.MISSING
assert f['tags'].default is dataclasses.MISSING
assert [x.name for x in dataclasses.fields(Config)] == ['name', 'tags']
assert dataclasses.replace(c, name='z').name == 'z'
try:
    c.name = 'no'
    raise AssertionError('not frozen')
except dataclasses.FrozenInstanceError:
    pass
