class N:
    def __reduce__(self):
        e = ValueError('nope')
        e.add_note('at x[0]')
        e.add_note('second')
        raise e
g = enc('pickle', N())
assert g == "cannot encode a result of type 'N' as a pickle: ValueError: nope (at x[0]; second)", g
