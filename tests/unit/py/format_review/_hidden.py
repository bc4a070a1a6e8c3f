# Pickles of the int 7 carrying the marker of format 6 somewhere other
# than first; `ran` writes RAN to stderr before the marker (what must
# not run when cloudpickle-load refuses).
import struct, sys
def sbu(s): return b'\x8c' + bytes([len(s)]) + s
M, N = b'ccloudpickle', b'_format_6_9_8_7'
mark = sbu(M) + sbu(N) + b'\x930'
seven = b'K\x07.'
inner = mark + seven
framed = b'\x80\x04\x95' + struct.pack('<Q', len(inner)) + inner
memo = (b'\x80\x04' + sbu(M) + b'\x94' + sbu(N) + b'\x94\x93\x94' + b'0' + seven)
ran = (b'\x80\x04' + sbu(b'builtins') + sbu(b'print') + b'\x93' + sbu(b'RAN') + b'\x85R0' + mark + seven)
inst = b'\x80\x02(iccloudpickle\n_format_6_9_8_7\n0' + seven
