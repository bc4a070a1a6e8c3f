import ccloudpickle as cp, threading, types
lock = threading.local()
path, culprit = cp._find_unpicklable({1, 2, lock})
assert path.startswith('.<item>[') and culprit is lock, path
path, culprit = cp._find_unpicklable(frozenset([lock]))
assert path == '.<item>[0]' and culprit is lock, path
path, culprit = cp._find_unpicklable(types.CellType(lock))
assert path == '.cell_contents' and culprit is lock, path
assert cp._find_unpicklable(types.CellType(3)) is None
assert cp._find_unpicklable(types.CellType()) is None
