import os
class Fork:
    def __reduce__(self):
        pid = os.fork()
        if pid == 0:
            ok = gc.get_threshold() == before
            cp.dumps([Seen() for _ in range(600)])
            ok = ok and gc.get_threshold() == before
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        results.append(os.waitstatus_to_exitcode(status))
        return (Fork, ())
results = []
cp.dumps([Seen() for _ in range(600)] + [Fork()])
assert results == [0], results
assert gc.get_threshold() == before
