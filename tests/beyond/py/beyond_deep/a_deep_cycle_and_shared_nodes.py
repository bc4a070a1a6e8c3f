head = chain(30000)
tail = head
while tail.next is not None:
    tail = tail.next
# a ring of 30,000
tail.next = head
out = ccloudpickle.loads(ccloudpickle.dumps([head, tail]))
h, t = out
assert t.next is h and t.value == 29999
node, n = h, 0
while True:
    n += 1
    node = node.next
    if node is h:
        break
assert n == 30000
tail.next = None
