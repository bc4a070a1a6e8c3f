import enum
class Perm(enum.Flag):
    NONE = 0
    R = 4
    W = 2
    X = 1
    RW = R | W
    ALL = 7
