import ccloudpickle, enum
class Hashy(enum.Enum):
    RED = 1
    def __hash__(self):
        return 7
class Quiet(enum.Enum):
    RED = 1
    def describe(self):
        return 1
