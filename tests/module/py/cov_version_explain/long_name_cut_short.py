def g(b):
    return b * 2
g.__qualname__ = 'q' * 500
s = refusal(other(cp.dumps([f, g])))
want = ('(functions: %s; %s): '
        % (where(f), where(g, 'q' * 400 + '...')))
assert want in s, (s, want)
