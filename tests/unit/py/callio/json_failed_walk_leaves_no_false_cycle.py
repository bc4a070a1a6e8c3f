objs = []
for i in range(200):
    objs.append([[i, {1}]])
    objs.append([[i, 1.5j]])
got = enc_many('json', objs)
assert all('Circular' not in g for g in got if isinstance(g, str)), got
ids = set()
def fresh():
    return [['x', {'y': set()}]]
cases = [fresh() if i % 2 == 0 else [['ok', {'y': i}]] for i in range(100)]
got = enc_many('json', cases)
for i, g in enumerate(got):
    if i % 2: assert g == dumps(cases[i]), g
