import sys
sys.stdout.buffer.write(cp.dumps(task))
