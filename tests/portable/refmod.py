"""Importable on both sides of the portable matrix (matrix.py): its class
and function are pickled by reference, with or without portable=True."""


class Record:
    def __init__(self, ident, name):
        self.ident = ident
        self.name = name

    def __eq__(self, other):
        return (type(other) is Record and
                (self.ident, self.name) == (other.ident, other.name))


def double(x):
    return x * 2
