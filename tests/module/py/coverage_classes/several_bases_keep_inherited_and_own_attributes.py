shared = object()
class A:
    tag = 'A'
    both = shared
    def am(self):
        return 'a'
    def who(self):
        return 'A.who'
class B:
    tag = 'B'
    only_b = 7
    def bm(self):
        return 'b'
class C(A, B):
    both = A.both
    def who(self):
        return 'C.who+' + super().who()
class D(B, A):
    pass
