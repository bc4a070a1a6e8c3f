import enum
ÉTÉ = 'été'
def café(x, ñ=1):
    'Döc ✓'
    return f'{x}→{ñ}' + ÉTÉ
class Größe:
    'Klasse ✓'
    π = 3.14
    def méthode(self):
        return 'ü' + str(self.π)
class Farbe(enum.Enum):
    RÖT = 'rot'
data = {'ключ': 'значение', '😀': b'\xff', 'z\u0000z': '\udcff'}
