import ccloudpickle as cp
class Boom(Exception):
    pass
class Bad:
    def __reduce__(self):
        raise Boom('from reduce')
try:
    cp.dumps([1, Bad()])
    raise AssertionError('no error')
except Boom as e:
    # Before 3.11 the path to the culprit joins the message
    # (test_culprit.c); 3.11+ has it in a note.
    import sys
    assert str(e) == ('from reduce' if sys.version_info >= (3, 11)
                      else 'from reduce; when pickling '
                           '<list object>[1] (Bad)'), str(e)
