import enum, ccloudpickle
class E(enum.Enum):
    X = 1
class M(dict):
    def items(self):
        return [('X',)]
def why(cls):
    try:
        ccloudpickle.dumps(cls)
    except Exception as e:
        # before 3.11 the note is in the message
        return type(e), str(e).split('; when pickling ')[0]
E._member_map_ = M(X=E.X)
assert why(E) == (TypeError, 'bad enum _member_map_'), why(E)
E._member_map_ = {'X': object()}
t, m = why(E)
assert t is AttributeError and '_value_' in m, (t, m)
