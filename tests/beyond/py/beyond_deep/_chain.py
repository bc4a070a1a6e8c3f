# Shared by the in-process tests: a by-value class (defined in __main__)
# and chains of it.
import sys, io, ccloudpickle, pickle
class Cell:
    def __init__(self, value, next):
        self.value = value
        self.next = next
def chain(n, bottom=None):
    head = bottom
    for i in reversed(range(n)):
        head = Cell(i, head)
    return head
def length(head):
    n = 0
    while isinstance(head, Cell):
        assert head.value == n
        n += 1
        head = head.next
    return n
assert sys.getrecursionlimit() == 1000
