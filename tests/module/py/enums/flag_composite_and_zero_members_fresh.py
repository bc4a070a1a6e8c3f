Perm, rw, rx, zero, all_ = obj
assert rw is Perm.RW and rw == Perm.R | Perm.W
assert rx == Perm.R | Perm.X and Perm.X in rx
assert zero is Perm.NONE and not zero
assert all_ is Perm.ALL
# 3.11 iterates a Flag's canonical (one-bit)
# members only (bpo-38250); before, every member
# that is not an alias.
canonical = ['R', 'W', 'X'] if sys.version_info >= (3, 11) else ['NONE', 'R', 'W', 'X', 'RW', 'ALL']
assert [m.name for m in Perm] == canonical
assert set(Perm.__members__) == {'NONE', 'R', 'W', 'X', 'RW', 'ALL'}
