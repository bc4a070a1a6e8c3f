# 100,000 levels of nested lists and of nested dicts (and a list that
# holds itself at the bottom), pickled and loaded at the default
# recursion limit.
import sys


def make():
    assert sys.getrecursionlimit() == 1000
    lists = ["bottom"]
    for i in range(100000):
        lists = [lists, i]
    dicts = {"end": True}
    for i in range(100000):
        dicts = {"down": dicts, "level": i}
    cyclic = []
    node = cyclic
    for _ in range(50000):
        node.append([])
        node = node[0]
    node.append(cyclic)  # the deepest list holds the outermost one
    return lists, dicts, cyclic
# --- load ---
import sys

assert sys.getrecursionlimit() == 1000
lists, dicts, cyclic = obj
node, n = lists, 100000
while n:
    n -= 1
    assert type(node) is list and len(node) == 2 and node[1] == n
    node = node[0]
assert node == ["bottom"]
node, n = dicts, 100000
while n:
    n -= 1
    assert node["level"] == n
    node = node["down"]
assert node == {"end": True}
node = cyclic
for _ in range(50000):
    assert len(node) == 1
    node = node[0]
assert node[0] is cyclic
del obj, lists, dicts, cyclic, node
