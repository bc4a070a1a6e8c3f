# mk(layout, **fields) in __main__: a TYPE_CODE object, each field a
# standalone marshal (version 2: no back-references) of the value given,
# or raw bytes when the value is a Raw.
import marshal, struct
class Raw(bytes):
    pass
def enc(v):
    return bytes(v) if isinstance(v, Raw) else marshal.dumps(v, 2)
def mk(layout, argc=2, posonly=0, kwonly=0, flags=0, code=b'',
       consts=(None,), names=(), lpnames=('a', 'b'),
       lpkinds=b'\x20\x20', varnames=('a', 'b'), freevars=(),
       cellvars=(), filename='file.py', name='f', qualname='f',
       firstlineno=7, linetable=b'', exctable=b''):
    i = lambda n: struct.pack('<i', n)
    out = b'c' + i(argc) + i(posonly) + i(kwonly)
    if layout == 310:
        out += i(len(varnames) + len(cellvars))
    out += i(1) + i(flags) + enc(code) + enc(consts) + enc(names)
    if layout == 310:
        out += enc(varnames) + enc(freevars) + enc(cellvars)
    else:
        out += enc(lpnames) + enc(lpkinds)
    out += enc(filename) + enc(name)
    if layout != 310:
        out += enc(qualname)
    out += i(firstlineno) + enc(linetable)
    if layout != 310:
        out += enc(exctable)
    return out
