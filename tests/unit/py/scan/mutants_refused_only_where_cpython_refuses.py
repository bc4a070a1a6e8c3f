# Mutation differential: random (seeded) corruptions of real pickles.
# Whenever the scanner refuses one, CPython's C unpickler must refuse it
# too (reading it from a file, with a find_class that returns stubs so
# nothing real runs): the scanner is never stricter than CPython, except
# where this suite documents it (memo indices past the input, which are
# skipped here). The other direction cannot hold: CPython also fails on
# what it finds out by calling things.
import random
def verdict(d):
    try:
        for op, arg, pos in pickletools.genops(d):
            if op.name in ('PUT', 'BINPUT', 'LONG_BINPUT') and \
                    int(arg) > len(d):
                return None
    except Exception:
        pass
    try:
        u = Rec(io.BytesIO(d)); u.names = set(); u.load()
        return b'1'
    except (RecursionError, MemoryError):
        return None
    except Exception:
        return b'0'
seeds = [r[4:4 + struct.unpack('<I', r[:4])[0]] for r in out]
rnd = random.Random(8)
mut = []
while len(mut) < 4000:
    d = bytearray(rnd.choice(seeds))
    for _ in range(rnd.randint(1, 3)):
        if not d: break
        k, p = rnd.random(), rnd.randrange(len(d))
        if k < 0.5: d[p] = rnd.randrange(256)
        elif k < 0.7: del d[p]
        else: d.insert(p, rnd.randrange(256))
    d = bytes(d)
    v = verdict(d)
    if v is not None:
        mut.append(struct.pack('<I', len(d)) + d + v)
