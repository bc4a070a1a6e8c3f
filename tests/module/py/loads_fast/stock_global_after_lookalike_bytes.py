import sys
sys.modules['cloudpickle'] = None
import ccloudpickle as cp
p = (b'\x80\x02' + b'M\x8c\x0c' +
     b'ccloudpickle\n_make_empty_cell\n' + b')R\x86.')
n, cell = cp.loads(p)
assert n == 3212 and type(cell).__name__ == 'cell'
try:
    cell.cell_contents
except ValueError:
    pass
else:
    raise AssertionError('not empty')
