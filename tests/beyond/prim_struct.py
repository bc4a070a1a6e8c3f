# struct.Struct globals: rebuilt from their format.
import struct

HEADER = struct.Struct("<4sHI")


def pack(tag, version, size):
    return HEADER.pack(tag, version, size)


def unpack(data):
    return HEADER.unpack(data)


def make():
    return pack, unpack
# --- load ---
import struct
pack, unpack = obj
h = pack.__globals__["HEADER"]
assert type(h) is struct.Struct and h.format == "<4sHI" and h.size == 10
assert pack.__globals__["HEADER"] is unpack.__globals__["HEADER"]
data = pack(b"CPKL", 2, 7)
assert data == b"CPKL\x02\x00\x07\x00\x00\x00", data
assert unpack(data) == (b"CPKL", 2, 7)
