import enum
class Planet(enum.Enum):
    EARTH = (5.97e24, 6.37e6)
    MARS = (6.42e23, 3.39e6)
    def __init__(self, mass, radius):
        self.mass, self.radius = mass, radius
    @property
    def density(self):
        return self.mass / self.radius ** 3
