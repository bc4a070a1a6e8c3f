import ccloudpickle as cp, pickle, math, threading, io
MK = b'_format_%d_%s' % (cp.FORMAT, cp.__version__.replace('.', '_').encode())
def make(a):
    def task(x):
        return math.floor(x) + a
    return task
task = make(3)
def marked(data, name):
    at = 2 if data[:1] == b'\x80' else 0
    if data[1:2] >= b'\x04' and at:
        op = (b'\x8c\x0cccloudpickle\x8c' + bytes([len(name)]) +
              name + b'\x930')
    else:
        op = b'cccloudpickle\n' + name + b'\n0'
    return data[:at] + op + data[at:]
