define('''
from cpk_classkw_base import Reader
class CsvReader(Reader, fmt='csv'):
    def parse(self, text):
        return text.split(',')
''')
assert b'class_kwargs' in cp.dumps(CsvReader)
