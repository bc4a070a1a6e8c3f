class S:
    __slots__ = ('a', '__hidden')
    def __init__(self):
        self.a = 1
        self.__hidden = 2
    def hidden(self):
        return self.__hidden
class One:
    __slots__ = 'only'
