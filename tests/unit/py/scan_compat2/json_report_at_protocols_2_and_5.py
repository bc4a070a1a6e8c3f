import json, sys
r = json.loads(sys.stdin.buffer.read().decode('utf-8'))
assert r['status'] == 'ok' and r['result'] == 'list'
assert r['strict_violation'] is False and r['load_calls'] == []
assert r['n_dangerous'] == 0 and r['n_other'] == 0
lt = [i for i in r['imports'] if (i['module'], i['name']) ==
      ('types', 'LambdaType')]
assert lt and lt[0]['via'] == 'builtin_type', r['imports']
assert lt[0]['category'] == 'cloudpickle'
fns = {f['qualname']: f for f in r['functions']}
assert sorted(fns) == ['<lambda>', 'Shape.area', 'Shape.make',
                       'helper', 'outer.<locals>.inner'], fns
f = fns['outer.<locals>.inner']
assert f['layout'] == 'cloudpickle' and f['name'] == 'inner'
assert f['module'] == '__main__'
assert f['filename'] == '/src/c2.py' and f['firstlineno'] == 7
assert f['python_version'] in ('3.11+', '3.8-3.10'), f
assert f['code_known'] is True
assert f['signature'] == 'inner(x, /, y=..., *rest, flag, **opts)'
assert [p['kind'] for p in f['params']] == ['positional-only',
    'regular', 'varargs', 'keyword-only', 'varkw'], f
assert sorted(f['globals']) == ['K', 'helper', 'math']
assert f['freevars'] == ['a', 'z']
assert f['n_defaults'] == 1 and f['n_kwdefaults'] == 0
l = fns['<lambda>']
assert l['signature'] == '<lambda>(p, q=..., r=...)'
assert l['n_defaults'] == 2 and l['firstlineno'] == 10
assert l['globals'] == [] and l['freevars'] == []
m = fns['Shape.make']
assert m['n_kwdefaults'] == 1 and m['firstlineno'] == 15
[c] = r['classes']
assert c['qualname'] == 'Shape', c
assert c['methods'] == ['area', 'make'], c
