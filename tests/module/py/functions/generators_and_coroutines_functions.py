import ccloudpickle as cp, asyncio
def gen(n):
    yield from range(n)
async def co(x):
    return x + 1
g = cp.loads(cp.dumps(gen))
assert list(g(3)) == [0, 1, 2]
c = cp.loads(cp.dumps(co))
assert asyncio.run(c(1)) == 2
