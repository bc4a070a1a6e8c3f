define('''
class Base:
    def __init_subclass__(cls, fmt, **kw):
        cls.fmt_seen = fmt
class C(Base, fmt='first'):
    def m(self): pass
First = C
class C(Base, fmt='second'):
    def m(self): pass
''')
