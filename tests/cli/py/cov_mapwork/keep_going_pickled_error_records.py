import sys, pickle, io
b = io.BytesIO(sys.stdin.buffer.read())
out = []
while b.tell() < len(b.getbuffer()):
    out.append(pickle.load(b))
assert out[0] == 1 and out[2] == {6} and out[4] == 7, out
e = out[1]['error']
assert (e['type'], e['message'], e['record']) == ('ValueError', 'five', 2), e
assert e['traceback'].endswith('ValueError: five\n'), e
assert out[3] == {'error': {'type': 'InvalidRecord', 'message': 'not valid JSON: Expecting value: line 1 column 1 (char 0)', 'traceback': '', 'record': 4}}, out[3]
assert len(out) == 5
