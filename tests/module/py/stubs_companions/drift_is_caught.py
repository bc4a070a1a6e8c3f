old = ast.parse(SOURCE.replace(
    'def wrap(obj: Any, keep_wrapper: bool = ...)',
    'def wrap(obj: Any)', 1))
assert [b[:2] for b in drift(old)] == [('stub', 'wrap')], drift(old)
kw = ast.parse(SOURCE.replace(
    'install_multiprocessing(enable: bool = ...,',
    'install_multiprocessing(*, enable: bool = ...,', 1))
assert [b[:2] for b in drift(kw)] == [('stub', 'install_multiprocessing')], drift(kw)
def wrap(obj, keep_wrapper=True, extra=None):
    pass
FORWARDED['wrap'] = wrap
assert sorted(b[:2] for b in drift(TREE)) == [('stub', 'wrap'), ('text signature', 'wrap')], drift(TREE)
def wrap(obj, keep_wrapper=False):
    pass
FORWARDED['wrap'] = wrap
assert [b[:2] for b in drift(TREE)] == [('text signature', 'wrap')], drift(TREE)
