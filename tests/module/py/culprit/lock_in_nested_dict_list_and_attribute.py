class Conn:
    def __init__(self):
        self.conn = {'lock': threading.local()}
client = Conn()
def handler():
    return client
e = failure(lambda: cp.dumps(handler))
assert culprit(e) == "when pickling handler.__globals__['client'].conn['lock'] (_thread._local)", culprit(e)
class Obj:
    def __init__(self):
        self.items = [1, {'x': (i for i in ())}]
e = failure(lambda: cp.dumps({'a': [0, Obj()]}))
assert culprit(e) == "when pickling <dict object>['a'][1].items[1]['x'] (generator)", culprit(e)
e = failure(lambda: cp.dumps(Obj()))
assert culprit(e) == "when pickling <Obj object>.items[1]['x'] (generator)", culprit(e)
# The root itself is the culprit: nothing to add.
e = failure(lambda: cp.dumps(LOCK))
assert culprit(e) is None, culprit(e)
