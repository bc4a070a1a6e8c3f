src = '''
def f(x):
    a = (1.5, -0.0, 2j, 2**31 - 1, -2**31, 2**31, -2**31 - 1,
         2**62, 10**40, -10**40, 0, -1, b'', b'\\x00\\xff',
         'é\\udc80', 'ascii', '', 'x' * 300, 'ü' * 300,
         tuple(range(300)), (), ((),), ..., None, True, False)
    b = x in {'alpha', 'beta', 1, 2.5, b'raw', (1, 'a')}
    c = x in frozenset(range(50))
    def g(y=(1, 2)):
        return lambda: y
    return a, b, c, g
'''
check(compile(src, 'consts.py', 'exec'), 'constants')
# a name that is not valid UTF-8 without surrogatepass
code = compile('def f():\n    return 1\n', 'x.py', 'exec')
inner = code.co_consts[0].replace(co_name='bad\udc80name')
assert check(inner, 'surrogate name')
assert check(code.replace(co_filename='dir/ü/file.py'), 'non-ASCII path')
# constants put there by hand: a dict, which marshal writes
# (code with a dict constant equals no other code: compared
# by identity); a long tuple of code
check(inner.replace(co_consts=({'k': (1, 2)}, None)), 'dict',
      equal=False)
many = tuple(inner for _ in range(260))
assert check(code.replace(co_consts=many), 'tuple of 260 codes')
