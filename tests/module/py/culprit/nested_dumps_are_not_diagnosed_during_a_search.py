seen = []
class Inner:
    def __reduce__(self):
        try:
            cp.dumps(locked)
        except TypeError as e:
            seen.append(culprit(e))
        raise TypeError('inner')
e = failure(lambda: cp.dumps([Inner()]))
assert culprit(e) == 'when pickling <list object>[0] (Inner)'
assert seen[0] == "when pickling locked.__globals__['LOCK'] (_thread._local)", seen
assert len(seen) > 1 and set(seen[1:]) == {None}, seen
