made = []
class Base:
    def __init_subclass__(cls, **kw):
        made.append(cls)
class Meta(type):
    pass
first = cp._make_skeleton_class(type, 'S', (Base,), {'__module__': 'm'}, 'tid-known', {'class_kwargs': {'a': 1}})
again = cp._make_skeleton_class(type, 'S', (Base,), {'__module__': 'm'}, 'tid-known', {'class_kwargs': {'a': 1}})
assert again is first and made == [first], made
