import ccloudpickle as cp, types
class Collide:
    calls = fire_at = 0
    fired = False
    def __hash__(self):
        return hash('__name__')
    def __eq__(self, other):
        Collide.calls += 1
        if Collide.calls == Collide.fire_at:
            Collide.fired = True
            raise KeyboardInterrupt('from user code')
        return False
m = types.ModuleType('cpk_collide')
del m.__dict__['__name__']
m.__dict__[Collide()] = 1
m.__dict__['__name__'] = 'cpk_collide'
for n in range(1, 10):
    Collide.calls, Collide.fire_at, Collide.fired = 0, n, False
    try:
        cp.dumps(m)
        assert not Collide.fired, 'interrupt %d swallowed' % n
    except KeyboardInterrupt as e:
        assert Collide.fired and e.args == ('from user code',)
Collide.fire_at = 0
