import ccloudpickle as cp, gc, io, sys
state = {'armed': False, 'inner': None}
def cb(phase, info):
    if phase == 'start' and state['armed'] and state['inner'] is None:
        state['inner'] = state['p'].globals_ref
gc.callbacks.append(cb)
old = gc.get_threshold()
hits = 0
try:
    for _ in range(50):
        state['p'] = cp.Pickler(io.BytesIO())
        state['inner'] = None
        # Empty the dict and list free lists: the next container comes
        # from the collector's allocator.
        keep = [{} for _ in range(200)] + [[] for _ in range(200)]
        gc.set_threshold(1)
        state['armed'] = True
        outer = state['p'].globals_ref
        state['armed'] = False
        gc.set_threshold(*old)
        del keep
        if state['inner'] is not None:
            hits += 1
            assert state['inner'] is outer, 'two globals_ref maps'
            assert state['p'].globals_ref is outer
finally:
    gc.set_threshold(*old)
    gc.callbacks.remove(cb)
if sys.version_info < (3, 12):
    assert hits > 0, 'no collection ran inside the getter'
