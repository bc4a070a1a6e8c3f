assert type(ref).__name__ == '_Reference', type(ref)
assert repr(ref) == '<reference to cloudpickle.cloudpickle.'\
    '_make_skeleton_class>', repr(ref)
K = ref(*rv[1])
# The tracker id of a live class gives that class back.
assert K is C, K
# The same name gives the same reference.
rv2 = cp.Pickler(io.BytesIO(), compat='cloudpickle').reducer_override(type('D', (), {}))
assert rv2[0] is ref
