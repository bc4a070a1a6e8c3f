define('''
from cpk_classkw_base import Reader
class Base:
    def __init_subclass__(cls, fmt, **kw):
        cls.got = fmt
class Csv(Base, fmt='csv'):
    def m(self): pass
class Tsv(Reader, fmt='tsv'):
    def m(self): pass
''')
