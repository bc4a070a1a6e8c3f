first = cp.dumps({'a': [1, 2, 3]}, sign_key=key)
second = cp.dumps('next', sign_key=key)
s = Short(first + second + b'TAIL')
assert cp.load(s, verify_key=key) == {'a': [1, 2, 3]}
assert s.pos == len(first), (s.pos, len(first))
assert cp.load(s, verify_key=key) == 'next'
assert s.pos == len(first) + len(second)
assert s.d[s.pos:] == b'TAIL'
