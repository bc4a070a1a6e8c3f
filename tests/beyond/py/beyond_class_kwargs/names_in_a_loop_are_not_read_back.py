define('''
class Reader:
    registry = {}
    def __init_subclass__(cls, fmt='?', **kw):
        super().__init_subclass__(**kw)
        Reader.registry[fmt] = cls
for fmt in ('csv', 'json'):
    class ByName(Reader, fmt=fmt):
        def m(self):
            pass
for _ in (1,):
    class ByLiteral(Reader, fmt='tsv'):
        def m(self):
            pass
''', 'loop')
import _ccloudpickle_classkw as k
csv = Reader.registry['csv']
assert k.class_keywords(csv) is None
assert k.class_keywords(Reader.registry['tsv']) == {'fmt': 'tsv'}
