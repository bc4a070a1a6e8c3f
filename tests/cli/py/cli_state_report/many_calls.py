# builtins.pow called 100005 times: 5 past the list's cap.
n = 100005
one = b'h\x00K\x02K\x03\x86R0'  # BINGET 0, 2, 3, TUPLE2, REDUCE, POP
data = b'\x80\x02cbuiltins\npow\nq\x000' + one * n + b'N.'
import sys
sys.stdout.buffer.write(data)
