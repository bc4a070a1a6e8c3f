# Linked lists of 5,000 and 100,000 instances of a class defined here (so
# by value), pickled and loaded at the default recursion limit.
import sys


class Node:
    __slots__ = ("value", "next")

    def __init__(self, value, next):
        self.value = value
        self.next = next


class Cell:
    def __init__(self, value, next):
        self.value = value
        self.next = next


def chain(cls, n):
    head = None
    for i in reversed(range(n)):
        head = cls(i * 3, head)
    return head


def make():
    assert sys.getrecursionlimit() == 1000
    return chain(Cell, 5000), chain(Cell, 100000), chain(Node, 100000)
# --- load ---
import sys

assert sys.getrecursionlimit() == 1000


def walk(head, n, slots):
    # Iteratively: the check must not need the recursion it tests.
    cls = type(head)
    assert cls.__name__ == ("Node" if slots else "Cell")
    assert hasattr(cls, "__slots__") == slots
    count, node = 0, head
    while node is not None:
        assert type(node) is cls
        assert node.value == count * 3, (count, node.value)
        count += 1
        node = node.next
    assert count == n, count
    # Methods of the by-value class still work on the loaded nodes.
    extra = cls(-1, head)
    assert extra.next is head


short, long_, slotted = obj
walk(short, 5000, False)
walk(long_, 100000, False)
walk(slotted, 100000, True)
assert type(short) is type(long_)  # one class per dump
del obj, short, long_, slotted     # freeing 100,000 levels: no crash
