import enum, ccloudpickle
class E(enum.Enum):
    X = 1
    Y = 2
    def __init__(self, v):
        self.w = v * 10
E.plain = 5
E._member_names_ = ['X', 'plain', 'Y']
