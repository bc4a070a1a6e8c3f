s = refusal(other(cp.dumps(f)))
want = ('this pickle holds code compiled by Python 3.12, which '
        'Python %s cannot run (function: %s): load it with '
        'Python 3.12, or pickle it with portable=True'
        % (mine, where(f)))
assert s == want, (s, want)
