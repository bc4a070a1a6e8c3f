K, inner, scaled = obj()
assert K.factor == 7, K.factor
assert inner() == 3
assert scaled == [5, 10], scaled
names = sorted(k for k in obj.__globals__
               if not k.startswith('__'))
assert names == ['ITEMS', 'OFFSET', 'SCALE', 'STEP'], \
    names
