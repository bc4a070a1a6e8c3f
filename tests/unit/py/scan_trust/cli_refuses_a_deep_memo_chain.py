import struct, sys
N = 20000
def put(i): return b'r' + struct.pack('<I', i)
def get(i): return b'j' + struct.pack('<I', i)
out = [b'\x80\x02', b'ccollections\ndeque\n', put(0), b'0']
for i in range(1, N + 1):
    out += [get(0), b')R', put(i), b'0']
for i in range(1, N):
    out += [get(i), get(i + 1), b'a0']
out += [get(1), b'.']
sys.stdout.buffer.write(b''.join(out))
