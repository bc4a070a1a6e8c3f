data = (b'\x80\x04\x8c\x0c' b'ccloudpickle\x94\x8c\x0d'
        b'_functoin_new\x94\x93\x94.')
for p in (data, data.replace(b'\x80\x04', b'\x80\x05')):
    try:
        cp.loads(p)
    except AttributeError as e:
        assert str(e) == ('this pickle needs '
            'ccloudpickle._functoin_new, which ccloudpickle '
            + cp.__version__ + ' does not have (written by a '
            'newer version?)'), str(e)
        assert isinstance(e.__cause__, AttributeError)
    else:
        raise AssertionError('loaded')
# a missing attribute of something else is left alone, next
# to our names too
ours = (b'\x8c\x0c' b'ccloudpickle\x94\x8c\x0e'
        b'_function_make\x94\x93\x94')
nope = b'\x8c\x04math\x8c\x04nope\x93'
for p in (b'\x80\x04' + nope + b'.',
          b'\x80\x04' + ours + nope + b'.'):
    try:
        cp.loads(p)
    except AttributeError as e:
        assert 'nope' in str(e) and 'newer' not in str(e), str(e)
    else:
        raise AssertionError('loaded')
# review i11e: an AttributeError the load meets before a
# missing name of ours is its own
late = (b'\x80\x04\x8c\x08builtins\x8c\x07getattr\x93'
        b'(J\x01\x00\x00\x00\x8c\x04nopetR'
        b'\x8c\x0c' b'ccloudpickle\x8c\x08_not_yet\x93\x86.')
try:
    cp.loads(late)
except AttributeError as e:
    assert 'nope' in str(e) and e.__cause__ is None, str(e)
else:
    raise AssertionError('loaded')
