# norm(marshal_bytes) -> compact bytes; payload(code) -> the data
# ccloudpickle writes for it (the third argument of _code_unmarshal).
import ccloudpickle as cp, io, marshal, pickle, sys
NEW = sys.version_info >= (3, 11)
def norm(b):
    pos = 0
    def take(n):
        nonlocal pos
        pos += n
        return b[pos - n:pos]
    def i32(raw):
        return int.from_bytes(raw, 'little', signed=True)
    def le(n):
        return n.to_bytes(4, 'little', signed=True)
    def obj():
        t = take(1)
        if t in (b'0', b'N', b'F', b'T', b'S', b'.'):
            return t
        if t == b'i':
            return t + take(4)
        if t == b'g':
            return t + take(8)
        if t == b'y':
            return t + take(16)
        if t == b'l':
            raw = take(4)
            return t + raw + take(2 * abs(i32(raw)))
        if t == b's':
            raw = take(4)
            return t + raw + take(i32(raw))
        if t == b'u':
            n = i32(take(4))
            d = take(n)
            if not d.isascii():
                return b'u' + le(n) + d
            return (b'z' + bytes([n]) if n < 256 else b'a' + le(n)) + d
        if t in (b'(', b'['):
            n = i32(take(4))
            head = (b')' + bytes([n]) if t == b'(' and n < 256
                    else t + le(n))
            return head + b''.join(obj() for _ in range(n))
        if t in (b'<', b'>'):
            raw = take(4)
            return t + raw + b''.join(sorted(obj()
                                             for _ in range(i32(raw))))
        if t == b'{':
            out = t
            while b[pos:pos + 1] != b'0':
                out += obj() + obj()
            return out + take(1)
        if t == b'c':
            out = t + take(20 if NEW else 24)
            out += b''.join(obj() for _ in range(8)) + take(4)
            return out + b''.join(obj() for _ in range(2 if NEW else 1))
        raise ValueError('unexpected marshal type %r' % t)
    out = obj()
    assert pos == len(b)
    return out
class Rec(pickle.Unpickler):
    def find_class(self, m, n):
        if n in ('_code_unmarshal', '_code_new'):
            return lambda *a: (n, a)
        return super().find_class(m, n)
def payload(code):
    before = calls()
    data = cp.dumps(code)
    assert calls() > before, 'the pickler did not call the writer'
    return Rec(io.BytesIO(data)).load()
def check(code, where, equal=True):
    name, (version, magic, data) = payload(code)
    assert name == '_code_unmarshal', (where, name)
    want = norm(marshal.dumps(code, 2))
    assert data == want, (where, len(data), len(want))
    again = norm(marshal.dumps(marshal.loads(data), 2))
    assert again == data, (where, 'reloaded')
    assert not equal or marshal.loads(data) == code, where
    alone = direct(code)
    assert alone is None or alone == want, (where, 'direct')
    return alone is not None
