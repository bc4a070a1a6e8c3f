import ccloudpickle as cp, io, types, _pickle
class Special:
    pass
class LokyPickler(cp.Pickler):
    def __init__(self, writer, reducers):
        super().__init__(writer)
        table = dict(self.dispatch_table)
        table.update(reducers)
        for klass in type(self).mro():
            attr = getattr(klass, 'dispatch_table', None)
            if isinstance(attr, types.MemberDescriptorType):
                attr.__set__(self, table)
                break
        else:
            raise AssertionError('no member descriptor')
buf = io.BytesIO()
p = LokyPickler(buf, {Special: lambda s: (str, ('loky',))})
p.dump([Special(), lambda: 4, (lambda: 1).__code__, property()])
s, f, code, prop = cp.loads(buf.getvalue())
assert s == 'loky' and f() == 4
assert isinstance(code, types.CodeType) and isinstance(prop, property)
