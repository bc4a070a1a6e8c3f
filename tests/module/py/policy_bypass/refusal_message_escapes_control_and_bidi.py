import unicodedata
bad = ['\x1b]0;owned\x07\x1b[2J', 'x\u202ey', 'a\u061cb',
       'a\u2066b', 'a\u200fb', 'a\x00b', 'a\u2028b',
       'a\x85b']
for m in bad:
    d = b'\x80\x04' + SG(m, 'f') + b'.'
    msg = refused(d, 'import policy refuses 1 import: ',
                  allow=[])
    text = msg.split(': ', 1)[1]
    assert text.isprintable() and text.isascii(), repr(msg)
    assert ascii(m + '.f') in text, (m, msg)
# printable names are shown as they are, non-ASCII included
d = b'\x80\x04' + SG('m\u00f3dulo', 'f') + b'.'
refused(d, ': m\u00f3dulo.f (byte ', allow=[])
