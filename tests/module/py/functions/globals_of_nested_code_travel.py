import ccloudpickle as cp
SCALE = 7
OFFSET = 3
ITEMS = (1, 2)
STEP = 5
def make():
    class K:
        factor = SCALE
    def inner():
        return OFFSET
    return K, inner, [i * STEP for i in ITEMS]
data = cp.dumps(make)
