import threading
class Inner:
    def __reduce__(self):
        return (ccloudpickle.loads, (ccloudpickle.dumps(chain(20000)),))
out = ccloudpickle.loads(ccloudpickle.dumps(chain(20000, Inner())))
n = 0
while out is not None:
    n += 1
    out = out.next
assert n == 40000, n
want = ccloudpickle.dumps(chain(30000))
got = []
def work():
    got.append(ccloudpickle.dumps(chain(30000)))
# Small for a thread, big enough for the first attempt:
# 3.12+ let C recursion reach its own limit (10,000 levels on
# 3.13) before any retry, and plain pickle crashes a 256 KiB
# thread there too.
threading.stack_size((256 if sys.version_info < (3, 12) else
                      32768) * 1024)
ts = [threading.Thread(target=work) for _ in range(3)]
for t in ts:
    t.start()
for t in ts:
    t.join()
assert got == [want] * 3
