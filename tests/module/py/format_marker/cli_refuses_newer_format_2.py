import sys
nxt = b'_format_%d_9_8_7' % (cp.FORMAT + 1)
sys.stdout.buffer.write(marked(cp.dumps(task), nxt))
