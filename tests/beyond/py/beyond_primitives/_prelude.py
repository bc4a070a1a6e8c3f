import ccloudpickle as cp, threading
class R:
    def __init__(self, f, args, items=None):
        self.f, self.args, self.items = f, args, items
    def __reduce__(self):
        return (self.f, self.args, None, None, self.items)
