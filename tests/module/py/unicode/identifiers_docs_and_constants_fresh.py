f, G, F, d = obj
assert f('a') == 'a→1été' and f('a', ñ=2) == 'a→2été'
assert f.__name__ == 'café' and f.__doc__ == 'Döc ✓'
assert G().méthode() == 'ü3.14' and G.__doc__ == 'Klasse ✓'
assert G.__qualname__ == 'Größe'
assert F.RÖT.value == 'rot' and F['RÖT'] is F.RÖT
assert d == {'ключ': 'значение', '😀': b'\xff',
             'z\u0000z': '\udcff'}
