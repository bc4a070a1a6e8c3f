def errors(P):
    p = P(io.BytesIO(), 4)
    got = []
    for value in (5, None, [1]):
        try:
            p.memo = value
        except TypeError as e:
            got.append(str(e))
    try:
        del p.memo
    except (TypeError, AttributeError) as e:
        got.append(type(e).__name__ + ': ' + str(e))
    p.dump('still works')
    return got
mine, theirs = errors(cp.Pickler), errors(pickle.Pickler)
assert len(mine) == 4 and mine == theirs, (mine, theirs)
