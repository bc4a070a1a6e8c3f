f = io.BytesIO()
try:
    cp.dump([1], f, format=99)
finally:
    assert f.getvalue() == b''
