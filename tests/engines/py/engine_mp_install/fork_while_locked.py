import os, threading, ccloudpickle
import _ccloudpickle_engines as E
held, done = threading.Event(), threading.Event()
def hold():
    with E._lock:
        held.set()
        done.wait()
t = threading.Thread(target=hold)
t.start()
held.wait()
pid = os.fork()
if pid == 0:
    ccloudpickle.install_multiprocessing()
    os._exit(0 if E._installed() else 3)
_, status = os.waitpid(pid, 0)
done.set()
t.join()
print('child', os.waitstatus_to_exitcode(status))
