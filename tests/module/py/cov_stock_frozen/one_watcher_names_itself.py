import sys, ccloudpickle
ws = [w for w in sys.meta_path
      if type(w).__module__ == 'ccloudpickle']
assert len(ws) == 1, ws
assert repr(ws[0]) == '<ccloudpickle stock cloudpickle watcher>', repr(ws[0])
try:
    type(ws[0])()
except TypeError:
    pass
else:
    raise AssertionError('a second watcher was made')
