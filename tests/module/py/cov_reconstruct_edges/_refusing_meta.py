# A namespace refusing one key: the class is not made.
import ccloudpickle as cp
made = []
class NS(dict):
    def __setitem__(self, k, v):
        if k == REFUSED:
            raise LookupError('refused ' + k)
        dict.__setitem__(self, k, v)
class Meta(type):
    @classmethod
    def __prepare__(mcls, name, bases, **kw):
        return NS()
    def __new__(mcls, name, bases, ns):
        made.append(name)
        return super().__new__(mcls, name, bases, dict(ns))
class Base:
    pass
class Entry:
    def __mro_entries__(self, bases):
        return (Base,)
