class Boom:
    def __reduce__(self):
        raise KeyboardInterrupt
try:
    cp.dumps([Seen() for _ in range(600)] + [Boom()])
except KeyboardInterrupt:
    pass
assert seen.count(0) >= 300 and gc.get_threshold() == before
