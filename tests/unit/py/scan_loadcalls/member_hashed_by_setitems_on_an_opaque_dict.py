import collections
for obj in [collections.OrderedDict([(Color.RED, 1)]),
            collections.OrderedDict([((Color.RED,), 1)])]:
    data = cp.dumps(obj, protocol=5)
    hits()  # making the dict hashed its keys
    try:
        cp.loads(data, allow=['collections.OrderedDict'])
        raise AssertionError('not refused')
    except cp.PolicyError as e:
        assert 'code carried by value' in str(e), str(e)
    assert hits() == []
    cp.loads(data)
    assert hits() != []
