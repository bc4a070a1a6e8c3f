seen = []
try:
    cp.dumps([1], sign_key=key, buffer_callback=seen.append)
except ValueError as e:
    assert str(e) == 'sign_key cannot be combined with '\
        'buffer_callback: out-of-band buffers would not be '\
        'signed', e
else:
    raise AssertionError('signed with buffers')
assert seen == []
