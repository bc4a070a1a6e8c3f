data = other(cp.dumps(f), magic=1)
s = refusal(data)
m = re.search(r'\(function: function at byte (\d+)\)', s)
assert m, s
assert 0 < int(m.group(1)) < len(data)
assert 'which Python %s cannot run' % mine in s, s
