Color, g, c = obj
assert g is Color.GREEN and c is Color.RED
assert Color.CRIMSON is Color.RED and Color(1) is Color.RED
assert [m.name for m in Color] == ['RED', 'GREEN']
assert list(Color.__members__) == ['RED', 'GREEN', 'CRIMSON']
assert Color.RED.warm() and not g.warm()
assert Color.__qualname__ == 'Color'
assert Color.__module__ == '__main__'
