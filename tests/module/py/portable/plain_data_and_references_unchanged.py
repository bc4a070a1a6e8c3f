import os.path, collections, datetime
for o in [{'a': [1, 2.5, None]}, (b'x', {3}), os.path.join,
          collections.OrderedDict(a=1), datetime.date(2026, 1, 2),
          len, dict]:
    assert cp.dumps(o, portable=True) == cp.dumps(o), o
