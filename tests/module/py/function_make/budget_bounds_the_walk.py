def big(x=tuple(range(100))):
    return len(x)
assert form(big) == 'split'
check(big)
def small(x=tuple(range(20))):
    return len(x)
assert form(small) == 'make'
check(small)
deep = []
cur = deep
for _ in range(200):
    cur.append([])
    cur = cur[0]
def nested(x=deep):
    return 1
assert form(nested) == 'split'
check(nested)
