import traceback
class Mine(Exception): pass
def boom():
    raise ValueError('bad\nthing \u00e9')
info, data = err_info(boom, 0)
assert list(info) == ['type', 'message', 'traceback'], info
assert info['type'] == 'ValueError'
assert info['message'] == 'bad\nthing \u00e9'
tb = info['traceback']
assert tb.startswith('Traceback (most recent call last):\n'), tb
assert tb.endswith('ValueError: bad\nthing \u00e9\n'), tb
assert 'in boom' in tb, tb
assert data.endswith(b'\n') and data.count(b'\n') == 1, data
assert json.loads(data) == info
assert data == dumps(info), data
def mine():
    raise Mine('\ud800')
info, data = err_info(mine, 7)
assert info['type'] == '__main__.Mine', info
assert info['message'] == '\\ud800', info
assert info['record'] == 7 and list(info)[-1] == 'record'
assert json.loads(data) == info
class NoStr(Exception):
    def __str__(self): raise RuntimeError('no')
def nostr():
    raise NoStr()
info, data = err_info(nostr, 1)
assert info['message'] == '' and info['type'] == '__main__.NoStr'
assert json.loads(data) == info
