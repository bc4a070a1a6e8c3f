class Bad:
    def __reduce__(self):
        raise ValueError('not at depth')
head = chain(50000, Bad())
try:
    ccloudpickle.dumps(head)
except ValueError as e:
    err = e
else:
    raise AssertionError('dumps succeeded')
# the culprit search stops 40 levels down (diagnose.c); a
# note on 3.11+, the message's tail before
if sys.version_info >= (3, 11):
    assert str(err) == 'not at depth'
    where = ''.join(err.__notes__)
else:
    where = str(err)[len('not at depth; '):]
assert where.startswith('when pickling <Cell object>.next.next'), where
# a file is left as it was
f = io.BytesIO(b'keep')
f.seek(4)
try:
    ccloudpickle.dump(head, f)
except ValueError:
    pass
assert f.getvalue() == b'keep'
p = ccloudpickle.Pickler(f)
try:
    p.dump(head)
except ValueError:
    pass
assert f.getvalue() == b'keep'
# and the same Pickler then dumps a good one
good = chain(20000)
p.dump(good)
assert f.getvalue()[4:] == ccloudpickle.dumps(good)
